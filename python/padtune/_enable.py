"""padtune as the kernel of every eager constant pad: aten::constant_pad_nd (F.pad, nn.ConstantPad1d,
nn.ZeroPad1d, nn.ConstantPad2d/3d, forward and backward) and aten::slice_backward along the last
dimension (the backward of x[..., a:b]). Registered in C++ (python/csrc/aten_pads.cpp)."""
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

    The first call registers padtune's kernels with PyTorch's dispatcher: make it before other
    threads run PyTorch ops, as any torch.library registration. After that, enable() and disable()
    turn them on and off, from any thread, at any time.

    cpu: CPU tensors too, through padtune's host backend (exact and slow: for tests); an enable()
    without it leaves CPU tensors as they were.
    replace_others: take over from a kernel another library registered for these ops (refused
    otherwise, naming it, with nothing changed); disable() gives it back (unregistering, so again
    with no other thread running the op).
    """
    return _ops._set_enabled(True, bool(cpu), bool(replace_others)) != 0


def disable() -> bool:
    """PyTorch's own constant pads again, once every open `padtune.enabled()` block has ended.
    Returns whether padtune was enabled."""
    return _ops._set_enabled(False) != 0


def is_enabled() -> bool:
    """Whether padtune serves eager constant pads (on CUDA tensors; CPU too if enabled so)."""
    return _ops._enabled() != 0


@contextlib.contextmanager
def enabled(*, cpu: bool = False, replace_others: bool = False):
    """`with padtune.enabled():` padtune serves eager constant pads inside the block. Blocks count, in
    every thread and in any order: padtune serves while one is open or enable() holds it, so leaving
    the last block brings back what enable() and disable() set (enabled or not, with or without cpu)."""
    keys = None
    try:  # entered inside the try: an interrupt right after the entry still lets the block go
        keys = _ops._enter_enabled(bool(cpu), bool(replace_others))
        yield
    finally:
        if keys is not None:
            _ops._exit_enabled(keys)


def enabled_counts() -> dict:
    """Calls of the enabled kernels (and of padtune.constant_pad1d's forward) since the process
    started: served by padtune, fallen back to PyTorch, and re-entered (always 0: a kernel that
    reached itself again through the dispatcher)."""
    served, fell_back, reentered = _ops._enabled_counts()
    return {"served": served, "fell_back": fell_back, "reentered": reentered}


def explain_pad(x, pad, value=0.0) -> str:
    """What an enabled padtune does with F.pad(x, pad, value=value): the first line says whether
    padtune serves it or PyTorch does, and why; served, the kernel lines of padtune.explain follow.
    (CPU tensors: with enable(cpu=True).)"""
    _check_tensor(x, "padtune.explain_pad: x")
    pad = [integer(p, f"padtune.explain_pad: pad[{k}]") for k, p in enumerate(_sequence(pad, "padtune.explain_pad: pad"))]
    if not isinstance(value, (int, float)):
        raise TypeError(f"padtune.explain_pad: value must be a number, got {type(value).__name__}")
    if x.device.type not in ("cuda", "cpu"):
        return f"PyTorch's own: a tensor on {x.device}: padtune serves cuda (and cpu) tensors\n"
    return _words(_ops.describe_pad(x, pad, value), x)


def explain_slice_backward(grad, input_sizes, dim, start, end, step=1) -> str:
    """What an enabled padtune does with aten::slice_backward(grad, input_sizes, dim, start, end,
    step), the backward of x.narrow/x[..., start:end]: as explain_pad."""
    _check_tensor(grad, "padtune.explain_slice_backward: grad")
    sizes = [integer(s, f"padtune.explain_slice_backward: input_sizes[{k}]")
             for k, s in enumerate(_sequence(input_sizes, "padtune.explain_slice_backward: input_sizes"))]
    if grad.device.type not in ("cuda", "cpu"):
        return f"PyTorch's own: a tensor on {grad.device}: padtune serves cuda (and cpu) tensors\n"
    return _words(_ops.describe_slice_backward(grad, sizes, integer(dim, "dim"), integer(start, "start"),
                                               integer(end, "end"), integer(step, "step")), grad)


def _check_tensor(t, what):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{what} must be a tensor, got {type(t).__name__}")


def _sequence(v, what):
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise TypeError(f"{what} must be a sequence of integers, got {type(v).__name__}")
    return list(v)


def _words(described: str, t) -> str:
    head, _, numbers = described.partition("\n")
    if not numbers:
        return head + "\n"
    rows, L, pad_left, pad_right, zeros = (int(n) for n in numbers.split())
    if zeros or t.device.type not in ("cuda", "cpu"):
        return head + "\n"
    return head + "\n" + _explain_problem(rows, L, pad_left, pad_right, t.dtype, t.device)
