"""Shapes and views; indexing is in ``indexing.py``.

A *view* shares its input's storage: ``view``, ``reshape`` (when it can), ``squeeze``,
``unsqueeze``, ``t``, ``transpose``, ``permute``, ``expand`` and basic indexing (integers,
slices, ``None``, ``...``). A view also shares the version counter, records its ``_base``
(the tensor that owns the storage) and a function that replays it from the base: an
in-place change through a view must reach the base's gradient (``views.py``, ``inplace.py``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .methods import tensor_property
from .operands import same_device, tensor_operand
from .views import make_view

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..types import Dims, Shape


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    for s in shape:
        if type(s) is not int:  # rare: check and convert one by one
            return _checked_shape(shape)
    return tuple(shape)


def _checked_shape(shape):
    for s in shape:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"shape must be a sequence of ints, got {type(s).__name__}: {s!r}")
    return tuple(int(s) for s in shape)


def _infer_shape(shape, numel):
    if -1 not in shape and math.prod(shape) == numel and (not shape or min(shape) >= 0):
        return shape  # the usual case, checked in C: nothing to infer
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


class ViewBackward0(Node):
    __slots__ = ("shape",)

    def apply(self, grad):
        return (grad.reshape(self.shape),)


@op(ViewBackward0, export=False)
def view(input: Tensor, *shape: int | Shape) -> Tensor:
    """The same storage seen with another shape: no copy, and a view of ``input``.

    Parameters
    ----------
    input : Tensor
    *shape : int, or one sequence of ints
        The new shape, with as many elements; one dimension may be ``-1`` (inferred).
        PyTorch's ``view(dtype)``, which reinterprets the bytes, is not implemented.

    Returns
    -------
    Tensor
        Shares storage and version counter with ``input`` (chapter 05); its
        ``grad_fn`` is ``ViewBackward0``.

    Raises
    ------
    RuntimeError
        The strides do not allow it (``view size is not compatible with input tensor's
        size and stride``): use ``reshape``, which copies then.
    """
    x = tensor_operand(input, "view")
    if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
        raise NotImplementedError("view(dtype) is not supported by nbgrad")
    shape = _infer_shape(_shape_arg(shape), x._data.size)
    data = x._data.view()
    try:
        data.shape = shape
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None
    return make_view(x, data, ViewBackward0, shape=x._data.shape)


class UnsafeViewBackward0(ViewBackward0):
    __slots__ = ()


@op(UnsafeViewBackward0)
def reshape(input: Tensor, *shape: int | Shape) -> Tensor:
    """Another shape: a view when the strides allow it, else a copy.

    Parameters
    ----------
    input : Tensor
    *shape : int, or one sequence of ints
        As for ``view``, one dimension may be ``-1``.

    Returns
    -------
    Tensor
        As PyTorch, do not rely on whether it shares memory with ``input``.
    """
    x = tensor_operand(input, "reshape")
    shape = _infer_shape(_shape_arg(shape), x._data.size)
    data = x._data.view()
    try:
        data.shape = shape
    except AttributeError:  # not expressible as a view: copy, then view the copy
        return unsafe_view(clone(x), shape)
    return make_view(x, data, ViewBackward0, shape=x._data.shape)


@op(export=False)
def view_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.view(other.shape)``: a view of ``input`` with ``other``'s shape.

    Parameters
    ----------
    input : Tensor
    other : Tensor
        Only its shape is used.

    Returns
    -------
    Tensor
        A view of ``input`` (``ViewBackward0``); ``view``'s error when the strides do not
        allow it.
    """
    return view(input, other.shape)


