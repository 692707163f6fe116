"""Reductions: sums, means, spreads, extremes and norms over whole tensors or dims.

Backward of a reduction puts the reduced dimensions back (``keepdim`` shape) and expands
the gradient over them. For ``max``/``min`` the gradient goes to the extreme elements:
over a whole tensor (and ``amax``) it is shared evenly among ties; with ``dim=`` it goes
to the one element whose index is returned, as in PyTorch.
"""

from __future__ import annotations

import builtins
import collections
import math
import warnings
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..autograd.graph import OUTPUT, record, should_record
from ..core.grad_mode import no_grad
from ..core.node import Node
from ..backend import array_module
from ..tensor import Tensor
from .selection import maximum, minimum, where
from .declare import op
from .dims import broadcast_axes, normalize_dims, numpy_spelling
from .elementwise import meta, to_input
from .operands import tensor_operand, zeros_like
from .shape import cat

if TYPE_CHECKING:
    from ..dtypes import dtype
    from ..types import Dims, Shape


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _expand_back(grad, shape, axes, keepdim):
    """The gradient of a reduction over ``axes``, broadcast back to the input ``shape``."""
    if not keepdim and axes:
        grad = grad.reshape(_kept_shape(shape, axes))
    return grad.expand(shape)


def _axis(axes, ndim):
    return None if len(axes) == ndim else axes


# -- sum and mean -----------------------------------------------------------------------
class SumBackward0(Node):
    __slots__ = ("shape",)

    def apply(self, grad):
        return (grad.expand(self.shape),)


class SumBackward1(Node):
    __slots__ = ("shape", "axes", "keepdim")

    def apply(self, grad):
        return (_expand_back(grad, self.shape, self.axes, self.keepdim),)


def _sum_dtype(data, dtype):
    if dtype is not None:
        return dtypes.to_numpy_dtype(dtype, "sum")
    return np.dtype(np.int64) if data.dtype.kind in "biu" else data.dtype


def _add_reduce(data, axis, dtype, keepdims):
    """``data.sum(...)``, for a NumPy array as the ufunc itself: ``ndarray.sum`` is written in
    Python, so NumPy's warnings (inf + -inf) would come from NumPy's frame, out of reach of
    nbgrad's filter (nbgrad/warn.py); the ufunc is faster too. CuPy gives no such warnings."""
    if type(data) is np.ndarray:
        return np.add.reduce(data, axis=axis, dtype=dtype, keepdims=keepdims)
    return data.sum(axis=axis, dtype=dtype, keepdims=keepdims)


@op(SumBackward0, SumBackward1)
def sum(input: Tensor, dim: Dims | None = None, keepdim: bool = False, *,
        dtype: dtype | None = None, axis: Dims | None = None,
        keepdims: bool | None = None) -> Tensor:
    """The sum of all elements, or along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int or tuple of int, optional
        The dimensions summed away; all of them when omitted (``SumBackward0``), the
        given ones otherwise (``SumBackward1``).
    keepdim : bool
        Keep the summed dimensions with size 1.
    dtype : nbgrad.dtype, optional
        Cast before summing. Without it, bool and integer tensors sum to int64, as in
        PyTorch.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        The gradient of each element is the incoming gradient, broadcast back.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("sum", dim, axis, keepdim, keepdims)
    x = tensor_operand(input, "sum")
    data = x._data
    axes = normalize_dims(dim, data.ndim)
    out = Tensor._make(_add_reduce(data, _axis(axes, data.ndim), _sum_dtype(data, dtype),
                                   keepdim))
    if should_record(x):
        if dim is None:
            record(SumBackward0, out, (x,), shape=data.shape)
        else:
            record(SumBackward1, out, (x,), shape=data.shape, axes=axes, keepdim=keepdim)
    return out


def _require_float(op, x, dtype=None):
    if dtype is None and x._data.dtype.kind != "f":
        raise RuntimeError(
            f"{op}(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {dtypes.scalar_type_name(x._data.dtype)}"
        )


def _mean_array(data, axis, keepdim, count):
    """``data.mean(axis)`` as NumPy computes it (float16 adds up in float32), its division
    written here so that its warning (the mean of nothing is 0 / 0) comes from nbgrad's
    frame, where nbgrad's filter silences it (nbgrad/warn.py)."""
    total = _add_reduce(data, axis, np.float32 if data.dtype == np.float16 else None, keepdim)
    return (total / count).astype(data.dtype, copy=False)


class MeanBackward0(Node):
    __slots__ = ("shape", "count")

    def apply(self, grad):
        return (grad.expand(self.shape) / self.count,)


class MeanBackward1(Node):
    __slots__ = ("shape", "axes", "keepdim", "count")

    def apply(self, grad):
        return (_expand_back(grad, self.shape, self.axes, self.keepdim) / self.count,)


