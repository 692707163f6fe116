"""Reading and writing along a dimension at given indices: gather and scatter, index_select
and index_add, index_copy and index_fill, masked_select and take, each one block.

The two families are each other's adjoints, and their backward formulas (PyTorch's
``derivatives.yaml``) are written with them: ``gather``'s gradient is scattered back with
``scatter_add``, ``index_select``'s is added back with ``index_add``, and the other way round.
So higher-order gradients come for free.

Unlike basic indexing, none of these accepts a negative index: PyTorch reports it as out of
bounds, and so does nbgrad.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..autograd.graph import OUTPUT, record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from ..warn import warn_once
from .declare import op
from .elementwise import NotImplementedBackward, meta, to_input
from .indexing import embed
from .operands import broadcast_error, same_device, tensor_operand
from .selection import where
from .shape import cat

_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.int32))


def _index_operand(index, op):
    return tensor_operand(index, op, 2, "index")  # as PyTorch counts it for the method


def _dtype_name(array):
    return dtypes.scalar_type_name(array.dtype)


def _first_out_of_bounds(idx, size):
    """The first index (in row-major order) outside ``[0, size)``, or ``None``."""
    if not idx.size:
        return None
    xp = array_module(idx)
    bad = (idx < 0) | (idx >= size)
    if not bool(bad.any()):
        return None
    return int(idx.reshape(-1)[int(xp.argmax(bad.reshape(-1)))])


def _check_bounds(idx, dim, size, prefix="", error=RuntimeError):
    value = _first_out_of_bounds(idx, size)
    if value is not None:
        raise error(f"{prefix}index {value} is out of bounds for dimension {dim} with size {size}")


def _as_1d(data):
    """A 0-d array as a 1-element one: PyTorch treats a 0-d tensor as of size 1 along dim 0."""
    return data.reshape(1) if data.ndim == 0 else data


# -- gather and scatter -----------------------------------------------------------------
def _positions(idx, dim, xp):
    """The advanced index that puts element ``i`` of ``idx`` at ``idx[i]`` along ``dim`` and
    at its own position along every other dimension."""
    key = []
    for axis, n in enumerate(idx.shape):
        if axis == dim:
            key.append(idx)
        else:
            shape = [1] * idx.ndim
            shape[axis] = n
            key.append(xp.arange(n).reshape(shape))
    return tuple(key)


def _leading(data, shape):
    """The leading block of ``data`` of ``shape`` (an index may be smaller than the tensor)."""
    return data[tuple(slice(0, n) for n in shape)]


def _gather_index(op, x, dim, index, src=None):
    """``(data, idx, d)``: the arrays of ``x`` and ``index`` (0-d as 1-d) and the dimension,
    after PyTorch's checks for gather-like ops (``src``: scatter's source array)."""
    if index._data.dtype not in _INDEX_DTYPES:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")
    data, idx = _as_1d(x._data), _as_1d(index._data)
    d = dtypes.dim_index(dim, x._data.ndim)
    if idx.ndim != data.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if not idx.size:
        return data, idx, d
    if src is None:
        for axis in range(data.ndim):
            if axis != d and idx.shape[axis] > data.shape[axis]:
                raise RuntimeError(
                    f"Size does not match at dimension {axis} expected index {list(index.shape)} "
                    f"to be no larger than self {list(x.shape)} apart from dimension {d}"
                )
    elif any((axis != d and n > data.shape[axis]) or n > s
             for axis, (n, s) in enumerate(zip(idx.shape, _as_1d(src).shape))):
        raise RuntimeError(
            f"Expected index {list(index.shape)} to be no larger than self {list(x.shape)} apart "
            f"from dimension {d} and to be no larger size than src {list(src.shape)}"
        )
    _check_bounds(idx, d, data.shape[d])
    return data, idx, d


class GatherBackward0(Node):
    """The gradient is added back where each element came from (``scatter_add``). The
    input is saved, as PyTorch saves it (only its shape is used), so that changing it in
    place makes backward refuse, as PyTorch's does."""

    __slots__ = ("dim", "shape")

    def apply(self, grad):
        _, index = self.saved_values
        zeros = Tensor._make(array_module(grad._data).zeros(self.shape, grad._data.dtype))
        return (scatter_add(zeros, self.dim, index, grad),)


