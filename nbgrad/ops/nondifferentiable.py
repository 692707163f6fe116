"""Operations without a useful derivative (chapter 06).

* Comparisons, ``argmax``/``argmin`` and the logical operations return bool or integer
  tensors: they never join the graph, and their results cannot require grad.
* ``sign``, ``round``, ``floor``, ``ceil`` and ``trunc`` are piecewise constant. PyTorch
  gives them a gradient of zero everywhere (even at the jumps, where none exists), so
  backward through them runs but teaches the inputs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..autograd.graph import OUTPUT, record, should_record
from ..core.node import Node
from .. import dtypes
from ..backend import array_module
from ..tensor import Tensor
from .declare import op
from .methods import tensor_method
from .elementwise import check_dtype, common_dtype
from .dims import normalize_dims, numpy_spelling
from .operands import (broadcast_error, invalid_combination, operand, promoted, shape_of,
                       tensor_operand, zeros_like)

if TYPE_CHECKING:
    from ..types import Dims, TensorOrNumber


# -- comparisons and logic: results outside the graph -----------------------------------
def _compare(op, symbol, compute):
    def comparison(input: Tensor, other: TensorOrNumber) -> Tensor:
        if not isinstance(input, Tensor):  # PyTorch takes a number as ``other`` only
            raise invalid_combination(op, input, other)
        b = operand(other, op)
        x, y = promoted(input, b)
        try:
            return Tensor._make(compute(x, y))
        except ValueError:
            raise broadcast_error(shape_of(x), shape_of(y)) from None

    comparison.__name__ = op
    comparison.__doc__ = f"""``input {symbol} other``, element by element, broadcast.

    Parameters
    ----------
    input : Tensor
    other : Tensor or number
        A number only here: PyTorch takes none as ``input``.

    Returns
    -------
    Tensor
        bool, never part of the graph (NaN compares unequal to everything).
    """
    return comparison


eq = op(operator="eq", reflected=None)(_compare("eq", "==", np.equal))
ne = op(operator="ne", reflected=None, aliases=("not_equal",))(_compare("ne", "!=", np.not_equal))
lt = op(operator="lt", reflected=None, aliases=("less",))(_compare("lt", "<", np.less))
le = op(operator="le", reflected=None, aliases=("less_equal",))(_compare("le", "<=", np.less_equal))
gt = op(operator="gt", reflected=None, aliases=("greater",))(_compare("gt", ">", np.greater))
ge = op(operator="ge", reflected=None, aliases=("greater_equal",))(_compare("ge", ">=", np.greater_equal))


def _logical(op, compute):
    def logical(input: TensorOrNumber, other: TensorOrNumber) -> Tensor:
        a = operand(input, op, 1, "input")
        b = operand(other, op)
        x, y = promoted(a, b)
        check_dtype(op, common_dtype(x, y))
        try:
            return Tensor._make(compute(x, y))
        except ValueError:
            raise broadcast_error(shape_of(x), shape_of(y)) from None

    logical.__name__ = op
    logical.__doc__ = f"""Elementwise ``{op}`` of integer or bool tensors, broadcast.

    Parameters
    ----------
    input, other : Tensor or number

    Returns
    -------
    Tensor
    """
    return logical


bitwise_and = op(export=False, method=False, operator="and", reflected="same")(
    _logical("bitwise_and", np.bitwise_and))
bitwise_or = op(export=False, method=False, operator="or", reflected="same")(
    _logical("bitwise_or", np.bitwise_or))
bitwise_xor = op(export=False, method=False, operator="xor", reflected="same")(
    _logical("bitwise_xor", np.bitwise_xor))


@op(export=False, method=False)
def bitwise_not(input: Tensor) -> Tensor:
    """The bitwise (for bool, logical) negation of each element."""
    x = tensor_operand(input, "bitwise_not")
    check_dtype("bitwise_not", x._data.dtype)
    return Tensor._make(np.invert(x._data))


@tensor_method("__invert__")
def invert(self: Tensor) -> Tensor:
    """``~self``: ``bitwise_not``, whose operator PyTorch refuses for floats with a TypeError."""
    if self._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(self)


@op()
def logical_not(input: Tensor) -> Tensor:
    """``not`` of each element, as a bool tensor.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        bool, with no ``grad_fn``.
    """
    return Tensor._make(np.logical_not(tensor_operand(input, "logical_not")._data))


@op()
def isnan(input: Tensor) -> Tensor:
    """Where the elements are NaN, as a bool tensor.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        bool, with no ``grad_fn``.
    """
    return Tensor._make(np.isnan(tensor_operand(input, "isnan")._data))


@op()
def isfinite(input: Tensor) -> Tensor:
    """Where the elements are neither infinite nor NaN, as a bool tensor.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        bool, with no ``grad_fn``.
    """
    return Tensor._make(np.isfinite(tensor_operand(input, "isfinite")._data))


@op()
def isinf(input: Tensor) -> Tensor:
    """Where the elements are +inf or -inf, as a bool tensor.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        bool, with no ``grad_fn``.
    """
    return Tensor._make(np.isinf(tensor_operand(input, "isinf")._data))


@op()
def any(input: Tensor, dim: Dims | None = None, keepdim: bool = False, *,
        axis: Dims | None = None, keepdims: bool | None = None) -> Tensor:
    """Whether any element, or any along ``dim``, is nonzero.

    Parameters
    ----------
    input : Tensor
    dim : int or tuple of int, optional
        The dimensions reduced; all of them when omitted.
    keepdim : bool
        Keep the reduced dimensions with size 1.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        bool, with no ``grad_fn``.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("any", dim, axis, keepdim, keepdims)
    x = tensor_operand(input, "any")
    return Tensor._make(x._data.any(axis=_logical_axis(dim, x._data.ndim), keepdims=keepdim))


