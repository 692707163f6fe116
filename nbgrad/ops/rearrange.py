"""Elements moved about: flip, roll, rot90, repeat and tile, tril and triu, the diagonals
(diagonal, diag_embed, diag), movedim, take_along_dim and the stacks (hstack, vstack,
dstack, column_stack, atleast_1d/2d/3d), each one block.

Each backward moves the gradient back the way the elements came: ``flip``'s flips it
again, ``roll``'s rolls it back, ``repeat``'s sums the copies. ``diagonal`` is a view;
the others copy, as in PyTorch.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import backend, dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from ..warn import warn_once
from .declare import op
from .gather_scatter import gather
from .operands import broadcast_error, tensor_operand
from .shape import cat, expand, permute, reshape, unsqueeze
from .views import make_view

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..dtypes import dtype
    from ..types import DeviceLike


def _dims_arg(dims):
    """``f(0, 1)``, ``f((0, 1))`` and ``f([0, 1])`` alike: a tuple of dims."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        return tuple(dims[0])
    return tuple(dims)


def _unique_dims(dims, ndim):
    """The dims made non-negative; PyTorch's error for one that appears twice."""
    wrapped = [dtypes.dim_index(d, ndim) for d in dims]
    for i, d in enumerate(wrapped):
        if d in wrapped[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(wrapped)


# -- flip, roll, rot90 ------------------------------------------------------------------
class FlipBackward0(Node):
    """The gradient flipped back."""

    __slots__ = ("dims",)

    def apply(self, grad):
        return (flip(grad, self.dims),)


@op(FlipBackward0)
def flip(input: Tensor, *dims: int | Sequence[int]) -> Tensor:
    """A copy of ``input`` with the order of its elements reversed along ``dims``.

    Parameters
    ----------
    input : Tensor
    *dims : int, or one tuple or list of ints
        The dimensions to reverse (none: a plain copy).

    Returns
    -------
    Tensor
        A copy (NumPy's ``flip`` is a view; PyTorch's is not).
    """
    x = tensor_operand(input, "flip")
    data = x._data
    axes = _unique_dims(_dims_arg(dims), data.ndim)
    flipped = array_module(data).flip(data, axes) if data.ndim and axes else data
    out = Tensor._make(flipped.copy())
    if should_record(x):
        record(FlipBackward0, out, (x,), dims=axes)
    return out


@op()
def fliplr(input: Tensor) -> Tensor:
    """``flip(input, 1)``: the columns in reverse order (at least 2-d).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "fliplr")
    if x._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(x, 1)


@op()
def flipud(input: Tensor) -> Tensor:
    """``flip(input, 0)``: the rows in reverse order (at least 1-d).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "flipud")
    if x._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(x, 0)


class RollBackward0(Node):
    """The gradient rolled back."""

    __slots__ = ("dims", "shifts")

    def apply(self, grad):
        return (roll(grad, tuple(-s for s in self.shifts), self.dims),)


def _as_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