@op(MeanBackward0, MeanBackward1)
def mean(input: Tensor, dim: Dims | None = None, keepdim: bool = False, *,
         dtype: dtype | None = None, axis: Dims | None = None,
         keepdims: bool | None = None) -> Tensor:
    """The mean of all elements, or along ``dim``.

    Parameters
    ----------
    input : Tensor
        Floating (or ``dtype=`` floating): integer input is PyTorch's error.
    dim : int or tuple of int, optional
        The dimensions averaged away; all of them when omitted.
    keepdim : bool
        Keep them with size 1.
    dtype : nbgrad.dtype, optional
        Cast before averaging.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim``.

    Returns
    -------
    Tensor
        ``nan`` over no elements, as in PyTorch.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("mean", dim, axis, keepdim, keepdims)
    x = tensor_operand(input, "mean")
    _require_float("mean", x, dtype)
    data = x._data if dtype is None else x._data.astype(dtypes.to_numpy_dtype(dtype, "mean"))
    axes = normalize_dims(dim, data.ndim)
    count = math.prod(data.shape[a] for a in axes)
    out = Tensor._make(_mean_array(data, _axis(axes, data.ndim), keepdim, count))
    if should_record(x):
        if dim is None:
            record(MeanBackward0, out, (x,), shape=data.shape, count=count)
        else:
            record(MeanBackward1, out, (x,), shape=data.shape, axes=axes, keepdim=keepdim,
                   count=count)
    return out


# -- products and sums that skip NaN ----------------------------------------------------
def prod_backward(grad, x, result, dim):
    """PyTorch's prod_backward along ``dim`` (``None``: the whole tensor), in differentiable
    operations: ``grad * result / x`` when the input has no zero; else each element's
    product of the others, from running products from either end (no division, so exact
    at the zeros; over the whole tensor, two zeros or more give 0, as in PyTorch)."""
    if not x._data.ndim:
        return grad.to(dtype=x.dtype)
    zeros = int((x._data == 0).sum())
    if not zeros:
        return (grad * (result / x)).to(dtype=x.dtype)
    if dim is None:
        if zeros > 1:
            return zeros_like(x)
        return (grad * _products_of_others(x.reshape(-1), 0).view(x._data.shape)).to(dtype=x.dtype)
    return (grad * _products_of_others(x, dim)).to(dtype=x.dtype)


def _products_of_others(x, d):
    """At each position along ``d``, the product of the other elements there."""
    shape = x._data.shape
    n = shape[d]
    xp = array_module(x._data)
    ones = Tensor._make(xp.ones(shape[:d] + (1,) + shape[d + 1:], x._data.dtype))
    if n < 2:
        return ones if n else x
    head = x[(slice(None),) * d + (slice(0, n - 1),)]
    before = cat([ones, head.cumprod(d)], d)
    tail = flip(x, d)[(slice(None),) * d + (slice(0, n - 1),)]
    after = flip(cat([ones, tail.cumprod(d)], d), d)
    return before * after


def flip(t, d):
    """``t`` reversed along dimension ``d``, by indexing (differentiable, any order)."""
    xp = array_module(t._data)
    index = Tensor._make(xp.arange(t._data.shape[d] - 1, -1, -1))
    return t[(slice(None),) * d + (index,)]


class ProdBackward0(Node):
    """Whole-tensor product: ``grad * result / x`` without zeros; with one zero, that
    element gets the product of the others and the rest 0; with more, all get 0."""

    __slots__ = ()

    def apply(self, grad):
        x, result = self.saved_values
        return (prod_backward(grad, x, result, None),)


class ProdBackward1(Node):
    __slots__ = ("dim", "keepdim")

    def apply(self, grad):
        x, result = self.saved_values
        if not self.keepdim and x._data.ndim:
            grad, result = grad.unsqueeze(self.dim), result.unsqueeze(self.dim)
        return (prod_backward(grad, x, result, self.dim),)


@op(ProdBackward0, ProdBackward1)
def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *,
         dtype: dtype | None = None, axis: int | None = None,
         keepdims: bool | None = None) -> Tensor:
    """The product of all elements, or along one dimension ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        One dimension (PyTorch takes no tuple here).
    keepdim : bool
        Keep ``dim`` with size 1.
    dtype : nbgrad.dtype, optional
        The dtype to compute in; by default the input's, and int64 for integers and bools.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        The product of no elements is 1. The gradient is exact where the input has zeros.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("prod", dim, axis, keepdim, keepdims)
    x = tensor_operand(input, "prod")
    if isinstance(dim, (tuple, list)):
        raise TypeError("prod() received an invalid combination of arguments - got (tuple), but "
                        "expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n"
                        " * (Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None)")
    data = x._data
    want = _sum_dtype(data, dtype)
    if dim is None:
        out = Tensor._make(np.multiply.reduce(data, axis=None, dtype=want) if type(data) is np.ndarray
                           else data.prod(dtype=want))
        if should_record(x):
            record(ProdBackward0, out, (x,), saved=(x, OUTPUT))
        return out
    d = dtypes.dim_index(dim, data.ndim)
    out = Tensor._make(data.astype(want, copy=False) if not data.ndim
                       else data.prod(axis=d, dtype=want, keepdims=keepdim))
    if should_record(x):
        record(ProdBackward1, out, (x,), saved=(x, OUTPUT), dim=d, keepdim=keepdim)
    return out


class NansumBackward0(Node):
    """The gradient of a sum, and 0 at the NaNs it skipped."""

    __slots__ = ("axes", "keepdim")

    def apply(self, grad):
        (x,) = self.saved_values
        grad = _expand_back(grad, x._data.shape, self.axes, self.keepdim)
        return ((grad * x.isnan().logical_not()).to(dtype=x.dtype),)


