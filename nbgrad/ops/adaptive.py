"""Adaptive pooling: ``adaptive_avg_pool1d/2d`` and ``adaptive_max_pool1d/2d``, each one
block. The output size is given; the windows follow from it.

Along a dimension of ``n`` elements pooled to ``m``, window ``i`` covers
``floor(i n / m) <= k < ceil((i + 1) n / m)`` (PyTorch's ``start_index``/``end_index``):
windows of varying size that may overlap.

* The average over those windows is linear, a matrix ``P`` (``m x n``, ``1/size`` inside
  each window): ``out = P_h @ x @ P_w^T`` is two matrix products, and its backward is
  ``P_h^T @ grad @ P_w``, two more, themselves differentiable.
* The maximum reads each window as the largest window padded with repeats of its last
  element (a repeat never changes a maximum, nor which element is first), one gather,
  then ``argmax`` as max pooling does; its backward is max pooling's (``pooling.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .operands import tensor_operand
from .pooling import GatherAtIndices, MaxPool2DWithIndicesBackward0, window_argmax

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d",
           "adaptive_max_pool2d"]


def bounds(size, out, xp):
    """Where each of the ``out`` windows over ``size`` elements starts and ends."""
    i = xp.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def averaging(size, out, dtype, xp):
    """The ``(out, size)`` matrix that averages each window."""
    start, end = bounds(size, out, xp)
    k = xp.arange(size)
    inside = (k >= start[:, None]) & (k < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def output_sizes(op, value, input, dims=2):
    """``output_size`` as ``dims`` ints, ``None`` meaning the input's own size."""
    values = (value,) * dims if isinstance(value, int) or value is None else tuple(value)
    if len(values) != dims:
        raise RuntimeError(f"{op}: output_size must be {dims}")
    sizes = tuple(input.shape[-dims + i] if v is None else v for i, v in enumerate(values))
    if min(sizes) < 0:
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to "
                           f"0 but received {{{', '.join(map(str, sizes))}}}")
    return sizes


def checked_input(op, input, sizes_message):
    """The input of a 2-d adaptive pool: 3-d or 4-d, no empty plane, a dtype it takes."""
    x = tensor_operand(input, op)
    if x.dim() not in (3, 4):
        raise RuntimeError(sizes_message)
    for d in range(x.dim() - 3, x.dim()):
        if x.shape[d] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(x.shape)} with "
                               f"dimension {d} being empty")
    return x


def _refuse(op, x, kinds):
    if x._data.dtype.kind in kinds:
        raise NotImplementedError(f'"{op}" not implemented for '
                                  f"'{dtypes.scalar_type_name(x._data.dtype)}'")


def _one_dim(op, input):
    x = tensor_operand(input, op)
    if x.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {x.dim()}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for {op})")
    return x


def _one_size(op, value):
    values = (value,) if isinstance(value, int) else tuple(value)
    if len(values) != 1:
        raise RuntimeError(f"{op}: output_size must be 1")
    return values[0]


# -- average ------------------------------------------------------------------------------------
class AdaptiveAvgPool2DBackward0(Node):
    """``P_h^T @ grad @ P_w``: each gradient shared out over its window."""

    __slots__ = ("cols", "rows")

    def apply(self, grad):
        self.saved_values  # noqa: B018  (the input, saved to check its version, as PyTorch's)
        rows, cols = Tensor._make(self.rows), Tensor._make(self.cols)
        return (rows.t().matmul(grad).matmul(cols),)

    def fast_apply(self, grad):
        self.saved_values  # noqa: B018
        return (Tensor._make(self.rows.T @ grad._data @ self.cols),)


@op(AdaptiveAvgPool2DBackward0, export=False, method=False, functional=True)
def adaptive_avg_pool2d(input: Tensor, output_size: int | None | Sequence[int | None]) -> Tensor:
    """The mean over windows chosen to give ``output_size`` (PyTorch's adaptive windows).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or unbatched ``(C, H, W)``, floating point.
    output_size : int or tuple of two (int or None)
        ``(Ho, Wo)``; ``None`` keeps that dimension's size.

    Returns
    -------
    Tensor
        ``(N, C, Ho, Wo)``, node ``AdaptiveAvgPool2DBackward0``; for an output of
        ``1 x 1`` it is ``input.mean((-1, -2), keepdim=True)`` (``MeanBackward1``), as in
        PyTorch.
    """
    x = tensor_operand(input, "adaptive_avg_pool2d")
    sizes = output_sizes("adaptive_avg_pool2d", output_size, x)
    if sizes == (1, 1):
        return x.mean((-1, -2), keepdim=True)
    x = checked_input("adaptive_avg_pool2d", x, "adaptive_avg_pool2d(): Expected 3D or 4D "
                      f"tensor, but got {list(x.shape)}")
    _refuse("adaptive_avg_pool2d", x, "biu")
    data = x._data
    xp = array_module(data)
    rows = averaging(data.shape[-2], sizes[0], data.dtype, xp)
    cols = averaging(data.shape[-1], sizes[1], data.dtype, xp)
    out = Tensor._make(rows @ (data @ cols.T))
    if should_record(x):
        record(AdaptiveAvgPool2DBackward0, out, (x,), saved=(x,), rows=rows, cols=cols)
    return out


