"""padtune as the kernel of every eager constant pad: aten::constant_pad_nd (F.pad, nn.ConstantPad1d,
nn.ZeroPad1d, nn.ConstantPad2d/3d, forward and backward) and aten::slice_backward along the last
dimension (the backward of x[..., a:b]). Registered in C++ (python/src/aten_pads.cpp)."""
import contextlib

import torch

from . import _native  # noqa: F401  (registers the ops)
from ._tools import _explain_problem, integer

_ops = torch.ops.padtune


def enable(*, cpu: bool = False, replace_others: bool = False) -> bool:
    """From now on padtune computes every eager constant pad it serves on CUDA tensors: pads of the
    last dimension (the others zero), crops too, any rank, float32/64, float16, bfloat16, fill value
    0, layouts it runs without a copy; and the backward of a slice of the last dimension with step 1.
    Everything else runs PyTorch's own implementation, with the same result. Returns whether it was
    enabled before; a second call changes nothing.

    cpu: CPU tensors too, through padtune's host backend (exact and slow: for tests).
    replace_others: take over from a kernel another library registered for these ops (refused
    otherwise, naming it); disable() gives it back.
    """
    return _ops._set_enabled(True, bool(cpu), bool(replace_others)) != 0


def disable() -> bool:
    """PyTorch's own constant pads again. Returns whether padtune was enabled."""
    return _ops._set_enabled(False) != 0


def is_enabled() -> bool:
    """Whether padtune serves eager constant pads (on CUDA tensors; CPU too if enabled so)."""
    return _ops._enabled() != 0


@contextlib.contextmanager
def enabled(*, cpu: bool = False, replace_others: bool = False):
    """`with padtune.enabled():` padtune serves eager constant pads inside the block; on leaving, the
    state before it comes back (enabled or not, with or without cpu)."""
    before = _ops._enabled()
    _ops._set_enabled(True, bool(cpu), bool(replace_others))
    try:
        yield
    finally:
        _ops._set_enabled(before != 0, bool(before & 2), True)


def enabled_counts() -> dict:
    """Calls of the enabled kernels (and of padtune.constant_pad1d's forward) since the process
    started: served by padtune, fallen back to PyTorch, and re-entered (always 0: a kernel that
    reached itself again through the dispatcher)."""
    served, fell_back, reentered = _ops._enabled_counts()
    return {"served": served, "fell_back": fell_back, "reentered": reentered}


def explain_pad(x, pad, value=0.0) -> str:
    """What an enabled padtune does with F.pad(x, pad, value=value): the first line says whether
    padtune serves it or PyTorch does, and why; served, the kernel lines of padtune.explain follow."""
    pad = [integer(p, f"padtune.explain_pad: pad[{k}]") for k, p in enumerate(pad)]
    return _words(_ops.describe_pad(x, pad, value), x)


def explain_slice_backward(grad, input_sizes, dim, start, end, step=1) -> str:
    """What an enabled padtune does with aten::slice_backward(grad, input_sizes, dim, start, end,
    step), the backward of x.narrow/x[..., start:end]: as explain_pad."""
    sizes = [integer(s, f"padtune.explain_slice_backward: input_sizes[{k}]") for k, s in enumerate(input_sizes)]
    return _words(_ops.describe_slice_backward(grad, sizes, integer(dim, "dim"), integer(start, "start"),
                                               integer(end, "end"), integer(step, "step")), grad)


def _words(described: str, t) -> str:
    head, _, numbers = described.partition("\n")
    if not numbers:
        return head + "\n"
    rows, L, pad_left, pad_right, zeros = (int(n) for n in numbers.split())
    if zeros or t.device.type not in ("cuda", "cpu"):
        return head + "\n"
    return head + "\n" + _explain_problem(rows, L, pad_left, pad_right, t.dtype, t.device)