@op(NansumBackward0)
def nansum(input: Tensor, dim: Dims | None = None, keepdim: bool = False, *,
           dtype: dtype | None = None, axis: Dims | None = None,
           keepdims: bool | None = None) -> Tensor:
    """The sum of all elements, or along ``dim``, NaNs counted as 0.

    Parameters
    ----------
    input : Tensor
    dim : int or tuple of int, optional
        The dimensions summed away; all of them when omitted.
    keepdim : bool
        Keep the summed dimensions with size 1.
    dtype : nbgrad.dtype, optional
        The dtype to compute in (integers and bools sum to int64).
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("nansum", dim, axis, keepdim, keepdims)
    x = tensor_operand(input, "nansum")
    data = x._data
    axes = normalize_dims(dim, data.ndim)
    if data.dtype.kind == "f":
        xp = array_module(data)
        data = xp.where(xp.isnan(data), 0, data)
    out = Tensor._make(_add_reduce(data, _axis(axes, data.ndim), _sum_dtype(data, dtype), keepdim))
    if should_record(x):
        record(NansumBackward0, out, (x,), saved=(x,), axes=axes, keepdim=keepdim)
    return out


@op()
def nanmean(input: Tensor, dim: Dims | None = None, keepdim: bool = False, *,
            dtype: dtype | None = None, axis: Dims | None = None,
            keepdims: bool | None = None) -> Tensor:
    """The mean of the elements that are not NaN, over all elements or along ``dim``.

    Parameters
    ----------
    input : Tensor
        Floating point.
    dim : int or tuple of int, optional
        The dimensions averaged away; all of them when omitted.
    keepdim : bool
        Keep them with size 1.
    dtype : nbgrad.dtype, optional
        The dtype of the sum of the elements that are not NaN.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        ``nansum / count``, as PyTorch composes it (its ``grad_fn`` is ``DivBackward0``);
        NaN where every element is NaN.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("nanmean", dim, axis, keepdim, keepdims)
    x = tensor_operand(input, "nanmean")
    if x._data.dtype.kind != "f":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but "
                           f"got {dtypes.scalar_type_name(x._data.dtype)}")
    count = x.isnan().logical_not().sum(dim, keepdim=keepdim)
    return nansum(x, dim, keepdim, dtype=dtype) / count


@op(export=False)
def sum_to_size(input: Tensor, *size: int | Shape) -> Tensor:
    """``input`` summed down to ``size``: the reverse of expanding ``size`` up to its shape.

    Parameters
    ----------
    input : Tensor
    *size : int, or one sequence of ints
        A shape that expands to ``input``'s (the gradient of a broadcast operand is summed
        back to its shape this way).

    Returns
    -------
    Tensor
        ``input`` itself when ``size`` is its shape; else the sum over the dimensions that
        ``size`` lacks (leading ones) or has as 1, with the shape ``size``
        (``SumBackward1``).

    Raises
    ------
    RuntimeError
        ``size`` does not expand to ``input``'s shape.
    """
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    x = tensor_operand(input, "sum_to_size")
    shape = x._data.shape
    if size == shape:
        return x
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    axes = broadcast_axes(shape, size)
    data = x._data.sum(axis=axes, keepdims=True)
    out = Tensor._make(data.reshape(size))
    if should_record(x):
        record(SumBackward1, out, (x,), shape=shape, axes=axes, keepdim=False)
    return out


# -- spread -----------------------------------------------------------------------------
def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _spread(op, node_cls, finish, input, dim, unbiased, keepdim, correction):
    x = tensor_operand(input, op)
    var, axes, correction, whole = variance(op, x, dim, unbiased, keepdim, correction)
    data = x._data
    out = Tensor._make(finish(var).astype(data.dtype, copy=False))
    if should_record(x):
        saved = (x,) if node_cls is VarBackward0 else (x, OUTPUT)
        record(node_cls, out, (x,), saved=saved, shape=data.shape, axes=axes,
               keepdim=keepdim, correction=correction, whole=whole)
    return out


def variance(op, x, dim, unbiased, keepdim, correction, stacklevel=4):
    """The variance array of ``x`` along ``dim``, and what its backward needs: ``(var,
    axes, correction, whole)``; PyTorch's checks and warning on the way."""
    if x._data.dtype.kind != "f":
        name = op if op.endswith("_mean") else "std and var"
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    if isinstance(dim, bool):  # var(x, False): the old positional ``unbiased``
        dim, unbiased = None, dim
    correction = _correction(unbiased, correction)
    data = x._data
    axes = normalize_dims(dim, data.ndim)
    axis = _axis(axes, data.ndim)
    n = math.prod(data.shape[a] for a in axes)
    if n - correction <= 0:
        warnings.warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=stacklevel)
    # Written out rather than NumPy's var, which warns over no elements or no degrees of
    # freedom; PyTorch divides by max(n - correction, 0): inf, or nan for 0 / 0.
    with np.errstate(divide="ignore", invalid="ignore"):
        centered = data - data.sum(axis=axis, keepdims=True) / n
        var = (centered * centered).sum(axis=axis, keepdims=keepdim) / builtins.max(n - correction, 0)
    return var, axes, correction, dim is None or not data.ndim


