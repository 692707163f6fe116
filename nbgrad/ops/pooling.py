"""Max and average pooling over windows: ``max_pool1d``/``max_pool2d`` (with their
indices) and ``avg_pool1d``/``avg_pool2d``, each one block.

Both look at the windows of ``windows.py`` as a strided view of the padded input, with
no loop over pixels:

* max pooling pads with ``-inf`` (an integer dtype's minimum), takes each window's
  ``argmax`` (the first maximum, or the last NaN, in row-major order, as PyTorch's loop
  finds it) and returns the index of that element in its input plane (``h * W + w``).
  Its backward puts each gradient at its index, summing where windows share a maximum
  (one ``bincount``, no ``np.add.at``); the backward of that is reading the gradient
  back at the indices, an indexing, so double backward works;
* average pooling sums each window and divides by its size: the kernel's, the part of it
  inside the padded input (``ceil_mode``'s last window is cut), or inside the input
  itself (``count_include_pad=False``), or ``divisor_override``. Its backward spreads each
  gradient over its window: ``fold`` of the gradient divided by that size (``conv.py``),
  whose own backward is ``unfold``.

A 1-d pool is the 2-d one on a height of 1, then squeezed (``SqueezeBackward1``), as
PyTorch computes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .conv import fold_columns
from .declare import op
from .operands import tensor_operand
from .windows import Window, over_taps

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["avg_pool1d", "avg_pool2d", "max_pool1d", "max_pool2d"]


# -- the arguments --------------------------------------------------------------------------
def _ints(value, dims, op, name):
    """An int or a sequence of 1 or ``dims`` ints, as ``dims`` ints (PyTorch's error else)."""
    values = (value,) * dims if isinstance(value, int) else tuple(value)
    if len(values) == 1:
        values = values * dims
    if len(values) != dims or not all(isinstance(v, int) for v in values):
        if dims == 1:
            raise RuntimeError(f"{op}() {name} must be None, an int, list of ints, or tuple of "
                               f"ints of size 1 but got size {len(values)}")
        raise RuntimeError(f"{op}: {name} must either be a single int, or a tuple of two ints")
    return values


def _as_2d(values, fill):
    return values if len(values) == 2 else (fill, *values)


def pool_window(op, x, dims, kernel_size, stride, padding, dilation, ceil_mode):
    """The windows of a pool over a batched 4-d array, checked as PyTorch checks them
    (``pool2d_shape_check``); ``op`` names the pool in the messages."""
    kernel = _ints(kernel_size, dims, op, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else _ints(
        stride, dims, op, "stride")
    padding = _ints(padding, dims, op, "padding")
    dilation = _ints(dilation, dims, op, "dilation")
    kernel, stride = _as_2d(kernel, 1), _as_2d(stride, 1)
    padding, dilation = _as_2d(padding, 0), _as_2d(dilation, 1)
    if 0 in stride:
        raise RuntimeError("stride should not be zero")
    if min(kernel) <= 0:
        raise RuntimeError("kernel size should be greater than zero, but got "
                           f"kH: {kernel[0]} kW: {kernel[1]}")
    if min(stride) < 0:
        raise RuntimeError("stride should be greater than zero, but got "
                           f"dH: {stride[0]} dW: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero, but got "
                           f"dilationH: {dilation[0]} dilationW: {dilation[1]}")
    if min(padding) < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    for p, k, d in zip(padding[::-1], kernel[::-1], dilation[::-1]):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError("pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    if op.startswith("max") and (padding[1] > kernel[1] // 2 or padding[0] > kernel[0] // 2):
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, "
                           f"kH = {kernel[0]}")
    window = Window(kernel, stride, dilation, tuple((p, p) for p in padding), x.shape[2:],
                    ceil_mode)
    if min(window.out_size) < 1:
        c = x.shape[1]
        raise RuntimeError(
            f"Given input size: ({c}x{x.shape[2]}x{x.shape[3]}). Calculated output size: "
            f"({c}x{window.out_size[0]}x{window.out_size[1]}). Output size is too small")
    return window


def batched(op, input, dims, message):
    """The input as a 2-d pool takes it, ``([N,] C, H, W)``, and a function that turns the
    result back: a 1-d pool squeezes the height of 1 it added, as PyTorch does."""
    x = tensor_operand(input, op)
    if x.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(message)
    if x._data.dtype == np.bool_:
        raise NotImplementedError(f'"{op.replace("1d", "2d")}" not implemented for '
                                  f"'{dtypes.scalar_type_name(x._data.dtype)}'")
    if dims == 1:
        x = x.unsqueeze(-2)
    if 0 in x._data.shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(input.shape)}")
    return x, (lambda out: out.squeeze(-2)) if dims == 1 else (lambda out: out)


def as_4d(data):
    """An unbatched ``(C, H, W)`` array as a batch of one."""
    return data if data.ndim == 4 else data[None]


def leading(shape):
    """How many planes an array of ``shape`` holds (all but its last two dims)."""
    return int(np.prod(shape[:-2]))


# -- max pooling --------------------------------------------------------------------------------
def window_argmax(taps):
    """The position of each window's maximum along the last axis: the first one, or the
    last NaN (PyTorch's loop takes a NaN, and every later NaN, as the new maximum)."""
    xp = array_module(taps)
    first = taps.argmax(axis=-1)
    if taps.dtype.kind == "f":
        nan = xp.isnan(taps)
        if nan.any():
            last_nan = taps.shape[-1] - 1 - nan[..., ::-1].argmax(axis=-1)
            first = xp.where(nan.any(axis=-1), last_nan, first)
    return first


def lowest(dtype):
    """The padding of max pooling: below every value of ``dtype``."""
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _offset_max(view, kh, kw):
    """Each window's maximum and the first kernel offset that holds it. The windows are
    copied once with the kernel offset first, ``(kh * kw, N, C, Ho, Wo)``, so that every
    later pass reads whole contiguous planes: measured 2.4x faster than passes over the
    strided views (whose rows are ``Wo`` numbers), and than an argmax along a last axis of
    ``kh * kw``. ``(values, None)`` where a NaN is the maximum (the caller then follows
    ``window_argmax``'s rule for NaN)."""
    xp = array_module(view)
    n, c, _, _, ho, wo = view.shape
    taps = xp.ascontiguousarray(view.transpose(2, 3, 0, 1, 4, 5)).reshape(kh * kw, n, c, ho, wo)
    values = taps.max(axis=0)
    if values.dtype.kind == "f" and xp.isnan(values).any():
        return values, None
    best = xp.full(values.shape, kh * kw - 1, dtype=np.int64)
    for offset in range(kh * kw - 2, -1, -1):  # the last write is the first maximum
        xp.copyto(best, offset, where=taps[offset] == values)
    return values, best


def max_with_indices(x, window):
    """Each window's maximum and the index of that element in its plane (arrays)."""
    xp = array_module(x)
    n, c, h, w = x.shape
    kh, kw = window.kernel
    ho, wo = window.out_size
    view = window.view(x, lowest(x.dtype))  # (N, C, kh, kw, Ho, Wo), no copy
    values, best = _offset_max(view, kh, kw)
    if best is None:  # a NaN: the rule of window_argmax, over a copy of the windows
        taps = view.transpose(0, 1, 4, 5, 2, 3).reshape(n, c, ho, wo, kh * kw)
        best = window_argmax(taps)
        values = xp.take_along_axis(taps, best[..., None], axis=-1)[..., 0]
    (sh, sw), (dh, dw) = window.stride, window.dilation
    if not any(window.pads[0]) and not any(window.pads[1]):  # every window inside: no clip
        corners = (xp.arange(ho, dtype=np.int64)[:, None] * sh) * w + xp.arange(wo) * sw
        offsets = xp.asarray([(k // kw) * dh * w + (k % kw) * dw for k in range(kh * kw)],
                             dtype=np.int64)
        return values, corners + offsets[best]
    top, left = window.pads[0][0], window.pads[1][0]
    # The element's row and column; a window whose every value is the lowest may pick
    # the padding, which PyTorch never reads: clipped, that is its first element inside.
    rows = xp.clip(xp.arange(ho)[:, None] * sh - top + (best // kw) * dh, 0, h - 1)
    cols = xp.clip(xp.arange(wo) * sw - left + (best % kw) * dw, 0, w - 1)
    return values, (rows * w + cols).astype(np.int64)


def scatter(grad, indices, input_shape, distinct=False):
    """``grad`` (N, C, ...) added into zeros of ``input_shape`` at ``indices`` (N, C, ...)
    per plane; gradients that meet at one element add up (one ``bincount``). With
    ``distinct`` (no two indices of a plane alike: windows that do not overlap) each is
    written once, in place, measured 1.3x to 2x faster than ``bincount``'s float64 sums."""
    xp = array_module(grad)
    planes, plane = leading(indices.shape), int(np.prod(input_shape[-2:]))
    per_plane = int(np.prod(indices.shape[-2:]))
    where = indices.reshape(planes, per_plane) + (xp.arange(planes) * plane)[:, None]
    if distinct:
        out = xp.zeros(input_shape, dtype=grad.dtype)
        out.reshape(-1)[where.ravel()] = grad.ravel()
        return out
    total = xp.bincount(where.ravel(), weights=grad.reshape(planes, per_plane).ravel(),
                        minlength=planes * plane)
    return total.astype(grad.dtype, copy=False).reshape(input_shape)


class GatherAtIndices(Node):
    """The backward of a max pool's backward: the gradient read back at the indices (an
    indexing, itself differentiable)."""

    __slots__ = ("indices", "plane")

    def apply(self, grad):
        planes = leading(self.indices.shape)
        rows = Tensor._make(array_module(self.indices).arange(planes)[:, None])
        at = Tensor._make(self.indices.reshape(planes, int(np.prod(self.indices.shape[-2:]))))
        return (grad.reshape(planes, self.plane)[rows, at].reshape(self.indices.shape),)


def scatter_to_input(grad, indices, input_shape, node_cls):
    """``scatter`` as an operation recording ``node_cls`` (a ``GatherAtIndices``)."""
    out = Tensor._make(scatter(grad._data, indices, input_shape))
    if should_record(grad):
        record(node_cls, out, (grad,), indices=indices, plane=int(np.prod(input_shape[-2:])))
    return out


def _max_pool(op, dims, input, kernel_size, stride, padding, dilation, ceil_mode,
              return_indices, message):
    x, restore = batched(op, input, dims, message)
    data = as_4d(x._data)
    window = pool_window(op, data, dims, kernel_size, stride, padding,
                         dilation, ceil_mode)
    values, indices = max_with_indices(data, window)
    if x._data.ndim == 3:
        values, indices = values[0], indices[0]
    out = Tensor._make(values)
    if should_record(x):
        record(MaxPool2DWithIndicesBackward0, out, (x,), saved=(x,), indices=indices,
               input_shape=x._data.shape, distinct=window.disjoint())
    out = restore(out)
    return (out, restore(Tensor._make(indices))) if return_indices else out


class MaxPool2DWithIndicesBackward0(Node):
    """Each gradient goes to the element its index names (``scatter``); ``distinct``:
    no two indices of a plane alike."""

    __slots__ = ("distinct", "indices", "input_shape")
    double_backward: "type[Node]"  # the node of its own backward, assigned once defined

    def apply(self, grad):
        self.saved_values  # noqa: B018  (the input, saved to check its version, as PyTorch's)
        return (scatter_to_input(grad, self.indices, self.input_shape, self.double_backward),)

    def fast_apply(self, grad):
        self.saved_values  # noqa: B018
        return (Tensor._make(scatter(grad._data, self.indices, self.input_shape,
                                     self.distinct)),)


class MaxPool2DWithIndicesBackwardBackward0(GatherAtIndices):
    __slots__ = ()


MaxPool2DWithIndicesBackward0.double_backward = MaxPool2DWithIndicesBackwardBackward0


@op(MaxPool2DWithIndicesBackward0, MaxPool2DWithIndicesBackwardBackward0, method=False,
    functional=True)
def max_pool2d(input: Tensor, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None = None,
               padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The maximum of each window of a batch of images.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or unbatched ``(C, H, W)``.
    kernel_size : int or tuple of two ints
    stride : int or tuple of two ints, optional
        ``kernel_size`` by default.
    padding : int or tuple of two ints
        ``-inf`` around the input, at most half the (dilated) kernel.
    dilation : int or tuple of two ints
    ceil_mode : bool
        Count a last, partial window (unless it starts in the padding).
    return_indices : bool
        Also return where each maximum is: ``h * W + w`` in its input plane (int64).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, Ho, Wo)``; the node is ``MaxPool2DWithIndicesBackward0``. Of tied values
        the first (row-major) is the maximum; a NaN is the maximum (the last NaN).
    """
    return _max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation,
                    ceil_mode, return_indices,
                    "non-empty 3D or 4D (batch mode) tensor expected for input")


@op(method=False, functional=True)
def max_pool1d(input: Tensor, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None = None,
               padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The maximum of each window of a batch of sequences: ``max_pool2d`` on a height of 1.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or unbatched ``(C, L)``.
    kernel_size, stride, padding, dilation, ceil_mode, return_indices
        As for ``max_pool2d``, one value each; indices are positions in ``L``.

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, Lo)``, through ``SqueezeBackward1`` as in PyTorch.
    """
    x = tensor_operand(input, "max_pool1d")
    return _max_pool("max_pool1d", 1, x, kernel_size, stride, padding, dilation, ceil_mode,
                    return_indices,
                    "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                    f"batch size for input, but got:{list(x.shape)}")


# -- average pooling ----------------------------------------------------------------------------
def divisors(window, count_include_pad, divisor_override, xp):
    """What each window's sum is divided by, ``(Ho, Wo)``: the part of the window inside
    the padded input, or inside the input itself, or ``divisor_override``."""
    if divisor_override is not None:
        return divisor_override
    sizes = []
    for length, (before, after), k, s, out in zip(window.in_size, window.pads, window.kernel,
                                                  window.stride, window.out_size):
        start = xp.arange(out) * s - before
        end = xp.minimum(start + k, length + after)
        if not count_include_pad:
            start, end = xp.maximum(start, 0), xp.minimum(end, length)
        sizes.append(end - start)
    return sizes[0][:, None] * sizes[1]


def _avg_pool(op, dims, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
             divisor_override, message):
    x, restore = batched(op, input, dims, message)
    data = as_4d(x._data)
    window = pool_window(op, data, dims, kernel_size, stride, padding,
                         1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    xp = array_module(data)
    divisor = divisors(window, count_include_pad, divisor_override, xp)
    sums = over_taps(window.view(data), xp.add)
    if data.dtype.kind == "f":
        values = (sums / divisor).astype(data.dtype, copy=False)
    else:  # integers divide as C++ divides them (towards zero)
        values = xp.trunc(sums / divisor).astype(data.dtype)
    out = Tensor._make(values if x._data.ndim == 4 else values[0])
    if should_record(x):
        record(AvgPool2DBackward0, out, (x,), saved=(x,), window=window, input_shape=x._data.shape,
               divisor=divisor if isinstance(divisor, int) else divisor.astype(data.dtype))
    return restore(out)


class AvgPool2DBackward0(Node):
    """Each gradient divided by its window's size and spread over the window (``fold``)."""

    __slots__ = ("divisor", "input_shape", "window")

    def apply(self, grad):
        self.saved_values  # noqa: B018  (the input, saved to check its version, as PyTorch's)
        planes, length = leading(self.input_shape), int(np.prod(self.window.out_size))
        divisor = self.divisor if isinstance(self.divisor, int) else Tensor._make(self.divisor)
        taps = (grad / divisor).reshape(planes, 1, length)
        taps = taps.expand(planes, int(np.prod(self.window.kernel)), length)
        return (fold_columns(taps, self.window).reshape(self.input_shape),)

    def fast_apply(self, grad):
        self.saved_values  # noqa: B018
        xp = array_module(grad._data)
        share = (grad._data / self.divisor).astype(grad._data.dtype, copy=False)
        share = share.reshape(leading(self.input_shape), 1, 1, 1, *self.window.out_size)
        taps = xp.broadcast_to(share, (*share.shape[:2], *self.window.kernel, *share.shape[4:]))
        return (Tensor._make(self.window.fold(taps).reshape(self.input_shape)),)


@op(AvgPool2DBackward0, export=False, method=False, functional=True)
def avg_pool2d(input: Tensor, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None = None,
               padding: int | Sequence[int] = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window of a batch of images.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or unbatched ``(C, H, W)``.
    kernel_size : int or tuple of two ints
    stride : int or tuple of two ints, optional
        ``kernel_size`` by default.
    padding : int or tuple of two ints
        Zeros around the input, at most half the kernel.
    ceil_mode : bool
        Count a last, partial window (unless it starts in the padding).
    count_include_pad : bool
        Divide by the window's size including the padding (PyTorch's default), or only
        by the elements of the input it covers. A window cut by ``ceil_mode`` counts
        only what lies inside the padded input either way.
    divisor_override : int, optional
        Divide every sum by this instead.

    Returns
    -------
    Tensor
        ``(N, C, Ho, Wo)``, node ``AvgPool2DBackward0``.
    """
    return _avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                    count_include_pad, divisor_override,
                    "non-empty 3D or 4D (batch mode) tensor expected for input")


@op(method=False, functional=True)
def avg_pool1d(input: Tensor, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None = None,
               padding: int | Sequence[int] = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """The mean of each window of a batch of sequences: ``avg_pool2d`` on a height of 1.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or unbatched ``(C, L)``.
    kernel_size, stride, padding, ceil_mode, count_include_pad
        As for ``avg_pool2d``, one value each.

    Returns
    -------
    Tensor
        ``(N, C, Lo)``, through ``SqueezeBackward1`` as in PyTorch.
    """
    x = tensor_operand(input, "avg_pool1d")
    return _avg_pool("avg_pool1d", 1, x, kernel_size, stride, padding, ceil_mode,
                    count_include_pad, None,
                    f"Expected 2 to 3 dimensions, but got {x.dim()}-dimensional tensor for "
                    "argument #1 'self' (while checking arguments for avg_pool1d)")