@op(GatherBackward0)
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """Values along ``dim`` at ``index``: ``out[i][j] = input[index[i][j]][j]`` for ``dim=0``.

    Parameters
    ----------
    input : Tensor
    dim : int
        The dimension to gather along.
    index : Tensor
        int64 (or int32) indices, with as many dimensions as ``input`` and no larger than it
        along the other dimensions.
    sparse_grad : bool
        Accepted for PyTorch's signature; the gradient is always dense.

    Returns
    -------
    Tensor
        Shaped like ``index``.
    """
    x = tensor_operand(input, "gather")
    index = _index_operand(index, "gather")
    same_device(x, index)
    data, idx, d = _gather_index("gather", x, dim, index)
    xp = array_module(data)
    result = data[_positions(idx, d, xp)] if idx.size else xp.empty(idx.shape, data.dtype)
    out = Tensor._make(result.reshape(index._data.shape))
    if should_record(x):
        record(GatherBackward0, out, (x,), saved=(x, index), dim=d, shape=x._data.shape)
    return out


def _scattered(data, idx, d, values, reduce):
    """A copy of ``data`` with ``values`` written (or, by ``reduce``, added or multiplied)
    at the positions ``idx`` names along ``d``."""
    out = data.copy()
    if not idx.size:
        return out
    xp = array_module(data)
    key = _positions(idx, d, xp)
    if reduce is None:
        out[key] = values
    else:
        (xp.add if reduce == "add" else xp.multiply).at(out, key, values)
    return out


def _scatter_values(op, x, src, index_shape):
    """The values a scatter writes: the leading block of ``src`` (as an array of ``x``'s
    dtype, which it must have), or the number ``src``."""
    if isinstance(src, Tensor):
        if src._data.dtype != x._data.dtype:
            raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype")
        return _leading(_as_1d(src._data), index_shape)
    return array_module(x._data).asarray(src).astype(x._data.dtype)


def _src_grad(node, grad, index):
    """``grad.gather(dim, index)``, PyTorch's gradient of a scatter's ``src``. It is shaped
    like ``index``, which may be smaller than ``src``: PyTorch's engine then refuses it, and
    so does this (nbgrad's engine trusts a node's gradients to have their inputs' shapes)."""
    out = gather(grad, node.dim, index)
    shape = node.src_shape
    if out._data.shape != shape:
        got = out._data.shape
        if len(got) != len(shape) or any(s not in (1, g) for s, g in zip(shape, got)):
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index 1 - "
                               f"got {list(got)} but expected shape compatible with {list(shape)}")
        out = out.sum_to_size(shape)
    return out


class ScatterBackward0(Node):
    """``src`` written over ``input``: the input's gradient is zero where it was overwritten,
    ``src``'s is read back from where it went (``gather``)."""

    __slots__ = ("dim", "src_shape")

    def apply(self, grad):
        (index,) = self.saved_values
        input_fn, src_fn = self._next_nodes
        grad_input = scatter(grad, self.dim, index, 0) if input_fn is not None else None
        grad_src = _src_grad(self, grad, index) if src_fn is not None else None
        return grad_input, grad_src


class ScatterBackward1(Node):
    """A number written over ``input``: its gradient is zero where it was overwritten."""

    __slots__ = ("dim",)

    def apply(self, grad):
        (index,) = self.saved_values
        return (scatter(grad, self.dim, index, 0),)


_REDUCE_WARNING = (
    "The reduce argument of nbgrad.scatter with Tensor src is deprecated and will be removed in "
    "a future PyTorch release. Use nbgrad.scatter_reduce instead for more reduction options."
)