def var_backward(grad, x, shape, axes, keepdim, correction, whole):
    """PyTorch's var_backward: ``2 / (n - correction) * grad * (x - mean)``. Over the whole
    tensor with no degrees of freedom left it is ``grad * (nan where x == mean, else inf)``;
    along ``dim`` the formula is used as it is (``inf * 0`` is nan there too)."""
    centered = x - x.mean(axes, keepdim=True)
    dof = math.prod(shape[a] for a in axes) - correction
    if whole and dof <= 0:
        return grad * where(centered == 0, math.nan, math.inf)
    scale = 2.0 / dof if dof else math.inf
    return scale * _expand_back(grad, shape, axes, keepdim) * centered


class VarBackward0(Node):
    __slots__ = ("shape", "axes", "keepdim", "correction", "whole")

    def apply(self, grad):
        (x,) = self.saved_values
        return (var_backward(grad, x, self.shape, self.axes, self.keepdim, self.correction,
                             self.whole),)


@op(VarBackward0)
def var(input: Tensor, dim: Dims | None = None, unbiased: bool | None = None,
        keepdim: bool = False, *, correction: float | None = None, axis: Dims | None = None,
        keepdims: bool | None = None) -> Tensor:
    """The variance of all elements, or along ``dim``, with Bessel's correction by default.

    Parameters
    ----------
    input : Tensor
        Floating point.
    dim : int or tuple of int, optional
        The dimensions reduced; all of them when omitted. A bool here is PyTorch's old
        positional ``unbiased`` (``x.var(False)``).
    unbiased : bool, optional
        The older spelling of the correction: ``True`` is 1, ``False`` is 0.
    keepdim : bool
        Keep the reduced dimensions with size 1.
    correction : float, optional
        The degrees of freedom subtracted from the number of elements, ``N``, in the
        divisor ``N - correction``; 1 by default (Bessel's correction).
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        The squared deviations from the mean, summed and divided by ``N - correction``.

    Raises
    ------
    RuntimeError
        ``input`` is not floating point.

    Warns
    -----
    UserWarning
        ``N - correction <= 0`` (no degrees of freedom): the result is then inf, or nan
        for 0 / 0, as in PyTorch.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("var", dim, axis, keepdim, keepdims)
    return _spread("var", VarBackward0, lambda v: v, input, dim, unbiased, keepdim, correction)


class StdBackward0(Node):
    """var's backward of ``grad / (2 std)``, taken as 0 where std is 0 (a constant slice),
    as PyTorch's std_backward does."""

    __slots__ = ("shape", "axes", "keepdim", "correction", "whole")

    def apply(self, grad):
        x, result = self.saved_values
        grad_var = (grad / (result * 2)).masked_fill(result == 0, 0.0)
        return (var_backward(grad_var, x, self.shape, self.axes, self.keepdim,
                             self.correction, self.whole),)


@op(StdBackward0)
def std(input: Tensor, dim: Dims | None = None, unbiased: bool | None = None,
        keepdim: bool = False, *, correction: float | None = None, axis: Dims | None = None,
        keepdims: bool | None = None) -> Tensor:
    """The standard deviation of all elements, or along ``dim``: the square root of ``var``.

    Parameters
    ----------
    input : Tensor
        Floating point.
    dim : int or tuple of int, optional
        The dimensions reduced; all of them when omitted. A bool here is PyTorch's old
        positional ``unbiased`` (``x.std(False)``).
    unbiased : bool, optional
        The older spelling of the correction: ``True`` is 1, ``False`` is 0.
    keepdim : bool
        Keep the reduced dimensions with size 1.
    correction : float, optional
        The degrees of freedom subtracted from the number of elements, ``N``, in the
        divisor ``N - correction``; 1 by default (Bessel's correction).
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        ``sqrt(var(...))``. Its gradient is taken as 0 where the standard deviation is
        0 (a constant slice), as in PyTorch.

    Raises
    ------
    RuntimeError
        ``input`` is not floating point.

    Warns
    -----
    UserWarning
        ``N - correction <= 0`` (no degrees of freedom): the result is then inf, or nan
        for 0 / 0, as in PyTorch.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("std", dim, axis, keepdim, keepdims)
    return _spread("std", StdBackward0, np.sqrt, input, dim, unbiased, keepdim, correction)


# -- extremes ---------------------------------------------------------------------------
def _return_type(name, fields=("values", "indices")):
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        parts = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"nbgrad.return_types.{name}(\n{parts})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


class return_types:
    """The named tuples PyTorch returns from ``max(dim)``, ``min(dim)``, ``median(dim)``,
    ``cummax``, ``aminmax``, ``sort``, ``topk``, ``kthvalue`` (``sorting.py``) and their kin."""

    max = _return_type("max")
    min = _return_type("min")
    median = _return_type("median")
    nanmedian = _return_type("nanmedian")
    cummax = _return_type("cummax")
    cummin = _return_type("cummin")
    aminmax = _return_type("aminmax", ("min", "max"))
    sort = _return_type("sort")
    topk = _return_type("topk")
    kthvalue = _return_type("kthvalue")
    slogdet = _return_type("slogdet", ("sign", "logabsdet"))
    linalg_slogdet = _return_type("linalg_slogdet", ("sign", "logabsdet"))


def _check_nonempty(op, data, dim):
    """PyTorch's errors for a max-like reduction (no identity) over no elements."""
    if data.size:
        return
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        raise RuntimeError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    empty = _empty_dim(data, dim)
    if empty is not None:
        raise IndexError(f"{op}(): Expected reduction dim {empty} to have non-zero size.")


