"""Helpers shared by padtune's CPU and GPU tests: bit patterns, byte-exact comparisons, references."""
import random

import torch
import torch.nn.functional as F

DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
BITS = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16, torch.bfloat16: torch.int16}

# Bit patterns planted into random data: NaNs with payloads (quiet, signalling, negative), -0.0,
# infinities, the smallest and largest denormals, the largest finite value.
_SPECIALS = {
    torch.float16: [0x7E01, 0x7C01, 0xFE55, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x03FF, 0x7BFF],
    torch.bfloat16: [0x7FC1, 0x7F81, 0xFFA5, 0x8000, 0x7F80, 0xFF80, 0x0001, 0x007F, 0x7F7F],
    torch.float32: [0x7FC00001, 0x7F800001, 0xFFA5A5A5, 0x80000000, 0x7F800000, 0xFF800000, 0x00000001,
                    0x007FFFFF, 0x7F7FFFFF],
    torch.float64: [0x7FF8000000000001, 0x7FF0000000000001, 0xFFFA5A5A5A5A5A5A, 0x8000000000000000,
                    0x7FF0000000000000, 0xFFF0000000000000, 0x0000000000000001, 0x000FFFFFFFFFFFFF,
                    0x7FEFFFFFFFFFFFFF],
}


def _signed(v, bits):
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def bits(t):
    """t's elements as integers of the same width (for byte-exact comparisons, NaNs included)."""
    return t.view(BITS[t.dtype])


def assert_same(actual, expected, context=""):
    """Same shape, dtype, device and bytes (NaN payloads, -0.0 and all)."""
    where = f" ({context})" if context else ""
    assert actual.shape == expected.shape, f"shape {tuple(actual.shape)} != {tuple(expected.shape)}{where}"
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}{where}"
    assert actual.device == expected.device, f"device {actual.device} != {expected.device}{where}"
    a, e = bits(actual), bits(expected)
    if not torch.equal(a, e):
        diff = (a != e).nonzero()
        first = tuple(diff[0].tolist())
        raise AssertionError(f"{diff.shape[0]} of {a.numel()} elements differ{where}; first at {first}: "
                             f"{a[first].item():#x} != {e[first].item():#x}")


def storage_bits(t):
    """Every element of t's storage (not only t's), as integers: to check that nothing around t changed."""
    return bits(torch.empty(0, dtype=t.dtype, device=t.device).set_(t.untyped_storage()))