@op(ScatterBackward0, ScatterBackward1, inplace=True)
def scatter(input: Tensor, dim: int, index: Tensor, src: Tensor | float | None = None, *,
            value: float | None = None, reduce: str | None = None) -> Tensor:
    """A copy of ``input`` with ``src`` written at ``index`` along ``dim``:
    ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``.

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor
        int64 indices, no larger than ``src`` anywhere nor than ``input`` apart from ``dim``.
    src : Tensor or number
        The values (a tensor of ``input``'s dtype), or one number for all.
    value : float, optional
        The number written everywhere, when ``src`` is not given (PyTorch's spelling of
        ``scatter`` with a number).
    reduce : {None, "add", "multiply"}
        Combine with what is there instead of overwriting. As in PyTorch, a ``reduce`` is not
        differentiable: backward through it raises.

    Returns
    -------
    Tensor
        Shaped like ``input``. Where an index repeats, which value is written is unspecified
        (PyTorch's rule too).
    """
    x = tensor_operand(input, "scatter")
    index = _index_operand(index, "scatter")
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing required argument 'src' (or 'value')")
    is_tensor = isinstance(src, Tensor)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if is_tensor:
            warn_once(_REDUCE_WARNING, UserWarning, stacklevel=3)  # once, as PyTorch's
    same_device(x, index, src)
    data, idx, d = _gather_index("scatter", x, dim, index,
                                 src._data if isinstance(src, Tensor) else None)
    values = _scatter_values("scatter", x, src, idx.shape)
    out = Tensor._make(_scattered(data, idx, d, values, reduce).reshape(x._data.shape))
    if reduce is not None:
        if should_record(x, src):  # as PyTorch: recorded, but backward through it raises
            record(NotImplementedBackward, out, (x, src), op="scatter")
    elif isinstance(src, Tensor):
        if should_record(x, src):
            record(ScatterBackward0, out, (x, src), saved=(index,), dim=d,
                   src_shape=src._data.shape)
    elif should_record(x):
        record(ScatterBackward1, out, (x,), saved=(index,), dim=d)
    return out


class ScatterAddBackward0(Node):
    """The input's gradient passes unchanged; ``src``'s is read back with ``gather``."""

    __slots__ = ("dim", "src_shape")

    def apply(self, grad):
        (index,) = self.saved_values
        input_fn, src_fn = self._next_nodes
        grad_src = _src_grad(self, grad, index) if src_fn is not None else None
        return (grad if input_fn is not None else None), grad_src


