"""``nbgrad.linalg``: the norms of PyTorch's ``torch.linalg``, the determinant (``det``,
``slogdet``), ``inv``, ``solve``, ``cholesky`` and ``cross``.

``vector_norm`` is the ``p``-norm of ``Tensor.norm``; ``matrix_norm`` takes the Frobenius
norm and the norms that are sums then extremes (``ord`` = 1, -1, inf, -inf), composed as
PyTorch composes them, so that the ``grad_fn`` and the gradients are PyTorch's. The
spectral and nuclear norms (``ord`` = 2, -2, 'nuc') need the SVD, which nbgrad lacks.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from . import dtypes
from . import missing as _missing
from .ops import linalg as _ops
from .ops.linalg import LinAlgError, cholesky, solve
from .ops.operands import tensor_operand
from .ops.out import with_out
from .ops.products import _linalg_cross
from .ops.reductions import norm as _norm
from .ops.reductions import return_types as _return_types
from .tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .dtypes import dtype
    from .types import Dims

__all__ = ["LinAlgError", "cholesky", "cross", "det", "inv", "matrix_norm", "norm", "slogdet",
           "solve", "vector_norm"]


def det(A: Tensor) -> Tensor:
    """The determinant of a square matrix, or of each in a batch: ``nbgrad.det``.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``, floating point.

    Returns
    -------
    Tensor
        ``(*)``; its ``grad_fn`` is ``LinalgDetBackward0``.
    """
    return _ops._det("linalg.det", tensor_operand(A, "linalg_det", name="A"))


def inv(A: Tensor) -> Tensor:
    """The inverse of a square matrix, or of each in a batch: ``nbgrad.inverse``.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``, floating point, invertible.

    Returns
    -------
    Tensor
        Its ``grad_fn`` is ``LinalgInvExBackward0``.

    Raises
    ------
    LinAlgError
        A matrix is singular.
    """
    return _ops._inverse(tensor_operand(A, "linalg_inv", name="A"))


def slogdet(A: Tensor) -> tuple[Tensor, Tensor]:
    """The sign and the log of the absolute value of the determinant: ``nbgrad.slogdet``.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``, floating point.

    Returns
    -------
    (Tensor, Tensor)
        The named tuple ``(sign, logabsdet)`` (``nbgrad.return_types.linalg_slogdet``).
    """
    return _ops._slogdet("linalg.slogdet", tensor_operand(A, "linalg_slogdet", name="A"),
                         _return_types.linalg_slogdet)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (the last by default), the other
    dimensions broadcast: ``nbgrad.cross`` with its future default.

    Parameters
    ----------
    input, other : Tensor
        Of one dtype and as many dimensions, ``dim`` of size 3 in both.
    dim : int

    Returns
    -------
    Tensor
        Its ``grad_fn`` is ``LinalgCrossBackward0``.
    """
    return _linalg_cross(tensor_operand(input, "linalg_cross"),
                         tensor_operand(other, "linalg_cross", 2, "other"), dim)


def vector_norm(x: Tensor, ord: float = 2, dim: Dims | None = None, keepdim: bool = False, *,
                dtype: dtype | None = None) -> Tensor:
    """The ``ord``-norm of ``x`` as a vector: over all elements, or over ``dim``.

    Parameters
    ----------
    x : Tensor
        Floating point.
    ord : float
        Any real order, ``inf`` (largest magnitude) and ``-inf`` (smallest); 0 counts the
        nonzero elements.
    dim : int or tuple of ints, optional
    keepdim : bool
    dtype : nbgrad.dtype, optional
        A dtype to compute in, one ``x`` widens to.

    Returns
    -------
    Tensor
        Its ``grad_fn`` is ``LinalgVectorNormBackward0``.

    Raises
    ------
    TypeError
        ``ord`` is not a number.
    """
    if isinstance(ord, (str, bool)) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    return _norm(x, ord, dim, keepdim, dtype)


def matrix_norm(A: Tensor, ord: float | str = "fro", dim: Sequence[int] = (-2, -1),
                keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    """A matrix norm of ``A`` (or of each matrix in a batch), over the two dims ``dim``.

    Parameters
    ----------
    A : Tensor
        At least 2-D, floating point.
    ord : {'fro', 1, -1, inf, -inf}
        'fro': the square root of the sum of squares; 1 / -1: the largest / smallest column
        sum of magnitudes; inf / -inf: the largest / smallest row sum.
    dim : tuple of two ints
        The dimensions of the matrices (the last two by default).
    keepdim : bool
    dtype : nbgrad.dtype, optional
        A dtype to compute in, one ``A`` widens to.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        ``A`` has fewer than 2 dimensions, ``dim`` is not two different dimensions, or
        ``ord`` is not a matrix order.
    NotImplementedError
        ``ord`` is 2, -2 or 'nuc' (they need the SVD).
    """
    x = tensor_operand(A, "linalg.matrix_norm", name="A")
    ndim = x._data.ndim
    if ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " + str(dim))
    dim0, dim1 = (dtypes.dim_index(d, ndim) for d in dim)
    if dim0 == dim1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return _norm(x, 2, (dim0, dim1), keepdim, dtype)
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(f"nbgrad does not implement torch.linalg.matrix_norm with ord={ord!r} "
                                  "(yet): it needs the singular values; use ord='fro', 1 or inf")
    if isinstance(ord, str) or ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if math.isinf(ord):  # the row sums: the column sums of the transpose
        dim0, dim1 = dim1, dim0
    if not keepdim and dim0 < dim1:
        dim1 -= 1
    sums = _norm(x, 1, dim0, keepdim, dtype)
    return sums.amax(dim1, keepdim) if ord > 0 else sums.amin(dim1, keepdim)


def norm(A: Tensor, ord: float | str | None = None, dim: Dims | None = None,
         keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    """A vector or a matrix norm, as ``dim`` and ``ord`` say (PyTorch's ``linalg.norm``).

    Parameters
    ----------
    A : Tensor
    ord : float or str, optional
        With no ``dim``: for a 1-D ``A``, a vector order; for a 2-D one, a matrix order
        (see ``matrix_norm``); without ``ord`` either, the 2-norm of all elements.
    dim : int or tuple of one or two ints, optional
        One dim: a vector norm along it; two: a matrix norm over them.
    keepdim : bool
    dtype : nbgrad.dtype, optional
        A dtype to compute in, one ``A`` widens to.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        ``ord`` without ``dim`` for an ``A`` of more than 2 dimensions (and the errors of
        ``vector_norm`` and ``matrix_norm``).
    """
    x = tensor_operand(A, "linalg.norm", name="A")
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            # a str ord gets vector_norm's TypeError, as in PyTorch
            return vector_norm(x, 2 if ord is None else ord,  # type: ignore[arg-type]
                               dims, keepdim, dtype=dtype)
        return matrix_norm(x, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(x, 2, None, keepdim, dtype=dtype)
    ndim = x._data.ndim
    if ndim == 1 and not isinstance(ord, str):
        return vector_norm(x, ord, None, keepdim, dtype=dtype)
    if ndim == 1:  # a matrix order ('fro', 'nuc') of a vector
        return matrix_norm(x, ord, (-2, -1), keepdim, dtype=dtype)
    if ndim == 2:
        return matrix_norm(x, ord, (-2, -1), keepdim, dtype=dtype)
    raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                       f"Got {ndim}D.")


# out=, as torch.linalg's functions take it (ops/out.py)
globals().update({name: with_out(globals()[name], f"linalg.{name}") for name in __all__})

# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