@op(export=False)
def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.reshape(other.shape)``: ``input`` with ``other``'s shape.

    Parameters
    ----------
    input : Tensor
    other : Tensor
        Only its shape is used.

    Returns
    -------
    Tensor
        A view when the strides allow it, else a copy (as ``reshape``).
    """
    return reshape(input, other.shape)


@op()
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Dimensions ``start_dim`` to ``end_dim`` (both included) merged into one.

    Parameters
    ----------
    input : Tensor
    start_dim, end_dim : int
        The first and last dimensions merged; by default all of them.

    Returns
    -------
    Tensor
        A ``reshape`` of ``input`` (a view when the strides allow it); ``input`` itself when
        ``start_dim`` and ``end_dim`` are the same dimension; 1-d for a 0-d input.

    Raises
    ------
    RuntimeError
        ``start_dim`` comes after ``end_dim``.
    """
    x = tensor_operand(input, "flatten")
    ndim = x._data.ndim
    if ndim == 0:
        return reshape(x, 1)
    start, end = dtypes.dim_index(start_dim, ndim), dtypes.dim_index(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return x
    shape = x._data.shape
    middle = int(np.prod(shape[start:end + 1]))
    return reshape(x, shape[:start] + (middle,) + shape[end + 1:])


class SqueezeBackward0(Node):
    __slots__ = ("shape",)

    def apply(self, grad):
        return (grad.reshape(self.shape),)


class SqueezeBackward1(SqueezeBackward0):
    __slots__ = ()


class SqueezeBackward2(SqueezeBackward0):
    __slots__ = ()


@op(SqueezeBackward0, SqueezeBackward1, SqueezeBackward2)
def squeeze(input: Tensor, dim: Dims | None = None) -> Tensor:
    """Dimensions of size 1 removed, as a view.

    Parameters
    ----------
    input : Tensor
    dim : int or tuple of int, optional
        The dimensions to remove, those of them that have size 1 (the others stay, without
        an error); every dimension of size 1 when omitted.

    Returns
    -------
    Tensor
        A view of ``input``; its ``grad_fn`` is ``SqueezeBackward0`` without ``dim``,
        ``SqueezeBackward1`` with one dim and ``SqueezeBackward2`` with a tuple, as in PyTorch.
    """
    x = tensor_operand(input, "squeeze")
    shape = x._data.shape
    if dim is None:
        axes, node_cls = tuple(i for i, s in enumerate(shape) if s == 1), SqueezeBackward0
    elif isinstance(dim, (tuple, list)):
        axes = tuple(i for i in (dtypes.dim_index(d, len(shape)) for d in dim) if shape and shape[i] == 1)
        node_cls = SqueezeBackward2
    else:
        d = dtypes.dim_index(dim, len(shape))
        axes, node_cls = ((d,) if shape and shape[d] == 1 else ()), SqueezeBackward1
    data = x._data.reshape(tuple(s for i, s in enumerate(shape) if i not in axes))
    return make_view(x, data, node_cls, shape=shape)


class SqueezeBackward4(SqueezeBackward0):
    """How PyTorch names the squeeze that ends a matmul with a 1-D operand."""

    __slots__ = ()


def squeeze_result(x, dim):
    """Drop dimension ``dim`` (of size 1) of a freshly computed result."""
    d = dtypes.dim_index(dim, x._data.ndim)
    data = x._data.reshape(x._data.shape[:d] + x._data.shape[d + 1:])
    return make_view(x, data, SqueezeBackward4, shape=x._data.shape)


def unsafe_view(x, shape):
    """Reshape a freshly computed result; not a view for autograd (PyTorch's _unsafe_view)."""
    out = Tensor._make(x._data.reshape(shape))
    if should_record(x):
        record(UnsafeViewBackward0, out, (x,), shape=x._data.shape)
    return out


class UnsqueezeBackward0(Node):
    __slots__ = ("dim",)

    def apply(self, grad):
        return (grad.squeeze(self.dim),)


@op(UnsqueezeBackward0)
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """A dimension of size 1 inserted at ``dim``, as a view.

    Parameters
    ----------
    input : Tensor
    dim : int
        The new dimension's index in the result: from ``-input.dim() - 1`` to
        ``input.dim()``.

    Returns
    -------
    Tensor
        A view of ``input``.
    """
    x = tensor_operand(input, "unsqueeze")
    d = dtypes.dim_index(dim, x._data.ndim + 1)
    data = x._data.reshape(x._data.shape[:d] + (1,) + x._data.shape[d:])
    return make_view(x, data, UnsqueezeBackward0, dim=d)


class TBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad.t(),)

    def fast_apply(self, grad):
        # Transposing the array is all there is (every linear layer's weight passes
        # through here, once per step).
        return (Tensor._make(grad._data.T),)


