"""Matrix products: ``mm``, ``mv``, ``dot`` and the broadcasting ``matmul``; and the
functions of square matrices: ``det``, ``slogdet`` (``logdet``), ``inverse``, ``solve`` and
``cholesky``.

For ``C = A @ B`` the chain rule gives ``dA = dC @ B^T`` and ``dB = A^T @ dC``; each node
saves only the operand that the *other* input's gradient needs. The matrix functions are
NumPy's (LAPACK's LU factorisation, as PyTorch's), batched over the leading dimensions;
their gradients are written with ``inverse`` and ``solve`` themselves, so they have higher
orders too.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..autograd.graph import OUTPUT, record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from . import shape
from .declare import op
from .elementwise import check_dtype, meta, to_input
from .operands import broadcast_error, same_device, tensor_operand
from .reductions import return_types


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

    def fast_apply(self, grad):
        a, b = self.saved_values
        a_fn, b_fn = self._next_nodes
        g = grad._data
        try:
            return (Tensor._make(g @ b._data.T) if a_fn is not None else None,
                    Tensor._make(mat2_grad(a._data, g, self.mat2_transposed))
                    if b_fn is not None else None)
        except ValueError:  # shapes that do not match (node.py: fast_apply)
            return self.apply(grad)


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


# -- functions of square matrices ----------------------------------------------------------
class LinAlgError(RuntimeError):
    """A matrix function failed on its input: a singular matrix for ``inv`` or ``solve``
    (``torch.linalg.LinAlgError``, a ``RuntimeError``)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"  # PyTorch's class's name


def _square(op, x, name="A", half_kernel=None):
    """PyTorch's checks of a batch of square floating point matrices, as ``op`` words them."""
    data = x._data
    if data.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    if data.shape[-1] != data.shape[-2]:
        raise RuntimeError(f"{op}: {name} must be batches of square matrices, but they are "
                           f"{data.shape[-2]} by {data.shape[-1]} matrices")
    if data.dtype.kind != "f":
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{dtypes.scalar_type_name(data.dtype)}")
    if data.dtype == np.float16:
        if half_kernel:  # det's LU and cholesky's kernels say they have no half version
            raise NotImplementedError(f"\"{half_kernel}\" not implemented for 'Half'")
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got Half")
    return data


def _first_zero_pivot(matrix):
    """The 1-based position of the first zero on U's diagonal in the LU factorisation with
    partial pivoting (LAPACK's ``getrf`` info, which PyTorch's message names), or 0."""
    a = np.array(matrix, dtype=np.float64)
    n = a.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        a[[k, p]] = a[[p, k]]
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return 0


def _singular(message, data, failure=_first_zero_pivot):
    """PyTorch's error for the first matrix of a batch that ``failure`` finds fails (at the
    1-based position it returns; 0 where none): ``message(where, position)``, ``where``
    naming the batch element when batched."""
    host = data.get() if hasattr(data, "get") else data  # CuPy arrays come to the host
    matrices = host.reshape(-1, *host.shape[-2:])
    for k, matrix in enumerate(matrices):
        pivot = failure(matrix)
        if pivot:
            where = f"(Batch element {k}): " if host.ndim > 2 else ""
            return LinAlgError(message(where, pivot))
    return LinAlgError(message("", 1))


def _inv(data, op="linalg.inv"):
    xp = array_module(data)
    try:
        return xp.linalg.inv(data)
    except np.linalg.LinAlgError:
        raise _singular(lambda where, pivot: (
            f"{op}: {where}The diagonal element {pivot} is zero, the inversion could not be "
            "completed because the input matrix is singular."), data) from None


def _mT(t):
    return t.transpose(-2, -1)


class LinalgDetBackward0(Node):
    """``d det(A) = det(A) A^{-T}``; 0 for a singular matrix (det 0), as PyTorch's."""

    __slots__ = ()

    def apply(self, grad):
        a, det = self.saved_values
        singular = (det == 0).unsqueeze(-1).unsqueeze(-1)
        eye = Tensor._make(array_module(a._data).eye(a._data.shape[-1], dtype=a._data.dtype))
        safe = a.where(~singular, eye)  # singular matrices get 0 from det == 0 below
        return ((grad * det).unsqueeze(-1).unsqueeze(-1) * _mT(inverse(safe)),)


def _det(op, x):
    data = _square(op, x, half_kernel="lu_cpu")
    out = Tensor._make(array_module(data).linalg.det(data).astype(data.dtype, copy=False))
    if should_record(x):
        record(LinalgDetBackward0, out, (x,), saved=(x, OUTPUT))
    return out


@op(LinalgDetBackward0)
def det(input: Tensor) -> Tensor:
    """The determinant of a square matrix, or of each in a batch.

    Parameters
    ----------
    input : Tensor
        ``(*, n, n)``, floating point.

    Returns
    -------
    Tensor
        ``(*)``. Its gradient ``det(A) A^{-T}`` is 0 where ``A`` is singular (as in
        PyTorch, which writes it with ``det`` as a factor).

    Raises
    ------
    RuntimeError
        ``input`` is not a batch of square floating point matrices.
    """
    return _det("linalg.det", tensor_operand(input, "det"))