def _logical_axis(dim, ndim):
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        return normalize_dims(dim, ndim)
    return dtypes.dim_index(dim, ndim) if ndim else None


@op()
def all(input: Tensor, dim: Dims | None = None, keepdim: bool = False, *,
        axis: Dims | None = None, keepdims: bool | None = None) -> Tensor:
    """Whether every element, or every one along ``dim``, is nonzero.

    Parameters
    ----------
    input : Tensor
    dim : int or tuple of int, optional
        The dimensions reduced; all of them when omitted.
    keepdim : bool
        Keep the reduced dimensions with size 1.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        bool, with no ``grad_fn``.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("all", dim, axis, keepdim, keepdims)
    x = tensor_operand(input, "all")
    return Tensor._make(x._data.all(axis=_logical_axis(dim, x._data.ndim), keepdims=keepdim))


@op()
def equal(input: Tensor, other: Tensor) -> bool:
    """Whether both tensors have the same shape and the same values.

    Parameters
    ----------
    input, other : Tensor

    Returns
    -------
    bool
        A Python bool (``False`` where either holds a NaN).
    """
    a, b = tensor_operand(input, "equal"), tensor_operand(other, "equal", 2, "other")
    return a._data.shape == b._data.shape and bool((a._data == b._data).all())


@op()
def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether ``|input - other| <= atol + rtol * |other|`` holds everywhere, broadcast.

    Parameters
    ----------
    input, other : Tensor
    rtol, atol : float
        The relative and the absolute tolerance.
    equal_nan : bool
        Count two NaNs in the same place as close.

    Returns
    -------
    bool
        A Python bool.
    """
    a, b = tensor_operand(input, "allclose"), tensor_operand(other, "allclose", 2, "other")
    return bool(array_module(a._data).allclose(a._data, b._data, rtol=rtol, atol=atol,
                                               equal_nan=equal_nan))


