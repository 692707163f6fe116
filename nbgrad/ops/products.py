"""Products of tensors: outer (ger), kron, tensordot and einsum, written as compositions of
nbgrad's operations, and the cross product, one block with its node.

PyTorch composes these too (``outer`` is a broadcast multiplication, ``einsum`` a series of
permutes, reshapes and batched matrix products), so their gradients come from the parts,
higher orders included.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from ..warn import warn_once
from .declare import op
from .elementwise import check_dtype, meta, to_input
from .linalg import matmul, mm
from .operands import broadcast_error, same_device, tensor_operand
from .shape import unsafe_view


@op(aliases=("ger",))
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two vectors: ``out[i, j] = input[i] * vec2[j]``.

    Parameters
    ----------
    input, vec2 : Tensor
        1-D tensors (promoted together).

    Returns
    -------
    Tensor
        Of shape ``(len(input), len(vec2))``; its ``grad_fn`` is PyTorch's, ``MulBackward0``.
    """
    a = tensor_operand(input, "outer")
    b = tensor_operand(vec2, "outer", 2, "vec2")
    for name, t in (("self", a), ("vec2", b)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return a.reshape(-1, 1) * b


@op()
def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times a whole block ``other``.

    Parameters
    ----------
    input, other : Tensor
        Of any dimensions (the fewer are padded with leading 1s).

    Returns
    -------
    Tensor
        Of shape ``input.shape[i] * other.shape[i]`` in each dimension.
    """
    a = tensor_operand(input, "kron")
    b = tensor_operand(other, "kron", 2, "other")
    ndim = max(a._data.ndim, b._data.ndim)
    a_shape = (1,) * (ndim - a._data.ndim) + a._data.shape
    b_shape = (1,) * (ndim - b._data.ndim) + b._data.shape
    # a's dimensions interleaved with b's: (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...)
    a_spread = a.reshape(tuple(s for n in a_shape for s in (n, 1)))
    b_spread = b.reshape(tuple(s for n in b_shape for s in (1, n)))
    return unsafe_view(a_spread * b_spread, tuple(m * n for m, n in zip(a_shape, b_shape)))


def _tensordot_dims(dims, a, b):
    """``dims`` as PyTorch's ``tensordot`` reads it: the last ``dims`` dimensions of ``a``
    with the first of ``b``, or two lists of dimensions (a tensor holding either)."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, bool) or not isinstance(dims, (int, tuple, list)):
        raise RuntimeError(  # noqa: TRY004 - PyTorch raises a RuntimeError here
            "tensordot expects dims to be int or tuple[list[int], list[int]] or "
            f"list[list[int]] containing two lists, but got dims={dims}")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a._data.ndim, b._data.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    dims_a, dims_b = dims
    for name, position, given in (("dims_self", 3, dims_a), ("dims_other", 4, dims_b)):
        if not isinstance(given, (list, tuple)) or not all(
                isinstance(d, int) and not isinstance(d, bool) for d in given):
            kind = type(given).__name__ if not isinstance(given, (list, tuple)) else \
                f"{type(given).__name__} of [{', '.join(type(d).__name__ for d in given)}]"
            raise TypeError(f"tensordot(): argument '{name}' (position {position}) must be tuple "
                            f"of ints, not {kind}")
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    return list(dims_a), list(dims_b)


@op(method=False)
def tensordot(a: Tensor, b: Tensor, dims: int | Sequence[Sequence[int]] | Tensor = 2) -> Tensor:
    """The sum of products of ``a`` and ``b`` over pairs of their dimensions.

    Parameters
    ----------
    a, b : Tensor
        Of one dtype.
    dims : int or pair of lists of int or Tensor
        An int ``d``: the last ``d`` dimensions of ``a`` with the first ``d`` of ``b``; two
        lists: ``a``'s dimensions ``dims[0][i]`` with ``b``'s ``dims[1][i]``. A contracted
        dimension of size 1 on one side is summed away first.

    Returns
    -------
    Tensor
        ``a``'s free dimensions, then ``b``'s; computed as one matrix product of the
        permuted, reshaped operands (so ``ViewBackward0`` on ``MmBackward0``, as PyTorch).
    """
    a = tensor_operand(a, "tensordot", name="a")
    b = tensor_operand(b, "tensordot", 2, "b")
    dims_a, dims_b = _tensordot_dims(dims, a, b)
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    same_device(a, b)
    axes_a = [dtypes.dim_index(d, a._data.ndim) for d in dims_a]
    axes_b = [dtypes.dim_index(d, b._data.ndim) for d in dims_b]
    contracted = 1
    for d_a, d_b, axis_a, axis_b in zip(dims_a, dims_b, axes_a, axes_b):
        size_a, size_b = a._data.shape[axis_a], b._data.shape[axis_b]
        if size_b == 1:  # a broadcast dimension: summed on its own
            a = a.sum(axis_a, keepdim=True)
        elif size_a == 1:
            b = b.sum(axis_b, keepdim=True)
        elif size_a != size_b:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {size_a} "
                               f"in dim {d_a} and second has size {size_b} in dim {d_b}")
        else:
            contracted *= size_a
    free_a = [d for d in range(a._data.ndim) if d not in axes_a]
    free_b = [d for d in range(b._data.ndim) if d not in axes_b]
    shape_a = [a._data.shape[d] for d in free_a]
    shape_b = [b._data.shape[d] for d in free_b]
    left = a.permute(*free_a, *axes_a).reshape(int(np.prod(shape_a)), contracted)
    right = b.permute(*axes_b, *free_b).reshape(contracted, int(np.prod(shape_b)))
    return mm(left, right).reshape(*shape_a, *shape_b)