class LinalgSlogdetBackward0(Node):
    """Only ``logabsdet`` has a gradient (``sign`` is piecewise constant): ``A^{-T}``."""

    __slots__ = ("num_outputs",)

    def apply(self, grad_sign, grad_logabsdet):
        (a,) = self.saved_values
        if grad_logabsdet is None:
            return (None,)
        return (grad_logabsdet.unsqueeze(-1).unsqueeze(-1) * _mT(inverse(a)),)


def _slogdet(op, x, result_type):
    data = _square(op, x)
    sign, logabsdet = array_module(data).linalg.slogdet(data)
    sign = Tensor._make(sign.astype(data.dtype, copy=False))
    logabsdet = Tensor._make(logabsdet.astype(data.dtype, copy=False))
    if should_record(x):
        record(LinalgSlogdetBackward0, (sign, logabsdet), (x,), saved=(x,))
    return result_type(sign, logabsdet)


@op(LinalgSlogdetBackward0)
def slogdet(input: Tensor) -> tuple[Tensor, Tensor]:
    """The sign and the log of the absolute value of the determinant, which does not
    overflow where the determinant itself would.

    Parameters
    ----------
    input : Tensor
        ``(*, n, n)``, floating point.

    Returns
    -------
    (Tensor, Tensor)
        The named tuple ``(sign, logabsdet)`` (``nbgrad.return_types.slogdet``): sign 0 and
        logabsdet ``-inf`` for a singular matrix.
    """
    return _slogdet("linalg.slogdet", tensor_operand(input, "slogdet"), return_types.slogdet)


@op()
def logdet(input: Tensor) -> Tensor:
    """The log of the determinant: ``logabsdet`` where the determinant is positive, NaN
    where it is negative, ``-inf`` where it is 0.

    Parameters
    ----------
    input : Tensor
        ``(*, n, n)``, floating point.

    Returns
    -------
    Tensor
        Composed as PyTorch composes it: ``where(sign == -1, nan, logabsdet)``.
    """
    sign, logabsdet = _slogdet("logdet", tensor_operand(input, "logdet"), return_types.slogdet)
    return logabsdet.where(sign != -1, math.nan)


class LinalgInvExBackward0(Node):
    """``d A^{-1} = -A^{-T} grad A^{-T}``, in the saved result."""

    __slots__ = ()

    def apply(self, grad):
        (inv,) = self.saved_values
        inv_t = _mT(inv)
        return (-inv_t.matmul(grad).matmul(inv_t),)


def _inverse(x):
    data = _square("linalg.inv", x)
    out = Tensor._make(_inv(data).astype(data.dtype, copy=False))
    if should_record(x):
        record(LinalgInvExBackward0, out, (x,), saved=(OUTPUT,))
    return out


@op(LinalgInvExBackward0)
def inverse(input: Tensor) -> Tensor:
    """The inverse of a square matrix, or of each in a batch.

    Parameters
    ----------
    input : Tensor
        ``(*, n, n)``, floating point, invertible.

    Returns
    -------
    Tensor
        ``(*, n, n)``.

    Raises
    ------
    nbgrad.linalg.LinAlgError
        A matrix is singular (PyTorch's message names the zero pivot of its LU
        factorisation, and the batch element).
    RuntimeError
        ``input`` is not a batch of square floating point matrices.
    """
    return _inverse(tensor_operand(input, "inverse"))


class LinalgSolveExBackward0(Node):
    """``X = A^{-1} B``: ``grad_B = A^{-T} grad`` and ``grad_A = -grad_B X^T`` (for
    ``left=False``, ``X A = B``, the same transposed)."""

    __slots__ = ("left", "metas", "vector")

    def apply(self, grad):
        a, x = self.saved_values
        a_fn, b_fn = self._next_nodes
        if not self.left:  # X A = B is A^T X^T = B^T
            grad, x, a = _mT(grad), _mT(x), _mT(a)
        if self.vector:
            grad, x = grad.unsqueeze(-1), x.unsqueeze(-1)
        grad_b = solve(_mT(a), grad)
        grad_a = -grad_b.matmul(_mT(x)) if a_fn is not None else None
        if not self.left:
            grad_b, grad_a = _mT(grad_b), None if grad_a is None else _mT(grad_a)
        if self.vector:
            grad_b = grad_b.squeeze(-1)
        return (to_input(grad_a, self.metas[0]) if a_fn is not None else None,
                to_input(grad_b, self.metas[1]) if b_fn is not None else None)