def random_bits(shape, dtype, gen, device=None):
    """Fresh random bytes as `dtype` (every bit pattern: NaNs, infinities, denormals), with special
    values planted; contiguous; made on gen's device, returned on `device` (default: gen's)."""
    shape = tuple(shape)
    n = 1
    for s in shape:
        n *= s
    ibits = BITS[dtype]
    width = torch.iinfo(ibits).bits
    raw = torch.randint(-(1 << 15), 1 << 15, (n * (width // 16),), dtype=torch.int16, generator=gen,
                        device=gen.device)
    t = raw.view(ibits)
    if n:
        specials = torch.tensor([_signed(v, width) for v in _SPECIALS[dtype]], dtype=ibits, device=gen.device)
        where = torch.randint(0, n, (min(n, 2 * len(specials)),), generator=gen, device=gen.device)
        t[where] = specials[torch.arange(where.numel(), device=gen.device) % specials.numel()]
    return t.view(dtype).reshape(shape).to(device if device is not None else gen.device)


def random_values(shape, dtype, gen, device=None):
    """Fresh random normal values (no NaNs: for gradients that go through arithmetic)."""
    t = torch.randn(tuple(shape), generator=gen, dtype=torch.float64, device=gen.device).to(dtype)
    return t.to(device if device is not None else gen.device)


def reference_backward(dy, pad_left, pad_right):
    """dx by plain PyTorch on integer views: dx[..., i] = dy[..., i + pad_left] inside dy, else 0."""
    OL = dy.shape[-1]
    L = OL - pad_left - pad_right
    assert L >= 0
    src = bits(dy.contiguous())
    out = torch.zeros((*dy.shape[:-1], L), dtype=src.dtype, device=dy.device)
    lo, hi = max(0, -pad_left), min(L, OL - pad_left)  # dx indices that read dy
    if hi > lo:
        out[..., lo:hi] = src[..., lo + pad_left:hi + pad_left]
    return out.view(dy.dtype)


def fpad_grads(x, pad_left, pad_right, value, grad):
    """F.pad's forward output and its autograd gradient of x for the output gradient `grad`."""
    x = x.detach().clone().requires_grad_(True)
    y = F.pad(x, (pad_left, pad_right), value=value)
    y.backward(grad)
    return y.detach(), x.grad


def padtune_grads(fn, x, grad):
    x = x.detach().clone().requires_grad_(True)
    y = fn(x)
    y.backward(grad)
    return y.detach(), x.grad


def random_case(rng, rank, max_rows=24, max_len=48, fpad=True):
    """A random (x shape, pad_left, pad_right) of this rank: pads in [-L, 9], negative ones included,
    crops to nothing included (OL = 0). With `fpad`, only pads F.pad takes (it crops the input side by
    side: L + min(pad_left, 0) + min(pad_right, 0) >= 0); else any with OL = L + pad_left + pad_right >= 0."""
    lead = []
    rows = 1
    for _ in range(rank - 1):
        s = rng.choice([1, 2, 3, 4, 5]) if rows < max_rows else 1
        lead.append(s)
        rows *= s
    L = rng.choice([0, 1, 2, 3, 7, 16, 31, rng.randint(0, max_len)])
    pad_left = rng.randint(-L, 9)
    least = -(L + min(pad_left, 0)) if fpad else -(L + pad_left)
    pad_right = least if rng.random() < 0.1 else rng.randint(least, 9)
    return (*lead, L), pad_left, pad_right


def random_cases(seed, count, ranks=(1, 2, 3, 4), **kw):
    rng = random.Random(seed)
    return [random_case(rng, rng.choice(ranks), **kw) for _ in range(count)]


def expected_dx_strides(dy, L):
    """The op's documented rule: dx has dy's memory order (dims by decreasing stride, ties in
    order) when dy is non-overlapping and dense, else it is contiguous (and so when dy is contiguous,
    whatever the strides of its size-1 dims)."""
    shape = (*dy.shape[:-1], L)
    dense = not dy.is_contiguous() and _is_dense(dy)
    order = sorted(range(dy.dim()), key=lambda d: -dy.stride(d)) if dense else list(range(dy.dim()))
    strides = [0] * dy.dim()
    step = 1
    for d in reversed(order):
        strides[d] = step
        step *= max(shape[d], 1)  # as PyTorch: a size-0 dim strides like a size-1 one
    return tuple(strides)


def _is_dense(t):
    # A permutation of t's dims (size-1 dims aside) is contiguous.
    dims = sorted((d for d in range(t.dim()) if t.shape[d] != 1), key=lambda d: t.stride(d))
    step = 1
    for d in dims:
        if t.stride(d) != step:
            return False
        step *= t.shape[d]
    return True


# --- dy layouts and the path each takes (python/csrc/layout.cpp) -------------------------------------

KIND_LINE = {
    "dense": "dy: in place (dense)",
    "pitched": "dy: in place (rows at a pitch)",
    "copy": "dy: copied to contiguous first",
    "zeros": "dy: not read (every element of dx is padding: zeros, no kernel)",
    "aligned copy": "dy: copied to aligned memory first (its address is not a multiple of its element size)",
}


def _view_of(storage_len, shape, strides, offset):
    return lambda r: r(storage_len).as_strided(shape, strides, offset)


# (id, dy maker, pad_left, pad_right, the path explain must name; None: pitched or copy). A maker
# takes r(*shape), which gives a fresh contiguous tensor of random bits (make_dy below).
LAYOUTS = [
    ("contiguous", lambda r: r(2, 3, 20), 2, 3, "dense"),
    ("contiguous_crop", lambda r: r(2, 3, 20), -2, -3, "dense"),
    ("channels_last_3d", lambda r: r(2, 20, 3).transpose(1, 2), 2, 3, "dense"),
    ("channels_last_3d_crop", lambda r: r(2, 20, 3).transpose(1, 2), -3, 1, "dense"),
    ("channels_last_4d", lambda r: r(2, 3, 4, 20).contiguous(memory_format=torch.channels_last), -1, 4, "dense"),
    ("last_dim_outermost", lambda r: r(20, 2, 3).permute(1, 2, 0), 4, -2, "dense"),
    ("transpose_leading", lambda r: r(3, 2, 20).transpose(0, 1), 1, 2, "dense"),
    ("transpose_leading_crop", lambda r: r(3, 2, 20).transpose(0, 1), -5, -5, "dense"),
    ("size1_stride_tie", lambda r: r(20, 3).t().unsqueeze(0), 2, -1, "dense"),
    ("narrow_middle", lambda r: r(4, 5, 40).narrow(-1, 7, 20), 2, 3, "pitched"),
    ("narrow_middle_nopad", lambda r: r(4, 5, 40).narrow(-1, 7, 20), 0, 0, "pitched"),
    ("narrow_start_neg_left", lambda r: r(4, 5, 40).narrow(-1, 0, 20), -2, 3, "pitched"),
    ("narrow_end_neg_right", lambda r: r(4, 5, 40).narrow(-1, 20, 20), 2, -3, "pitched"),
    ("narrow_middle_neg_left", lambda r: r(4, 5, 40).narrow(-1, 7, 20), -2, 3, None),
    ("narrow_middle_neg_both", lambda r: r(4, 5, 40).narrow(-1, 7, 20), -3, -4, None),
    ("narrow_start_neg_right", lambda r: r(4, 5, 40).narrow(-1, 0, 20), 2, -3, None),
    ("narrow_in_larger_storage_neg_left", _view_of(200, (3, 20), (30, 1), 5), -2, 3, "pitched"),
    ("narrow_rows_past_storage", _view_of(70, (3, 10), (30, 1), 0), 1, 1, "pitched"),  # the last row apart
    ("narrow_rows_past_storage_offset", _view_of(75, (3, 10), (30, 1), 5), 1, 1, "pitched"),
    ("narrow_rows_past_storage_neg_right", _view_of(75, (3, 10), (30, 1), 5), 1, -2, "copy"),
    ("narrow_rows_fit_storage_offset", _view_of(95, (3, 10), (30, 1), 5), 1, 1, "pitched"),
    ("narrow_two_leading_dims", lambda r: r(2, 3, 40)[1:, :, 5:25], 3, 2, "pitched"),
    ("narrow_size1_dim", lambda r: r(3, 30)[:, None, 5:25], 1, 4, "pitched"),
    ("narrow_ol1_step", lambda r: r(6, 40)[:, 3:5:2], 0, 0, "pitched"),
    ("narrow_ol1_step_crop", lambda r: r(6, 40)[:, 3:5:2], -2, -3, None),
    ("narrow_uneven_pitch", lambda r: r(2, 4, 40)[:, 1:3, 5:25], 2, 3, "copy"),
    ("narrow_transposed_leading", lambda r: r(3, 2, 40).transpose(0, 1)[..., 5:25], 2, 3, "copy"),
    ("slice_step", lambda r: r(4, 5, 40)[..., ::2], 2, 3, "copy"),
    ("slice_step_crop", lambda r: r(4, 5, 40)[..., 1::3], -2, -1, "copy"),
    ("expand_leading", lambda r: r(1, 3, 20).expand(4, 3, 20), 2, 3, "copy"),
    ("expand_last", lambda r: r(2, 3, 1).expand(2, 3, 20), -1, 3, "copy"),
    ("unfold_overlapping_rows", lambda r: r(2, 50).unfold(-1, 20, 5), 2, 3, "copy"),
    ("channels_last_narrow", lambda r: r(2, 30, 3).transpose(1, 2)[..., 5:25], 2, 3, "copy"),
    ("rank1_step", lambda r: r(40)[::2], 3, -4, "copy"),
    ("rank1_slice", lambda r: r(40)[5:25], 3, -4, "dense"),
]
LAYOUT_IDS = [c[0] for c in LAYOUTS]


def make_dy(make, dtype, gen, device=None):
    """dy from a maker of LAYOUTS: its storage random bits of `dtype`."""
    return make(lambda *shape: random_bits(shape, dtype, gen, device))


def random_strided(rng, gen, dtype, device=None, max_last=12):
    """dy as a random view of a random storage: any rank 1-4, sizes 0-5, strides 0-200 (overlapping,
    broadcast, gapped), a uniform pitch or a dense permutation now and then, offsets and slack in the
    storage; values random bits. Every layout path of the op, in odd combinations."""
    rank = rng.randint(1, 4)
    sizes = [rng.choice([0, 1, 1, 2, 3, 4, 5]) for _ in range(rank - 1)] + [rng.randint(0, max_last)]
    strides = [rng.choice([0, rng.randint(1, 40), rng.randint(1, 200)]) for _ in range(rank - 1)]
    strides.append(rng.choice([1, 1, 1, 1, 2, 0, rng.randint(0, 30)]))
    if rng.random() < 0.4:  # rows at one pitch
        step = sizes[-1] + rng.randint(0, 10)
        for d in range(rank - 2, -1, -1):
            strides[d] = step
            step *= max(sizes[d], 1)
        strides[-1] = 1
    if rng.random() < 0.2:  # a dense permutation
        perm = list(range(rank))
        rng.shuffle(perm)
        step = 1
        for d in reversed(perm):
            strides[d] = step
            step *= max(sizes[d], 1)
    extent = 1 + sum((s - 1) * st for s, st in zip(sizes, strides)) if all(s > 0 for s in sizes) else 0
    offset = rng.randint(0, 30)
    slack = rng.choice([0, 0, rng.randint(0, 20)])
    storage = random_bits((offset + extent + slack,), dtype, gen, device)
    return storage.as_strided(sizes, strides, offset)


def random_pads(rng, OL):
    """Pads with L = OL - pad_left - pad_right >= 0, negative ones included."""
    pl = rng.randint(-8, OL + 2)
    pr = rng.randint(-8, max(-8, OL - pl))
    if OL - pl - pr < 0:
        pr = OL - pl
    return pl, pr


_KIND_OF_PLAN = {0: "dense", 1: "pitched", 2: "copy", 3: "zeros", 4: "aligned copy"}


def layout_line(dy, pad_left, pad_right):
    """explain's first line for dy, from the describe op alone (no dispatcher, no table)."""
    return KIND_LINE[_KIND_OF_PLAN[torch.ops.padtune.describe.default(dy, pad_left, pad_right)[0]]]


def check_layout_case(dy, pad_left, pad_right, kind, ctx="", before_op=None):
    """The layout plan names the path `kind` ("any": no check; None: pitched or copy); the op's dx equals the
    reference bit for bit, with the strides of the rule; dy and the storage around it are left as
    they were. before_op runs just before the op. Returns dx and explain's first line."""
    import padtune

    storage = storage_bits(dy).clone()
    line = layout_line(dy, pad_left, pad_right)
    if kind is None:
        assert line in (KIND_LINE["pitched"], KIND_LINE["copy"]), (line, ctx)
    elif kind != "any":
        assert line == KIND_LINE[kind], (line, ctx)
    if before_op is not None:
        before_op()
    dx = padtune.ops.constant_pad1d_backward(dy, pad_left, pad_right)
    assert_same(dx, reference_backward(dy, pad_left, pad_right), ctx)
    assert dx.stride() == expected_dx_strides(dy, dy.shape[-1] - pad_left - pad_right), ctx
    assert torch.equal(storage_bits(dy), storage), ctx
    return dx, line


def check_against_fpad(x, pad_left, pad_right, value, grad, ctx="", before_op=None):
    """padtune.constant_pad1d's y and dx (through autograd, grad as dy) equal F.pad's bit for bit.
    before_op runs just before padtune's step (e.g. to poison the allocator). Returns F.pad's dx."""
    import padtune

    y_ref, dx_ref = fpad_grads(x, pad_left, pad_right, value, grad)
    if before_op is not None:
        before_op()
    y, dx = padtune_grads(lambda t: padtune.constant_pad1d(t, pad_left, pad_right, value), x, grad)
    assert_same(y, y_ref, ctx)
    assert_same(dx, dx_ref, ctx)
    return y_ref, dx_ref
