"""Indexing: ``x[i]``, ``select`` and ``unbind``, and putting values back at indices.

Basic indices (integers, slices, ``None``, ``...``) give a view, as ``select`` and the
pieces of ``unbind`` are (``views.py``). Advanced indices (integer arrays, boolean masks)
copy, as in NumPy and PyTorch; their backward adds the gradient back at the indexed
positions (``embed``), duplicates accumulating.

PyTorch reads an index in two steps (``applySlicing``), and so does nbgrad: the basic parts
first, left to right, each as its view operation, then the arrays and masks left, all at
once, on that view. Where the arrays' dimensions go is decided among them alone, so an
integer between two arrays does not separate them as it does in NumPy.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence

import numpy as np

from .. import backend, dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import MULTI_OUTPUT_NODE, Tensor
from .declare import op
from .methods import tensor_method
from .operands import tensor_operand
from .shape import stack, unsqueeze
from .views import make_view


ZERO_DIM_INDEX = (
    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
)
INDEX_DTYPES = "tensors used as indices must be long, int, byte or bool tensors"
BYTE_MASK = ("indexing with dtype nbgrad.uint8 is now deprecated, please use a dtype nbgrad.bool "
             "instead.")
LIST_AS_TUPLE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[nbgrad.tensor(seq)], which will result either in an error "
    "or a different result"
)
# What PyTorch's PySequence_Check takes as a sequence among the parts of a list index (and
# a slice), for the old list-as-tuple rule: every Python sequence, tensors and arrays.
_PART_SEQUENCES = (Tensor, Sequence, slice, np.ndarray)
_BOUNDS = (type(None), int)  # what a slice's start and stop usually are: nothing to convert


def _index_part(part, xp):
    """One part of an index as ``apply_basic`` reads it: an int, a slice with int bounds,
    ``None``, ``...``, a bool, or an index array (integers or a mask) on the device of ``xp``."""
    if isinstance(part, Tensor):
        return _tensor_part(part._data, xp)
    if type(part) is int or type(part) is bool or part is None or part is Ellipsis:
        return part
    if type(part) is slice:
        return checked_slice(part)
    if isinstance(part, (list, tuple)) or is_array(part):
        return _sequence_part(part, xp)
    if isinstance(part, str):  # a sequence, to PyTorch: it tries to read it as a tensor
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(part, Sequence):  # a range, a deque...: read as a list
        return _sequence_part(part, xp)
    if isinstance(part, np.integer) or (hasattr(type(part), "__index__") and
                                        not isinstance(part, np.bool_)):
        return operator.index(part)
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
        f"valid indices (got {type_name(part)})"
    )


def type_name(value):
    """The type of ``value`` as PyTorch's messages name it (``float``, ``numpy.float64``)."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _tensor_part(data, xp):
    """A tensor index: a 0-d integer one indexes like an int, a 0-d bool one like a bool;
    byte tensors are masks, as bool ones (PyTorch's old rule)."""
    if data.dtype.kind == "b" or data.dtype == np.uint8:
        mask = _as_mask(data)
        return bool(mask) if mask.ndim == 0 else _on_device(mask, xp)
    if data.dtype != np.int64 and data.dtype != np.int32:
        raise IndexError(INDEX_DTYPES)
    return int(data) if data.ndim == 0 else _on_device(data, xp)


def _sequence_part(values, xp):
    """A list or array index: PyTorch reads it as a long tensor (floats truncated), unless
    its values are bools (or, for an array, bytes): then it is a mask."""
    array = values if is_array(values) else np.asarray(
        values if isinstance(values, (list, tuple)) else list(values))
    if array.dtype.kind == "b" or (array.dtype == np.uint8 and array is values):
        return _on_device(_as_mask(array), xp)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"new(): invalid data type '{array.dtype.name}'")
    return _on_device(array.astype(np.int64, copy=False), xp)


def _as_mask(array):
    if array.dtype == np.uint8:
        warnings.warn(BYTE_MASK, UserWarning, stacklevel=6)
        return array.astype(bool)
    return array


def checked_slice(part):
    """``part`` with plain int bounds (a tensor or NumPy integer bound is read as an int);
    PyTorch's errors for a step that is not positive."""
    start, stop, step = part.start, part.stop, part.step
    if type(start) not in _BOUNDS or type(stop) not in _BOUNDS or type(step) not in _BOUNDS:
        try:
            start, stop, step = (None if v is None else operator.index(v) for v in (start, stop, step))
        except TypeError:
            raise TypeError(
                "slice indices must be integers or None or have an __index__ method"
            ) from None
        part = slice(start, stop, step)
    if step is not None and step <= 0:
        raise ValueError("slice step cannot be zero" if step == 0 else "step must be greater than zero")
    return part


