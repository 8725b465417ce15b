"""padtune's torch ops (namespace torch.ops.padtune), registered in C++ (python/csrc/ops.cpp).

constant_pad1d_backward(dy, pad_left, pad_right) -> dx
    dx[..., i] = dy[..., i + pad_left] where 0 <= i + pad_left < OL, else 0; OL = dy.shape[-1] and
    dx.shape[-1] = OL - pad_left - pad_right. Pads may be negative. CUDA tensors run padtune's tuned
    kernel on the current stream; CPU tensors run padtune's host backend (the same kernels emulated
    on the CPU: exact, but slow; it is what the CPU tests check). float32, float64, float16 and
    bfloat16, any rank >= 1, any strides: dense layouts (contiguous, channels-last) and rows at a
    pitch (a narrow or slice of the last dimension) run in place, anything else is copied to
    contiguous first. dx has dy's memory order when dy is dense, else it is contiguous.

constant_pad1d(x, pad_left, pad_right, value=0.0) -> y
    PyTorch's constant_pad_nd on the last dimension, whose autograd backward is the op above.
"""
import torch

from . import _native  # noqa: F401  (registers the ops)
from . import _fake  # noqa: F401  (their fake implementations)

constant_pad1d_backward = torch.ops.padtune.constant_pad1d_backward.default
constant_pad1d = torch.ops.padtune.constant_pad1d.default
