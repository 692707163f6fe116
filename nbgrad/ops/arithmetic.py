"""Arithmetic: + - * /, // and remainders, powers, each operation one block (its node,
then its function).

The node, named as PyTorch names it, turns the gradient of the output into gradients of
the inputs; its formula is written with tensor operations, so that ``create_graph=True``
can differentiate it again. The function computes the result with the array module and
records the node when the graph is being built; ``@op`` declares its names (``declare.py``).

Binary operations broadcast; their backward sums the gradient back to each input's shape
and casts it to the input's dtype (``to_input``, ``elementwise.py``). Integer and bool
operands follow PyTorch: an integer division by zero raises, and the dtypes an op has no
kernel for are refused (``REFUSED_DTYPES``, ``elementwise.py``).
"""

from __future__ import annotations

import numbers
import operator
from typing import TYPE_CHECKING

import numpy as np

from ..autograd.graph import OUTPUT, record, should_record
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .elementwise import (NOTHING_TO_DO, NotImplementedBackward, array_of, binary, check_dtype,
                          check_nonzero_divisor, common_dtype, common_module, meta, metas,
                          needs_grad, same_dtype, to_input, to_input_array, unary)
from .operands import floating, invalid_combination, zeros_like

if TYPE_CHECKING:
    from ..types import Number, TensorOrNumber


# -- + - * / ----------------------------------------------------------------------------
class AddBackward0(Node):
    __slots__ = ("alpha", "metas")
    alpha: Number
    metas: tuple

    def apply(self, grad):
        a_meta, b_meta = self.metas
        a_fn, b_fn = self._next_nodes
        grad_a = None if a_fn is None else grad if a_meta is None else to_input(grad, a_meta)
        grad_b = None
        if b_fn is not None:
            grad_b = to_input(grad if self.alpha == 1 else grad * self.alpha, b_meta)
        return grad_a, grad_b

    def fast_apply(self, grad):
        # only an operand broadcast (a bias) has arithmetic to do: the rest is the formula
        metas, g = self.metas, grad._data
        if metas is NOTHING_TO_DO or self.alpha != 1 or not same_dtype(metas, g.dtype):
            return self.apply(grad)
        return self._pass(grad, g, g)

    def _pass(self, grad, g, g_b):
        """The gradients ``g`` for ``input`` and ``g_b`` for ``other``, arrays, summed back
        to their shapes (the incoming ``grad`` itself where nothing is to be done)."""
        a_meta, b_meta = self.metas
        a_fn, b_fn = self._next_nodes
        return (None if a_fn is None else grad if a_meta is None else to_input_array(g, a_meta),
                None if b_fn is None else to_input_array(g_b, b_meta))


@op(AddBackward0, operator="add", reflected="same", inplace=True)
def add(input: TensorOrNumber, other: TensorOrNumber, *, alpha: Number = 1) -> Tensor:
    """``input + alpha * other``, broadcast; a number on either side.

    Parameters
    ----------
    input, other : Tensor or number
    alpha : number
        The factor of ``other``. It must be an integer for integer operands, and a bool
        only for bool ones (whose sum is a logical or), as in PyTorch.

    Returns
    -------
    Tensor
        Of the promoted dtype of the operands.
    """
    compute = operator.add if alpha == 1 and type(alpha) is int else _scaled("add", operator.add, alpha)
    a, b, out, recording = binary("add", input, other, compute)
    if recording:
        node = record(AddBackward0, out, (a, b))
        node.alpha, node.metas = alpha, metas(a, b, out)
    return out


def _scaled(op, combine, alpha):
    """``compute(x, y)``: ``combine(x, alpha * y)``, once ``alpha`` passed PyTorch's checks
    against the dtype the operation computes in."""
    if isinstance(alpha, np.generic):
        alpha = alpha.item()
    if not _is_number(alpha):
        raise TypeError(f"{op}(): argument 'alpha' must be Number, not {type(alpha).__name__}")

    def compute(x, y):  # PyTorch's alpha_check, in its order
        kind = common_dtype(x, y).kind
        if isinstance(alpha, bool) and kind != "b":
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
        if kind in "biu" and not isinstance(alpha, int):
            raise RuntimeError(
                "For integral input tensors, argument alpha must not be a floating point number."
            )
        if isinstance(alpha, complex):
            raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
        # bools are added in bool, as a logical or, with alpha as a bool
        return combine(x, (bool(alpha) if kind == "b" else alpha) * y)

    return compute