@op(LinalgSolveExBackward0, export=False, method=False)
def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``X A = B`` with ``left=False``), batched.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``, floating point, invertible.
    B : Tensor
        ``(*, n, k)``, of ``A``'s dtype; or ``(*, n)``, a batch of vectors, where its
        shape is ``A``'s without the last dimension (or it is 1-d). The batch dimensions
        broadcast.
    left : bool
        Solve ``A X = B`` (True) or ``X A = B``.

    Returns
    -------
    Tensor
        Of ``B``'s shape, the batch dimensions broadcast.

    Raises
    ------
    nbgrad.linalg.LinAlgError
        A matrix is singular.
    RuntimeError
        ``A`` is not a batch of square floating point matrices, or ``B``'s shape or dtype
        does not fit.
    """
    a = tensor_operand(A, "linalg_solve", name="A")
    b = tensor_operand(B, "linalg_solve", 2, "B")
    a_data = _square("linalg.solve", a)
    b_data = b._data
    if b_data.dtype != a_data.dtype:
        raise RuntimeError("linalg.solve: Expected A and B to have the same dtype, but found A of "
                           f"type {dtypes.scalar_type_name(a_data.dtype)} and B of type "
                           f"{dtypes.scalar_type_name(b_data.dtype)} instead")
    same_device(a, b)
    vector = b_data.ndim == 1 or (b_data.ndim == a_data.ndim - 1
                                  and b_data.shape == a_data.shape[:-1])
    if not vector and b_data.ndim < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    n = a_data.shape[-1]
    columns = b_data[..., None] if vector else b_data
    rows = columns.shape[-2] if left else columns.shape[-1]
    if rows != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{columns.shape[-2]}x{columns.shape[-1]})")
    batch = broadcast_shapes(columns.shape[:-2], a_data.shape[:-2])  # PyTorch's order
    xp = array_module(a_data)
    lhs = xp.broadcast_to(a_data if left else xp.swapaxes(a_data, -1, -2), batch + (n, n))
    rhs = columns if left else xp.swapaxes(columns, -1, -2)
    rhs = xp.broadcast_to(rhs, batch + rhs.shape[-2:])
    try:
        solved = xp.linalg.solve(lhs, rhs)
    except np.linalg.LinAlgError:
        raise _singular(lambda where, pivot: (
            f"nbgrad.linalg.solve: {where}The solver failed because the input matrix is "
            "singular."), lhs) from None
    solved = solved if left else xp.swapaxes(solved, -1, -2)
    out = Tensor._make((solved[..., 0] if vector else solved).astype(a_data.dtype, copy=False))
    if should_record(a, b):
        record(LinalgSolveExBackward0, out, (a, b), saved=(a, OUTPUT), left=left, vector=vector,
               metas=(meta(a, Tensor._make(lhs)), meta(b, out)))
    return out


def _first_minor_not_positive(matrix):
    """The order of the first leading minor of ``matrix`` that is not positive-definite
    (LAPACK's ``potrf`` info, which PyTorch's message names), or 0."""
    for k in range(1, matrix.shape[0] + 1):
        try:
            np.linalg.cholesky(matrix[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


class LinalgCholeskyExBackward0(Node):
    """PyTorch's formula, in the saved factor ``L``: ``P = tril(L^H grad)`` with its
    strict lower part mirrored and halved, then ``L^{-H} P L^{-1}``."""

    __slots__ = ("upper",)

    def apply(self, grad):
        (factor,) = self.saved_values
        lower, grad = (_mT(factor), _mT(grad)) if self.upper else (factor, grad)
        p = _mT(lower).matmul(grad).tril()
        p = 0.5 * (p + _mT(p.tril(-1)))
        return (solve(lower, solve(_mT(lower), p), left=False),)


@op(LinalgCholeskyExBackward0, export=False, method=False)
def cholesky(input: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor ``L`` of a symmetric positive-definite matrix, ``A = L L^T``
    (or of each in a batch); only the lower triangle of ``input`` is read.

    Parameters
    ----------
    input : Tensor
        ``A``, ``(*, n, n)``, floating point, symmetric positive-definite (PyTorch's
        documentation calls it ``A``, its function takes ``input``).
    upper : bool
        Return the upper triangular ``U = L^T`` (``A = U^T U``) instead.

    Returns
    -------
    Tensor
        Lower (or upper) triangular, of the input's shape.

    Raises
    ------
    nbgrad.linalg.LinAlgError
        A matrix is not positive-definite (PyTorch's message names the first leading
        minor that is not, and the batch element).
    RuntimeError
        ``input`` is not a batch of square floating point matrices.
    """
    x = tensor_operand(input, "linalg_cholesky")
    data = _square("linalg.cholesky", x, half_kernel="cholesky_cpu")
    xp = array_module(data)
    try:
        lower = xp.linalg.cholesky(data)
    except np.linalg.LinAlgError:
        raise _singular(lambda where, order: (
            f"linalg.cholesky: {where}The factorization could not be completed because the input "
            f"is not positive-definite (the leading minor of order {order} is not "
            "positive-definite)."), data, _first_minor_not_positive) from None
    factor = xp.swapaxes(lower, -1, -2) if upper else lower
    out = Tensor._make(xp.ascontiguousarray(factor).astype(data.dtype, copy=False))
    if should_record(x):
        record(LinalgCholeskyExBackward0, out, (x,), saved=(OUTPUT,), upper=upper)
    return out
