"""A tensor cut into pieces along a dimension: split, chunk, tensor_split and narrow, each
one block. Every piece is a view (``views.py``).

``split`` and ``chunk`` are multi-output view operations, as ``unbind`` is: one node for
all the pieces, whose backward joins their gradients back (a piece nobody used counts as
zeros), and pieces that may not be changed in place while autograd records.
``tensor_split`` and ``narrow`` make each piece with its own ``slice``, as PyTorch does.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import MULTI_OUTPUT_NODE, Tensor
from .declare import op
from .indexing import slice_view
from .operands import tensor_operand
from .shape import cat
from .views import make_view


class SplitBackward0(Node):
    """The pieces' gradients joined back along ``dim`` (zeros for a piece nobody used)."""

    __slots__ = ("dim", "metas", "num_outputs")

    def apply(self, *grads):
        dtype, xp = self.metas[0]
        grads = [Tensor._make(xp.zeros(shape, dtype)) if g is None else g
                 for g, (shape, _) in zip(grads, self.metas[1:])]
        return (cat(grads, self.dim),)


class SplitWithSizesBackward0(SplitBackward0):
    __slots__ = ()


def _pieces(node_cls, x, d, sizes):
    """``x`` cut along ``d`` into views of ``sizes``, recorded as one node."""
    data = x._data
    pieces, start = [], 0
    for size in sizes:
        key = (slice(None),) * d + (slice(start, start + size),)
        pieces.append(make_view(x, data[key], None, MULTI_OUTPUT_NODE))
        start += size
    pieces = tuple(pieces)
    if should_record(x):
        metas = [(data.dtype, array_module(data))] + [(p._data.shape, None) for p in pieces]
        record(node_cls, pieces, (x,), dim=d, metas=metas)
    return pieces


def _split_dim(op, x, dim):
    if not x._data.ndim:
        raise RuntimeError(f"{op} expects at least a 1-dimensional tensor")
    return dtypes.dim_index(dim, x._data.ndim)