def _empty_dim(data, dim):
    """The first of the dims in ``dim``, as the caller wrote it (-1 stays -1, as in
    PyTorch's messages), along which ``data`` has no elements; None if there is none."""
    for d in dim if isinstance(dim, (list, tuple)) else (dim,):
        if data.shape[dtypes.dim_index(d, data.ndim)] == 0:
            return d
    return None


def _extreme(op, input, dim, keepdim, other, is_max):
    x = tensor_operand(input, op)
    if isinstance(dim, Tensor) or other is not None:  # max(a, b) is maximum(a, b)
        return (maximum if is_max else minimum)(x, dim if other is None else other)
    data = x._data
    if dim is None:
        _check_nonempty(op, data, None)
        out = Tensor._make(data.max() if is_max else data.min())
        if should_record(x):
            record(MaxBackward1 if is_max else MinBackward1, out, (x,), saved=(x, OUTPUT))
        return out
    axis = dtypes.dim_index(dim, data.ndim)
    _check_nonempty(op, data, axis)  # PyTorch's max(dim) names the dim wrapped
    xp = array_module(data)
    index_data = (xp.argmax if is_max else xp.argmin)(data if data.ndim else data.reshape(1),
                                                     axis=axis if data.ndim else 0,
                                                     keepdims=keepdim)
    if not data.ndim:
        index_data = index_data.reshape(())
    indices = Tensor._make(index_data.astype(np.int64, copy=False))
    values = Tensor._make((data.max if is_max else data.min)(axis=axis if data.ndim else None,
                                                             keepdims=keepdim))
    if should_record(x):
        record(MaxBackward0 if is_max else MinBackward0, values, (x,), saved=(indices,),
               shape=data.shape, dim=axis, keepdim=keepdim)
    return (return_types.max if is_max else return_types.min)(values, indices)


class MaxBackward1(Node):
    """Whole-tensor max: the gradient is shared evenly among the elements equal to the
    result, a NaN counting as equal to a NaN result (PyTorch's evenly_distribute_backward);
    the others get exactly 0, even for an infinite gradient."""

    __slots__ = ()

    def apply(self, grad):
        x, result = self.saved_values
        ties = (x == result) | (x.isnan() & result.isnan())
        return ((grad / ties.sum()).where(ties, 0.0),)


class MaxBackward0(Node):
    """max(dim): the gradient goes to the element whose index was returned (a NaN's, when
    the slice has one); the others get exactly 0."""

    __slots__ = ("shape", "dim", "keepdim")

    def apply(self, grad):
        if not self.shape:  # a 0-d input: its one element is the extreme
            return (grad,)
        (indices,) = self.saved_values
        if not self.keepdim:
            grad = grad.unsqueeze(self.dim)
            indices = indices.unsqueeze(self.dim)
        xp = array_module(indices._data)
        along = [1] * len(self.shape)
        along[self.dim] = self.shape[self.dim]
        positions = Tensor._make(xp.arange(self.shape[self.dim]).reshape(along))
        return (grad.where(positions == indices, 0.0),)