@op(RollBackward0)
def roll(input: Tensor, shifts: int | tuple[int, ...],
         dims: int | tuple[int, ...] | None = None) -> Tensor:
    """A copy of ``input`` with its elements shifted along ``dims``; those shifted past the
    end come back at the start.

    Parameters
    ----------
    input : Tensor
    shifts : int or tuple of ints
        By how much, for each of ``dims``.
    dims : int or tuple of ints, optional
        Without them, the tensor is rolled as if flattened.

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "roll")
    by = _as_tuple(shifts)
    along = () if dims is None else _as_tuple(dims)
    if not by:
        raise RuntimeError("`shifts` required")
    if len(by) != len(along) and not (not along and len(by) == 1):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(by)}, dims:{len(along)}")
    data = x._data
    xp = array_module(data)
    if along:
        if not data.ndim:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        along = tuple(dtypes.dim_index(d, data.ndim) for d in along)
        rolled = xp.roll(data, by, along)
    else:
        rolled = xp.roll(data, by[0])
    out = Tensor._make(rolled)
    if should_record(x):
        record(RollBackward0, out, (x,), shifts=by, dims=along if along else None)
    return out


class Rot90Backward0(Node):
    """The gradient turned back."""

    __slots__ = ("dims", "k")

    def apply(self, grad):
        return (rot90(grad, -self.k, self.dims),)


@op(Rot90Backward0)
def rot90(input: Tensor, k: int = 1, dims: tuple[int, int] = (0, 1)) -> Tensor:
    """A copy of ``input`` turned ``k`` quarter turns in the plane of ``dims``, from the
    first dimension towards the second.

    Parameters
    ----------
    input : Tensor
        At least 2-d.
    k : int
        Quarter turns (negative: the other way).
    dims : pair of ints

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "rot90")
    plane = tuple(dims)
    ndim = x._data.ndim
    if len(plane) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(plane)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    if plane[0] == plane[1] or abs(plane[0] - plane[1]) == ndim:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {plane[0]} and "
                           f"dim1 = {plane[1]}")
    axes = tuple(dtypes.dim_index(d, ndim) for d in plane)
    out = Tensor._make(array_module(x._data).rot90(x._data, k, axes).copy())
    if should_record(x):
        record(Rot90Backward0, out, (x,), k=k, dims=axes)
    return out


# -- repeat, tile -----------------------------------------------------------------------
class RepeatBackward0(Node):
    """The copies' gradients summed: the gradient, seen with each repeated dimension split
    in (copy, element), summed over the copies."""

    __slots__ = ("repeats", "shape")

    def apply(self, grad):
        padded = (1,) * (len(self.repeats) - len(self.shape)) + tuple(self.shape)
        split = [n for pair in zip(self.repeats, padded) for n in pair]
        copies = tuple(range(0, len(split), 2))
        summed = grad.reshape(split).sum(copies) if copies else grad
        return (summed.reshape(self.shape),)


def _shape_tuple(sizes):
    sizes = _dims_arg(sizes)
    return tuple(int(s) for s in sizes)


@op(RepeatBackward0)
def repeat(input: Tensor, *repeats: int | Sequence[int]) -> Tensor:
    """``input`` repeated ``repeats[i]`` times along dimension ``i`` (more repeats than
    dimensions add leading ones), as a copy (NumPy's ``tile``).

    Parameters
    ----------
    input : Tensor
    *repeats : int, or one tuple or list of ints
        At least as many as ``input`` has dimensions.

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "repeat")
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    counts = _shape_tuple(repeats)
    shape = x._data.shape
    if len(counts) < len(shape):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    padded = (1,) * (len(counts) - len(shape)) + shape
    target = [r * n for r, n in zip(counts, padded)]
    if any(r < 0 for r in counts):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(t for t in target)}: {target}")
    data = x._data.reshape(padded)
    out = Tensor._make(array_module(data).tile(data, counts) if counts else data.copy())
    if should_record(x):
        record(RepeatBackward0, out, (x,), repeats=counts, shape=shape)
    return out


@op()
def tile(input: Tensor, dims: int | tuple[int, ...]) -> Tensor:
    """``input`` repeated ``dims[i]`` times along dimension ``i``; fewer ``dims`` than
    dimensions are padded with leading ones (``repeat`` after that).

    Parameters
    ----------
    input : Tensor
    dims : int or tuple of ints

    Returns
    -------
    Tensor
        Its ``grad_fn`` is ``RepeatBackward0``, as in PyTorch.
    """
    x = tensor_operand(input, "tile")
    given = _as_tuple(dims)
    return repeat(x, (1,) * (x._data.ndim - len(given)) + given)


# -- tril, triu -------------------------------------------------------------------------
class TrilBackward0(Node):
    """The gradient where the lower triangle was kept, 0 above it."""

    __slots__ = ("diagonal",)

    def apply(self, grad):
        return (tril(grad, self.diagonal),)


def _triangle(op, node_cls, input, diagonal, lower):
    x = tensor_operand(input, op)
    data = x._data
    if data.ndim < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")
    xp = array_module(data)
    out = Tensor._make((xp.tril if lower else xp.triu)(data, diagonal))
    if should_record(x):
        record(node_cls, out, (x,), diagonal=diagonal)
    return out


@op(TrilBackward0, inplace=True)
def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of each matrix (the last two dimensions): the elements on and
    below diagonal ``diagonal`` (above the main one if positive), zeros elsewhere.

    Parameters
    ----------
    input : Tensor
        At least 2-d.
    diagonal : int

    Returns
    -------
    Tensor
    """
    return _triangle("tril", TrilBackward0, input, diagonal, True)


