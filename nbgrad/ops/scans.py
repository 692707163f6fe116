"""Cumulative operations along one dimension, each one block: cumsum, cumprod, cummax,
cummin and logcumsumexp; and diff, the differences that undo a cumsum.

Their backward runs the scan the other way (from the end of the dimension to its start),
written with nbgrad's own operations, so that higher-order gradients follow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..autograd.graph import OUTPUT, record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .elementwise import check_dtype
from .indexing import embed
from .operands import tensor_operand
from .reductions import flip, numpy_spelling, return_types
from .shape import cat

if TYPE_CHECKING:
    from ..dtypes import dtype


def _scan_dim(op, x, dim, axis):
    """The dimension of a scan: ``dim`` (or NumPy's ``axis``), required."""
    if axis is not None:
        dim, _ = numpy_spelling(op, dim, axis)
    if dim is None:
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"')
    return dtypes.dim_index(dim, x._data.ndim)


def _along(data, d, compute):
    """``compute(array, axis)`` along ``d``; a 0-d array is scanned as one element."""
    if not data.ndim:
        result = compute(data.reshape(1), 0)
        return tuple(r.reshape(()) for r in result) if type(result) is tuple else result.reshape(())
    return compute(data, d)


def reverse_cumsum(t, d):
    """``sum(t[k:])`` at each ``k`` along ``d``: the adjoint of ``cumsum``."""
    if t._data.ndim == 0:
        return t
    return flip(flip(t, d).cumsum(d), d)


def _scan_dtype(data, dtype, op):
    """The dtype a sum-like scan computes in: ``dtype=``, else int64 for integers and bools."""
    if dtype is not None:
        return dtypes.to_numpy_dtype(dtype, op)
    return np.dtype(np.int64) if data.dtype.kind in "biu" else data.dtype


class CumsumBackward0(Node):
    __slots__ = ("dim", "dtype")

    def apply(self, grad):
        if grad._data.dtype != self.dtype:
            grad = grad.to(dtype=dtypes.from_numpy_dtype(self.dtype))
        return (reverse_cumsum(grad, self.dim),)


@op(CumsumBackward0, inplace=True)
def cumsum(input: Tensor, dim: int | None = None, *, dtype: dtype | None = None,
           axis: int | None = None) -> Tensor:
    """The running sum along ``dim``: element ``k`` is the sum of elements ``0..k``.

    Parameters
    ----------
    input : Tensor
    dim : int
        The dimension to scan (required).
    dtype : nbgrad.dtype, optional
        The dtype to compute in; by default the input's, and int64 for integers and bools.
    axis : int, optional
        NumPy's spelling of ``dim`` (not both spellings at once).

    Returns
    -------
    Tensor
        The input's shape.
    """
    x = tensor_operand(input, "cumsum")
    d = _scan_dim("cumsum", x, dim, axis)
    data = x._data
    out = Tensor._make(_along(data, d, lambda a, k: a.cumsum(axis=k, dtype=_scan_dtype(data, dtype, "cumsum"))))
    if should_record(x):
        record(CumsumBackward0, out, (x,), dim=d, dtype=data.dtype)
    return out


class CumprodBackward0(Node):
    """PyTorch's cumprod_backward: ``reverse_cumsum(grad * result) / x`` without zeros in the
    input; with zeros, each element's product of the others up to each position, computed
    as the running products of the input with that element replaced by 1 (``n x n`` per
    slice), which stays exact at the zeros."""

    __slots__ = ("dim", "dtype")

    def apply(self, grad):
        x, result = self.saved_values
        d = self.dim
        if grad._data.dtype != self.dtype:
            grad = grad.to(dtype=dtypes.from_numpy_dtype(self.dtype))
        if not x._data.ndim or not x._data.size:
            return (grad,)
        if not (x._data == 0).any():
            return (reverse_cumsum(grad * result, d) / x,)
        last = x.transpose(d, -1)
        n = last._data.shape[-1]
        xp = array_module(x._data)
        diagonal = Tensor._make(xp.eye(n, dtype=bool))
        others = last.unsqueeze(-2).expand(*last._data.shape[:-1], n, n).masked_fill(diagonal, 1.0)
        upper = Tensor._make(xp.triu(xp.ones((n, n), dtype=bool)))  # positions j >= k
        partial = others.cumprod(-1).masked_fill(~upper, 0.0)
        return ((partial * grad.transpose(d, -1).unsqueeze(-2)).sum(-1).transpose(d, -1),)


@op(CumprodBackward0, inplace=True)
def cumprod(input: Tensor, dim: int | None = None, *, dtype: dtype | None = None,
            axis: int | None = None) -> Tensor:
    """The running product along ``dim``: element ``k`` is the product of elements ``0..k``.

    Parameters
    ----------
    input : Tensor
    dim : int
        The dimension to scan (required).
    dtype : nbgrad.dtype, optional
        The dtype to compute in; by default the input's, and int64 for integers and bools.
    axis : int, optional
        NumPy's spelling of ``dim`` (not both spellings at once).

    Returns
    -------
    Tensor
        The input's shape. Its gradient is exact where the input has zeros, as PyTorch's.
    """
    x = tensor_operand(input, "cumprod")
    d = _scan_dim("cumprod", x, dim, axis)
    data = x._data
    out = Tensor._make(_along(data, d, lambda a, k: a.cumprod(axis=k, dtype=_scan_dtype(data, dtype, "cumprod"))))
    if should_record(x):
        record(CumprodBackward0, out, (x,), saved=(x, OUTPUT), dim=d, dtype=data.dtype)
    return out


def _running_extreme(data, d, is_max):
    """``(values, indices)`` of the running max (min): a tie moves the index to the later
    element; a NaN, once met, stays the value, and the index moves to each later NaN, as
    in PyTorch."""
    xp = array_module(data)
    ufunc = xp.maximum if is_max else xp.minimum
    values = ufunc.accumulate(data, axis=d)
    positions = xp.arange(data.shape[d]).reshape([-1 if i == d else 1 for i in range(data.ndim)])
    new = data == values  # a new extreme, or a tie: the later index
    if data.dtype.kind == "f":
        new |= xp.isnan(data)  # every NaN is taken, as in PyTorch (a later NaN too)
    indices = xp.maximum.accumulate(xp.where(new, positions, 0), axis=d)
    return values, indices.astype(np.int64)


class CummaxBackward0(Node):
    """The gradient of each running extreme goes to the element it came from (summed).
    Saves the input as PyTorch does (changing it in place makes backward refuse)."""

    __slots__ = ("dim",)

    def apply(self, grad):
        _, indices = self.saved_values
        shape = indices._data.shape
        if not shape or not indices._data.size:
            return (grad,)
        xp = array_module(indices._data)
        key = tuple(indices._data if i == self.dim else
                    xp.arange(s).reshape([-1 if j == i else 1 for j in range(len(shape))])
                    for i, s in enumerate(shape))
        return (embed(grad, shape, key),)


def _cumulative_extreme(op, node_cls, input, dim, axis, is_max):
    x = tensor_operand(input, op)
    d = _scan_dim(op, x, dim, axis)
    data = x._data
    if data.size:
        values, indices = _along(data, d, lambda a, k: _running_extreme(a, k, is_max))
    else:
        values, indices = data.copy(), array_module(data).zeros(data.shape, np.int64)
    values, indices = Tensor._make(values), Tensor._make(indices)
    if should_record(x):
        record(node_cls, values, (x,), saved=(x, indices), dim=d)
    return getattr(return_types, op)(values, indices)


@op(CummaxBackward0)
def cummax(input: Tensor, dim: int | None = None, *,
           axis: int | None = None) -> tuple[Tensor, Tensor]:
    """The running maximum along ``dim`` and the index where each was found.

    Parameters
    ----------
    input : Tensor
    dim : int
        The dimension to scan (required).
    axis : int, optional
        NumPy's spelling of ``dim`` (not both spellings at once).

    Returns
    -------
    (Tensor, Tensor)
        The named tuple ``(values, indices)`` (``nbgrad.return_types.cummax``), indices
        int64; a tie gives the later index; a NaN, once met, stays. The gradient of each
        value goes to the element it came from.
    """
    return _cumulative_extreme("cummax", CummaxBackward0, input, dim, axis, True)


class CumminBackward0(CummaxBackward0):
    __slots__ = ()


@op(CumminBackward0)
def cummin(input: Tensor, dim: int | None = None, *,
           axis: int | None = None) -> tuple[Tensor, Tensor]:
    """The running minimum along ``dim`` and the index where each was found.

    Parameters
    ----------
    input : Tensor
    dim : int
        The dimension to scan (required).
    axis : int, optional
        NumPy's spelling of ``dim`` (not both spellings at once).

    Returns
    -------
    (Tensor, Tensor)
        The named tuple ``(values, indices)`` (``nbgrad.return_types.cummin``), indices
        int64; a tie gives the later index; a NaN, once met, stays. The gradient of each
        value goes to the element it came from.
    """
    return _cumulative_extreme("cummin", CumminBackward0, input, dim, axis, False)


class LogcumsumexpBackward0(Node):
    """PyTorch's logcumsumexp_backward: the gradient's positive and negative parts, each a
    reverse log-cum-sum-exp in log space, so that nothing overflows."""

    __slots__ = ("dim",)

    def apply(self, grad):
        x, result = self.saved_values
        d = self.dim
        if not x._data.ndim or not x._data.size:
            return (grad,)
        lowest = float(np.finfo(grad._data.dtype).min)
        log_abs = grad.abs().log()
        positive = log_abs.masked_fill(~(grad > 0), lowest)
        negative = log_abs.masked_fill(~(grad < 0), lowest)

        def reverse_logcumsumexp(t):
            return flip(flip(t, d).logcumsumexp(d), d)

        return ((reverse_logcumsumexp(positive - result) + x).exp()
                - (reverse_logcumsumexp(negative - result) + x).exp(),)


@op(LogcumsumexpBackward0)
def logcumsumexp(input: Tensor, dim: int | None = None, *, axis: int | None = None) -> Tensor:
    """``log(cumsum(exp(x)))`` along ``dim``, without overflow.

    Parameters
    ----------
    input : Tensor
        Floating point (PyTorch has no integer kernel).
    dim : int
        The dimension to scan (required).
    axis : int, optional
        NumPy's spelling of ``dim`` (not both spellings at once).

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "logcumsumexp")
    check_dtype("logcumsumexp", x._data.dtype)
    d = _scan_dim("logcumsumexp", x, dim, axis)
    xp = array_module(x._data)
    out = Tensor._make(_along(x._data, d, lambda a, k: xp.logaddexp.accumulate(a, axis=k)))
    if should_record(x):
        record(LogcumsumexpBackward0, out, (x,), saved=(x, OUTPUT), dim=d)
    return out


@op()
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward differences along ``dim``: ``out[i] = x[i + 1] - x[i]``, ``n``
    times.

    Parameters
    ----------
    input : Tensor
        At least 1-d; a bool tensor's differences are ``!=`` (PyTorch's ``logical_xor``).
    n : int
        How many times to difference (0 gives a copy of the input, without ``prepend``
        and ``append``, as in PyTorch); each time ``dim`` shrinks by one, down to 0.
    dim : int
        The dimension along which (the last by default).
    prepend, append : Tensor, optional
        Joined before and after ``input`` along ``dim`` first (promoted with it); of
        ``input``'s number of dimensions.

    Returns
    -------
    Tensor
        Composed of slices and ``sub`` (``SubBackward0``), as in PyTorch.

    Raises
    ------
    RuntimeError
        ``input`` is 0-d, ``n`` is negative, or ``prepend``/``append`` have another
        number of dimensions.
    """
    x = tensor_operand(input, "diff")
    if type(n) is not int:
        raise TypeError(f"diff(): argument 'n' must be int, not {type(n).__name__}")
    for name, t in (("prepend", prepend), ("append", append)):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if not x._data.ndim:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    axis = dtypes.dim_index(dim, x._data.ndim)
    joined = [t for t in (prepend, x, append) if t is not None]
    if any(t._data.ndim != x._data.ndim for t in joined):
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:  # PyTorch copies the input alone (CopyBackwards), prepend and append unused
        return x.new_empty(x._data.shape).copy_(x)
    if len(joined) > 1:
        x = cat(joined, axis)
    for _ in range(min(n, x._data.shape[axis])):
        size = x._data.shape[axis]
        later, earlier = x.narrow(axis, 1, size - 1), x.narrow(axis, 0, size - 1)
        x = later != earlier if x._data.dtype.kind == "b" else later - earlier
    return x
