"""Sorting and order statistics: sort, argsort, msort, topk and kthvalue, each one block.

Every one of them picks elements of its input, so its gradient goes back to the positions
it took them from: the returned indices, scattered into zeros (PyTorch's
``value_selecting_reduction_backward``). Where values tie, the gradient goes to the index
that was returned, never split.

The order is NumPy's stable sort, which is PyTorch's with ``stable=True`` (equal elements
keep their order, NaN sorts above everything); a descending sort keeps equal elements in
their order too.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .gather_scatter import scatter
from .operands import tensor_operand
from .reductions import return_types


def _stable_argsort(data, axis, descending):
    """The indices that sort ``data`` along ``axis``, ties in their original order."""
    xp = array_module(data)
    kind = {"kind": "stable"} if xp is np else {}  # CuPy's sort is always stable
    if not descending:
        return xp.argsort(data, axis=axis, **kind)
    # Reversed, sorted ascending and reversed again: descending, with equal elements (read
    # from the end) in their original order.
    n = data.shape[axis]
    flipped = xp.flip(xp.argsort(xp.flip(data, axis), axis=axis, **kind), axis)
    return n - 1 - flipped


def _sorted(x, dim, descending):
    """``(values, indices, d)`` of ``x`` sorted along ``dim`` (a 0-d tensor as itself)."""
    data = x._data
    d = dtypes.dim_index(dim, data.ndim)
    if data.ndim == 0:
        return data.copy(), array_module(data).zeros((), np.int64), d
    indices = _stable_argsort(data, d, descending).astype(np.int64, copy=False)
    return array_module(data).take_along_axis(data, indices, d), indices, d


def _selection_backward(grad, indices, dim, shape, keepdim=True):
    """The gradient of elements picked at ``indices`` along ``dim``: ``grad`` scattered
    into zeros of the input's ``shape``."""
    if not shape:  # a 0-d input: its one element was picked
        return grad.reshape(())
    if not keepdim:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    zeros = Tensor._make(array_module(grad._data).zeros(shape, grad._data.dtype))
    return scatter(zeros, dim, indices, grad)


class SortBackward0(Node):
    """Each value's gradient goes back to the position it was sorted from."""

    __slots__ = ("dim", "shape")

    def apply(self, grad):
        (indices,) = self.saved_values
        return (_selection_backward(grad, indices, self.dim, self.shape),)


class SortBackward1(SortBackward0):
    """PyTorch's name for the node of ``sort(..., stable=...)`` (its ``sort.stable``)."""

    __slots__ = ()


@op(SortBackward0, SortBackward1)
def sort(input: Tensor, dim: int = -1, descending: bool = False, *,
         stable: bool | None = None) -> tuple[Tensor, Tensor]:
    """The elements sorted along ``dim``, and where each came from.

    Parameters
    ----------
    input : Tensor
    dim : int
        The dimension to sort along (the last by default).
    descending : bool
        Largest first.
    stable : bool, optional
        Keep equal elements in their order. nbgrad's sort always does (PyTorch's may not
        without ``stable=True``, so only then are its tied indices guaranteed to match).
        Given at all, it makes the node ``SortBackward1``, as in PyTorch.

    Returns
    -------
    (values, indices)
        A named tuple: the sorted tensor, and the int64 positions along ``dim`` its
        elements came from. NaN counts as larger than every number.
    """
    x = tensor_operand(input, "sort")
    values, indices, d = _sorted(x, dim, descending)
    out = Tensor._make(values)
    index = Tensor._make(indices)
    if should_record(x):
        node_cls = SortBackward0 if stable is None else SortBackward1
        record(node_cls, out, (x,), saved=(index,), dim=d, shape=x._data.shape)
    return return_types.sort(out, index)


