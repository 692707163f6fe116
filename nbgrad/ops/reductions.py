"""Reductions: sums, means, spreads, extremes and norms over whole tensors or dims.

Backward of a reduction puts the reduced dimensions back (``keepdim`` shape) and expands
the gradient over them. For ``max``/``min`` the gradient goes to the extreme elements:
over a whole tensor (and ``amax``) it is shared evenly among ties; with ``dim=`` it goes
to the one element whose index is returned, as in PyTorch.
"""

import collections
import math

import numpy as np

from .. import dtypes
from ..autograd.graph import OUTPUT, record, should_record
from ..core.node import Node
from ..backend import array_module
from ..tensor import Tensor
from .selection import maximum, minimum
from .declare import op
from .operands import tensor_operand


def normalize_dims(dim, ndim):
    """``dim`` (None, an int, or a sequence) as a sorted tuple of non-negative axes."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        axes = tuple(sorted({dtypes.dim_index(d, ndim) for d in dim}))
        if len(axes) != len(dim):
            raise RuntimeError("dim appears multiple times in the list of dims")
        return axes or tuple(range(ndim))
    return (dtypes.dim_index(dim, ndim),)


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
        return dtypes.to_numpy_dtype(dtype)
    return np.dtype(np.int64) if data.dtype.kind in "biu" else data.dtype


def _add_reduce(data, axis, dtype, keepdims):
    """``data.sum(...)``, for a NumPy array as the ufunc itself: ``ndarray.sum`` is written in
    Python, so NumPy's warnings (inf + -inf) would come from NumPy's frame, out of reach of
    nbgrad's filter (nbgrad/warn.py); the ufunc is faster too. CuPy gives no such warnings."""
    if type(data) is np.ndarray:
        return np.add.reduce(data, axis=axis, dtype=dtype, keepdims=keepdims)
    return data.sum(axis=axis, dtype=dtype, keepdims=keepdims)


@op(SumBackward0, SumBackward1)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum of all elements, or along ``dim`` (integers sum to int64)."""
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
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of all elements, or along ``dim``."""
    x = tensor_operand(input, "mean")
    _require_float("mean", x, dtype)
    data = x._data if dtype is None else x._data.astype(dtypes.to_numpy_dtype(dtype))
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


@op(export=False)
def sum_to_size(input, *size):
    """Sum ``input`` down to ``size`` (the reverse of broadcasting ``size`` up to it)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    size = tuple(size)
    x = tensor_operand(input, "sum_to_size")
    shape = x._data.shape
    if size == shape:
        return x
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                     if s == 1 and shape[lead + i] != 1)
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
    _require_float(op, x)
    if isinstance(dim, bool):  # var(x, False): the old positional ``unbiased``
        dim, unbiased = None, dim
    correction = _correction(unbiased, correction)
    data = x._data
    axes = normalize_dims(dim, data.ndim)
    n = math.prod(data.shape[a] for a in axes)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = data.var(axis=_axis(axes, data.ndim), keepdims=keepdim, ddof=0)
        var = var * (n / (n - correction)) if n - correction > 0 else var * np.nan
    out = Tensor._make(finish(var).astype(data.dtype, copy=False))
    if should_record(x):
        saved = (x,) if node_cls is VarBackward0 else (x, OUTPUT)
        record(node_cls, out, (x,), saved=saved, shape=data.shape, axes=axes,
               keepdim=keepdim, correction=correction)
    return out


class VarBackward0(Node):
    __slots__ = ("shape", "axes", "keepdim", "correction")

    def apply(self, grad):
        (x,) = self.saved_values
        n = math.prod(self.shape[a] for a in self.axes)
        centered = x - x.mean(self.axes, keepdim=True)
        scale = 2.0 / (n - self.correction) if n - self.correction > 0 else math.inf
        return (_expand_back(grad, self.shape, self.axes, self.keepdim) * centered * scale,)


@op(VarBackward0)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The variance along ``dim`` (or of all elements), with Bessel's correction by default."""
    return _spread("var", VarBackward0, lambda v: v, input, dim, unbiased, keepdim, correction)