def _is_number(value):
    return isinstance(value, numbers.Number)


class SubBackward0(AddBackward0):
    __slots__ = ()

    def apply(self, grad):
        grad_a, grad_b = super().apply(grad)
        return grad_a, (None if grad_b is None else -grad_b)

    def fast_apply(self, grad):
        g = grad._data
        if self.alpha != 1 or not same_dtype(self.metas, g.dtype):
            return self.apply(grad)
        return self._pass(grad, g, -g if self._next_nodes[1] is not None else None)


class RsubBackward1(Node):
    __slots__ = ("alpha", "meta")

    def apply(self, grad):
        return (to_input(-grad if self.alpha == 1 else grad * -self.alpha, self.meta),)


def _is_bool(value):
    return isinstance(value, bool) or (isinstance(value, Tensor) and value._data.dtype.kind == "b")


@op(SubBackward0, RsubBackward1, aliases=("subtract",), operator="sub", inplace=True)
def sub(input: TensorOrNumber, other: TensorOrNumber, *, alpha: Number = 1) -> Tensor:
    """``input - alpha * other``, broadcast; a number on either side.

    Parameters
    ----------
    input, other : Tensor or number
    alpha : number
        The factor of ``other``; an integer for integer operands.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        If an operand is a bool tensor or a bool (PyTorch suggests ``^`` or ``~`` instead).
    """
    compute = operator.sub if alpha == 1 and type(alpha) is int else _scaled("sub", operator.sub, alpha)
    if _is_bool(input) or _is_bool(other):
        if _is_bool(input) and _is_bool(other):
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                "the `^` or `logical_xor()` operator instead."
            )
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    a, b, out, recording = binary("sub", input, other, compute)
    if recording and isinstance(a, Tensor):
        record(SubBackward0, out, (a, b), alpha=alpha, metas=metas(a, b, out))
    elif recording:  # number - tensor
        record(RsubBackward1, out, (b,), alpha=alpha, meta=meta(b, out))
    return out


@op(method=False)
def rsub(input: Tensor, other: TensorOrNumber, *, alpha: Number = 1) -> Tensor:
    """``other - alpha * input``: ``sub`` with its operands swapped.

    Parameters
    ----------
    input : Tensor
        A tensor (PyTorch takes no number there).
    other : Tensor or number
    alpha : number
        The factor of ``input``; an integer for integer operands.

    Returns
    -------
    Tensor
    """
    if not isinstance(input, Tensor) or not _is_number(alpha):
        raise invalid_combination("rsub", input, other, **({} if alpha == 1 else {"alpha": alpha}))
    return sub(other, input, alpha=alpha)


class MulBackward0(Node):
    __slots__ = ("metas",)
    metas: tuple

    def apply(self, grad):
        a, b = self.saved_values
        a_meta, b_meta = self.metas
        a_fn, b_fn = self._next_nodes
        grad_a = to_input(grad * b, a_meta) if a_fn is not None else None
        grad_b = to_input(grad * a, b_meta) if b_fn is not None else None
        return grad_a, grad_b

    def fast_apply(self, grad):
        g = grad._data
        if not same_dtype(self.metas, g.dtype):
            return self.apply(grad)
        a, b = self.saved_values
        a_meta, b_meta = self.metas
        a_fn, b_fn = self._next_nodes
        try:
            return (to_input_array(g * array_of(b), a_meta) if a_fn is not None else None,
                    to_input_array(g * array_of(a), b_meta) if b_fn is not None else None)
        except ValueError:  # shapes that do not broadcast (node.py: fast_apply)
            return self.apply(grad)


@op(MulBackward0, aliases=("multiply",), operator="mul", reflected="same", inplace=True)
def mul(input: TensorOrNumber, other: TensorOrNumber) -> Tensor:
    """``input * other``, element by element, broadcast.

    Parameters
    ----------
    input, other : Tensor or number

    Returns
    -------
    Tensor
    """
    a, b, out, recording = binary("mul", input, other, operator.mul)
    if recording:
        # Like PyTorch, save only what the needed gradients use.
        node = record(MulBackward0, out, (a, b),
                      saved=(a if needs_grad(b) else None, b if needs_grad(a) else None))
        node.metas = metas(a, b, out)
    return out