def _linalg_cross(a, b, dim):
    """The cross product of ``a`` and ``b`` along ``dim``, checked and recorded."""
    if a._data.ndim != b._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if not a._data.ndim:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    axis = dtypes.dim_index(dim, a._data.ndim)
    if a._data.shape[axis] != 3 or b._data.shape[axis] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a._data.shape[axis]} and {b._data.shape[axis]}")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(a._data.dtype)} but "
                           f"found {dtypes.scalar_type_name(b._data.dtype)}")
    check_dtype("cross", a._data.dtype)
    same_device(a, b)
    try:
        shape = np.broadcast_shapes(a._data.shape, b._data.shape)
    except ValueError:
        raise broadcast_error(a._data.shape, b._data.shape) from None
    xp = array_module(a._data)
    data = xp.cross(a._data, b._data, axis=axis) if 0 not in shape else xp.zeros(shape, a._data.dtype)
    out = Tensor._make(data.astype(a._data.dtype, copy=False))
    if should_record(a, b):
        record(LinalgCrossBackward0, out, (a, b), saved=(a, b), dim=axis,
               metas=(meta(a, out), meta(b, out)))
    return out


class LinalgCrossBackward0(Node):
    """``a x b`` is linear in each: ``grad_a = b x grad`` and ``grad_b = grad x a``."""

    __slots__ = ("dim", "metas")

    def apply(self, grad):
        a, b = self.saved_values
        a_fn, b_fn = self._next_nodes
        return (to_input(_linalg_cross(b, grad, self.dim), self.metas[0])
                if a_fn is not None else None,
                to_input(_linalg_cross(grad, a, self.dim), self.metas[1])
                if b_fn is not None else None)


_CROSS_DEFAULT_DIM = (
    "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
    "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
    "with that of linalg.cross in a future release.")


@op(LinalgCrossBackward0)
def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim``, the other dimensions broadcast.

    Parameters
    ----------
    input, other : Tensor
        Of one dtype and as many dimensions, ``dim`` of size 3 in both.
    dim : int, optional
        Without it, the first dimension of ``input`` of size 3, with PyTorch's deprecation
        warning (once); ``linalg.cross`` takes the last by default.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        Without ``dim``, no dimension of size 3; the dimensions, sizes or dtypes differ.
    """
    a = tensor_operand(input, "cross")
    b = tensor_operand(other, "cross", 2, "other")
    if dim is None:
        warn_once(_CROSS_DEFAULT_DIM.replace("torch.", "nbgrad."), stacklevel=2)
        dim = next((d for d, n in enumerate(a._data.shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _linalg_cross(a, b, dim)


# -- einsum ---------------------------------------------------------------------------------
_ELLIPSIS_LETTERS = string.ascii_uppercase[::-1] + string.ascii_lowercase[::-1]


def _parse(equation, operands):
    """The equation as a list of subscripts per operand and the output's, each a list of
    letters, '...' replaced by letters of its own (right-aligned, as NumPy and PyTorch)."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    used = set(equation) - set(".,->")
    spare = [c for c in _ELLIPSIS_LETTERS if c not in used]
    ellipsis_dims = 0
    for term, t in zip(terms, operands):
        if "..." in term:
            ellipsis_dims = max(ellipsis_dims, t._data.ndim - len(term.replace("...", "")))
    covered = spare[:ellipsis_dims][::-1]
    subscripts = []
    for k, (term, t) in enumerate(zip(terms, operands)):
        letters = list(term.replace("...", "."))
        for c in letters:
            if c != "." and not c.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {k}")
        if "." in letters:
            n = t._data.ndim - (len(letters) - 1)
            at = letters.index(".")
            letters[at:at + 1] = covered[ellipsis_dims - n:] if n else []
        if len(letters) != t._data.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) "
                               f"does not match the number of dimensions ({t._data.ndim}) for "
                               f"operand {k}{'' if '.' in term else ' and no ellipsis was given'}")
        subscripts.append(letters)
    if arrow:
        out = list(output.replace("...", "."))
        if "." in out:
            at = out.index(".")
            out[at:at + 1] = covered
    else:  # implicit: the ellipsis' dims, then the letters seen once, in alphabetical order
        counts = {}
        for letters in subscripts:
            for c in letters:
                counts[c] = counts.get(c, 0) + 1
        out = covered + sorted(c for c, n in counts.items() if n == 1 and c not in covered)
    return subscripts, out


