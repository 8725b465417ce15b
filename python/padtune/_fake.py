"""Fake (meta) implementations of padtune's ops, for FakeTensor, torch.compile and torch.export.
dx's strides follow the ops' C++ rule (python/csrc/layout.cpp): dy's memory order when dy is
non-overlapping and dense, else contiguous."""
import torch
import torch._prims_common as _prims

# PyTorch 2.x renamed is_non_overlapping_and_dense to is_non_overlapping_and_dense_or_false.
_dense = getattr(_prims, "is_non_overlapping_and_dense_or_false", None) or _prims.is_non_overlapping_and_dense


def _dx_order(dy):
    if dy.is_contiguous() or not _dense(dy):
        return list(range(dy.dim()))
    strides = dy.stride()
    return sorted(range(dy.dim()), key=lambda d: -strides[d])  # stable, as std::stable_sort


def _check(name, t, pad_left, pad_right):
    torch._check(t.dim() >= 1, lambda: f"padtune.{name}: a scalar has no dimension to pad")


@torch.library.register_fake("padtune::constant_pad1d_backward")
def _(dy, pad_left, pad_right):
    _check("ops.constant_pad1d_backward", dy, pad_left, pad_right)
    L = dy.shape[-1] - pad_left - pad_right
    torch._check(L >= 0, lambda: "padtune.ops.constant_pad1d_backward: dy's last dimension is shorter than "
                                 "pad_left + pad_right")
    torch._check(dy.dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16),
                 lambda: f"padtune.ops.constant_pad1d_backward: dy has dtype {dy.dtype}")
    return torch.empty_permuted((*dy.shape[:-1], L), _dx_order(dy), dtype=dy.dtype, device=dy.device)


@torch.library.register_fake("padtune::constant_pad1d")
def _(x, pad_left, pad_right, value=0.0):
    _check("constant_pad1d", x, pad_left, pad_right)
    return torch.ops.aten.constant_pad_nd.default(x, [pad_left, pad_right], value)
