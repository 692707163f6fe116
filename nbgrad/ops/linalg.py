"""Matrix products: ``mm``, ``mv``, ``dot`` and the broadcasting ``matmul``.

For ``C = A @ B`` the chain rule gives ``dA = dC @ B^T`` and ``dB = A^T @ dC``; each node
saves only the operand that the *other* input's gradient needs.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..core.node import Node
from ..tensor import Tensor
from . import shape
from .declare import op
from .elementwise import check_dtype
from .operands import broadcast_error, same_device, tensor_operand


def _pair(op, input, other):
    a = tensor_operand(input, op)
    b = tensor_operand(other, op, 2, "other" if op in ("dot", "matmul") else "mat2")
    if type(a._data) is not type(b._data):
        same_device(a, b)
    return a, b


def _same_dtype(a, b, op="mm"):
    """PyTorch's error when the operands' dtypes differ (each product words it its own
    way), then its error for a dtype it has no kernel for (bool)."""
    x, y = a._data.dtype, b._data.dtype
    if x != y:
        raise RuntimeError(_DTYPE_MISMATCH[op](x, y))
    check_dtype(op, x)


def _name(np_dtype):
    return dtypes.scalar_type_name(np_dtype)


_DTYPE_MISMATCH = {
    "mm": lambda x, y: ("expected m1 and m2 to have the same dtype, but got: "
                        f"{dtypes.c_type_name(x)} != {dtypes.c_type_name(y)}"),
    "mv": lambda mat, vec: ("addmv input tensors must have the same dtype, but got "
                            f"{_name(vec)}, {_name(mat)}, and {_name(vec)}"),
    "dot": lambda x, y: f"dot : expected both vectors to have same dtype, but found {_name(x)} and {_name(y)}",
    "bmm": lambda x, y: f"expected scalar type {_name(x)} but found {_name(y)}",
}


def _saving(a, b):
    """Save each operand only if the other one needs a gradient (PyTorch does the same)."""
    return (a if b._requires_grad else None, b if a._requires_grad else None)


def is_transposed(matrix):
    """Whether a 2-D array is stored column by column, as ``W.t()`` is."""
    flags = matrix.flags
    return flags.f_contiguous and not flags.c_contiguous


def mat2_grad(mat1, grad, transposed):
    """``mat1^T @ grad``, the gradient of ``mat2`` in ``mat1 @ mat2`` (tensors or arrays).

    When ``mat2`` is a transposed matrix, ``W.t()`` in a linear layer, the gradient is
    computed as ``(grad^T @ mat1)^T``: the same numbers, laid out so that once ``TBackward0``
    transposes it back, ``W``'s gradient is contiguous. PyTorch does the same: copying a
    transposed gradient into ``W.grad`` would cost more than the product.
    """
    if isinstance(grad, Tensor):
        return grad.t().mm(mat1).t() if transposed else mat1.t().mm(grad)
    return (grad.T @ mat1).T if transposed else mat1.T @ grad


class MmBackward0(Node):
    __slots__ = ("mat2_transposed",)

    def apply(self, grad):
        a, b = self.saved_values
        a_fn, b_fn = self._next_nodes
        return (grad.mm(b.t()) if a_fn is not None else None,
                mat2_grad(a, grad, self.mat2_transposed) if b_fn is not None else None)


@op(MmBackward0)
def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """The matrix product of two 2-D tensors.

    Parameters
    ----------
    input : Tensor
        ``(n, m)``.
    mat2 : Tensor
        ``(m, p)``, of ``input``'s dtype.

    Returns
    -------
    Tensor
        ``(n, p)``. ``MmBackward0`` saves each operand only when the other needs a gradient.

    Raises
    ------
    RuntimeError
        An operand is not 2-d or the inner sizes differ, or the dtypes differ (PyTorch does not promote them here; a bool
        product has no kernel).
    """
    a, b = _pair("mm", input, mat2)
    if a._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a._data.shape[1] != b._data.shape[0]:
        raise RuntimeError(
            "mat1 and mat2 shapes cannot be multiplied "
            f"({a._data.shape[0]}x{a._data.shape[1]} and {b._data.shape[0]}x{b._data.shape[1]})"
        )
    _same_dtype(a, b)
    out = Tensor._make(a._data @ b._data)
    if should_record(a, b):
        record(MmBackward0, out, (a, b), saved=_saving(a, b),
               mat2_transposed=is_transposed(b._data))
    return out


class MvBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, v = self.saved_values
        a_fn, v_fn = self._next_nodes
        return (grad.unsqueeze(1).mm(v.unsqueeze(0)) if a_fn is not None else None,
                a.t().mv(grad) if v_fn is not None else None)


@op(MvBackward0)
def mv(input: Tensor, vec: Tensor) -> Tensor:
    """The product of a matrix and a vector.

    Parameters
    ----------
    input : Tensor
        ``(n, m)``.
    vec : Tensor
        ``(m,)``, of ``input``'s dtype.

    Returns
    -------
    Tensor
        ``(n,)``.

    Raises
    ------
    RuntimeError
        ``input`` is not 2-d, ``vec`` not 1-d, or their sizes differ, or the dtypes differ (PyTorch does not promote them here; a bool
        product has no kernel).
    """
    a, v = _pair("mv", input, vec)
    if a._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if a._data.ndim != 2 or v._data.ndim != 1:  # PyTorch's addmv: (1-D input) + mat @ vec
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {a._data.ndim}, {v._data.ndim}"
        )
    if a._data.shape[1] != v._data.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a._data.shape[0]}), mat ({a._data.shape[0]}x"
            f"{a._data.shape[1]}), vec ({v._data.shape[0]})"
        )
    _same_dtype(a, v, "mv")
    out = Tensor._make(a._data @ v._data)
    if should_record(a, v):
        record(MvBackward0, out, (a, v), saved=_saving(a, v))
    return out


class DotBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_values
        a_fn, b_fn = self._next_nodes
        return (grad * b if a_fn is not None else None, grad * a if b_fn is not None else None)


@op(DotBackward0)
def dot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two 1-D tensors: the sum of their elementwise products.

    Parameters
    ----------
    input : Tensor
        1-d.
    other : Tensor
        1-d, of ``input``'s size and dtype (no broadcasting).

    Returns
    -------
    Tensor
        0-d.

    Raises
    ------
    RuntimeError
        An operand is not 1-d or the sizes differ, or the dtypes differ (PyTorch does not promote them here; a bool
        product has no kernel).
    """
    a, b = _pair("dot", input, other)
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors"
        )
    if a._data.shape[0] != b._data.shape[0]:
        raise RuntimeError(
            "inconsistent tensor size, expected tensor [{0}] and src [{1}] to have the same "
            "number of elements, but got {0} and {1} elements respectively".format(
                a._data.shape[0], b._data.shape[0])
        )
    _same_dtype(a, b, "dot")
    out = Tensor._make(a._data @ b._data)
    if should_record(a, b):
        record(DotBackward0, out, (a, b), saved=_saving(a, b))
    return out


class BmmBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_values
        a_fn, b_fn = self._next_nodes
        return (grad.bmm(b.transpose(1, 2)) if a_fn is not None else None,
                a.transpose(1, 2).bmm(grad) if b_fn is not None else None)


@op(BmmBackward0)
def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """The matrix products of two batches of matrices, pair by pair.

    Parameters
    ----------
    input : Tensor
        ``(b, n, m)``.
    mat2 : Tensor
        ``(b, m, p)``, the same batch size ``b`` (no broadcasting) and dtype.

    Returns
    -------
    Tensor
        ``(b, n, p)``.

    Raises
    ------
    RuntimeError
        An operand is not 3-d or the sizes differ, or the dtypes differ (PyTorch does not promote them here; a bool
        product has no kernel).
    """
    a, b = _pair("bmm", input, mat2)
    if a._data.ndim != 3 or b._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if a._data.ndim != 3 else
                           "batch2 must be a 3D tensor")
    if a._data.shape[0] != b._data.shape[0] or a._data.shape[2] != b._data.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a._data.shape[0]}, {a._data.shape[2]}] but got: "
            f"[{b._data.shape[0]}, {b._data.shape[1]}]."
        )
    check_dtype("bmm", a._data.dtype)  # PyTorch asks this first
    _same_dtype(a, b, "bmm")
    out = Tensor._make(a._data @ b._data)
    if should_record(a, b):
        record(BmmBackward0, out, (a, b), saved=_saving(a, b))
    return out


@op(operator="matmul", operands=(Tensor, np.ndarray))
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """The matrix product ``input @ other``, with NumPy's rules for 1-d and batched operands.

    Two 1-d tensors give ``dot``, 2-d and 2-d ``mm``, 2-d and 1-d ``mv``; a 1-d operand
    otherwise counts as a row (first) or a column (second) matrix, and its dimension is
    removed from the result. The dimensions before the last two broadcast and are the
    result's batch dimensions. It is composed from those products the way PyTorch composes
    it, so that the graph shows the same nodes (``MmBackward0``, ``BmmBackward0``,
    ``UnsafeViewBackward0``, ...).

    Parameters
    ----------
    input, other : Tensor
        At least 1-d, of one dtype.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        An operand is 0-d, the inner sizes differ, the batch dimensions do not broadcast or
        the dtypes differ.
    """
    a, b = _pair("matmul", input, other)
    da, db = a._data.ndim, b._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return dot(a, b)
    if da == 2 and db == 2:
        return mm(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 1 and db == 2:
        return shape.squeeze_result(mm(a.unsqueeze(0), b), 0)
    k = a._data.shape[-1]
    if db <= 2 and da >= 3:  # fold the batch dims of a into its rows
        rows = a.reshape(-1, k)
        folded = mm(rows, b) if db == 2 else mv(rows, b)
        return shape.unsafe_view(folded, a._data.shape[:-1] + b._data.shape[1:])
    a_rows, a_cols = (1, k) if da == 1 else a._data.shape[-2:]
    b_rows, b_cols = (b._data.shape[0], 1) if db == 1 else b._data.shape[-2:]
    batch = broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2])
    n = math.prod(batch)
    if a_cols != b_rows:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {a_cols}] but "
            f"got: [{n}, {b_rows}]."
        )
    left = (a.unsqueeze(0) if da == 1 else a).expand(*batch, a_rows, a_cols).reshape(n, a_rows, a_cols)
    right = (b.unsqueeze(1) if db == 1 else b).expand(*batch, b_rows, b_cols).reshape(n, b_rows, b_cols)
    result = shape.unsafe_view(bmm(left, right), batch + (a_rows, b_cols))
    if da == 1:
        result = shape.squeeze_result(result, -2)
    if db == 1:
        result = shape.squeeze_result(result, -1)
    return result


def broadcast_shapes(a_shape, b_shape):
    try:
        return tuple(np.broadcast_shapes(a_shape, b_shape))
    except ValueError:
        raise broadcast_error(a_shape, b_shape) from None
