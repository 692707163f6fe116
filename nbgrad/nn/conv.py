"""``Conv1d`` and ``Conv2d``: convolution layers, initialised as PyTorch initialises them.

The weight has shape ``(out_channels, in_channels / groups, *kernel_size)``; weight and
bias start uniform on ``[-1/sqrt(fan_in), 1/sqrt(fan_in)]`` with
``fan_in = in_channels / groups * prod(kernel_size)`` (``kaiming_uniform_(a=sqrt(5))``,
as for ``Linear``). ``padding_mode`` other than ``'zeros'`` pads the input first
(reflected, replicated or wrapped around), then convolves without padding, as PyTorch does.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import creation
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from ..backend import device
    from ..dtypes import dtype

__all__ = ["Conv1d", "Conv2d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _tuple(value: int | tuple[int, ...] | list[int], dims: int) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims


class _ConvNd(Module):
    """What ``Conv1d`` and ``Conv2d`` share: the checks, the parameters, ``extra_repr``."""

    dims = 0  # the number of spatial dimensions (set by each layer)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] = 1, padding: str | int | tuple[int, ...] = 0,
                 dilation: int | tuple[int, ...] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: device | str | None = None,
                 dtype: dtype | None = None) -> None:
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        dims = self.dims
        stride, dilation = _tuple(stride, dims), _tuple(dilation, dims)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _tuple(padding, dims)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, dims)
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = False
        self.output_padding = (0,) * dims
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = Parameter(creation.empty(
            (out_channels, in_channels // groups, *self.kernel_size), dtype=dtype,
            device=device))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight and bias uniform on ``[-1/sqrt(fan_in), 1/sqrt(fan_in)]``, as PyTorch's."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _pads(self):
        """``(before, after)`` per spatial dimension, for a ``padding_mode`` that pads first."""
        if self.padding == "valid":
            return ((0, 0),) * self.dims
        if self.padding == "same":
            totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            return tuple((t // 2, t - t // 2) for t in totals)
        return tuple((p, p) for p in self.padding)

    def _conv_forward(self, input, weight, bias, conv):
        if self.padding_mode == "zeros":
            return conv(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)
        padded = _pad_by_mode(input, self._pads(), self.padding_mode)
        return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


def _pad_by_mode(input, pads, mode):
    """``input`` padded along its last ``len(pads)`` dimensions by reading it at indices
    outside its range reflected (``reflect``), clamped (``replicate``) or wrapped around
    (``circular``): one indexing per dimension (the last first, as ``F.pad`` checks them),
    differentiable as indexing is."""
    out = input
    for axis, (before, after) in reversed(tuple(zip(range(-len(pads), 0), pads))):
        size = input.shape[axis]
        index = creation.arange(-before, size + after, device=input.device)
        if mode == "reflect":
            if max(before, after) >= size:
                raise RuntimeError(
                    "Argument #4: Padding size should be less than the corresponding input "
                    f"dimension, but got: padding ({before}, {after}) at dimension "
                    f"{axis + input.dim()} of "
                    f"input {list(input.shape)}")
            index = (size - 1) - ((size - 1) - index.abs()).abs()
        elif mode == "replicate":
            index = index.clamp(0, size - 1)
        else:
            if max(before, after) > size:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            index = index.remainder(size)
        out = out[(Ellipsis, index) + (slice(None),) * (-axis - 1)]
    return out


class Conv1d(_ConvNd):
    """A 1-d convolution over ``(N, C, L)`` (or unbatched ``(C, L)``) inputs.

    Parameters
    ----------
    in_channels, out_channels : int
    kernel_size, stride, dilation : int or tuple of one int
    padding : int, tuple of one int, ``'valid'`` or ``'same'``
        ``'same'`` (stride 1 only) pads so that the output has the input's size, the odd
        element after.
    groups : int
        Must divide both channel counts.
    bias : bool
    padding_mode : ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``
    device : nbgrad.device or str, optional
    dtype : nbgrad.dtype, optional
        Of ``weight`` and ``bias``.

    Raises
    ------
    ValueError
        For a bad ``groups``, ``padding`` or ``padding_mode`` (PyTorch's messages).
    """

    dims = 1

    def forward(self, input: Tensor) -> Tensor:
        """The convolution of ``input`` with ``weight``, plus ``bias`` (``F.conv1d``).

        Parameters
        ----------
        input : Tensor
            ``(N, C, L)`` or ``(C, L)``, ``C`` being ``in_channels``.

        Returns
        -------
        Tensor
        """
        return self._conv_forward(input, self.weight, self.bias, F.conv1d)


class Conv2d(_ConvNd):
    """A 2-d convolution over ``(N, C, H, W)`` (or unbatched ``(C, H, W)``) inputs.

    Parameters
    ----------
    in_channels, out_channels : int
    kernel_size, stride, dilation : int or tuple of two ints
    padding : int, tuple of two ints, ``'valid'`` or ``'same'``
        ``'same'`` (stride 1 only) pads so that the output has the input's size, the odd
        element after.
    groups : int
        Must divide both channel counts.
    bias : bool
    padding_mode : ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``
    device : nbgrad.device or str, optional
    dtype : nbgrad.dtype, optional
        Of ``weight`` and ``bias``.

    Raises
    ------
    ValueError
        For a bad ``groups``, ``padding`` or ``padding_mode`` (PyTorch's messages).
    """

    dims = 2

    def forward(self, input: Tensor) -> Tensor:
        """The convolution of ``input`` with ``weight``, plus ``bias`` (``F.conv2d``).

        Parameters
        ----------
        input : Tensor
            ``(N, C, H, W)`` or ``(C, H, W)``, ``C`` being ``in_channels``.

        Returns
        -------
        Tensor
        """
        return self._conv_forward(input, self.weight, self.bias, F.conv2d)