@op(SplitBackward0, SplitWithSizesBackward0)
def split(tensor: Tensor, split_size_or_sections: int | list[int],
          dim: int = 0) -> tuple[Tensor, ...]:
    """``tensor`` cut along ``dim`` into views: pieces of ``split_size`` (the last may be
    smaller), or of each of the sizes in a list.

    Parameters
    ----------
    tensor : Tensor
    split_size_or_sections : int or list of ints
        The size of each piece, or the sizes of all of them (summing to ``tensor.size(dim)``).
    dim : int

    Returns
    -------
    tuple of Tensor
        Views of ``tensor``, which may not be changed in place while autograd records.
    """
    x = tensor_operand(tensor, "split")
    d = _split_dim("split", x, dim)
    size = x._data.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [operator.index(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes):
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
        if sum(sizes) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sizes}")
        return _pieces(SplitWithSizesBackward0, x, d, sizes)
    step = operator.index(split_size_or_sections)
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0 and size:
        raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {size}")
    count = max(-(-size // step), 1) if step else 1
    return _pieces(SplitBackward0, x, d, [step] * (count - 1) + [size - step * (count - 1)])


@op()
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``input`` cut along ``dim`` into at most ``chunks`` views of equal size (the last may
    be smaller; there may be fewer), as ``split(ceil(size / chunks))``.

    Parameters
    ----------
    input : Tensor
    chunks : int
        Greater than 0.
    dim : int

    Returns
    -------
    tuple of Tensor
        Views, as ``split``'s.
    """
    x = tensor_operand(input, "chunk")
    d = _split_dim("chunk", x, dim)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = x._data.shape[d]
    if not size:  # ``chunks`` empty pieces, where ``split(0)`` would give one
        return _pieces(SplitWithSizesBackward0, x, d, [0] * chunks)
    return split(x, -(-size // chunks), d)


def _sections(size, indices_or_sections):
    """The ``(start, stop)`` of each piece of ``tensor_split``."""
    if isinstance(indices_or_sections, Tensor):
        data = indices_or_sections._data
        if data.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {data.ndim} dims")
        indices_or_sections = int(data) if data.ndim == 0 else [int(i) for i in data.tolist()]
    if isinstance(indices_or_sections, (list, tuple)):
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [None]
        return list(itertools.pairwise(bounds))
    if not isinstance(indices_or_sections, (int, np.integer)) or isinstance(indices_or_sections, bool):
        raise TypeError("tensor_split() received an invalid combination of arguments - got "
                        f"({type(indices_or_sections).__name__}), but expected one of:\n"
                        " * (int sections, int dim = 0)\n * (tuple of ints indices, int dim = 0)\n"
                        " * (Tensor tensor_indices_or_sections, int dim = 0)")
    n = int(indices_or_sections)
    if n <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {n}")
    small, extra = divmod(size, n)
    bounds, start = [], 0
    for i in range(n):
        stop = start + small + (i < extra)
        bounds.append((start, stop))
        start = stop
    return bounds


@op()
def tensor_split(input: Tensor, indices_or_sections: int | list[int] | Tensor,
                 dim: int = 0) -> tuple[Tensor, ...]:
    """``input`` cut along ``dim`` into ``n`` views as equal as can be (the first
    ``size % n`` one longer), or at the given indices (NumPy's ``array_split``).

    Parameters
    ----------
    input : Tensor
    indices_or_sections : int, list of ints, or a 0-d or 1-d integer Tensor
        How many pieces, or where to cut (indices past the end give empty pieces).
    dim : int

    Returns
    -------
    tuple of Tensor
        Views, each with its own ``SliceBackward0``.
    """
    x = tensor_operand(input, "tensor_split")
    if not x._data.ndim:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = dtypes.dim_index(dim, x._data.ndim)
    return tuple(slice_view(x, d, slice(start, stop))
                 for start, stop in _sections(x._data.shape[d], indices_or_sections))


@op()
def narrow(input: Tensor, dim: int, start: int | Tensor, length: int) -> Tensor:
    """``length`` entries of ``input`` along ``dim`` from ``start`` (which may count from
    the end), as a view.

    Parameters
    ----------
    input : Tensor
    dim : int
    start : int or 0-d integer Tensor
    length : int
        Non-negative, with ``start + length`` at most the size.

    Returns
    -------
    Tensor
        A view (``SliceBackward0``).
    """
    x = tensor_operand(input, "narrow")
    if not x._data.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = dtypes.dim_index(dim, x._data.ndim)
    if isinstance(start, Tensor):
        start = start.item()  # type: ignore[assignment]  # a number from here on (item: Number)
    size = x._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but "
                         f"got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_view(x, d, slice(start, start + length))


def _split_along(op, x, indices_or_sections, d, ndim):
    """``tensor_split`` along ``d`` for hsplit/vsplit/dsplit, with their checks."""
    if x._data.ndim < ndim:
        raise RuntimeError(f"nbgrad.{op} requires a tensor with at least {ndim} dimension, but got a "
                           f"tensor with {x._data.ndim} dimensions!")
    size = x._data.shape[d]
    if isinstance(indices_or_sections, int) and (not indices_or_sections
                                                 or size % indices_or_sections):
        raise RuntimeError(f"nbgrad.{op} attempted to split along dimension {d}, but the size of the "
                           f"dimension {size} is not divisible by the split_size "
                           f"{indices_or_sections}!")
    return tensor_split(x, indices_or_sections, d)


@op()
def hsplit(input: Tensor, indices_or_sections: int | list[int]) -> tuple[Tensor, ...]:
    """``tensor_split`` along dimension 1 (0 for a 1-d tensor), into equal pieces when
    given a number (which must divide the size).

    Parameters
    ----------
    input : Tensor
    indices_or_sections : int or list of ints

    Returns
    -------
    tuple of Tensor
        Views.
    """
    x = tensor_operand(input, "hsplit")
    return _split_along("hsplit", x, indices_or_sections, 1 if x._data.ndim > 1 else 0, 1)


@op()
def vsplit(input: Tensor, indices_or_sections: int | list[int]) -> tuple[Tensor, ...]:
    """``tensor_split`` along dimension 0 of a tensor of at least 2 dimensions.

    Parameters
    ----------
    input : Tensor
    indices_or_sections : int or list of ints

    Returns
    -------
    tuple of Tensor
        Views.
    """
    return _split_along("vsplit", tensor_operand(input, "vsplit"), indices_or_sections, 0, 2)


@op()
def dsplit(input: Tensor, indices_or_sections: int | list[int]) -> tuple[Tensor, ...]:
    """``tensor_split`` along dimension 2 of a tensor of at least 3 dimensions.

    Parameters
    ----------
    input : Tensor
    indices_or_sections : int or list of ints

    Returns
    -------
    tuple of Tensor
        Views.
    """
    return _split_along("dsplit", tensor_operand(input, "dsplit"), indices_or_sections, 2, 3)