@op(TBackward0)
def t(input: Tensor) -> Tensor:
    """The transpose of a matrix, as a view.

    Parameters
    ----------
    input : Tensor
        At most 2-d.

    Returns
    -------
    Tensor
        A view of ``input``: its two dimensions swapped; a 0-d or 1-d tensor is returned as
        a view of itself.

    Raises
    ------
    RuntimeError
        ``input`` has more than 2 dimensions (use ``transpose``).
    """
    x = tensor_operand(input, "t")
    if x._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x._data.ndim}D")
    return make_view(x, x._data.T, TBackward0)


class TransposeBackward0(Node):
    __slots__ = ("dims",)

    def apply(self, grad):
        return (grad.transpose(*self.dims),)


@op(TransposeBackward0, aliases=("swapaxes", "swapdims"))
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Dimensions ``dim0`` and ``dim1`` swapped, as a view (``swapaxes``, ``swapdims``).

    Parameters
    ----------
    input : Tensor
    dim0, dim1 : int
        The two dimensions (negative ones count from the end).

    Returns
    -------
    Tensor
        A view of ``input``.
    """
    x = tensor_operand(input, "transpose")
    ndim = x._data.ndim
    d0, d1 = dtypes.dim_index(dim0, ndim), dtypes.dim_index(dim1, ndim)
    data = x._data.swapaxes(d0, d1) if ndim else x._data.view()
    return make_view(x, data, TransposeBackward0, dims=(d0, d1))


class PermuteBackward0(Node):
    __slots__ = ("dims",)

    def apply(self, grad):
        return (grad.permute(tuple(int(i) for i in np.argsort(self.dims))),)


@op(PermuteBackward0)
def permute(input: Tensor, *dims: int | Sequence[int]) -> Tensor:
    """The dimensions reordered as ``dims``, as a view.

    Parameters
    ----------
    input : Tensor
    *dims : int, or one sequence of ints
        Every dimension of ``input`` once, in the order the result has them:
        ``x.permute(2, 0, 1)`` or ``x.permute((2, 0, 1))``.

    Returns
    -------
    Tensor
        A view of ``input``: its dimension ``i`` is ``input``'s dimension ``dims[i]``.

    Raises
    ------
    RuntimeError
        ``dims`` does not name each dimension exactly once.
    """
    x = tensor_operand(input, "permute")
    dims = _shape_arg(dims)
    ndim = x._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {ndim} is not "
            f"equal to len(dims) = {len(dims)}"
        )
    dims = tuple(dtypes.dim_index(d, ndim) for d in dims)
    if len(set(dims)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return make_view(x, x._data.transpose(dims), PermuteBackward0, dims=dims)


@tensor_property("T")
def numpy_T(input: Tensor) -> Tensor:
    """The dimensions in reverse order, as a view: a matrix's transpose.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        ``input.permute(input.dim() - 1, ..., 0)`` (``PermuteBackward0``). PyTorch also warns
        that ``x.T`` on a tensor that is not 2-d is deprecated; nbgrad does not.
    """
    x = tensor_operand(input, "T")
    return permute(x, tuple(range(x._data.ndim - 1, -1, -1)))


class ExpandBackward0(Node):
    __slots__ = ("shape",)

    def apply(self, grad):
        return (grad.sum_to_size(self.shape),)


@op(ExpandBackward0)
def expand(input: Tensor, *sizes: int | Shape) -> Tensor:
    """Dimensions of size 1 repeated to ``sizes`` without copying, as a view.

    Parameters
    ----------
    input : Tensor
    *sizes : int, or one sequence of ints
        The new shape, with at least ``input``'s number of dimensions (new ones are added
        in front); ``-1`` keeps a dimension's size. A dimension that is not 1 keeps its size.

    Returns
    -------
    Tensor
        A view of ``input`` in which the repeated elements share memory; the gradient is
        summed back over them (``sum_to_size``).

    Raises
    ------
    RuntimeError
        A size differs from a dimension that is not 1, there are fewer sizes than
        dimensions, or ``-1`` is given for a new leading dimension.
    """
    x = tensor_operand(input, "expand")
    sizes = _shape_arg(sizes)
    shape = x._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand({x.type()}{{{list(shape)}}}, size=[{', '.join(map(str, sizes))}]): the "
            f"number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    each = []
    for i, s in enumerate(sizes):
        own = shape[i - lead] if i >= lead else None
        if s == -1:
            if own is None:
                raise RuntimeError(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, "
                    "non-existing dimension 0"
                )
            s = own
        elif own is not None and own != 1 and own != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({own}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(shape)}"
            )
        each.append(s)
    target = tuple(each)
    if target == (1,) * lead + shape:
        # Nothing is repeated (at most leading dimensions of size 1 added): a plain, writable
        # view, where NumPy's broadcast_to would be read-only (the Ellipsis: a 0-d view, not
        # NumPy's scalar).
        data = x._data[(None,) * lead + (Ellipsis,)]
    else:
        data = array_module(x._data).broadcast_to(x._data, target)
    return make_view(x, data, ExpandBackward0, shape=shape)


@op(export=False)
def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.expand(other.shape)``: ``input`` repeated to ``other``'s shape, as a view.

    Parameters
    ----------
    input : Tensor
    other : Tensor
        Only its shape is used.

    Returns
    -------
    Tensor
    """
    return expand(input, other.shape)


