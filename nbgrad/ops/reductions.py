"""Reductions: sums, means, spreads, extremes and norms over whole tensors or dims.

Backward of a reduction puts the reduced dimensions back (``keepdim`` shape) and expands
the gradient over them. For ``max``/``min`` the gradient goes to the extreme elements:
over a whole tensor (and ``amax``) it is shared evenly among ties; with ``dim=`` it goes
to the one element whose index is returned, as in PyTorch.
"""

import builtins
import collections
import math
import warnings

import numpy as np

from .. import dtypes
from ..autograd.graph import OUTPUT, record, should_record
from ..core.node import Node
from ..backend import array_module
from ..tensor import Tensor
from .selection import maximum, minimum, where
from .declare import op
from .operands import tensor_operand


def normalize_dims(dim, ndim):
    """``dim`` (None, an int, or a sequence) as a sorted tuple of non-negative axes.

    A 0-d tensor accepts dim 0 and -1 (PyTorch's ``maybe_wrap_dim`` treats it as having one
    dimension) but has no axis to reduce: its axes are ``()``, so its reduction is itself.
    """
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        axes = []
        for d in dim:
            axis = dtypes.dim_index(d, ndim)
            if axis in axes:
                raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
            axes.append(axis)
        if not axes:  # dim=(): every dimension, as in PyTorch
            return tuple(range(ndim))
        axes = tuple(sorted(axes))
    else:
        axes = (dtypes.dim_index(dim, ndim),)
    return axes if ndim else ()


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
    """The mean of all elements, or along ``dim`` (nan over no elements, as in PyTorch)."""
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
    if x._data.dtype.kind != "f":
        raise RuntimeError("std and var only support floating point and complex dtypes")
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
                      UserWarning, stacklevel=3)
    # Written out rather than NumPy's var, which warns over no elements or no degrees of
    # freedom; PyTorch divides by max(n - correction, 0): inf, or nan for 0 / 0.
    with np.errstate(divide="ignore", invalid="ignore"):
        centered = data - data.sum(axis=axis, keepdims=True) / n
        var = (centered * centered).sum(axis=axis, keepdims=keepdim) / builtins.max(n - correction, 0)
    out = Tensor._make(finish(var).astype(data.dtype, copy=False))
    if should_record(x):
        saved = (x,) if node_cls is VarBackward0 else (x, OUTPUT)
        record(node_cls, out, (x,), saved=saved, shape=data.shape, axes=axes,
               keepdim=keepdim, correction=correction, whole=dim is None or not data.ndim)
    return out


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
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The variance along ``dim`` (or of all elements), with Bessel's correction by default."""
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
    """The named tuples PyTorch returns from ``max(dim)``, ``min(dim)``, ``sort``, ``topk``
    and ``kthvalue`` (``sorting.py``)."""

    max = _return_type("max")
    min = _return_type("min")
    sort = _return_type("sort")
    topk = _return_type("topk")
    kthvalue = _return_type("kthvalue")


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
    """PyTorch's norm_backward, case by case in ``p``."""

    __slots__ = ("ord", "axes", "keepdim")

    def apply(self, grad):
        x, result = self.saved_values
        shape = x._data.shape
        if not self.keepdim:
            grad = grad.reshape(_kept_shape(shape, self.axes))
            result = result.reshape(_kept_shape(shape, self.axes))
        p = self.ord
        if p == 0:  # a count of nonzeros: PyTorch gives no gradient at all
            return (None,)
        if p == 1:
            return (x.sign() * grad,)
        if p == 2:  # x / |x|, taken as 0 at |x| = 0 (where PyTorch's 2nd derivative is nan)
            return (grad * (x / result).masked_fill(result == 0, 0.0),)
        if math.isinf(p):  # amax/amin of |x|: shared among the extremes, a NaN counted as one
            magnitude = x.abs()
            extremes = (magnitude == result) | magnitude.isnan()
            return (x.sign() * ((grad / extremes.sum(self.axes, keepdim=True)) * extremes),)
        if p < 1:
            scaled = (x.sign() * x.abs() ** (p - 1)).masked_fill(x == 0, 0.0)
            return (scaled * grad * result ** (1 - p),)
        scaled = x.sign() * x.abs() ** (p - 1) if p < 2 else x * x.abs() ** (p - 2)
        return (scaled * (grad / result ** (p - 1)).masked_fill(result == 0, 0.0),)


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
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The ``p``-norm of all elements, or along ``dim`` (any real ``p``, ``inf`` and ``-inf``
    included; ``p = 0`` counts the nonzero elements)."""
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
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(x)))`` along ``dim``, without overflow (``-inf`` over no elements)."""
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