@op(method=False, functional=True)
def adaptive_avg_pool1d(input: Tensor, output_size: int | Sequence[int]) -> Tensor:
    """The mean over adaptive windows of a batch of sequences: ``adaptive_avg_pool2d`` on a
    height of 1.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or unbatched ``(C, L)``.
    output_size : int or tuple of one int

    Returns
    -------
    Tensor
        ``(N, C, Lo)``, through ``SqueezeBackward1`` as in PyTorch.
    """
    x = _one_dim("adaptive_avg_pool1d", input)
    size = _one_size("adaptive_avg_pool1d", output_size)
    return adaptive_avg_pool2d(x.unsqueeze(-2), (1, size)).squeeze(-2)


# -- maximum ------------------------------------------------------------------------------------
def adaptive_max_with_indices(data, sizes):
    """Each adaptive window's maximum and its index in the plane (arrays)."""
    xp = array_module(data)
    h, w = data.shape[-2:]
    picks = []
    for size, out in zip((h, w), sizes):
        start, end = bounds(size, out, xp)
        widest = int((end - start).max()) if out else 1
        picks.append(xp.minimum(start[:, None] + xp.arange(widest), end[:, None] - 1))
    rows, cols = picks
    kh, kw = rows.shape[1], cols.shape[1]
    taps = data[..., rows[:, :, None, None], cols[None, None, :, :]]  # (..., Ho, kh, Wo, kw)
    lead = taps.ndim - 4
    taps = taps.transpose(*range(lead), lead, lead + 2, lead + 1, lead + 3)
    taps = taps.reshape(*taps.shape[:lead + 2], kh * kw)
    best = window_argmax(taps)
    values = xp.take_along_axis(taps, best[..., None], axis=-1)[..., 0]
    at_row = rows[xp.arange(sizes[0])[:, None], best // kw]
    at_col = cols[xp.arange(sizes[1]), best % kw]
    return values, (at_row * w + at_col).astype(np.int64)


class AdaptiveMaxPool2DBackward0(MaxPool2DWithIndicesBackward0):
    """Max pooling's backward: each gradient goes to the element its index names."""

    __slots__ = ()


class AdaptiveMaxPool2DBackwardBackward0(GatherAtIndices):
    __slots__ = ()


AdaptiveMaxPool2DBackward0.double_backward = AdaptiveMaxPool2DBackwardBackward0


@op(AdaptiveMaxPool2DBackward0, AdaptiveMaxPool2DBackwardBackward0, export=False,
    method=False, functional=True)
def adaptive_max_pool2d(input: Tensor, output_size: int | None | Sequence[int | None],
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The maximum over windows chosen to give ``output_size`` (PyTorch's adaptive windows).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or unbatched ``(C, H, W)``.
    output_size : int or tuple of two (int or None)
    return_indices : bool
        Also return where each maximum is: ``h * W + w`` in its plane (int64).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, Ho, Wo)``, node ``AdaptiveMaxPool2DBackward0``; ties and NaN as in
        ``max_pool2d``.
    """
    x = tensor_operand(input, "adaptive_max_pool2d")
    x = checked_input("adaptive_max_pool2d", x, "adaptive_max_pool2d(): Expected 3D or 4D "
                      f"tensor, but got: {list(x.shape)}")
    _refuse("adaptive_max_pool2d", x, "b")
    sizes = output_sizes("adaptive_max_pool2d", output_size, x)
    values, indices = adaptive_max_with_indices(x._data, sizes)
    out = Tensor._make(values)
    if should_record(x):
        record(AdaptiveMaxPool2DBackward0, out, (x,), saved=(x,), indices=indices,
               input_shape=x._data.shape, distinct=False)
    return (out, Tensor._make(indices)) if return_indices else out


@op(method=False, functional=True)
def adaptive_max_pool1d(input: Tensor, output_size: int | Sequence[int],
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The maximum over adaptive windows of a batch of sequences:
    ``adaptive_max_pool2d`` on a height of 1.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or unbatched ``(C, L)``.
    output_size : int or tuple of one int
    return_indices : bool
        Also return each maximum's position in ``L``.

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, Lo)``, through ``SqueezeBackward1`` as in PyTorch.
    """
    x = _one_dim("adaptive_max_pool1d", input)
    size = _one_size("adaptive_max_pool1d", output_size)
    out = adaptive_max_pool2d(x.unsqueeze(-2), (1, size), return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)