@op(ScatterAddBackward0, inplace=True)
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src`` added at ``index`` along ``dim`` (repeated indices
    add up): ``out[index[i][j]][j] += src[i][j]`` for ``dim=0``.

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor
        int64 indices, no larger than ``src`` anywhere nor than ``input`` apart from ``dim``.
    src : Tensor
        Of ``input``'s dtype.

    Returns
    -------
    Tensor
        Shaped like ``input``.
    """
    x = tensor_operand(input, "scatter_add")
    index = _index_operand(index, "scatter_add")
    src = tensor_operand(src, "scatter_add", 3, "src")
    same_device(x, index, src)
    data, idx, d = _gather_index("scatter", x, dim, index, src._data)
    values = _scatter_values("scatter", x, src, idx.shape)
    out = Tensor._make(_scattered(data, idx, d, values, "add").reshape(x._data.shape))
    if should_record(x, src):
        record(ScatterAddBackward0, out, (x, src), saved=(index,), dim=d,
               src_shape=src._data.shape)
    return out


_REDUCE_AT = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def _reduced(data, idx, d, values, reduce, include_self):
    """``data`` with ``values`` combined in at ``idx`` along ``d`` by ``reduce``: the
    positions that receive values start from the reduction's identity when
    ``include_self`` is False; ``mean`` divides by how many values each position got
    (rounding down for integers, as PyTorch)."""
    xp = array_module(data)
    out = data.copy()
    if not idx.size:
        return out
    key = _positions(idx, d, xp)
    if not include_self:
        identity = {"sum": 0, "mean": 0, "prod": 1}.get(reduce)
        if identity is None:
            identity = _extreme_value(data.dtype, reduce == "amin")
        out[key] = identity
    getattr(xp, _REDUCE_AT[reduce]).at(out, key, values)
    if reduce == "mean":
        count = xp.full(data.shape, 1 if include_self else 0, data.dtype)
        xp.add.at(count, key, 1)
        count[count == 0] = 1
        out = out // count if data.dtype.kind in "iub" else out / count
    return out


def _extreme_value(dtype, largest):
    if dtype.kind == "f":
        return np.inf if largest else -np.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    return (info.max if largest else info.min) if info is not None else largest


class ScatterReduceBackward0(Node):
    """PyTorch's scatter_reduce_backward: per reduction, the gradient of what each element
    of ``input`` and ``src`` contributed to its position of the result (a tie of
    ``amax``/``amin`` shares it evenly, zeros in ``prod`` are handled exactly); positions
    ``src`` wrote to give ``input`` nothing without ``include_self``."""

    __slots__ = ("dim", "include_self", "reduce")

    def apply(self, grad):
        x, index, src, result = self.saved_values
        d, reduce, include_self = self.dim, self.reduce, self.include_self
        if reduce == "sum":
            grad_x, grad_src = grad, gather(grad, d, index)
        elif reduce == "mean":
            ones = Tensor._make(array_module(grad._data).ones(grad._data.shape, grad._data.dtype))
            count = scatter_add(ones if include_self else ones * 0, d, index,
                                Tensor._make(array_module(src._data).ones_like(src._data)))
            count = count.masked_fill(count == 0, 1)
            grad_x, grad_src = grad / count, gather(grad, d, index) / gather(count, d, index)
        elif reduce == "prod":
            grad_x, grad_src = _prod_backward(grad, x, d, index, src, result, include_self)
        else:  # amax, amin: shared among the elements equal to the result
            value = gather(result, d, index)
            x_is, src_is = (x == result).to(grad.dtype), (src == value).to(grad.dtype)
            share = grad / scatter_add(x_is, d, index, src_is)
            grad_x, grad_src = x_is * share, src_is * gather(share, d, index)
        if not include_self:
            grad_x = scatter(grad_x, d, index, 0)
        x_fn, src_fn = self._next_nodes
        return (grad_x if x_fn is not None else None), (grad_src if src_fn is not None else None)


def _prod_backward(grad, x, d, index, src, result, include_self):
    """``prod``'s gradient, exact where elements are zero (PyTorch's formula)."""
    masked_x = x.masked_fill(x == 0, 1)
    grad_x = grad * scatter_reduce(masked_x, d, index, src, "prod", include_self=include_self) / masked_x
    src_zero = src == 0
    zeros_at = scatter_add(x * 0, d, index, src_zero.to(x.dtype))
    single_zero = src_zero & (gather(zeros_at, d, index) == 1)
    without_it = scatter_reduce(x, d, index, src.masked_fill(single_zero, 1), "prod",
                                include_self=include_self)
    grad_src = where(single_zero, gather(grad * without_it, d, index),
                     gather(grad * result, d, index) / src.masked_fill(src_zero, 1))
    return grad_x, grad_src


@op(ScatterReduceBackward0)
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """A copy of ``input`` with the elements of ``src`` combined in at ``index`` along
    ``dim`` by ``reduce``.

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor
        int64 indices, no larger than ``src`` anywhere nor than ``input`` apart from ``dim``.
    src : Tensor
        Of ``input``'s dtype.
    reduce : {"sum", "prod", "mean", "amax", "amin"}
    include_self : bool
        Whether ``input``'s own values take part at the positions ``src`` goes to.

    Returns
    -------
    Tensor
        Shaped like ``input``; positions no index names keep ``input``'s values.
    """
    x = tensor_operand(input, "scatter_reduce")
    index = _index_operand(index, "scatter_reduce")
    src = tensor_operand(src, "scatter_reduce", 3, "src")
    if reduce not in _REDUCE_AT:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    same_device(x, index, src)
    data, idx, d = _gather_index("scatter", x, dim, index, src._data)
    values = _scatter_values("scatter", x, src, idx.shape)
    out = Tensor._make(_reduced(data, idx, d, values, reduce, include_self).reshape(x._data.shape))
    if should_record(x, src):
        record(ScatterReduceBackward0, out, (x, src), saved=(x, index, src, OUTPUT), dim=d,
               reduce=reduce, include_self=include_self)
    return out


# -- index_select and index_add -----------------------------------------------------------
def _vector_index(op, x, dim, index, inplace_name=None):
    """``(data, idx, d)`` for the index_* ops: ``x``'s array (0-d as 1-d), the 1-d index
    array, the dimension, after PyTorch's checks of the index's dtype and shape."""
    name = inplace_name or op
    idx = index._data
    if idx.dtype not in _INDEX_DTYPES:
        if op == "index_select":
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: "
                           f"{_dtype_name(idx)}")
    if idx.ndim > 1:
        if op == "index_select":
            raise IndexError("index_select(): Index is supposed to be a vector")
        if op == "index_fill":
            raise RuntimeError("Index has to be a vector/scalar")
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: {idx.ndim} "
                         f"with type: {_dtype_name(idx)} and size: {list(idx.shape)}")
    d = dtypes.dim_index(dim, x._data.ndim)
    return _as_1d(x._data), idx.reshape(-1), d


def _along(d, idx):
    """The basic-plus-advanced key that indexes ``idx`` along dimension ``d``."""
    return (slice(None),) * d + (idx,)


class IndexSelectBackward0(Node):
    """The gradient is added back at the rows it was read from (``index_add``)."""

    __slots__ = ("dim", "shape")

    def apply(self, grad):
        (index,) = self.saved_values
        zeros = Tensor._make(array_module(grad._data).zeros(self.shape, grad._data.dtype))
        return (index_add(zeros, self.dim, index, grad),)


@op(IndexSelectBackward0)
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries of ``input`` at ``index`` along ``dim``, in that order (a copy).

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor
        A 1-d (or 0-d) int64 or int32 tensor; each entry in ``[0, input.size(dim))``.

    Returns
    -------
    Tensor
        ``input``'s shape with ``len(index)`` along ``dim``.
    """
    x = tensor_operand(input, "index_select")
    index = _index_operand(index, "index_select")
    same_device(x, index)
    data, idx, d = _vector_index("index_select", x, dim, index)
    if _first_out_of_bounds(idx, data.shape[d]) is not None:
        raise IndexError("index out of range in self")
    result = data[_along(d, idx)]
    if not x._data.ndim:
        result = result.reshape(())
    out = Tensor._make(result)
    if should_record(x):
        record(IndexSelectBackward0, out, (x,), saved=(index,), dim=d, shape=x._data.shape)
    return out