@op()
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Where ``|input - other| <= atol + rtol * |other|`` holds, broadcast.

    Parameters
    ----------
    input, other : Tensor
    rtol, atol : float
        The relative and the absolute tolerance.
    equal_nan : bool
        Count two NaNs in the same place as close.

    Returns
    -------
    Tensor
        bool, with no ``grad_fn``.
    """
    a, b = tensor_operand(input, "isclose"), tensor_operand(other, "isclose", 2, "other")
    return Tensor._make(array_module(a._data).isclose(a._data, b._data, rtol=rtol, atol=atol,
                                                      equal_nan=equal_nan))


@op(method=False)
def isin(elements: TensorOrNumber, test_elements: TensorOrNumber, *,
         assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each of ``elements`` is among ``test_elements``, as a bool tensor.

    Parameters
    ----------
    elements : Tensor or number
    test_elements : Tensor or number
        At least one of the two is a tensor; their dtypes are compared after promotion.
    assume_unique : bool
        Accepted for PyTorch's signature (a speed hint there).
    invert : bool
        Whether each element is *not* among them.

    Returns
    -------
    Tensor
        bool, of the shape of ``elements``, with no ``grad_fn``.
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__}), but expected "
                        "one of:\n * (Tensor elements, Tensor test_elements, *, bool assume_unique = "
                        "False, bool invert = False)")
    a = operand(elements, "isin", 1, "elements")
    b = operand(test_elements, "isin", 2, "test_elements")
    x, y = promoted(a, b)
    xp = array_module(x if hasattr(x, "dtype") else y)
    found = xp.isin(xp.asarray(x), xp.asarray(y).reshape(-1), assume_unique=assume_unique,
                    invert=invert)
    return Tensor._make(xp.asarray(found))


# -- arg-extremes: integer results ------------------------------------------------------
def _arg(op, input, dim, keepdim):
    x = tensor_operand(input, op)
    data = x._data
    check_dtype(op, data.dtype)
    if data.size == 0:
        raise IndexError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0."
        )
    xp = array_module(data)
    find = xp.argmax if op == "argmax" else xp.argmin
    if dim is None:
        index = xp.asarray(find(data.reshape(-1)))
        if keepdim:
            index = index.reshape((1,) * data.ndim)
    else:
        axis = dtypes.dim_index(dim, data.ndim)
        index = find(data, axis=axis, keepdims=keepdim) if data.ndim else xp.asarray(0)
    return Tensor._make(xp.asarray(index).astype(np.int64))


@op()
def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False, *,
           axis: int | None = None, keepdims: bool | None = None) -> Tensor:
    """The index of the largest value, of all (in the flattened tensor) or along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        The dimension searched; without it, the index is into ``input.flatten()``.
    keepdim : bool
        Keep the searched dimension (all of them, without ``dim``) with size 1.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        int64, with no ``grad_fn``; the first index where the largest value is repeated.

    Raises
    ------
    IndexError
        For an empty ``input`` without ``dim``.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("argmax", dim, axis, keepdim, keepdims)
    return _arg("argmax", input, dim, keepdim)


@op()
def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False, *,
           axis: int | None = None, keepdims: bool | None = None) -> Tensor:
    """The index of the smallest value, of all (in the flattened tensor) or along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        The dimension searched; without it, the index is into ``input.flatten()``.
    keepdim : bool
        Keep the searched dimension (all of them, without ``dim``) with size 1.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor
        int64, with no ``grad_fn``; the first index where the smallest value is repeated.

    Raises
    ------
    IndexError
        For an empty ``input`` without ``dim``.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("argmin", dim, axis, keepdim, keepdims)
    return _arg("argmin", input, dim, keepdim)


# -- where the nonzero elements are: integer results ------------------------------------
@op()
def nonzero(input: Tensor, *, as_tuple: bool = False) -> Tensor | tuple[Tensor, ...]:
    """The indices of the elements that are not zero (NaN counts as nonzero), in row-major
    order.

    Parameters
    ----------
    input : Tensor
    as_tuple : bool
        Return one 1-d index tensor per dimension (a 0-d input counts as 1-d), which index
        ``input`` directly, instead of one ``(count, ndim)`` tensor.

    Returns
    -------
    Tensor or tuple of Tensors
        int64, with no ``grad_fn``.
    """
    x = tensor_operand(input, "nonzero")
    data = x._data
    xp = array_module(data)
    if as_tuple:
        return tuple(Tensor._make(i.astype(np.int64, copy=False))
                     for i in xp.nonzero(data.reshape(1) if data.ndim == 0 else data))
    if data.ndim == 0:
        return Tensor._make(xp.zeros((1 if bool(data) else 0, 0), np.int64))
    return Tensor._make(xp.argwhere(data).astype(np.int64, copy=False))


@op()
def argwhere(input: Tensor) -> Tensor:
    """``nonzero(input)``: the indices of the nonzero elements, one row each.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        int64 of shape ``(count, input.ndim)``.
    """
    return nonzero(tensor_operand(input, "argwhere"))


# -- piecewise constant: zero gradient --------------------------------------------------
class ZeroGradient(Node):
    """The derivative of a step function: zero wherever it exists (and taken as zero at
    the steps, where it does not)."""

    __slots__ = ()

    def apply(self, grad):
        return (zeros_like(grad),)


def _step(op, node_cls, compute, input, kernel=None, integers=None, saves_both=False):
    """``compute`` on a float tensor, recorded with a zero-gradient node. An integer or bool
    tensor, if the op's ``kernel`` (default: ``op``) takes its dtype (``REFUSED_DTYPES``),
    gives ``integers`` of it, by default a copy: rounding an integer changes nothing.
    ``saves_both``: the node saves the input and the result, as PyTorch's does."""
    x = tensor_operand(input, op)
    data = x._data
    if data.dtype.kind == "f":
        out = Tensor._make(compute(data))
    else:
        check_dtype(kernel or op, data.dtype)
        out = Tensor._make(integers(data) if integers else data.copy())
    if should_record(x):
        record(node_cls, out, (x,), saved=(x, OUTPUT) if saves_both else ())
    return out