def _diagonal(t, letters, k):
    """``t`` with each repeated letter's dimensions reduced to their diagonal ('ii' -> 'i')."""
    while len(set(letters)) < len(letters):
        c = next(c for c in letters if letters.count(c) > 1)
        first = letters.index(c)
        second = letters.index(c, first + 1)
        n, m = t._data.shape[first], t._data.shape[second]
        if n != m:
            raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes "
                               f"don't match, {m} != {n}")
        order = [i for i in range(len(letters)) if i not in (first, second)] + [first, second]
        moved = t.permute(*order)
        index = Tensor._make(array_module(moved._data).arange(n))
        t = moved[(Ellipsis, index, index)]
        letters = [letters[i] for i in order[:-2]] + [c]
    return t, letters


def _sum_out(t, letters, keep):
    """Sum away the dimensions whose letters are not in ``keep``."""
    gone = [i for i, c in enumerate(letters) if c not in keep]
    if gone:
        t = t.sum(tuple(gone))
        letters = [c for c in letters if c in keep]
    return t, letters


def _contract(a, a_letters, b, b_letters, keep):
    """The product of two operands summed over their shared letters not in ``keep``, as one
    batched matrix product: (batch, left, shared) @ (batch, shared, right)."""
    sizes = {}
    for t, letters in ((a, a_letters), (b, b_letters)):
        for c, n in zip(letters, t._data.shape):
            seen = sizes.setdefault(c, n)
            if seen == 1:
                sizes[c] = n
            elif n not in (1, seen):
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand 1 which does "
                                   f"not broadcast with previously seen size {seen}")
    batch = [c for c in a_letters if c in b_letters and c in keep]
    shared = [c for c in a_letters if c in b_letters and c not in keep]
    left = [c for c in a_letters if c not in b_letters]
    right = [c for c in b_letters if c not in a_letters]

    def arrange(t, letters, order):
        t = t.permute(*[letters.index(c) for c in order])
        return t.expand(*[sizes[c] for c in order])

    def size(group):
        total = 1
        for c in group:
            total *= sizes[c]
        return total

    a3 = arrange(a, a_letters, batch + left + shared).reshape(size(batch), size(left), size(shared))
    b3 = arrange(b, b_letters, batch + shared + right).reshape(size(batch), size(shared), size(right))
    product = matmul(a3, b3).reshape(*[sizes[c] for c in batch + left + right])
    return product, batch + left + right


@op(method=False)
def einsum(equation: str, *operands: Tensor) -> Tensor:
    """Einstein summation: the product of the operands summed over the letters the output
    does not name, e.g. ``einsum('ij,jk->ik', a, b)`` is ``a @ b``.

    Parameters
    ----------
    equation : str
        Subscripts of each operand, comma separated, and ``->`` then the output's; ``...``
        stands for the remaining dimensions (broadcast). Without ``->`` the output is the
        ellipsis' dimensions, then the letters used once, in alphabetical order.
    *operands : Tensor
        Of one dtype (as in PyTorch); a single list or tuple of tensors is accepted too.

    Returns
    -------
    Tensor
        Computed as transposes, reshapes and batched matrix products, whose backward gives
        the gradients.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    tensors = [tensor_operand(t, "einsum", k + 2, "operands") for k, t in enumerate(operands)]
    if not tensors:
        raise RuntimeError("einsum(): must provide at least one operand")
    same_device(*tensors)
    for t in tensors[1:]:
        if t._data.dtype != tensors[0]._data.dtype:
            raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(tensors[0]._data.dtype)} "
                               f"but found {dtypes.scalar_type_name(t._data.dtype)}")
    subscripts, out = _parse(equation, tensors)
    terms = [_diagonal(t, letters, k) for k, (t, letters) in enumerate(zip(tensors, subscripts))]
    needed = [set(out)] * len(terms)
    for k in range(len(terms)):  # a letter needed later, or in the output, is kept
        needed[k] = set(out).union(*(set(letters) for _, letters in terms[k + 1:]))
    first, first_letters = terms[0]
    result, letters = _sum_out(first, first_letters, needed[0])
    for k in range(1, len(terms)):
        term, term_letters = terms[k]
        t, t_letters = _sum_out(term, term_letters, needed[k] | set(letters))
        result, letters = _contract(result, letters, t, t_letters, needed[k])
    result, letters = _sum_out(result, letters, set(out))
    for c in out:
        if c not in letters:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation "
                               "for any input operand")
    return result.permute(*[letters.index(c) for c in out]) if letters else result