def _on_device(indices, xp):
    """Index arrays on the indexed array's device. As in PyTorch, CPU indices serve any
    device (they are copied over); GPU indices cannot index a CPU tensor."""
    if array_module(indices) is xp:
        return indices
    if xp is np:
        raise RuntimeError(
            "indices should be either on cpu or on the same device as the indexed tensor (cpu)"
        )
    return xp.asarray(indices)


def is_array(value):
    """A NumPy or CuPy array (not a NumPy scalar)."""
    return isinstance(value, np.ndarray) or (backend.cupy is not None
                                              and isinstance(value, backend.cupy.ndarray))


def _is_mask(part):
    return part.dtype.kind == "b"


def _specified_dims(parts):
    """How many dimensions of the tensor the parts index, counted as PyTorch counts them
    (before it reads lists as tensors): all but ``None``, ``...`` and bools; a bool or
    byte tensor (a mask) as many as it has, a list of bools as one."""
    count = 0
    for part in parts:
        if part is None or part is Ellipsis or type(part) is bool:
            continue
        if isinstance(part, Tensor) and (part._data.dtype.kind == "b" or part._data.dtype == np.uint8):
            count += part._data.ndim
        else:
            count += 1
    return count


def apply_basic(x, index):
    """PyTorch's ``applySlicing``: the basic parts applied left to right, each as a view
    (an int as ``select``, a slice as ``slice``, ``None`` as ``unsqueeze``, ``True`` and
    ``False`` as ``unsqueeze`` and then the index ``[0]`` or ``[]`` on the new dimension).
    Returns that view and the key of the index arrays left for it (``None`` if none is
    left): one entry per dimension of the view up to the last indexed one, ``slice(None)``
    where a dimension is not indexed. A slice over a whole dimension is skipped."""
    ndim = x._data.ndim
    parts = index if type(index) is tuple else _list_as_tuple(index) or (index,)
    specified = _specified_dims(parts)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    xp = array_module(x._data)
    out, dim, key = x, 0, None
    for real_dim, part in enumerate(parts):
        part = _index_part(part, xp)
        kind = type(part)
        if kind is int:
            out = select_part(out, dim, part, real_dim)
        elif kind is slice:
            # dim may be past the end after a list of bools (counted as one dimension)
            if not is_whole_slice(part, out._data.shape[dtypes.dim_index(dim, out._data.ndim)]):
                out = slice_view(out, dim, part)
            dim += 1
        elif part is Ellipsis:
            dim += ndim - specified
        elif part is None:
            out = unsqueeze(out, dim)
            dim += 1
        else:
            if kind is bool:
                out = unsqueeze(out, dim)
                part = xp.zeros(1 if part else 0, dtype=np.int64)
            key = [] if key is None else key
            key.extend([slice(None)] * (dim - _covered(key)))
            key.append(part)
            dim += part.ndim if _is_mask(part) else 1
    return out, (None if key is None else tuple(key))


def _list_as_tuple(index):
    """PyTorch's old rule, deprecated but still applied: a short sequence (not a tuple, a
    string, a tensor or an array) that holds a sequence, a tensor, a slice, ``...`` or
    ``None`` is read as the tuple of its items."""
    if type(index) is not list and (isinstance(index, (Tensor, str)) or not isinstance(index, Sequence)):
        return None
    if len(index) >= 32:
        return None
    if not any(isinstance(p, _PART_SEQUENCES) or p is None or p is Ellipsis for p in index):
        return None
    warnings.warn(LIST_AS_TUPLE, UserWarning, stacklevel=4)
    return tuple(index)


def _covered(key):
    """How many dimensions the parts of ``key`` index (a mask: as many as it has)."""
    return sum(1 if type(p) is slice or not _is_mask(p) else p.ndim for p in key)


def is_whole_slice(part, size):
    """Whether a slice keeps the whole dimension (PyTorch then makes no view for it)."""
    return ((part.start is None or part.start == 0) and (part.stop is None or part.stop >= size)
            and (part.step is None or part.step == 1))


def select_part(x, dim, index, real_dim):
    """``x.select(dim, index)`` for the part ``real_dim`` of an index, with PyTorch's
    indexing messages (which count the parts of the index, not the dimensions)."""
    shape = x._data.shape
    if not shape and index == 0:
        raise IndexError(ZERO_DIM_INDEX)
    size = shape[dim] if shape else 0
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    return _select(x, dim, index)


class SelectBackward0(Node):
    """Indexing: the gradient is embedded into zeros of the input's shape."""

    __slots__ = ("shape", "key")

    def apply(self, grad):
        return (embed(grad, self.shape, self.key),)


