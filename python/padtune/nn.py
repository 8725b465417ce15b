"""padtune.nn.ConstantPad1d: a drop-in for torch.nn.ConstantPad1d whose backward is padtune's."""
import torch

from . import ops


class ConstantPad1d(torch.nn.Module):
    """Pads the last dimension with a constant, as torch.nn.ConstantPad1d does (negative padding
    crops); PyTorch runs the forward, padtune the backward.

    padding: an int (both sides) or a (pad_left, pad_right) pair. value: the fill value.
    """

    def __init__(self, padding, value: float = 0.0):
        super().__init__()
        def is_int(p):
            return isinstance(p, int) and not isinstance(p, bool)

        if is_int(padding):
            padding = (padding, padding)
        padding = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,)
        if len(padding) != 2 or not all(is_int(p) for p in padding):
            raise ValueError(f"padtune.nn.ConstantPad1d: padding must be an int or two ints, got {padding!r}")
        self.padding = padding
        self.value = float(value)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ops.constant_pad1d(x, self.padding[0], self.padding[1], self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"