def _signs(data):
    """-1, 0 or 1 of each element: 0 for NaN and a bool tensor itself, as in PyTorch."""
    if data.dtype.kind == "b":
        return data.copy()
    xp = array_module(data)
    signs = xp.sign(data)
    return xp.where(signs != signs, 0, signs) if data.dtype.kind == "f" else signs  # NaN: 0


class SignBackward0(ZeroGradient):
    __slots__ = ()


@op(SignBackward0, inplace=True)
def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 for each element (0 for NaN; a bool tensor stays itself).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Of ``input``'s dtype; its gradient is zero.
    """
    return _step("sign", SignBackward0, _signs, input, integers=_signs)


class SgnBackward0(ZeroGradient):
    """Saves the input and the result, as PyTorch's (whose formula for complex numbers
    needs them)."""

    __slots__ = ()

    def apply(self, grad):
        _ = self.saved_values  # unpacked as PyTorch does: refused once they changed in place
        return super().apply(grad)


@op(SgnBackward0, inplace=True)
def sgn(input: Tensor) -> Tensor:
    """``sign`` (for complex numbers, which nbgrad lacks, PyTorch's ``sgn`` differs).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Of ``input``'s dtype; its gradient is zero.
    """
    return _step("sgn", SgnBackward0, _signs, input, integers=_signs, saves_both=True)


class RoundBackward0(ZeroGradient):
    __slots__ = ()


class RoundBackward1(ZeroGradient):
    __slots__ = ()


@op(RoundBackward0, RoundBackward1, inplace=True)
def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Each element rounded half to even (to ``decimals`` places).

    Parameters
    ----------
    input : Tensor
    decimals : int
        The decimal places kept; negative ones round to tens, hundreds...

    Returns
    -------
    Tensor
        Of ``input``'s dtype (an integer tensor is copied as it is); its gradient is zero.
    """
    if decimals:
        return _step("round", RoundBackward1, lambda d: d.round(decimals), input,
                     kernel="round_decimals")
    return _step("round", RoundBackward0, lambda d: d.round(), input)


class FloorBackward0(ZeroGradient):
    __slots__ = ()


@op(FloorBackward0, inplace=True)
def floor(input: Tensor) -> Tensor:
    """Each element rounded down.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Of ``input``'s dtype (an integer tensor is copied as it is); its gradient is zero.
    """
    return _step("floor", FloorBackward0, np.floor, input)


class CeilBackward0(ZeroGradient):
    __slots__ = ()


@op(CeilBackward0, inplace=True)
def ceil(input: Tensor) -> Tensor:
    """Each element rounded up.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Of ``input``'s dtype (an integer tensor is copied as it is); its gradient is zero.
    """
    return _step("ceil", CeilBackward0, np.ceil, input)


class TruncBackward0(ZeroGradient):
    __slots__ = ()


@op(TruncBackward0, inplace=True)
def trunc(input: Tensor) -> Tensor:
    """Each element rounded towards zero.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Of ``input``'s dtype (an integer tensor is copied as it is); its gradient is zero.
    """
    return _step("trunc", TruncBackward0, np.trunc, input)