class StdBackward0(Node):
    __slots__ = ("shape", "axes", "keepdim", "correction")

    def apply(self, grad):
        x, result = self.saved_values
        n = math.prod(self.shape[a] for a in self.axes)
        centered = x - x.mean(self.axes, keepdim=True)
        std = result if self.keepdim else result.reshape(_kept_shape(self.shape, self.axes))
        grad = _expand_back(grad, self.shape, self.axes, self.keepdim)
        denominator = n - self.correction if n > self.correction else 0
        return (grad * centered / (std * denominator),)


@op(StdBackward0)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The standard deviation: the square root of ``var``."""
    return _spread("std", StdBackward0, np.sqrt, input, dim, unbiased, keepdim, correction)


# -- extremes ---------------------------------------------------------------------------
def _return_type(name):
    base = collections.namedtuple(name, ["values", "indices"])

    def __repr__(self):
        return f"nbgrad.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__})


class return_types:
    """The named tuples PyTorch returns from ``max(dim)`` and ``min(dim)``."""

    max = _return_type("max")
    min = _return_type("min")


def _check_nonempty(op, data, axes):
    if data.size == 0 and (not axes or any(data.shape[a] == 0 for a in axes) or data.ndim == 0):
        raise RuntimeError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )


def _extreme(op, input, dim, keepdim, other, is_max):
    x = tensor_operand(input, op)
    if isinstance(dim, Tensor) or other is not None:  # max(a, b) is maximum(a, b)
        return (maximum if is_max else minimum)(x, dim if other is None else other)
    data = x._data
    if dim is None:
        _check_nonempty(op, data, ())
        out = Tensor._make(data.max() if is_max else data.min())
        if should_record(x):
            record(MaxBackward1 if is_max else MinBackward1, out, (x,), saved=(x, OUTPUT))
        return out
    axis = dtypes.dim_index(dim, data.ndim)
    _check_nonempty(op, data, (axis,))
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
               shape=data.shape, dim=axis, keepdim=keepdim or not data.ndim)
    return (return_types.max if is_max else return_types.min)(values, indices)


class MaxBackward1(Node):
    """Whole-tensor max: the gradient is shared evenly among elements equal to the max."""

    __slots__ = ()

    def apply(self, grad):
        x, result = self.saved_values
        ties = x == result
        return (ties * (grad / ties.sum()),)


class MaxBackward0(Node):
    """max(dim): the gradient goes to the element whose index was returned."""

    __slots__ = ("shape", "dim", "keepdim")

    def apply(self, grad):
        (indices,) = self.saved_values
        if not self.keepdim:
            grad = grad.unsqueeze(self.dim)
            indices = indices.unsqueeze(self.dim)
        xp = array_module(indices._data)
        along = [1] * len(self.shape)
        along[self.dim] = self.shape[self.dim]
        positions = Tensor._make(xp.arange(self.shape[self.dim]).reshape(along))
        return (grad * (positions == indices),)


@op(MaxBackward1, MaxBackward0)
def max(input, dim=None, keepdim=False, *, other=None):
    """The largest element; with ``dim``, ``(values, indices)`` along it; with a tensor, ``maximum``."""
    return _extreme("max", input, dim, keepdim, other, True)


class MinBackward1(MaxBackward1):
    __slots__ = ()


class MinBackward0(MaxBackward0):
    __slots__ = ()


@op(MinBackward1, MinBackward0)
def min(input, dim=None, keepdim=False, *, other=None):
    """The smallest element; with ``dim``, ``(values, indices)`` along it; with a tensor, ``minimum``."""
    return _extreme("min", input, dim, keepdim, other, False)


def _a_extreme(op, node_cls, input, dim, keepdim, is_max):
    x = tensor_operand(input, op)
    data = x._data
    axes = normalize_dims(() if dim is None else dim, data.ndim)
    _check_nonempty(op, data, axes)
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
def amax(input, dim=(), keepdim=False):
    """The largest values along ``dim`` (ties share the gradient evenly)."""
    return _a_extreme("amax", AmaxBackward0, input, dim, keepdim, True)


class AminBackward0(AmaxBackward0):
    __slots__ = ()


@op(AminBackward0)
def amin(input, dim=(), keepdim=False):
    """The smallest values along ``dim`` (ties share the gradient evenly)."""
    return _a_extreme("amin", AminBackward0, input, dim, keepdim, False)


# -- norms and log-sum-exp --------------------------------------------------------------
class LinalgVectorNormBackward0(Node):
    __slots__ = ("ord", "axes", "keepdim")

    def apply(self, grad):
        x, result = self.saved_values
        shape = x._data.shape
        if not self.keepdim:
            grad = grad.reshape(_kept_shape(shape, self.axes))
            result = result.reshape(_kept_shape(shape, self.axes))
        p = self.ord
        if p == 2:  # x / |x|, taken as 0 at x = 0 (as PyTorch, whose 2nd derivative is nan there)
            return ((grad / result).masked_fill(result == 0, 0.0) * x,)
        elif p == 1:
            local = x.sign()
        elif p == math.inf:
            ties = x.abs() == result
            local = x.sign() * ties / ties.sum(self.axes, keepdim=True)
        else:
            scaled = x * x.abs() ** (p - 2)
            local = scaled / (result ** (p - 1)).masked_fill(result == 0, 1.0)
        return (grad * local,)


@op(LinalgVectorNormBackward0)
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The ``p``-norm of all elements, or along ``dim``."""
    x = tensor_operand(input, "norm")
    _require_float("linalg.vector_norm", x)
    if p == "fro" or p is None:
        p = 2
    if not isinstance(p, (int, float)) or p <= 0:
        raise RuntimeError(f"norm(): p must be a positive number or 'fro', got {p!r}")
    data = x._data
    axes = normalize_dims(dim, data.ndim)
    axis = _axis(axes, data.ndim)
    xp = array_module(data)
    magnitude = xp.abs(data)
    if p == math.inf:
        value = magnitude.max(axis=axis, keepdims=keepdim)
    elif p == 2:  # scaled by the largest magnitude, so tiny or huge values do not under/overflow
        scale = magnitude.max(axis=axis, keepdims=True) if data.size else magnitude.sum(axis=axis, keepdims=True)
        scale = xp.where(scale > 0, scale, 1).astype(data.dtype)
        value = xp.sqrt(((data / scale) ** 2).sum(axis=axis, keepdims=True)) * scale
        if not keepdim:
            value = value.reshape([s for i, s in enumerate(data.shape) if i not in axes])
    else:
        value = (magnitude ** p).sum(axis=axis, keepdims=keepdim) ** (1.0 / p)
    out = Tensor._make(value.astype(data.dtype, copy=False))
    if should_record(x):
        record(LinalgVectorNormBackward0, out, (x,), saved=(x, OUTPUT), ord=p, axes=axes,
               keepdim=keepdim)
    return out


class LogsumexpBackward0(Node):
    __slots__ = ("axes", "keepdim")

    def apply(self, grad):
        x, result = self.saved_values
        if not self.keepdim:
            kept = _kept_shape(x._data.shape, self.axes)
            grad, result = grad.reshape(kept), result.reshape(kept)
        return (grad * (x - result).exp(),)


@op(LogsumexpBackward0)
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(x)))`` along ``dim``, without overflow."""
    x = tensor_operand(input, "logsumexp")
    data = x._data if x._data.dtype.kind == "f" else x._data.astype(dtypes.get_default_dtype().numpy)
    axes = normalize_dims(dim, data.ndim)
    axis = _axis(axes, data.ndim)
    xp = array_module(data)
    peak = data.max(axis=axis, keepdims=True)
    peak = xp.where(xp.isfinite(peak), peak, 0)
    value = xp.log(xp.exp(data - peak).sum(axis=axis, keepdims=True)) + peak
    if not keepdim:
        value = value.reshape([s for i, s in enumerate(data.shape) if i not in axes])
    out = Tensor._make(value)
    if should_record(x):
        record(LogsumexpBackward0, out, (x,), saved=(x, OUTPUT), axes=axes, keepdim=keepdim)
    return out