@op(SelectBackward0)
def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``: ``input[:, ..., index]`` with ``index`` at ``dim``.

    Parameters
    ----------
    input : Tensor
        At least 1-d.
    dim : int
    index : int
        Negative ones count from the end of ``dim``.

    Returns
    -------
    Tensor
        A view of ``input`` with one dimension fewer (``SelectBackward0``).

    Raises
    ------
    IndexError
        ``input`` is 0-d, or ``index`` is out of range.
    """
    x = tensor_operand(input, "select")
    shape = x._data.shape
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dtypes.dim_index(dim, len(shape))
    if not -shape[d] <= index < shape[d]:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(shape)} at dimension {d}"
        )
    return _select(x, d, index)


def _select(x, d, index):
    data = x._data
    key = (slice(None),) * d + (index % data.shape[d], Ellipsis)  # Ellipsis: a 0-d view, not a copy
    return make_view(x, data[key], SelectBackward0, shape=data.shape, key=key)


class SliceBackward0(SelectBackward0):
    __slots__ = ()


class AliasBackward0(SelectBackward0):
    __slots__ = ()


def slice_view(x, dim, part):
    """``x[:, ..., part]`` with ``part`` (a slice) at ``dim``: a view."""
    if not x._data.ndim:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    key = (slice(None),) * dim + (part,)
    return make_view(x, x._data[key], SliceBackward0, shape=x._data.shape, key=key)


def _alias(x):
    return make_view(x, x._data.view(), AliasBackward0, shape=x._data.shape, key=(...,))


@tensor_method("__getitem__")
def getitem(input, index):
    """``input[index]``, as PyTorch reads it: the basic parts (ints, slices, ``None``,
    ``...``) give a view, applied first; the index arrays and masks left index that view
    at once and copy. Where their dimensions go is decided among them alone: together, in
    place of the dimensions they index; separated by a slice, first. So ``x[1, :, [1, 0]]``
    has shape ``(3, 2)`` for ``x`` of shape ``(2, 3, 4)`` (NumPy: ``(2, 3)``)."""
    x = tensor_operand(input, "__getitem__")
    kind = type(index)
    if kind is int:  # one part, not in a tuple: PyTorch's short cuts
        return select_part(x, 0, index, 0)
    if kind is slice:  # a view even of the whole tensor
        return slice_view(x, 0, checked_slice(index))
    if index is None:
        return unsqueeze(x, 0)
    if index is Ellipsis:
        return _alias(x)
    out, key = apply_basic(x, index)
    if key is not None:
        return advanced_index(out, key)
    return _alias(x) if out is x else out


class IndexBackward0(Node):
    """Advanced indexing: the gradient is added at the indexed positions (repeated
    indices accumulate). The indices are saved, and freed after backward."""

    __slots__ = ("shape",)

    def apply(self, grad):
        (key,) = self.saved_values
        return (embed(grad, self.shape, key),)


def advanced_index(x, key):
    """``x[key]`` for a key of index arrays, masks and whole slices (``apply_basic``'s):
    PyTorch's ``index``, a copy."""
    data = x._data
    try:
        result = data[key]
    except IndexError:
        error = index_error(data.shape, key)
        if error is not None:
            raise error from None
        result = array_module(data).empty(advanced_shape(data.shape, key), data.dtype)
    out = Tensor._make(result)
    if should_record(x):
        record(IndexBackward0, out, (x,), saved=(key,), shape=data.shape)
    return out


def index_error(shape, key, value_shape=None):
    """PyTorch's error for the index arrays and masks of ``key`` on a tensor of ``shape``
    (and, for ``index_put_``, a value of ``value_shape``), in the order PyTorch checks:
    the indices (``indices_error``), then their values; only those read, so ``None`` when
    the result is empty."""
    error = indices_error(shape, key, value_shape)
    if error is not None or 0 in advanced_shape(shape, key):
        return error
    arrays, sizes = _index_arrays(shape, key)
    return _first_out_of_bounds(arrays, sizes)


def indices_error(shape, key, value_shape=None):
    """The errors PyTorch finds before it reads an index: a mask's shape, arrays that do
    not broadcast, an index of a size-0 dimension, a value that does not broadcast to the
    result of ``index_put_``. ``None`` if there is none."""
    try:
        arrays, sizes = _index_arrays(shape, key)
    except IndexError as error:
        return error
    if 0 in sizes and arrays[0].size:
        return IndexError("index is out of bounds for dimension with size 0")
    if value_shape is not None:
        result = advanced_shape(shape, key)
        n = len(value_shape)
        if n > len(result) or any(v not in (1, r) for v, r in zip(value_shape, result[len(result) - n:])):
            return RuntimeError(
                f"shape mismatch: value tensor of shape {list(value_shape)} cannot be broadcast "
                f"to indexing result of shape {list(result)}"
            )
    return None


def _index_arrays(shape, key):
    """The index arrays of ``key`` broadcast together (a mask as its ``nonzero()``), and
    the size of the dimension each indexes; PyTorch's IndexError for a mask of the wrong
    shape or arrays that do not broadcast."""
    xp = array_module(next(p for p in key if type(p) is not slice))
    arrays, sizes, dim = [], [], 0
    for part in key:
        if type(part) is slice:
            dim += 1
            continue
        if _is_mask(part):
            for j, size in enumerate(part.shape):
                if size != shape[dim + j]:
                    raise IndexError(
                        f"The shape of the mask {list(part.shape)} at index {j} does not match the "
                        f"shape of the indexed tensor {list(shape)} at index {dim + j}"
                    )
            arrays.extend(xp.nonzero(part))
            sizes.extend(shape[dim:dim + part.ndim])
            dim += part.ndim
        else:
            arrays.append(part)
            sizes.append(shape[dim])
            dim += 1
    try:
        return xp.broadcast_arrays(*arrays), sizes
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(str(list(a.shape)) for a in arrays)) from None


