"""Indexing: ``x[i]``, ``select`` and ``unbind``, and putting values back at indices.

Basic indices (integers, slices, ``None``, ``...``) give a view, as ``select`` and the
pieces of ``unbind`` are (``views.py``). Advanced indices (integer arrays, boolean masks)
copy, as in NumPy and PyTorch; their backward adds the gradient back at the indexed
positions (``embed``), duplicates accumulating.
"""

import numpy as np

from .. import backend, dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import MULTI_OUTPUT_NODE, Tensor
from .declare import op
from .methods import tensor_method
from .operands import tensor_operand
from .shape import stack
from .views import make_view


def _index_part(part, xp):
    """One part of an index, with its arrays on the indexed tensor's device (``xp``)."""
    if isinstance(part, Tensor):
        if part._data.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if part._data.ndim == 0 and part._data.dtype.kind != "b":
            return int(part._data)  # a 0-d integer tensor indexes like an int
        return _on_device(part._data, xp)
    if isinstance(part, list) or is_array(part):
        array = part if is_array(part) else np.asarray(part)
        if array.dtype.kind not in "biu" and array.size:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if array.dtype.kind in "u" or not array.size:
            array = array.astype(np.int64)
        return _on_device(array, xp)
    if isinstance(part, (int, np.integer)) and not isinstance(part, bool):
        return int(part)
    if isinstance(part, bool) and xp is not np:
        return xp.asarray(part)  # NumPy reads a[True] as a[array(True)]; CuPy needs the array
    if isinstance(part, bool) or part is None or part is Ellipsis or isinstance(part, slice):
        if isinstance(part, slice) and part.step is not None and part.step <= 0:
            raise ValueError("step must be greater than zero")
        return part
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
        f"valid indices (got {type(part).__name__})"
    )


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


def _key(index, data):
    """``index`` as a key for ``data`` (the indexed array), and whether it is advanced."""
    xp = array_module(data)
    parts = index if isinstance(index, tuple) else (index,)
    key = tuple(_index_part(p, xp) for p in parts)
    return key, any(_is_array_index(p) for p in key)


def _is_array_index(part):
    return isinstance(part, bool) or (hasattr(part, "ndim") and not isinstance(part, np.generic))


class SelectBackward0(Node):
    """Indexing: the gradient is embedded into zeros of the input's shape."""

    __slots__ = ("shape", "key")

    def apply(self, grad):
        return (embed(grad, self.shape, self.key),)


@op(SelectBackward0)
def select(input, dim, index):
    """The slice at ``index`` along ``dim``: a view with one dimension fewer."""
    x = tensor_operand(input, "select")
    data = x._data
    if data.ndim == 0:
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    d = dtypes.dim_index(dim, data.ndim)
    size = data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
    key = (slice(None),) * d + (index % size, Ellipsis)  # Ellipsis: a 0-d view, not a copy
    return make_view(x, data[key], SelectBackward0, shape=data.shape, key=key)


class SliceBackward0(SelectBackward0):
    __slots__ = ()


class AliasBackward0(SelectBackward0):
    __slots__ = ()


class IndexBackward0(SelectBackward0):
    """Advanced indexing: repeated indices accumulate in backward."""

    __slots__ = ()


def _slice(x, dim, part):
    key = (slice(None),) * dim + (part,)
    return make_view(x, x._data[key], SliceBackward0, shape=x._data.shape, key=key)


def _alias(x):
    return make_view(x, x._data.view(), AliasBackward0, shape=x._data.shape, key=(...,))


def _basic_index(x, key):
    """Integers, slices, None and ``...`` applied left to right, one view each (as PyTorch)."""
    consumed = sum(1 for p in key if p is not None and p is not Ellipsis)
    if x._data.ndim == 0 and consumed:
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    if consumed > x._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x._data.ndim}")
    out, dim, source_dim = x, 0, 0  # dim: in ``out``; source_dim: in ``x``, for messages
    for part in key:
        if part is Ellipsis:
            dim += x._data.ndim - consumed
            source_dim += x._data.ndim - consumed
        elif part is None:
            out = out.unsqueeze(dim)
            dim += 1
        elif isinstance(part, int):
            size = x._data.shape[source_dim]
            if not -size <= part < size:
                raise IndexError(
                    f"index {part} is out of bounds for dimension {source_dim} with size {size}"
                )
            out = select(out, dim, part)
            source_dim += 1
        else:
            if part != slice(None) or len(key) == 1:  # PyTorch skips ":" beside other indices
                out = _slice(out, dim, part)
            dim += 1
            source_dim += 1
    return _alias(x) if out is x else out


@tensor_method("__getitem__")
def getitem(input, index):
    """``input[index]``: basic indices give a view, integer arrays and masks a copy."""
    x = tensor_operand(input, "__getitem__")
    key, advanced = _key(index, x._data)
    if not advanced:
        return _basic_index(x, key)
    data = x._data
    try:
        result = data[key]
    except IndexError as e:
        message = str(e).replace("axis", "dimension")
        if message.startswith("too many indices"):
            message = f"too many indices for tensor of dimension {data.ndim}"
        raise IndexError(message) from None
    out = Tensor._make(result)
    if should_record(x):
        record(IndexBackward0, out, (x,), shape=data.shape, key=key)
    return out


class UnbindBackward0(Node):
    """The gradients of all the pieces, stacked back (a piece nobody used counts as 0)."""

    __slots__ = ("dim", "num_outputs", "meta")

    def apply(self, *grads):
        shape, dtype, xp = self.meta
        grads = [Tensor._make(xp.zeros(shape, dtype)) if g is None else g for g in grads]
        return (stack(grads, self.dim),)


@op(UnbindBackward0)
def unbind(input, dim=0):
    """The slices along ``dim`` as a tuple of views (iterating over a tensor uses this)."""
    x = tensor_operand(input, "unbind")
    data = x._data
    if data.ndim == 0:
        raise RuntimeError("Dimension specified as 0 but tensor has no dimensions")
    d = dtypes.dim_index(dim, data.ndim)
    pieces = [make_view(x, data[(slice(None),) * d + (i, Ellipsis)], None, MULTI_OUTPUT_NODE)
              for i in range(data.shape[d])]
    pieces = tuple(pieces)
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
    if any(_is_array_index(p) for p in key):
        xp.add.at(data, key, values._data)
    else:
        data[key] = values._data
    out = Tensor._make(data)
    if should_record(values):
        record(EmbedBackward0, out, (values,), key=key)
    return out


# -- joining ----------------------------------------------------------------------------