class TriuBackward0(Node):
    """The gradient where the upper triangle was kept, 0 below it."""

    __slots__ = ("diagonal",)

    def apply(self, grad):
        return (triu(grad, self.diagonal),)


@op(TriuBackward0, inplace=True)
def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of each matrix (the last two dimensions): the elements on and
    above diagonal ``diagonal``, zeros elsewhere.

    Parameters
    ----------
    input : Tensor
        At least 2-d.
    diagonal : int

    Returns
    -------
    Tensor
    """
    return _triangle("triu", TriuBackward0, input, diagonal, False)


def _triangle_indices(row, col, offset, dtype, device, lower):
    for name, n in (("row", row), ("col", col)):
        if n < 0:
            raise RuntimeError(f"{name} must be non-negative, got{n}")  # sic, PyTorch's
    rows, cols = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    data = np.stack([rows, cols]).astype((dtype or dtypes.int64).numpy)
    return Tensor._make(data if device is None else backend.to_device(data, device))


@op(method=False)
def tril_indices(row: int, col: int, offset: int = 0, *, dtype: dtype | None = None,
                 device: DeviceLike | None = None, layout: Any = None) -> Tensor:
    """The coordinates of the lower triangle (on and below diagonal ``offset``) of a
    ``row`` by ``col`` matrix, row by row: a ``(2, N)`` tensor of rows, then columns.

    Parameters
    ----------
    row, col : int
        The matrix's numbers of rows and columns (not negative).
    offset : int
        The diagonal: 0 the main one, positive above it, negative below.
    dtype : nbgrad.dtype, optional
        int64 by default.
    device : str or nbgrad.device, optional
        The CPU by default.
    layout : optional
        Accepted for PyTorch's signature and ignored (strided).

    Returns
    -------
    Tensor
    """
    return _triangle_indices(row, col, offset, dtype, device, True)


@op(method=False)
def triu_indices(row: int, col: int, offset: int = 0, *, dtype: dtype | None = None,
                 device: DeviceLike | None = None, layout: Any = None) -> Tensor:
    """The coordinates of the upper triangle (on and above diagonal ``offset``) of a
    ``row`` by ``col`` matrix, row by row: a ``(2, N)`` tensor of rows, then columns.

    Parameters
    ----------
    row, col : int
        The matrix's numbers of rows and columns (not negative).
    offset : int
        The diagonal: 0 the main one, positive above it, negative below.
    dtype : nbgrad.dtype, optional
        int64 by default.
    device : str or nbgrad.device, optional
        The CPU by default.
    layout : optional
        Accepted for PyTorch's signature and ignored (strided).

    Returns
    -------
    Tensor
    """
    return _triangle_indices(row, col, offset, dtype, device, False)


# -- diagonals --------------------------------------------------------------------------
def _diagonal_view(data, offset, d1, d2):
    """The diagonal ``offset`` of the planes ``(d1, d2)`` of ``data``, as a writable view
    (NumPy's ``diagonal`` is read-only): the other dimensions, then the diagonal."""
    key = [slice(None)] * data.ndim
    if offset >= 0:
        key[d2] = slice(offset, None)
    else:
        key[d1] = slice(-offset, None)
    start = data[tuple(key)]
    length = min(start.shape[d1], start.shape[d2])
    others = [i for i in range(data.ndim) if i not in (d1, d2)]
    shape = tuple(start.shape[i] for i in others) + (length,)
    strides = tuple(start.strides[i] for i in others) + (start.strides[d1] + start.strides[d2],)
    return array_module(data).lib.stride_tricks.as_strided(start, shape, strides)


def _diagonal_dims(ndim, dim1, dim2):
    d1, d2 = dtypes.dim_index(dim1, ndim), dtypes.dim_index(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


class DiagonalBackwardBackward0(Node):
    """The backward of ``diagonal``'s backward (for higher-order gradients): the diagonal."""

    __slots__ = ("dim1", "dim2", "offset")

    def apply(self, grad):
        return (diagonal(grad, self.offset, self.dim1, self.dim2),)


def _diagonal_backward(grad, shape, offset, d1, d2):
    """Zeros of ``shape`` with ``grad`` on the diagonal (PyTorch's diagonal_backward)."""
    data = array_module(grad._data).zeros(shape, grad._data.dtype)
    _diagonal_view(data, offset, d1, d2)[...] = grad._data
    out = Tensor._make(data)
    if should_record(grad):
        record(DiagonalBackwardBackward0, out, (grad,), offset=offset, dim1=d1, dim2=d2)
    return out


class DiagonalBackward0(Node):
    """The gradient goes back on the diagonal, zeros elsewhere."""

    __slots__ = ("dim1", "dim2", "offset", "shape")

    def apply(self, grad):
        return (_diagonal_backward(grad, self.shape, self.offset, self.dim1, self.dim2),)


@op(DiagonalBackward0)
def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal ``offset`` (above the main one if positive) of the planes spanned by
    ``dim1`` and ``dim2``, as a view: the other dimensions, then the diagonal's.

    Parameters
    ----------
    input : Tensor
        At least 2-d.
    offset : int
    dim1, dim2 : int
        Two different dimensions.

    Returns
    -------
    Tensor
        A view, writable, as PyTorch's (NumPy's is read-only).
    """
    x = tensor_operand(input, "diagonal")
    d1, d2 = _diagonal_dims(x._data.ndim, dim1, dim2)
    return make_view(x, _diagonal_view(x._data, offset, d1, d2), DiagonalBackward0,
                     shape=x._data.shape, offset=offset, dim1=d1, dim2=d2)


class DiagEmbedBackward0(Node):
    """The gradient read back from the diagonal."""

    __slots__ = ("dim1", "dim2", "offset")

    def apply(self, grad):
        return (diagonal(grad, self.offset, self.dim1, self.dim2),)


def _embedded(x, offset, d1, d2):
    """Zeros with the last dimension of ``x`` on the diagonal ``offset`` of ``(d1, d2)``."""
    data = x._data
    n = data.shape[-1] + abs(offset)
    shape = list(data.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    out = array_module(data).zeros(tuple(shape), data.dtype)
    _diagonal_view(out, offset, d1, d2)[...] = data
    return out


@op(DiagEmbedBackward0)
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices with the last dimension of ``input`` on their diagonal ``offset``, zeros
    elsewhere, in the planes ``(dim1, dim2)`` of the result (which has one more dimension).

    Parameters
    ----------
    input : Tensor
    offset : int
    dim1, dim2 : int
        Dimensions of the result.

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "diag_embed")
    d1, d2 = _diagonal_dims(x._data.ndim + 1, dim1, dim2)
    out = Tensor._make(_embedded(x, offset, d1, d2))
    if should_record(x):
        record(DiagEmbedBackward0, out, (x,), offset=offset, dim1=d1, dim2=d2)
    return out


class DiagonalBackward0_copy(DiagonalBackward0):  # PyTorch's name
    """``diag`` of a matrix: ``diagonal``'s backward, for a copy of the diagonal."""

    __slots__ = ()


@op(DiagonalBackward0_copy)
def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-d tensor on the diagonal ``diagonal`` of a square matrix, or the diagonal of a
    matrix as a 1-d copy.

    Parameters
    ----------
    input : Tensor
        1-d or 2-d.
    diagonal : int
        Above the main diagonal if positive, below if negative.

    Returns
    -------
    Tensor
        2-d from 1-d (``DiagEmbedBackward0``), 1-d from 2-d (``DiagonalBackward0_copy``).
    """
    x = tensor_operand(input, "diag")
    ndim = x._data.ndim
    if ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    if ndim == 1:
        return diag_embed(x, diagonal, 0, 1)
    out = Tensor._make(_diagonal_view(x._data, diagonal, 0, 1).copy())
    if should_record(x):
        record(DiagonalBackward0_copy, out, (x,), shape=x._data.shape, offset=diagonal,
               dim1=0, dim2=1)
    return out


# -- movedim, take_along_dim ------------------------------------------------------------
@op(aliases=("moveaxis",))
def movedim(input: Tensor, source: int | tuple[int, ...],
            destination: int | tuple[int, ...]) -> Tensor:
    """The dimensions ``source`` moved to the places ``destination``, the others keeping
    their order: a view (``permute``).

    Parameters
    ----------
    input : Tensor
    source, destination : int or tuple of ints
        As many of one as of the other, without repeats.

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "movedim")
    sources, destinations = list(_as_tuple(source)), list(_as_tuple(destination))
    if len(sources) != len(destinations):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({sources} dims) should "
            f"contain the same number of dims as destination ({destinations} dims)")
    ndim = x._data.ndim
    src = [dtypes.dim_index(d, ndim) for d in sources]
    if not ndim:
        return x[...]  # an alias (AliasBackward0), as PyTorch's
    dst = [dtypes.dim_index(d, ndim) for d in destinations]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    rest = iter(d for d in range(ndim) if d not in src)
    placed = dict(zip(dst, src))
    order = [placed[i] if i in placed else next(rest) for i in range(ndim)]
    return permute(x, order)