class DivBackward0(Node):
    __slots__ = ("metas",)
    metas: tuple

    def apply(self, grad):
        a, b = self.saved_values
        a_meta, b_meta = self.metas
        a_fn, b_fn = self._next_nodes
        grad_a = to_input(grad / b, a_meta) if a_fn is not None else None
        grad_b = to_input(-grad * a / (b * b), b_meta) if b_fn is not None else None
        return grad_a, grad_b

    def fast_apply(self, grad):
        g = grad._data
        if not same_dtype(self.metas, g.dtype):
            return self.apply(grad)
        a, b = self.saved_values
        a, b = array_of(a), array_of(b)
        a_meta, b_meta = self.metas
        a_fn, b_fn = self._next_nodes
        try:
            return (to_input_array(g / b, a_meta) if a_fn is not None else None,
                    to_input_array(-g * a / (b * b), b_meta) if b_fn is not None else None)
        except ValueError:  # shapes that do not broadcast (node.py: fast_apply)
            return self.apply(grad)


class DivBackward2(Node):
    """Rounded division: piecewise constant, so its gradient is zero."""

    __slots__ = ("metas",)

    def apply(self, grad):
        _ = self.saved_values  # unpacked as PyTorch does: refused once an input changed in place
        return tuple(None if fn is None else zeros_like(to_input(grad, meta))
                     for fn, meta in zip(self._next_nodes, self.metas))


def _is_floating(value):
    return isinstance(value, float) or getattr(value, "dtype", None) is not None and value.dtype.kind == "f"


def _true_divide(x, y):
    """``x / y``; integers divide into the default float dtype, as in PyTorch."""
    if not _is_floating(x) and not _is_floating(y):
        x = floating(x) if hasattr(x, "dtype") else x
        y = floating(y) if hasattr(y, "dtype") else y
    if not hasattr(y, "dtype") and y != 0:
        return x / y  # a nonzero number: nothing to silence (the common case, e.g. a mean)
    with np.errstate(divide="ignore", invalid="ignore"):  # x / 0 is inf, silently
        return x / y


@op(DivBackward0, DivBackward2, aliases=("divide", "true_divide"), operator="truediv", inplace=True)
def div(input: TensorOrNumber, other: TensorOrNumber, *,
        rounding_mode: str | None = None) -> Tensor:
    """``input / other``, broadcast; integers divide into floats.

    Parameters
    ----------
    input, other : Tensor or number
    rounding_mode : {None, "trunc", "floor"}
        ``"trunc"`` rounds the quotient towards zero, ``"floor"`` down; then integers stay
        integers (dividing one by zero raises) and the gradient is zero.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        For another ``rounding_mode``; with one, for an integer division by zero.
    """
    if rounding_mode is not None:
        return _rounding_div(input, other, rounding_mode)
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        return mul(reciprocal(other), input)  # number / tensor, recorded as PyTorch does
    a, b, out, recording = binary("div", input, other, _true_divide)
    if recording:
        node = record(DivBackward0, out, (a, b), saved=(a if needs_grad(b) else None, b))
        node.metas = metas(a, b, out)
    return out


def _rounding_div(input, other, rounding_mode):
    rounded = _ROUNDED_DIVISIONS.get(rounding_mode)
    if rounded is None:
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    a, b, out, recording = binary("div", input, other, rounded)
    if recording:  # it saves what PyTorch saves (its formula is shared with true division)
        saved = (b,) if isinstance(a, Tensor) and not isinstance(b, Tensor) else (a, b)
        record(DivBackward2, out, (a, b), saved=saved, metas=metas(a, b, out))
    return out


def _integer_division(op, x, y):
    """Check a division of promoted operands: its dtype has a kernel, an integer one has
    no zero divisor. Returns whether it is an integer division."""
    dtype = common_dtype(x, y)
    if dtype.kind == "f":
        return False
    check_dtype(op, dtype)
    check_nonzero_divisor(y)
    return True


def _floor_quotient(x, y):
    """``x / y`` rounded down, as PyTorch's ``div_floor``: for floats the quotient of
    ``x - fmod(x, y)`` by ``y``, so ``1. // 0.1`` is 9 (0.1 is slightly more than a tenth)."""
    if _integer_division("div_floor", x, y):
        return np.floor_divide(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):  # x // 0. is ±inf or nan
        return np.floor_divide(x, y)


def _trunc_quotient(x, y):
    """``x / y`` rounded towards zero, as PyTorch's ``div_trunc``."""
    if _integer_division("div_trunc", x, y):
        floor = np.floor_divide(x, y)
        return floor + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.trunc(np.true_divide(x, y))