def _check_source(op, x, d, idx, source):
    """PyTorch's checks of the ``source`` of ``index_add`` and ``index_copy``; returns its
    array shaped as the rows it writes (0-d as 1-d)."""
    src = source._data
    if op == "index_copy_" and src.dtype != x._data.dtype:
        raise RuntimeError(
            f"index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{_dtype_name(x._data)} and (source) {_dtype_name(src)}")
    shape = x._data.shape
    one_row = op == "index_copy_" and src.ndim == 0 and idx.size == 1  # index_copy_ allows it
    if not one_row and (src.ndim != len(shape) or any(
            a != b for axis, (a, b) in enumerate(zip(src.shape, shape)) if axis != d)):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(shape)} source.shape = {list(src.shape)}")
    rows = _as_1d(src) if one_row or not shape else src
    if rows.shape[d] != idx.size:
        raise RuntimeError(
            f"{op}(): Number of indices ({idx.size}) should be equal to source.size(dim): "
            f"({rows.shape[d]}), for dim: {d}")
    if op == "index_add_" and src.dtype != x._data.dtype:
        raise RuntimeError(f"index_add_(): self ({_dtype_name(x._data)}) and source "
                           f"({_dtype_name(src)}) must have the same scalar type")
    return rows


class IndexAddBackward0(Node):
    """The input's gradient passes unchanged; ``source``'s is read back (``index_select``),
    times ``alpha``. ``source`` is saved, as PyTorch saves it (for its shape)."""

    __slots__ = ("alpha", "dim", "source_shape")

    def apply(self, grad):
        index, _ = self.saved_values
        input_fn, source_fn = self._next_nodes
        grad_source = None
        if source_fn is not None:
            grad_source = index_select(grad, self.dim, index).reshape(self.source_shape)
            if self.alpha != 1:
                grad_source = grad_source * self.alpha
        return (grad if input_fn is not None else None), grad_source