@op()
def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """The values of ``input`` at ``indices`` along ``dim`` (the two broadcast together,
    apart from ``dim``): ``gather`` with broadcasting, as NumPy's ``take_along_axis``.
    Without ``dim``, both are read as 1-d.

    Parameters
    ----------
    input : Tensor
    indices : Tensor
        int64, with as many dimensions as ``input`` (unless ``dim`` is None).
    dim : int, optional

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "take_along_dim")
    index = tensor_operand(indices, "take_along_dim", 2, "indices")
    if index._data.dtype != np.int64:
        raise RuntimeError("nbgrad.take_along_dim(): dtype of indices should be Long but got "
                           f"{dtypes.scalar_type_name(index._data.dtype)}")
    if dim is None:
        return gather(reshape(x, -1), 0, reshape(index, -1))
    if x._data.ndim != index._data.ndim:
        raise RuntimeError(
            "nbgrad.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {x._data.ndim} dimensions for input, and {index._data.ndim} "
            "dimensions for indices")
    d = dtypes.dim_index(dim, x._data.ndim)
    sizes = list(x._data.shape)
    sizes[d] = index._data.shape[d]
    try:
        shape = list(np.broadcast_shapes(tuple(sizes), index._data.shape))
    except ValueError:
        raise broadcast_error(sizes, index._data.shape) from None
    index_shape = tuple(shape)
    shape[d] = x._data.shape[d]
    return gather(expand(x, shape), d, expand(index, index_shape))


# -- shapes by composition: broadcast_to, broadcast_tensors, ravel, unflatten -----------
@op()
def broadcast_to(input: Tensor, size: tuple[int, ...]) -> Tensor:
    """``input.expand(size)``: a view broadcast to ``size`` (-1 keeps a dimension).

    Parameters
    ----------
    input : Tensor
    size : tuple of ints

    Returns
    -------
    Tensor
    """
    return expand(tensor_operand(input, "broadcast_to"), tuple(size))


@op(method=False)
def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape (those already of that shape
    as they are, as PyTorch returns them).

    Parameters
    ----------
    *tensors : Tensor

    Returns
    -------
    tuple of Tensor
        Views.

    Raises
    ------
    RuntimeError
        The shapes do not broadcast together.
    """
    operands = [tensor_operand(t, "broadcast_tensors") for t in tensors]
    shape: tuple[int, ...] = ()
    for t in operands:
        try:
            shape = np.broadcast_shapes(shape, t._data.shape)
        except ValueError:
            raise broadcast_error(shape, t._data.shape) from None
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in operands)


