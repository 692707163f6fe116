"""Pooling layers: ``MaxPool1d/2d``, ``AvgPool1d/2d`` and the adaptive ones, each the
layer form of its function in ``nn.functional`` (``nbgrad/ops/pooling.py`` and
``adaptive.py``), with PyTorch's attributes and ``repr``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import functional as F
from .module import Module

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AvgPool1d", "AvgPool2d", "MaxPool1d", "MaxPool2d"]


class _MaxPoolNd(Module):
    """What the max pools share: their settings and ``extra_repr``."""

    def __init__(self, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] | None = None, padding: int | tuple[int, ...] = 0,
                 dilation: int | tuple[int, ...] = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        """The settings, as PyTorch shows them.

        Returns
        -------
        str
        """
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
                f", dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """The maximum of each window of ``(N, C, L)`` or ``(C, L)`` inputs (``F.max_pool1d``).

    Parameters
    ----------
    kernel_size, stride, padding, dilation : int or tuple of one int
        ``stride`` is ``kernel_size`` by default.
    return_indices : bool
        Also return where each maximum is (its position in ``L``).
    ceil_mode : bool
        Count a last, partial window.
    """

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        """``F.max_pool1d`` of ``input`` with this layer's settings.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor or (Tensor, Tensor)
            The maxima, and with ``return_indices`` their positions (int64).
        """
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """The maximum of each window of ``(N, C, H, W)`` or ``(C, H, W)`` inputs
    (``F.max_pool2d``).

    Parameters
    ----------
    kernel_size, stride, padding, dilation : int or tuple of two ints
        ``stride`` is ``kernel_size`` by default.
    return_indices : bool
        Also return where each maximum is (``h * W + w``).
    ceil_mode : bool
        Count a last, partial window.
    """

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        """``F.max_pool2d`` of ``input`` with this layer's settings.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor or (Tensor, Tensor)
            The maxima, and with ``return_indices`` their positions (int64).
        """
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class _AvgPoolNd(Module):
    """What the average pools share: ``extra_repr``."""

    def extra_repr(self) -> str:
        """The settings, as PyTorch shows them.

        Returns
        -------
        str
        """
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """The mean of each window of ``(N, C, L)`` or ``(C, L)`` inputs (``F.avg_pool1d``).

    Parameters
    ----------
    kernel_size, stride, padding : int or tuple of one int
        ``stride`` is ``kernel_size`` by default (kept as 1-tuples, as PyTorch keeps them).
    ceil_mode : bool
        Count a last, partial window.
    count_include_pad : bool
        Count the padding in each window's divisor.
    """

    def __init__(self, kernel_size: int | tuple[int], stride: int | tuple[int] | None = None,
                 padding: int | tuple[int] = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        """``F.avg_pool1d`` of ``input`` with this layer's settings.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


def _single(value: int | tuple[int, ...] | list[int]) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class AvgPool2d(_AvgPoolNd):
    """The mean of each window of ``(N, C, H, W)`` or ``(C, H, W)`` inputs (``F.avg_pool2d``).

    Parameters
    ----------
    kernel_size, stride, padding : int or tuple of two ints
        ``stride`` is ``kernel_size`` by default.
    ceil_mode : bool
        Count a last, partial window.
    count_include_pad : bool
        Count the padding in each window's divisor.
    divisor_override : int, optional
        Divide every window's sum by this instead.
    """

    def __init__(self, kernel_size: int | tuple[int, int],
                 stride: int | tuple[int, int] | None = None, padding: int | tuple[int, int] = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        """``F.avg_pool2d`` of ``input`` with this layer's settings.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptivePool(Module):
    """What the adaptive pools share: ``output_size`` and ``extra_repr``."""

    def __init__(self, output_size: int | tuple[int | None, ...] | None) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        """The settings, as PyTorch shows them.

        Returns
        -------
        str
        """
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """The mean over adaptive windows giving ``output_size`` (``F.adaptive_avg_pool1d``).

    Parameters
    ----------
    output_size : int or tuple of one int
        ``Lo``, the output's length.
    """

    def forward(self, input: Tensor) -> Tensor:
        """``F.adaptive_avg_pool1d`` of ``input`` (``(N, C, L)`` or ``(C, L)``).

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    """The mean over adaptive windows giving ``output_size`` (``F.adaptive_avg_pool2d``).

    Parameters
    ----------
    output_size : int or tuple of two (int or None)
        ``(Ho, Wo)`` (an int for both); ``None`` keeps that dimension's size.
    """

    def forward(self, input: Tensor) -> Tensor:
        """``F.adaptive_avg_pool2d`` of ``input`` (``(N, C, H, W)`` or ``(C, H, W)``).

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return F.adaptive_avg_pool2d(input, self.output_size)


class _AdaptiveMaxPool(_AdaptivePool):
    """What the adaptive max pools share: ``return_indices``."""

    def __init__(self, output_size: int | tuple[int | None, ...] | None,
                 return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """The maximum over adaptive windows giving ``output_size`` (``F.adaptive_max_pool1d``).

    Parameters
    ----------
    output_size : int or tuple of one int
        ``Lo``, the output's length.
    return_indices : bool
        Also return where each maximum is (its position in ``L``).
    """

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        """``F.adaptive_max_pool1d`` of ``input`` with this layer's settings.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor or (Tensor, Tensor)
            The maxima, and with ``return_indices`` their positions (int64).
        """
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """The maximum over adaptive windows giving ``output_size`` (``F.adaptive_max_pool2d``).

    Parameters
    ----------
    output_size : int or tuple of two (int or None)
        ``(Ho, Wo)`` (an int for both); ``None`` keeps that dimension's size.
    return_indices : bool
        Also return where each maximum is (``h * W + w`` in its plane).
    """

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        """``F.adaptive_max_pool2d`` of ``input`` with this layer's settings.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor or (Tensor, Tensor)
            The maxima, and with ``return_indices`` their positions (int64).
        """
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)