_ROUNDED_DIVISIONS = {"floor": _floor_quotient, "trunc": _trunc_quotient}


@op(operator="floordiv", inplace=True)  # its node, NotImplemented, is shared
def floor_divide(input: TensorOrNumber, other: TensorOrNumber) -> Tensor:
    """``input // other``: the quotient rounded down (``div(..., rounding_mode="floor")``).

    PyTorch gives it no derivative: the result requires grad, but backward through it
    raises (``div(..., rounding_mode="floor")`` has a zero gradient instead).

    Parameters
    ----------
    input, other : Tensor or number

    Returns
    -------
    Tensor
        Integers stay integers (dividing one by zero raises a RuntimeError).
    """
    a, b, out, recording = binary("floor_divide", input, other, _floor_quotient)
    if recording:
        record(NotImplementedBackward, out, (a, b), op="floor_divide")
    return out


class RemainderBackward0(Node):
    """tensor % number: the remainder moves with the tensor."""

    __slots__ = ()

    def apply(self, grad):
        return (grad,)


class RemainderBackward1(Node):
    """tensor % tensor: ``x - y * floor(x / y)``, so ``d/dy = -floor(x / y)``."""

    __slots__ = ("metas",)
    rounding_mode = "floor"  # how the quotient the remainder leaves is rounded

    def apply(self, grad):
        x, y = self.saved_values
        x_fn, y_fn = self._next_nodes
        return (None if x_fn is None else to_input(grad, self.metas[0]),
                None if y_fn is None else to_input(
                    -grad * x.div(y, rounding_mode=self.rounding_mode), self.metas[1]))