@op()
def ravel(input: Tensor) -> Tensor:
    """The elements as a 1-d tensor: a view when ``input`` is contiguous, else of a copy.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        ``contiguous().view(-1)``, as PyTorch does it.
    """
    return tensor_operand(input, "ravel").contiguous().view(-1)


@op()
def unflatten(input: Tensor, dim: int, sizes: tuple[int, ...]) -> Tensor:
    """Dimension ``dim`` seen as several, of ``sizes`` (one may be -1), as a view.

    Parameters
    ----------
    input : Tensor
    dim : int
    sizes : tuple of ints
        Multiplying up to ``input.size(dim)``.

    Returns
    -------
    Tensor
    """
    x = tensor_operand(input, "unflatten")
    new = [int(s) for s in sizes]
    if not new:
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = dtypes.dim_index(dim, x._data.ndim)
    size = x._data.shape[d]
    known = math.prod(s for s in new if s != -1)
    if (-1 in new and (not known or size % known)) or (-1 not in new and known != size):
        raise RuntimeError(f"unflatten: Provided sizes {new} don't multiply up to the size of dim "
                           f"{dim} ({size}) in the input tensor")
    shape = x._data.shape
    return x.view(*shape[:d], *new, *shape[d + 1:])


_MESHGRID_WARNING = ("nbgrad.meshgrid: in an upcoming release, it will be required to pass the "
                     "indexing argument.")