def _first_out_of_bounds(arrays, sizes):
    """The first index out of range, in the order PyTorch's kernel reads them: position by
    position, and at each position the arrays in order (its "dimension" counts the arrays)."""
    xp = array_module(arrays[0])
    bad = xp.stack([(a < -s) | (a >= s) for a, s in zip(arrays, sizes)]).reshape(len(arrays), -1)
    position = int(xp.argmax(bad.any(axis=0)))
    j = int(xp.argmax(bad[:, position]))
    value = int(arrays[j].reshape(-1)[position])
    return IndexError(f"index {value} is out of bounds for dimension {j} with size {sizes[j]}")


def advanced_shape(shape, key):
    """The shape of ``array[key]`` (NumPy's rule, which PyTorch's ``index`` follows): the
    broadcast shape of the index arrays replaces the dimensions they index where they are
    adjacent in ``key``, else it comes first."""
    dims, index_shapes, first, last, adjacent, dim = [], [], None, None, True, 0
    for i, part in enumerate(key):
        if type(part) is slice:
            dims.append(shape[dim])
            dim += 1
            continue
        index_shapes.append((int(part.sum()),) if _is_mask(part) else part.shape)
        if first is None:
            first = len(dims)
        elif last != i - 1:
            adjacent = False
        last = i
        dim += part.ndim if _is_mask(part) else 1
    dims.extend(shape[dim:])
    broadcast = list(np.broadcast_shapes(*index_shapes))
    return tuple(dims[:first] + broadcast + dims[first:] if adjacent else broadcast + dims)


class UnbindBackward0(Node):
    """The gradients of all the pieces, stacked back (a piece nobody used counts as 0)."""

    __slots__ = ("dim", "num_outputs", "meta")

    def apply(self, *grads):
        shape, dtype, xp = self.meta
        grads = [Tensor._make(xp.zeros(shape, dtype)) if g is None else g for g in grads]
        return (stack(grads, self.dim),)


@op(UnbindBackward0)
def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along ``dim``, each with that dimension removed (iterating over a tensor
    uses this).

    Parameters
    ----------
    input : Tensor
        At least 1-d.
    dim : int

    Returns
    -------
    tuple of Tensor
        ``input.size(dim)`` views of ``input``, outputs of one node (``UnbindBackward0``): a
        piece without a gradient counts as zeros in backward. As in PyTorch, a piece cannot
        be changed in place while autograd records (it is one of several views made
        together).

    Raises
    ------
    RuntimeError
        ``input`` is 0-d.
    """
    x = tensor_operand(input, "unbind")
    data = x._data
    if data.ndim == 0:
        raise RuntimeError("Dimension specified as 0 but tensor has no dimensions")
    d = dtypes.dim_index(dim, data.ndim)
    pieces = tuple(make_view(x, data[(slice(None),) * d + (i, Ellipsis)], None, MULTI_OUTPUT_NODE)
                   for i in range(data.shape[d]))
    if should_record(x):
        record(UnbindBackward0, pieces, (x,), dim=d,
               meta=(pieces[0]._data.shape if pieces else (), data.dtype, array_module(data)))
    return pieces


class EmbedBackward0(Node):
    """The backward of ``embed`` (needed only for higher-order gradients): index again."""

    __slots__ = ("key",)

    def apply(self, grad):
        return (getitem(grad, self.key),)


def embed(values, shape, key):
    """A zero tensor of ``shape`` with ``values`` added at ``key`` (the adjoint of indexing)."""
    xp = array_module(values._data)
    data = xp.zeros(shape, dtype=values._data.dtype)
    if not values._data.size:  # nothing to add (NumPy would check indices PyTorch never read)
        pass
    elif any(is_array(p) for p in key):
        xp.add.at(data, key, values._data)
    else:
        data[key] = values._data
    out = Tensor._make(data)
    if should_record(values):
        record(EmbedBackward0, out, (values,), key=key)
    return out


# -- joining ----------------------------------------------------------------------------