@op()
def argsort(input: Tensor, dim: int = -1, descending: bool = False, *,
            stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim``: ``sort(...).indices``.

    Parameters
    ----------
    input : Tensor
    dim : int
    descending : bool
    stable : bool
        As for ``sort``: nbgrad's order is always stable.

    Returns
    -------
    Tensor
        int64, shaped like ``input``; not differentiable.
    """
    x = tensor_operand(input, "argsort")
    return Tensor._make(_sorted(x, dim, descending)[1])


@op()
def msort(input: Tensor) -> Tensor:
    """``input`` sorted along its first dimension: ``sort(input, dim=0).values``.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Its ``grad_fn`` is ``SortBackward0``, as in PyTorch.
    """
    return sort(tensor_operand(input, "msort"), 0).values


class TopkBackward0(Node):
    """Each of the ``k`` values' gradient goes back to the position it was taken from."""

    __slots__ = ("dim", "shape")

    def apply(self, grad):
        (indices,) = self.saved_values
        return (_selection_backward(grad, indices, self.dim, self.shape),)


@op(TopkBackward0)
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True,
         sorted: bool = True) -> tuple[Tensor, Tensor]:
    """The ``k`` largest (or smallest) elements along ``dim``, and where they came from.

    Parameters
    ----------
    input : Tensor
    k : int
        How many, at most ``input.size(dim)``.
    dim : int
    largest : bool
        The largest (NaN counting as largest), else the smallest.
    sorted : bool
        Accepted for PyTorch's signature: nbgrad returns them sorted either way.

    Returns
    -------
    (values, indices)
        A named tuple, ``k`` along ``dim``. Among equal elements, the first ones are taken.
    """
    x = tensor_operand(input, "topk")
    data = x._data
    d = dtypes.dim_index(dim, data.ndim)
    size = data.shape[d] if data.ndim else 1
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"topk(): argument 'k' (position 1) must be int, not {type(k).__name__}")
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    values, indices, d = _sorted(x, d, largest)
    if data.ndim:
        key = (slice(None),) * d + (slice(0, k),)
        values, indices = values[key], indices[key]
    out, index = Tensor._make(values), Tensor._make(indices)
    if should_record(x):
        record(TopkBackward0, out, (x,), saved=(index,), dim=d, shape=data.shape)
    return return_types.topk(out, index)


class KthvalueBackward0(Node):
    """The gradient goes back to the position of the ``k``-th smallest element."""

    __slots__ = ("dim", "keepdim", "shape")

    def apply(self, grad):
        (indices,) = self.saved_values
        return (_selection_backward(grad, indices, self.dim, self.shape, self.keepdim),)


@op(KthvalueBackward0)
def kthvalue(input: Tensor, k: int, dim: int = -1,
             keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """The ``k``-th smallest element along ``dim`` (``k`` counts from 1), and its index.

    Parameters
    ----------
    input : Tensor
    k : int
        From 1 to ``input.size(dim)``.
    dim : int
    keepdim : bool
        Keep ``dim`` with size 1.

    Returns
    -------
    (values, indices)
        A named tuple. Among equal elements, which index is returned is unspecified in
        PyTorch; nbgrad returns the one a stable sort puts ``k``-th.
    """
    x = tensor_operand(input, "kthvalue")
    data = x._data
    d = dtypes.dim_index(dim, data.ndim)
    size = data.shape[d] if data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices, d = _sorted(x, d, False)
    if data.ndim:
        key = (slice(None),) * d + (slice(k - 1, k),)
        values, indices = values[key], indices[key]
        if not keepdim:
            values, indices = values.squeeze(d), indices.squeeze(d)
    out, index = Tensor._make(values), Tensor._make(indices)
    if should_record(x):
        record(KthvalueBackward0, out, (x,), saved=(index,), dim=d, shape=data.shape,
               keepdim=keepdim)
    return return_types.kthvalue(out, index)


class Unique2Backward0(Node):
    """``unique``'s node: PyTorch gives it no derivative, so backward through it raises."""

    __slots__ = ()

    def apply(self, grad):
        raise NotImplementedError("the derivative for '_unique2' is not implemented.")


class UniqueDimBackward0(Node):
    """``unique(dim=...)``'s node: no derivative either."""

    __slots__ = ()

    def apply(self, grad):
        raise NotImplementedError("the derivative for 'unique_dim' is not implemented.")


# Not declared as its nodes: nothing differentiates through them, so the op table (whose
# rows are differentiated) has no row for ``unique``; its tests are its own.
@op()
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None) -> Tensor | tuple[Tensor, ...]:
    """The distinct elements of ``input`` in ascending order (each NaN counts as distinct),
    or the distinct slices along ``dim``.

    Parameters
    ----------
    input : Tensor
    sorted : bool
        Accepted for PyTorch's signature: the result is sorted either way (as PyTorch's
        on the CPU).
    return_inverse : bool
        Also return, for each element (or slice) of ``input``, the index of its value in
        the result.
    return_counts : bool
        Also return how often each distinct value occurs.
    dim : int, optional

    Returns
    -------
    Tensor, or a tuple ``(output, inverse_indices, counts)`` of those asked for
        The output joins the graph (as in PyTorch), but backward through it raises.
    """
    x = tensor_operand(input, "unique")
    data = x._data
    xp = array_module(data)
    equal_nan = {"equal_nan": False} if xp is np else {}  # PyTorch keeps every NaN
    if dim is None:
        values, inverse, counts = xp.unique(data.reshape(-1), return_inverse=True,
                                            return_counts=True, **equal_nan)
        inverse = inverse.reshape(data.shape)
        node_cls: type[Node] = Unique2Backward0
    else:
        if not data.ndim:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        d = dtypes.dim_index(dim, data.ndim)
        values, inverse, counts = xp.unique(data, return_inverse=True, return_counts=True,
                                            axis=d, **equal_nan)
        inverse = inverse.reshape(-1)
        node_cls = UniqueDimBackward0
    out = Tensor._make(values)
    if should_record(x):
        record(node_cls, out, (x,))
    extra = [Tensor._make(a.astype(np.int64, copy=False))
             for a, wanted in ((inverse, return_inverse), (counts, return_counts)) if wanted]
    return (out, *extra) if extra else out