# -- indexing ---------------------------------------------------------------------------
def _tensor_sequence(op, tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    if not tensors:
        if op == "stack":  # PyTorch words (and types) the two differently
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"nbgrad.{op}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    same_device(*tensors)
    want = dtypes.result_type(*(t._data for t in tensors))
    return [t._data if t._data.dtype == want else t._data.astype(want) for t in tensors]


class CatBackward0(Node):
    __slots__ = ("dim", "sizes", "metas")

    def apply(self, grad):
        grads, start = [], 0
        for fn, size, meta in zip(self._next_nodes, self.sizes, self.metas):
            if fn is None:
                grads.append(None)
            elif size is None:  # a skipped legacy empty tensor: an empty gradient
                grads.append(_cast(grad.new_zeros(0), meta))
            else:
                key = (slice(None),) * self.dim + (slice(start, start + size),)
                grads.append(_cast(grad[key], meta))
            start += size or 0
        return tuple(grads)


def _cast(grad, dtype):
    return grad if grad._data.dtype == dtype else grad.to(dtype=dtypes.from_numpy_dtype(dtype))


def _skipped(array):
    """A 1-d tensor of size 0 takes no part in ``cat`` (PyTorch's legacy rule): any other
    tensor can follow it, whatever its shape."""
    return array.ndim == 1 and array.shape[0] == 0


@op(CatBackward0, aliases=("concat", "concatenate"), method=False)
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """The tensors joined along an existing dimension ``dim`` (``concat``, ``concatenate``).

    Parameters
    ----------
    tensors : list or tuple of Tensor
        Not empty, on one device, with the same shape except along ``dim``. A 1-d tensor of
        size 0 among them is skipped, whatever the others' shapes (PyTorch's legacy rule).
    dim : int
        The dimension joined along.

    Returns
    -------
    Tensor
        A new tensor, of the dtype the tensors promote to; each one's gradient is its slice
        of the result's, cast back to its dtype.

    Raises
    ------
    TypeError
        ``tensors`` is not a list or tuple of tensors.
    ValueError
        ``tensors`` is empty.
    RuntimeError
        A tensor is 0-d, or the shapes do not match.
    """
    arrays = _tensor_sequence("cat", tensors)
    for i, a in enumerate(arrays):
        if not a.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    joined = [a for a in arrays if not _skipped(a)]
    if joined:
        d = dtypes.dim_index(dim, joined[0].ndim)
        _check_cat_shapes(arrays, joined[0], d)
        data = array_module(joined[0]).concatenate(joined, axis=d)
    else:  # only legacy empties: the result is one of them (``dim`` is not checked)
        d, data = 0, arrays[0].copy()
    out = Tensor._make(data)
    if should_record(*tensors):
        record(CatBackward0, out, tuple(tensors), dim=d,
               sizes=[None if _skipped(a) else a.shape[d] for a in arrays],
               metas=[t._data.dtype for t in tensors])
    return out


def _check_cat_shapes(arrays, reference, d):
    for i, a in enumerate(arrays):
        if _skipped(a):
            continue
        if a.ndim != reference.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {reference.ndim} and {a.ndim}"
            )
        for axis in range(a.ndim):
            if axis != d and a.shape[axis] != reference.shape[axis]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{reference.shape[axis]} but got size {a.shape[axis]} for tensor number {i} "
                    "in the list."
                )