def _remainder(x, y):
    """PyTorch's (and Python's) remainder: it takes the sign of the divisor."""
    if _integer_division("remainder", x, y):
        return np.remainder(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        mod = np.fmod(x, y)
        # fmod has the sign of x: where that is not y's, move by one y
        return common_module(x, y).where((mod != 0) & ((y < 0) != (mod < 0)), mod + y, mod)


@op(RemainderBackward0, RemainderBackward1, operator="mod", inplace=True)
def remainder(input: TensorOrNumber, other: TensorOrNumber) -> Tensor:
    """``input % other``: the remainder of the floor division; it has the sign of ``other``.

    Parameters
    ----------
    input, other : Tensor or number
        With a number as ``input``, the result has no derivative (as in PyTorch).

    Returns
    -------
    Tensor
    """
    a, b, out, recording = binary("remainder", input, other, _remainder)
    if not recording:
        return out
    if not isinstance(a, Tensor):  # number % tensor: PyTorch gives it no derivative
        record(NotImplementedBackward, out, (b,), op="remainder")
    elif isinstance(b, Tensor):
        record(RemainderBackward1, out, (a, b), saved=(a, b), metas=metas(a, b, out))
    else:
        record(RemainderBackward0, out, (a,))
    return out


class FmodBackward0(RemainderBackward0):
    """fmod(tensor, number): the remainder moves with the tensor."""

    __slots__ = ()


class FmodBackward1(RemainderBackward1):
    """fmod(tensor, tensor): ``x - y * trunc(x / y)``, so ``d/dy = -trunc(x / y)``."""

    __slots__ = ()
    rounding_mode = "trunc"


def _fmod(x, y):
    if _integer_division("fmod", x, y):
        return np.fmod(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.fmod(x, y)


@op(FmodBackward0, FmodBackward1, inplace=True)
def fmod(input: Tensor, other: TensorOrNumber) -> Tensor:
    """The remainder of the division rounded towards zero (C's ``fmod``): it has the sign
    of ``input``.

    Parameters
    ----------
    input : Tensor
        A tensor (PyTorch takes no number there).
    other : Tensor or number

    Returns
    -------
    Tensor
    """
    if not isinstance(input, Tensor):
        raise invalid_combination("fmod", input, other)
    a, b, out, recording = binary("fmod", input, other, _fmod)
    if recording and isinstance(b, Tensor):
        record(FmodBackward1, out, (a, b), saved=(a, b), metas=metas(a, b, out))
    elif recording:
        record(FmodBackward0, out, (a,))
    return out


class ReciprocalBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (-grad * result * result,)


@op(ReciprocalBackward0, inplace=True)
def reciprocal(input: Tensor) -> Tensor:
    """``1 / input``, element by element (``inf`` at 0).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Floating point: an integer input gives the default float dtype.
    """
    return unary("reciprocal", ReciprocalBackward0, input, _one_over, saves=OUTPUT, quiet=True)


def _one_over(data):
    return 1 / data


class NegBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (-grad,)

    def fast_apply(self, grad):
        return (Tensor._make(-grad._data),)


@op(NegBackward0, aliases=("negative",), operator="neg", inplace=True)
def neg(input: Tensor) -> Tensor:
    """``-input``.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("neg", NegBackward0, input, operator.neg, saves=None, integers=True)


# -- powers -----------------------------------------------------------------------------
class PowBackward0(Node):
    """tensor ** number"""

    __slots__ = ("exponent",)

    def apply(self, grad):
        (x,) = self.saved_values
        p = self.exponent
        if p == 0:
            return (zeros_like(grad),)
        return (grad * p * x ** (p - 1),)


class PowBackward1(Node):
    """tensor ** tensor"""

    __slots__ = ("metas",)

    def apply(self, grad):
        x, p, result = self.saved_values
        x_fn, p_fn = self._next_nodes
        grad_x = grad_p = None
        if x_fn is not None:
            # d/dx x**p = p * x**(p-1), and 0 where p == 0 (PyTorch's convention at x == 0)
            local = (p * x ** (p - 1)).masked_fill(p == 0, 0.0)
            grad_x = to_input(grad * local, self.metas[0])
        if p_fn is not None:
            local = (result * x.log()).masked_fill((x == 0) & (p >= 0), 0.0)
            grad_p = to_input(grad * local, self.metas[1])
        return grad_x, grad_p


class PowBackward2(Node):
    """number ** tensor"""

    __slots__ = ("base", "meta")

    def apply(self, grad):
        (result,) = self.saved_values
        if self.base == 0:  # d/dx 0**x is 0 for x >= 0 (where 0**x <= 1), -inf below
            local = (result * float("-inf")).masked_fill(result <= 1, 0.0)
            return (to_input(grad * local, self.meta),)
        return (to_input(grad * result * float(np.log(self.base)), self.meta),)


def _power(x, p):
    """``x ** p`` of promoted operands, with PyTorch's rules for integers and bools."""
    dtype = common_dtype(x, p)
    if dtype.kind == "f":
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return x ** p
    if not hasattr(p, "dtype"):  # tensor ** number: PyTorch settles p == 0 and p == 1 first
        if p == 0:
            return common_module(x, p).ones_like(x, dtype=dtype)
        if p == 1:
            return x.astype(dtype)
    check_dtype("pow", dtype)
    if not hasattr(p, "dtype"):
        if p < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return np.power(x, p)
    return _integer_power(x, p, dtype)


def _integer_power(x, p, dtype):
    """``x ** p`` for integers with an integer tensor of exponents: below zero, the
    exponent gives 1 ** p = 1, (-1) ** p = ±1 and 0 for every other base, as in PyTorch."""
    negative = p < 0
    if not negative.any():
        return np.power(x, p).astype(dtype, copy=False)
    result = np.power(x, np.abs(p))
    return common_module(x, p).where(negative & (np.abs(x) != 1), 0, result).astype(dtype, copy=False)


@op(PowBackward0, PowBackward1, PowBackward2, operator="pow", inplace=True)
def pow(input: TensorOrNumber, exponent: TensorOrNumber) -> Tensor:
    """``input ** exponent``: tensor ** number, tensor ** tensor or number ** tensor.

    Parameters
    ----------
    input, exponent : Tensor or number

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        For integers to a negative integer power given as a number (with a tensor of
        exponents, such elements are 1 for a base of 1, ±1 for -1 and 0 otherwise, as in
        PyTorch).
    """
    a, b, out, _ = binary("pow", input, exponent, _power)
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        if should_record(a):
            record(PowBackward0, out, (a,), saved=(a,), exponent=b)
    elif isinstance(a, Tensor):
        if should_record(a, b):
            record(PowBackward1, out, (a, b), saved=(a, b, OUTPUT), metas=metas(a, b, out))
    elif should_record(b):
        record(PowBackward2, out, (b,), saved=(OUTPUT,), base=a, meta=meta(b, out))
    return out


@op(inplace=True)
def square(input: Tensor) -> Tensor:
    """``input ** 2``.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return pow(input, 2)


@op(operator="pos")
def positive(input: Tensor) -> Tensor:
    """``+input``: the tensor itself.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        ``input``, the same object.
    """
    return input