@op(method=False)
def meshgrid(*tensors: Tensor | Sequence[Tensor],
             indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids: for 0-d or 1-d tensors of sizes ``n_1..n_k``, ``k`` tensors of
    shape ``(n_1, ..., n_k)``, the ``i``-th repeating tensor ``i`` along dimension ``i``.

    Parameters
    ----------
    *tensors : Tensor, several, or one list or tuple of them
    indexing : {"ij", "xy"}, optional
        ``"xy"`` swaps the first two dimensions (NumPy's default). Without it, ``"ij"``,
        with PyTorch's warning (once) that it will be required.

    Returns
    -------
    tuple of Tensor
        Views (``expand``).
    """
    given = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    operands = [tensor_operand(t, "meshgrid") for t in given]
    if indexing is None:
        warn_once(_MESHGRID_WARNING, UserWarning, stacklevel=3)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError('nbgrad.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f"{indexing}")
    for t in operands:
        if t._data.ndim > 1:
            raise RuntimeError("nbgrad.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    swap = indexing == "xy" and len(operands) >= 2
    if swap:  # as PyTorch: the first two swapped going in, and the grids coming out
        operands[0], operands[1] = operands[1], operands[0]
    shape = tuple(t._data.size for t in operands)
    grids = []
    for i, t in enumerate(operands):
        along = [1] * len(operands)
        along[i] = -1
        grids.append(expand(reshape(t, along), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# -- stacks -----------------------------------------------------------------------------
def _tensors(op, tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return [tensor_operand(t, op) for t in tensors]


def _at_least(t, ndim):
    """``t`` with dimensions of size 1 added as NumPy's atleast_1d/2d/3d add them."""
    n = t._data.ndim
    if n >= ndim:
        return t
    if n == 0:
        return reshape(t, (1,) * ndim)
    if ndim == 2 or n == 2:  # (n,) -> (1, n); (m, n) -> (m, n, 1)
        return unsqueeze(t, 0 if ndim == 2 else -1)
    return unsqueeze(unsqueeze(t, 0), -1)  # (n,) -> (1, n, 1)


def _at_least_op(ndim, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_at_least(tensor_operand(t, f"atleast_{ndim}d"), ndim) for t in tensors[0])
    if len(tensors) == 1:
        return _at_least(tensor_operand(tensors[0], f"atleast_{ndim}d"), ndim)
    return tuple(_at_least(tensor_operand(t, f"atleast_{ndim}d"), ndim) for t in tensors)


@op(method=False)
def atleast_1d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    """Each tensor with at least 1 dimension (a 0-d one as shape ``(1,)``), as a view.

    Parameters
    ----------
    *tensors : Tensor, several, or one list or tuple of them

    Returns
    -------
    Tensor or tuple of Tensor
        A tensor for one tensor, a tuple for several or for a list or tuple.
    """
    return _at_least_op(1, tensors)


@op(method=False)
def atleast_2d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    """Each tensor with at least 2 dimensions (``(n,)`` as ``(1, n)``), as a view.

    Parameters
    ----------
    *tensors : Tensor, several, or one list or tuple of them

    Returns
    -------
    Tensor or tuple of Tensor
        A tensor for one tensor, a tuple for several or for a list or tuple.
    """
    return _at_least_op(2, tensors)


@op(method=False)
def atleast_3d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    """Each tensor with at least 3 dimensions (``(n,)`` as ``(1, n, 1)``, ``(m, n)`` as
    ``(m, n, 1)``), as a view.

    Parameters
    ----------
    *tensors : Tensor, several, or one list or tuple of them

    Returns
    -------
    Tensor or tuple of Tensor
        A tensor for one tensor, a tuple for several or for a list or tuple.
    """
    return _at_least_op(3, tensors)


@op(method=False)
def hstack(tensors: list[Tensor] | tuple[Tensor, ...]) -> Tensor:
    """The tensors joined column-wise: along dimension 0 when they are 1-d, else 1.

    Parameters
    ----------
    tensors : list or tuple of Tensors

    Returns
    -------
    Tensor
    """
    parts = [_at_least(t, 1) for t in _tensors("hstack", tensors)]
    return cat(parts, 0 if parts[0]._data.ndim == 1 else 1)


@op(method=False, aliases=("row_stack",))
def vstack(tensors: list[Tensor] | tuple[Tensor, ...]) -> Tensor:
    """The tensors, each made at least 2-d, joined row-wise (along dimension 0).

    Parameters
    ----------
    tensors : list or tuple of Tensors

    Returns
    -------
    Tensor
    """
    return cat([_at_least(t, 2) for t in _tensors("vstack", tensors)], 0)


@op(method=False)
def dstack(tensors: list[Tensor] | tuple[Tensor, ...]) -> Tensor:
    """The tensors, each made at least 3-d, joined depth-wise (along dimension 2).

    Parameters
    ----------
    tensors : list or tuple of Tensors

    Returns
    -------
    Tensor
    """
    return cat([_at_least(t, 3) for t in _tensors("dstack", tensors)], 2)


@op(method=False)
def column_stack(tensors: list[Tensor] | tuple[Tensor, ...]) -> Tensor:
    """The tensors as the columns of a matrix: 0-d and 1-d ones as one column each, the
    others joined along dimension 1.

    Parameters
    ----------
    tensors : list or tuple of Tensors

    Returns
    -------
    Tensor
    """
    parts = [reshape(t, (math.prod(t._data.shape), 1)) if t._data.ndim <= 1 else t
             for t in _tensors("column_stack", tensors)]
    return cat(parts, 1)
