"""padtune for PyTorch: 1-D constant padding, both directions, through padtune's tuned kernels.

    import padtune
    padtune.enable()                              # every eager constant pad it serves: F.pad, nn.ConstantPad1d, ...
    with padtune.enabled(): ...                   # the same, for a block
    y = padtune.constant_pad1d(x, 3, 5)          # forward and backward by padtune
    pad = padtune.nn.ConstantPad1d((3, 5))        # a drop-in for torch.nn.ConstantPad1d
    dx = padtune.ops.constant_pad1d_backward(dy, 3, 5)   # the op itself
    print(padtune.explain(dy, 3, 5))              # which kernel, from which table, and why
    print(padtune.explain_pad(x, (3, 5)))         # whether enable() serves F.pad(x, (3, 5)), and why

docs/python.md has the details: dtypes, strides, streams, CUDA graphs, torch.compile, tuning.
"""
from . import nn, ops
from ._enable import disable, enable, enabled, enabled_counts, explain_pad, explain_slice_backward, is_enabled
from ._tools import explain, fill_value as _fill_value, integer as _integer, set_autotune, set_results_path, tune, version

__version__ = version()


def constant_pad1d(x, pad_left: int, pad_right: int, value: float = 0.0):
    """Pads x's last dimension with `value` (negative pads crop), like
    torch.nn.functional.pad(x, (pad_left, pad_right), value=value); padtune runs the forward where it
    serves it (padtune.explain_pad) and the backward."""
    pad_left = _integer(pad_left, "padtune.constant_pad1d: pad_left")
    pad_right = _integer(pad_right, "padtune.constant_pad1d: pad_right")
    return ops.constant_pad1d(x, pad_left, pad_right, _fill_value(value, "padtune.constant_pad1d: value"))


__all__ = ["constant_pad1d", "disable", "enable", "enabled", "enabled_counts", "explain", "explain_pad",
           "explain_slice_backward", "is_enabled", "nn", "ops", "set_autotune", "set_results_path", "tune", "version",
           "__version__"]