@op(MaxBackward1, MaxBackward0)
def max(input: Tensor, dim: int | Tensor | None = None, keepdim: bool = False, *,
        other: Tensor | None = None, axis: int | None = None,
        keepdims: bool | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """The largest element, or the largest values along ``dim`` with their indices; with a
    tensor, ``maximum``.

    Parameters
    ----------
    input : Tensor
    dim : int or Tensor, optional
        The dimension reduced; all of them when omitted. A tensor here is ``other``
        (``nbgrad.max(a, b)`` is ``maximum(a, b)``).
    keepdim : bool
        With ``dim``: keep it with size 1.
    other : Tensor, optional
        Compare with it element by element instead (``maximum``).
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        Without ``dim``: a 0-d tensor; its gradient is shared evenly among the elements
        equal to it (``MaxBackward1``). With ``dim``: the named tuple ``(values,
        indices)`` (``nbgrad.return_types.max``), indices int64; the gradient goes to the
        element whose index is returned (``MaxBackward0``). A NaN in a slice is
        its result, as in PyTorch. With ``other``: ``maximum(input, other)``.

    Raises
    ------
    RuntimeError
        No elements, and no ``dim`` to reduce (``IndexError`` when ``dim`` has size 0).
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("max", dim, axis, keepdim, keepdims)
    return _extreme("max", input, dim, keepdim, other, True)


class MinBackward1(MaxBackward1):
    __slots__ = ()


class MinBackward0(MaxBackward0):
    __slots__ = ()


@op(MinBackward1, MinBackward0)
def min(input: Tensor, dim: int | Tensor | None = None, keepdim: bool = False, *,
        other: Tensor | None = None, axis: int | None = None,
        keepdims: bool | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """The smallest element, or the smallest values along ``dim`` with their indices; with a
    tensor, ``minimum``.

    Parameters
    ----------
    input : Tensor
    dim : int or Tensor, optional
        The dimension reduced; all of them when omitted. A tensor here is ``other``
        (``nbgrad.min(a, b)`` is ``minimum(a, b)``).
    keepdim : bool
        With ``dim``: keep it with size 1.
    other : Tensor, optional
        Compare with it element by element instead (``minimum``).
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        Without ``dim``: a 0-d tensor; its gradient is shared evenly among the elements
        equal to it (``MinBackward1``). With ``dim``: the named tuple ``(values,
        indices)`` (``nbgrad.return_types.min``), indices int64; the gradient goes to the
        element whose index is returned (``MinBackward0``). A NaN in a slice is
        its result, as in PyTorch. With ``other``: ``minimum(input, other)``.

    Raises
    ------
    RuntimeError
        No elements, and no ``dim`` to reduce (``IndexError`` when ``dim`` has size 0).
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("min", dim, axis, keepdim, keepdims)
    return _extreme("min", input, dim, keepdim, other, False)


def _a_extreme(op, node_cls, input, dim, keepdim, is_max):
    x = tensor_operand(input, op)
    data = x._data
    axes = normalize_dims(() if dim is None else dim, data.ndim)
    _check_nonempty(op, data, dim)
    reduce = data.max if is_max else data.min
    out = Tensor._make(reduce(axis=_axis(axes, data.ndim), keepdims=keepdim))
    if should_record(x):
        record(node_cls, out, (x,), saved=(x, OUTPUT), axes=axes, keepdim=keepdim)
    return out


class AmaxBackward0(Node):
    """amax/amin: the gradient is shared evenly among ties along the reduced dims."""

    __slots__ = ("axes", "keepdim")

    def apply(self, grad):
        x, result = self.saved_values
        shape = x._data.shape
        if not self.keepdim:
            result = result.reshape(_kept_shape(shape, self.axes))
            grad = grad.reshape(_kept_shape(shape, self.axes))
        ties = x == result
        return (ties * (grad / ties.sum(self.axes, keepdim=True)),)


@op(AmaxBackward0)
def amax(input: Tensor, dim: Dims | None = (), keepdim: bool = False, *,
         axis: Dims | None = None, keepdims: bool | None = None) -> Tensor:
    """The largest values over ``dim`` (all dimensions by default).

    Parameters
    ----------
    input : Tensor
    dim : int or tuple of int
        The dimensions reduced; all of them when omitted or ``()``.
    keepdim : bool
        Keep them with size 1.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        Unlike ``max(dim)``'s, the gradient is shared evenly among the elements tied for
        the extreme.

    Raises
    ------
    RuntimeError
        No elements, and no ``dim`` to reduce (``IndexError`` when ``dim`` has size 0).
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("amax", None if dim == () else dim, axis, keepdim, keepdims)
    return _a_extreme("amax", AmaxBackward0, input, dim, keepdim, True)


class AminBackward0(AmaxBackward0):
    __slots__ = ()


@op(AminBackward0)
def amin(input: Tensor, dim: Dims | None = (), keepdim: bool = False, *,
         axis: Dims | None = None, keepdims: bool | None = None) -> Tensor:
    """The smallest values over ``dim`` (all dimensions by default).

    Parameters
    ----------
    input : Tensor
    dim : int or tuple of int
        The dimensions reduced; all of them when omitted or ``()``.
    keepdim : bool
        Keep them with size 1.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        Unlike ``min(dim)``'s, the gradient is shared evenly among the elements tied for
        the extreme.

    Raises
    ------
    RuntimeError
        No elements, and no ``dim`` to reduce (``IndexError`` when ``dim`` has size 0).
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("amin", None if dim == () else dim, axis, keepdim, keepdims)
    return _a_extreme("amin", AminBackward0, input, dim, keepdim, False)


# -- norms and log-sum-exp --------------------------------------------------------------
def norm_backward(grad, x, result, p, axes, keepdim):
    """The gradient of ``result = ||x||_p`` over ``axes``; ``None`` for p = 0."""
    shape = x._data.shape
    if not keepdim:
        grad = grad.reshape(_kept_shape(shape, axes))
        result = result.reshape(_kept_shape(shape, axes))
    if p == 0:  # a count of nonzeros: PyTorch gives no gradient at all
        return None
    if p == 1:
        return x.sign() * grad
    if p == 2:  # x / |x|, taken as 0 at |x| = 0 (where PyTorch's 2nd derivative is nan)
        return grad * (x / result).masked_fill(result == 0, 0.0)
    if math.isinf(p):  # amax/amin of |x|: shared among the extremes, a NaN counted as one
        magnitude = x.abs()
        extremes = (magnitude == result) | magnitude.isnan()
        return x.sign() * ((grad / extremes.sum(axes, keepdim=True)) * extremes)
    if p < 1:
        scaled = (x.sign() * x.abs() ** (p - 1)).masked_fill(x == 0, 0.0)
        return scaled * grad * result ** (1 - p)
    scaled = x.sign() * x.abs() ** (p - 1) if p < 2 else x * x.abs() ** (p - 2)
    return scaled * (grad / result ** (p - 1)).masked_fill(result == 0, 0.0)


class LinalgVectorNormBackward0(Node):
    """PyTorch's norm_backward, case by case in ``p``."""

    __slots__ = ("ord", "axes", "keepdim")

    def apply(self, grad):
        x, result = self.saved_values
        return (norm_backward(grad, x, result, self.ord, self.axes, self.keepdim),)


def _order_name(p):
    """``p`` as PyTorch prints it in its messages: -1, 0.5, inf."""
    return str(int(p)) if not math.isinf(p) and float(p).is_integer() else str(p)


def _check_norm_identity(p, data, dim):
    """A norm with no identity (p < 0 or inf: a minimum or maximum) needs elements."""
    if data.size or not (p < 0 or p == math.inf):
        return
    if dim is None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {_order_name(p)} norm on an "
                           "empty tensor because the operation does not have an identity")
    empty = _empty_dim(data, dim)
    if empty is not None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {_order_name(p)} norm on the "
                           f"dimension {empty}because this dimension is empty and the operation "
                           "does not have an identity")  # sic: PyTorch's message has no space