class StackBackward0(Node):
    __slots__ = ("dim", "metas")

    def apply(self, grad):
        key = (slice(None),) * self.dim
        return tuple(None if fn is None else _cast(grad[key + (i,)], meta)
                     for i, (fn, meta) in enumerate(zip(self._next_nodes, self.metas)))


@op(StackBackward0, method=False)
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """The tensors joined along a new dimension ``dim``.

    Parameters
    ----------
    tensors : list or tuple of Tensor
        Not empty, on one device, all of the same shape.
    dim : int
        The new dimension's index in the result: from ``-n - 1`` to ``n``, for tensors of
        ``n`` dimensions.

    Returns
    -------
    Tensor
        A new tensor, of the dtype the tensors promote to; ``result.select(dim, i)`` is
        ``tensors[i]``.

    Raises
    ------
    TypeError
        ``tensors`` is not a list or tuple of tensors.
    RuntimeError
        ``tensors`` is empty, or the shapes differ.
    """
    arrays = _tensor_sequence("stack", tensors)
    for i, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(arrays[0].shape)} at "
                f"entry 0 and {list(a.shape)} at entry {i}"
            )
    d = dtypes.dim_index(dim, arrays[0].ndim + 1)
    out = Tensor._make(array_module(arrays[0]).stack(arrays, axis=d))
    if should_record(*tensors):
        record(StackBackward0, out, tuple(tensors), dim=d, metas=[t._data.dtype for t in tensors])
    return out


# -- copies -----------------------------------------------------------------------------
class CloneBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad,)


@op(CloneBackward0)
def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy with its own storage, in the graph (its gradient passes straight through).

    Parameters
    ----------
    input : Tensor
    memory_format : optional
        Accepted for PyTorch's signature and ignored: the copy is always C-contiguous.

    Returns
    -------
    Tensor
        Not a view: an in-place change of either leaves the other as it is.
    """
    x = tensor_operand(input, "clone")
    out = Tensor._make(x._data.copy())
    if should_record(x):
        record(CloneBackward0, out, (x,))
    return out


@op(export=False)
def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    """The tensor itself when its memory is contiguous (C order), else a contiguous copy.

    Parameters
    ----------
    input : Tensor
    memory_format : optional
        Accepted for PyTorch's signature and ignored (C order).

    Returns
    -------
    Tensor
        ``input`` itself, or ``clone(input)``.
    """
    x = tensor_operand(input, "contiguous")
    return x if x._data.flags.c_contiguous else clone(x)