@op(IndexAddBackward0, inplace=True)
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *,
              alpha: float = 1) -> Tensor:
    """A copy of ``input`` with ``alpha * source[i]`` added at ``index[i]`` along ``dim``
    (repeated indices add up).

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor
        A 1-d int64 or int32 tensor, as long as ``source`` along ``dim``.
    source : Tensor
        Of ``input``'s dtype and shape apart from ``dim``.
    alpha : number
        The factor ``source`` is scaled by.

    Returns
    -------
    Tensor
        Shaped like ``input``.
    """
    x = tensor_operand(input, "index_add")
    index = _index_operand(index, "index_add")
    source = tensor_operand(source, "index_add", 3, "source")
    same_device(x, index, source)
    data, idx, d = _vector_index("index_add", x, dim, index, "index_add_")
    _check_bounds(idx, d, data.shape[d])
    src = _check_source("index_add_", x, d, idx, source)
    if alpha != 1:
        src = src * array_module(src).asarray(alpha).astype(src.dtype)
    result = data.copy()
    array_module(data).add.at(result, _along(d, idx), src)
    out = Tensor._make(result.reshape(x._data.shape))
    if should_record(x, source):
        record(IndexAddBackward0, out, (x, source), saved=(index, source), dim=d, alpha=alpha,
               source_shape=source._data.shape)
    return out


# -- index_copy and index_fill ------------------------------------------------------------
class IndexCopyBackward0(Node):
    """The input's gradient is zero at the copied rows; ``source``'s is read from them.
    ``source`` is saved, as PyTorch saves it (for its shape)."""

    __slots__ = ("dim", "source_shape")

    def apply(self, grad):
        index, _ = self.saved_values
        input_fn, source_fn = self._next_nodes
        grad_input = index_fill(grad, self.dim, index, 0) if input_fn is not None else None
        grad_source = (index_select(grad, self.dim, index).reshape(self.source_shape)
                       if source_fn is not None else None)
        return grad_input, grad_source


