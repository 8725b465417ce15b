"""The B,C,L,pad_left,pad_right argument of the peers' scripts, checked before anything is loaded
(no PyTorch here: a bad shape is refused by argparse's error, exit 2)."""


def parse(ap, text):
    """(B, C, L, pad_left, pad_right) from text, or ap.error naming what is wrong."""
    try:
        B, C, L, pl, pr = map(int, text.split(","))
    except ValueError:
        ap.error(f"the shape must be five integers B,C,L,pad_left,pad_right, got '{text}'")
    if min(B, C, L) < 1 or pl + L + pr < 0:
        ap.error(f"the shape needs B, C, L >= 1 and pad_left + L + pad_right >= 0, got {text}")
    return B, C, L, pl, pr
