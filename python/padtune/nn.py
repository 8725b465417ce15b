"""padtune.nn.ConstantPad1d: a drop-in for torch.nn.ConstantPad1d, both directions through padtune."""
import torch

from . import ops
from ._tools import fill_value, integer


class ConstantPad1d(torch.nn.Module):
    """Pads the last dimension with a constant, as torch.nn.ConstantPad1d does (negative padding
    crops); padtune runs the forward where it serves it (padtune.explain_pad), and the backward.

    padding: an int (both sides) or a (pad_left, pad_right) pair. value: the fill value.
    """

    def __init__(self, padding, value: float = 0.0):
        super().__init__()
        def pad(p):  # ValueError, as this module has always raised for a bad padding
            try:
                return integer(p, "padtune.nn.ConstantPad1d: padding")
            except TypeError as e:
                raise ValueError(str(e)) from None

        if not isinstance(padding, (tuple, list)):
            padding = (pad(padding),) * 2
        if len(padding) != 2:
            raise ValueError(f"padtune.nn.ConstantPad1d: padding must be an int or two ints, got {tuple(padding)!r}")
        self.padding = tuple(pad(p) for p in padding)
        self.value = fill_value(value, "padtune.nn.ConstantPad1d: value")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ops.constant_pad1d(x, self.padding[0], self.padding[1], self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"