@op(IndexCopyBackward0, inplace=True)
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with ``source[i]`` written at ``index[i]`` along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor
        A 1-d int64 tensor, as long as ``source`` along ``dim``.
    source : Tensor
        Of ``input``'s dtype and shape apart from ``dim``.

    Returns
    -------
    Tensor
        Shaped like ``input``.
    """
    x = tensor_operand(input, "index_copy")
    index = _index_operand(index, "index_copy")
    source = tensor_operand(source, "index_copy", 3, "source")
    same_device(x, index, source)
    data, idx, d = _vector_index("index_copy", x, dim, index, "index_copy_")
    src = _check_source("index_copy_", x, d, idx, source)
    _check_bounds(idx, d, data.shape[d], "index_copy_(): ", IndexError)
    result = data.copy()
    result[_along(d, idx)] = src
    out = Tensor._make(result.reshape(x._data.shape))
    if should_record(x, source):
        record(IndexCopyBackward0, out, (x, source), saved=(index, source), dim=d,
               source_shape=source._data.shape)
    return out


class IndexFillBackward0(Node):
    """A number filled in: the gradient is zero at the filled rows."""

    __slots__ = ("dim",)

    def apply(self, grad):
        (index,) = self.saved_values
        return (index_fill(grad, self.dim, index, 0),)


class IndexFillBackward1(Node):
    """A 0-d tensor filled in: it gets the sum of the gradient over the filled rows (each
    row once, however often its index repeats)."""

    __slots__ = ("dim", "meta")

    def apply(self, grad):
        (index,) = self.saved_values
        input_fn, value_fn = self._next_nodes
        grad_input = index_fill(grad, self.dim, index, 0) if input_fn is not None else None
        grad_value = None
        if value_fn is not None:
            xp = array_module(index._data)
            rows = Tensor._make(xp.unique(index._data.reshape(-1)))
            grad_value = to_input(index_select(grad, self.dim, rows).sum(), self.meta)
        return grad_input, grad_value


@op(IndexFillBackward0, IndexFillBackward1, inplace=True)
def index_fill(input: Tensor, dim: int, index: Tensor, value: float | Tensor) -> Tensor:
    """A copy of ``input`` with ``value`` at the entries ``index`` names along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor
        A 1-d (or 0-d) int64 tensor.
    value : number or 0-d Tensor
        Cast to ``input``'s dtype (a tensor value gets the gradient of what it filled).

    Returns
    -------
    Tensor
        Shaped like ``input``.
    """
    x = tensor_operand(input, "index_fill")
    index = _index_operand(index, "index_fill")
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    same_device(x, index, value)
    data, idx, d = _vector_index("index_fill", x, dim, index, "index_fill_")
    _check_bounds(idx, d, data.shape[d], error=IndexError)
    xp = array_module(data)
    result = data.copy()
    filler = value._data if isinstance(value, Tensor) else value
    result[_along(d, idx)] = xp.asarray(filler).astype(data.dtype)
    out = Tensor._make(result.reshape(x._data.shape))
    if isinstance(value, Tensor):
        if should_record(x, value):
            record(IndexFillBackward1, out, (x, value), saved=(index,), dim=d,
                   meta=meta(value, out))
    elif should_record(x):
        record(IndexFillBackward0, out, (x,), saved=(index,), dim=d)
    return out


# -- masked_select and take ---------------------------------------------------------------
class MaskedSelectBackward0(Node):
    """The gradient goes back where the mask was on (zeros elsewhere), summed back over
    what the mask broadcast ``input`` to. The input is saved, as PyTorch saves it (for
    its shape)."""

    __slots__ = ("meta", "shape")

    def apply(self, grad):
        _, mask = self.saved_values
        xp = array_module(mask._data)
        full = xp.broadcast_to(mask._data, self.shape)
        return (to_input(embed(grad, self.shape, (full,)), self.meta),)


@op(MaskedSelectBackward0)
def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``input`` where the boolean ``mask`` is True, as a 1-d tensor (the two
    are broadcast together first).

    Parameters
    ----------
    input : Tensor
    mask : Tensor
        A bool tensor broadcastable with ``input``.

    Returns
    -------
    Tensor
        1-d, in row-major order.
    """
    x = tensor_operand(input, "masked_select")
    m = tensor_operand(mask, "masked_select", 2, "mask")
    if m._data.dtype.kind != "b":
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got "
                           f"{_dtype_name(m._data)}")  # torch 2.13's wording (not checked)
    same_device(x, m)
    xp = array_module(x._data)
    try:
        shape = np.broadcast_shapes(x._data.shape, m._data.shape)
    except ValueError:
        raise broadcast_error(m._data.shape, x._data.shape) from None
    out = Tensor._make(xp.broadcast_to(x._data, shape)[xp.broadcast_to(m._data, shape)])
    if should_record(x):
        record(MaskedSelectBackward0, out, (x,), saved=(x, m), shape=shape,
               meta=None if shape == x._data.shape else (x._data.shape, x._data.dtype))
    return out