def _vector_norm(data, p, axes, keepdim):
    xp = array_module(data)
    axis = _axis(axes, data.ndim)
    magnitude = xp.abs(data)
    if p == math.inf:
        return magnitude.max(axis=axis, keepdims=keepdim)
    if p == -math.inf:
        return magnitude.min(axis=axis, keepdims=keepdim)
    if p == 0:
        return (data != 0).sum(axis=axis, keepdims=keepdim).astype(data.dtype)
    if p == 2:  # scaled by the largest magnitude, so tiny or huge values do not under/overflow
        scale = magnitude.max(axis=axis, keepdims=True) if data.size else magnitude.sum(axis=axis, keepdims=True)
        # no scaling by 0, inf (the norm is inf: inf / inf would be nan) or nan
        scale = xp.where((scale > 0) & (scale < math.inf), scale, 1).astype(data.dtype)
        value = xp.sqrt(((data / scale) ** 2).sum(axis=axis, keepdims=True)) * scale
        return value if keepdim else value.reshape(_reduced_shape(data.shape, axes))
    with np.errstate(divide="ignore", over="ignore"):  # |0| ** -1 is inf: the norm is 0
        return (magnitude ** p).sum(axis=axis, keepdims=keepdim) ** (1.0 / p)


def _reduced_shape(shape, axes):
    return tuple(s for i, s in enumerate(shape) if i not in axes)


@op(LinalgVectorNormBackward0)
def norm(input: Tensor, p: float | str | None = "fro", dim: Dims | None = None,
         keepdim: bool = False, dtype: dtype | None = None) -> Tensor:
    """The ``p``-norm of all elements, or along ``dim``, as a vector norm.

    Parameters
    ----------
    input : Tensor
        Floating point.
    p : float or 'fro', optional
        Any real order, ``inf`` and ``-inf`` included (``p = 0`` counts the nonzero
        elements); ``'fro'`` and ``None`` are 2. PyTorch's matrix norms (``'nuc'``) are
        not implemented.
    dim : int or tuple of int, optional
        The dimensions reduced; all of them when omitted.
    keepdim : bool
        Keep them with size 1.
    dtype : nbgrad.dtype, optional
        A floating dtype at least as wide as ``input``'s, to compute in.

    Returns
    -------
    Tensor
        For ``p = 0`` no gradient flows, as in PyTorch; for ``p = 2`` the gradient at a zero
        norm is 0.

    Raises
    ------
    RuntimeError
        ``input`` is not floating point, ``p`` is not a number, ``dtype`` would narrow
        ``input``'s, or a norm without identity (``p < 0``, ``inf``) is taken over no
        elements.
    """
    x = tensor_operand(input, "norm")
    if x._data.dtype.kind != "f":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {dtypes.scalar_type_name(x._data.dtype)}")
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.\n"
                           "nbgrad hint: nbgrad computes vector norms only: p is a number or 'fro'.")
    data = x._data if dtype is None else x._data.astype(_norm_dtype(x._data.dtype, dtype))
    axes = normalize_dims(dim, data.ndim)
    _check_norm_identity(p, data, dim)
    out = Tensor._make(_vector_norm(data, p, axes, keepdim).astype(data.dtype, copy=False))
    if should_record(x):
        record(LinalgVectorNormBackward0, out, (x,), saved=(x, OUTPUT), ord=p, axes=axes,
               keepdim=keepdim)
    return out


def _norm_dtype(input_dtype, dtype):
    """The NumPy dtype ``norm(dtype=...)`` computes in: one the input widens to."""
    wanted = dtypes.to_numpy_dtype(dtype, "norm")
    if wanted.kind != "f" or wanted.itemsize < input_dtype.itemsize:
        raise RuntimeError(
            f"linalg.vector_norm: the dtype of the input ({dtypes.scalar_type_name(input_dtype)}) "
            "should be convertible without narrowing to the specified dtype "
            f"({dtypes.scalar_type_name(wanted)})")
    return wanted


class DistBackward0(Node):
    """The norm's gradient with respect to ``input - other``, to each operand (negated for
    ``other``), summed back over broadcast dimensions."""

    __slots__ = ("metas", "ord")

    def apply(self, grad):
        x, y, result = self.saved_values
        diff = x - y
        grad_diff = norm_backward(grad, diff, result, self.ord, tuple(range(diff._data.ndim)), False)
        if grad_diff is None:
            return None, None
        x_fn, y_fn = self._next_nodes
        return (to_input(grad_diff, self.metas[0]) if x_fn is not None else None,
                to_input(-grad_diff, self.metas[1]) if y_fn is not None else None)