# -- where values would go in a sorted sequence -----------------------------------------
def _bucket_indices(op, boundaries, values, right, out_int32):
    b = tensor_operand(boundaries, op, 1, "sorted_sequence")
    v = values if isinstance(values, Tensor) else Tensor._make(
        array_module(b._data).asarray(values))
    side = "right" if right else "left"
    bounds, data = b._data, v._data
    xp = array_module(bounds)
    if bounds.ndim <= 1:
        found = xp.searchsorted(bounds.reshape(-1), data, side=side)
    else:
        if bounds.shape[:-1] != data.shape[:-1]:
            raise RuntimeError(
                "nbgrad.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(bounds.shape)} and input value tensor {list(data.shape)}")
        rows_b, rows_v = bounds.reshape(-1, bounds.shape[-1]), data.reshape(-1, data.shape[-1])
        found = xp.stack([xp.searchsorted(rb, rv, side=side) for rb, rv in zip(rows_b, rows_v)])
        found = found.reshape(data.shape)
    return Tensor._make(xp.asarray(found).astype(np.int32 if out_int32 else np.int64))


@op(method=False)
def searchsorted(sorted_sequence: Tensor, input: Tensor | float, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None,
                 sorter: Tensor | None = None) -> Tensor:
    """For each value of ``input``, where it would go in ``sorted_sequence`` (sorted along
    its last dimension) to keep it sorted: the first such place, or the last with
    ``right=True`` (``side="right"``).

    Parameters
    ----------
    sorted_sequence : Tensor
        1-d, or with ``input``'s leading dimensions (a sequence per row).
    input : Tensor or number
    out_int32 : bool
        int32 indices instead of int64.
    right : bool
        The last place that keeps the order, instead of the first.
    side : {'left', 'right'}, optional
        The other spelling of ``right``; when given, it is the one used.
    sorter : Tensor, optional
        Not implemented: giving it raises ``NotImplementedError``.

    Returns
    -------
    Tensor
        int64 (int32 with ``out_int32``), shaped like ``input``; not differentiable.
    """
    if sorter is not None:
        raise NotImplementedError("nbgrad does not implement searchsorted(sorter=...) (yet)")
    if side is not None:
        right = side == "right"
    return _bucket_indices("searchsorted", sorted_sequence, input, right, out_int32)


@op(method=False)
def bucketize(input: Tensor | float, boundaries: Tensor, *, out_int32: bool = False,
              right: bool = False) -> Tensor:
    """The bucket of each value among the 1-d, sorted ``boundaries``: ``i`` such that
    ``boundaries[i-1] < x <= boundaries[i]`` (``<=`` and ``<`` with ``right=True``).

    Parameters
    ----------
    input : Tensor or number
    boundaries : Tensor
        1-d and sorted.
    out_int32, right : bool

    Returns
    -------
    Tensor
        int64 (int32 with ``out_int32``), shaped like ``input``.
    """
    b = tensor_operand(boundaries, "bucketize", 2, "boundaries")
    if b._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b._data.ndim})")
    return _bucket_indices("bucketize", b, input, right, out_int32)