class MaskedScatterBackward0(Node):
    """The input's gradient is zero where the mask put ``source``'s elements; ``source``'s
    is the gradient there, in order, then zeros for the elements it did not give."""

    __slots__ = ("meta", "source_shape")

    def apply(self, grad):
        (mask,) = self.saved_values
        input_fn, source_fn = self._next_nodes
        grad_input = grad_source = None
        if input_fn is not None:
            grad_input = to_input(grad.masked_fill(mask, 0.0), self.meta)
        if source_fn is not None:
            taken = masked_select(grad, mask)
            n = _numel(self.source_shape)
            zeros = Tensor._make(array_module(grad._data).zeros(n - taken._data.size,
                                                                grad._data.dtype))
            grad_source = cat([taken, zeros]).reshape(self.source_shape)
        return grad_input, grad_source


@op(MaskedScatterBackward0, inplace=True)
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with the elements of ``source``, in order, where ``mask`` is
    True (the two broadcast together).

    Parameters
    ----------
    input : Tensor
    mask : Tensor
        A bool tensor.
    source : Tensor
        Of ``input``'s dtype, with at least as many elements as ``mask`` has True values.

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "masked_scatter")
    m = tensor_operand(mask, "masked_scatter", 2, "mask")
    source = tensor_operand(source, "masked_scatter", 3, "source")
    if m._data.dtype.kind != "b":
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_dtype_name(m._data)}")
    if source._data.dtype != x._data.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{_dtype_name(x._data)} and {_dtype_name(source._data)}")
    same_device(x, m, source)
    xp = array_module(x._data)
    try:
        shape = np.broadcast_shapes(x._data.shape, m._data.shape)
    except ValueError:
        raise broadcast_error(m._data.shape, x._data.shape) from None  # PyTorch names the mask first
    full = xp.broadcast_to(m._data, shape)
    count = int(full.sum())
    if source._data.size < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    result = xp.array(xp.broadcast_to(x._data, shape))
    result[full] = source._data.reshape(-1)[:count]
    out = Tensor._make(result)
    if should_record(x, source):
        record(MaskedScatterBackward0, out, (x, source), saved=(Tensor._make(full),),
               meta=meta(x, out), source_shape=source._data.shape)
    return out


class TakeBackward0(Node):
    """The gradient is added back at the flat positions it was read from. The input is
    saved, as PyTorch saves it (for its shape)."""

    __slots__ = ("shape",)

    def apply(self, grad):
        _, index = self.saved_values
        zeros = Tensor._make(array_module(grad._data).zeros(_numel(self.shape), grad._data.dtype))
        flat = index_add(zeros, 0, index.reshape(-1) % max(_numel(self.shape), 1),
                         grad.reshape(-1))
        return (flat.reshape(self.shape),)


def _numel(shape):
    return int(np.prod(shape, dtype=np.int64))


@op(TakeBackward0)
def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of ``input`` read as 1-d at ``index`` (negative indices count from the
    end), shaped like ``index``.

    Parameters
    ----------
    input : Tensor
    index : Tensor
        An int64 tensor of any shape; each entry in ``[-input.numel(), input.numel())``.

    Returns
    -------
    Tensor
        Shaped like ``index``.
    """
    x = tensor_operand(input, "take")
    index = tensor_operand(index, "take", 2, "index")
    if index._data.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_dtype_name(index._data)}")
    same_device(x, index)
    n, idx = x._data.size, index._data
    bad = (idx < -n) | (idx >= n)
    if idx.size and bool(bad.any()):
        value = int(idx.reshape(-1)[int(array_module(idx).argmax(bad.reshape(-1)))])
        raise IndexError(f"out of range: tried to access index {value} on a tensor of {n} elements.")
    out = Tensor._make(x._data.reshape(-1)[idx % max(n, 1)] if idx.size else
                       array_module(idx).empty(idx.shape, x._data.dtype))
    if should_record(x):
        record(TakeBackward0, out, (x,), saved=(x, index), shape=x._data.shape)
    return out