@op(DistBackward0)
def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast), over all elements.

    Parameters
    ----------
    input, other : Tensor
        Floating point, broadcast together.
    p : float
        The order of the norm (any real, ``inf`` and ``-inf``; 0 counts the differences).

    Returns
    -------
    Tensor
        0-d.
    """
    x = tensor_operand(input, "dist")
    y = tensor_operand(other, "dist", 2, "other")
    with no_grad():
        diff = x - y  # first, as PyTorch: two bool tensors are refused by the subtraction
        if diff._data.dtype.kind != "f":
            raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                               f"Got {dtypes.scalar_type_name(diff._data.dtype)} instead.")
        result = norm(diff, p)
    if should_record(x, y):
        record(DistBackward0, result, (x, y), saved=(x, y, OUTPUT), ord=p,
               metas=(meta(x, diff), meta(y, diff)))
    return result


class CdistBackward0(Node):
    """Each pair's norm gradient with respect to ``x1[i] - x2[j]``, summed over the other
    set's rows (negated for ``x2``)."""

    __slots__ = ("ord",)

    def apply(self, grad):
        x1, x2, result = self.saved_values
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
        last = diff._data.ndim - 1
        pair = norm_backward(grad.unsqueeze(-1), diff, result.unsqueeze(-1), self.ord, (last,), True)
        if pair is None:
            return None, None
        x1_fn, x2_fn = self._next_nodes
        return (pair.sum(-2) if x1_fn is not None else None,
                -pair.sum(-3) if x2_fn is not None else None)


@op(CdistBackward0, method=False)
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` and each row of ``x2``.

    Parameters
    ----------
    x1 : Tensor
        ``(..., P, M)``, floating point.
    x2 : Tensor
        ``(..., R, M)``, the same batch dimensions and dtype.
    p : float
        The order of the norm, ``p >= 0`` (``inf`` included).
    compute_mode : str, optional
        Accepted for PyTorch's signature (PyTorch's choice of a matrix-product shortcut
        for p = 2); nbgrad computes every difference.

    Returns
    -------
    Tensor
        ``(..., P, R)``.
    """
    a = tensor_operand(x1, "cdist", 1, "x1")
    b = tensor_operand(x2, "cdist", 2, "x2")
    for name, t in (("X1", a), ("X2", b)):
        if t._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t._data.ndim}D")
    if a._data.shape[-1] != b._data.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a._data.shape[-1]} "
                           f"X2: {b._data.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got: {p}")
    for t in (a, b):
        if t._data.dtype.kind != "f":
            raise RuntimeError("cdist only supports floating-point dtypes, X1 got: "
                               f"{dtypes.scalar_type_name(a._data.dtype)}")
    with no_grad():
        diff = a.unsqueeze(-2) - b.unsqueeze(-3)
        result = norm(diff, p, dim=-1)
    if should_record(a, b):
        record(CdistBackward0, result, (a, b), saved=(a, b, OUTPUT), ord=p)
    return result


def peak(data, axis):
    """The largest value along ``axis``, dimensions kept (what a log-sum-exp subtracts);
    ``-inf`` over no elements, where NumPy's max has no identity."""
    if data.size:
        return data.max(axis=axis, keepdims=True)
    return array_module(data).full_like(data.sum(axis=axis, keepdims=True), -math.inf)


class LogsumexpBackward0(Node):
    __slots__ = ("axes", "keepdim")

    def apply(self, grad):
        x, result = self.saved_values
        if not self.keepdim:
            kept = _kept_shape(x._data.shape, self.axes)
            grad, result = grad.reshape(kept), result.reshape(kept)
        return (grad * (x - result).exp(),)


@op(LogsumexpBackward0)
def logsumexp(input: Tensor, dim: Dims | None = None, keepdim: bool = False, *,
              axis: Dims | None = None, keepdims: bool | None = None) -> Tensor:
    """``log(sum(exp(input)))`` along ``dim``, computed without overflow.

    Parameters
    ----------
    input : Tensor
        Integers and bools are computed in the default float dtype.
    dim : int or tuple of int
        The dimensions reduced; required, as in PyTorch (``()`` reduces all of them).
    keepdim : bool
        Keep them with size 1.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        ``-inf`` over no elements; the gradient is the incoming one times
        ``softmax(input)`` along ``dim``.

    Raises
    ------
    TypeError
        ``dim`` is omitted.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("logsumexp", dim, axis, keepdim, keepdims)
    if dim is None:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    x = tensor_operand(input, "logsumexp")
    data = x._data if x._data.dtype.kind == "f" else x._data.astype(dtypes.get_default_dtype().numpy)
    axes = normalize_dims(dim, data.ndim)
    axis = _axis(axes, data.ndim)
    xp = array_module(data)
    top = peak(data, axis)
    top = xp.where(xp.isfinite(top), top, 0)
    with np.errstate(divide="ignore"):  # log(0) is -inf: every element was -inf, or none
        value = xp.log(xp.exp(data - top).sum(axis=axis, keepdims=True)) + top
    out = Tensor._make(value if keepdim else value.reshape(_reduced_shape(data.shape, axes)))
    if should_record(x):
        record(LogsumexpBackward0, out, (x,), saved=(x, OUTPUT), axes=axes, keepdim=keepdim)
    return out
