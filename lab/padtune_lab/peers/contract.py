"""The contract's test case for the peers' scripts: random non-zero dy of a shape and dtype, and the
dx the contract gives for it, built from slices (PyTorch's own indexing, not a peer's kernel)."""
import torch

DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}
BITS = {"f32": torch.int32, "f64": torch.int64, "f16": torch.int16, "bf16": torch.int16}  # compare bits, not values


def case(B, C, L, pad_left, pad_right, dtype):
    """(dy, ref) on the GPU: dy random and non-zero (an unwritten zero could pass for a copied one),
    ref[b, c, i] = dy[b, c, i + pad_left] where that lies in the row, else 0."""
    OL = pad_left + L + pad_right
    dy = torch.randn(B, C, OL, device="cuda", dtype=torch.float32).to(DTYPES[dtype])
    dy[dy == 0] = 1
    ref = torch.zeros(B, C, L, device="cuda", dtype=dy.dtype)
    lo, hi = max(0, -pad_left), min(L, OL - pad_left)
    if hi > lo:
        ref[..., lo:hi] = dy[..., lo + pad_left:hi + pad_left]
    return dy, ref
