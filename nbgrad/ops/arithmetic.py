"""Pointwise arithmetic and math: the forward computation and its derivative, side by side.

Each operation is a function that computes its result with the array module and, when
the graph is being recorded, a node class named as PyTorch names it whose ``apply``
turns the gradient of the output into gradients of the inputs. The formulas are written
with tensor operations, so that ``create_graph=True`` can differentiate them again.

Binary operations broadcast; their backward sums the gradient back to each input's shape
(``sum_to_size``) and casts it to the input's dtype.
"""

import operator

import numpy as np

from .. import dtypes
from ..autograd.grad_mode import _state
from ..autograd.graph import OUTPUT, record, should_record
from ..autograd.node import Node
from ..backend import array_module
from ..tensor import Tensor
from .operands import (broadcast_error, floating, operand, promoted, same_device, shape_of,
                       tensor_operand, zeros_like)


def _meta(value, out):
    """What ``to_input`` needs to turn the output's gradient into ``value``'s: its shape and
    dtype, or ``None`` when nothing is to be done (a number, or the output's own shape and
    dtype: the common case, which then costs nothing in backward)."""
    if not isinstance(value, Tensor):
        return None
    data, result = value._data, out._data
    if data.shape == result.shape and data.dtype == result.dtype:
        return None
    return (data.shape, data.dtype)


def _metas(a, b, out):
    """``_meta`` of both operands of ``out = op(a, b)``, an elementwise operation whose output
    has the two operands' broadcast shape; one shared tuple in the common case (fewer
    objects to keep alive per operation means less work for Python's garbage collector)."""
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        # With a number, the tensor operand already has the output's shape (a number does
        # not broadcast), so only its dtype can differ; comparing shapes costs more than
        # the rest of this function.
        tensor = a if isinstance(a, Tensor) else b
        if tensor._data.dtype is out._data.dtype:
            return _NOTHING_TO_DO
    a_meta, b_meta = _meta(a, out), _meta(b, out)
    return _NOTHING_TO_DO if a_meta is None and b_meta is None else (a_meta, b_meta)


_NOTHING_TO_DO = (None, None)


def to_input(grad, meta):
    """The gradient summed over broadcast dimensions and cast back to the input's dtype."""
    if meta is None:
        return grad
    shape, dtype = meta
    if grad._data.shape != shape:
        grad = grad.sum_to_size(shape)
    if grad._data.dtype != dtype:
        grad = grad.to(dtype=dtype)
    return grad


def _binary(op, input, other, compute):
    """Check and promote two operands, compute, and return ``(a, b, result, recording)``;
    ``recording`` says whether the operation joins the graph (grad mode on and a tensor
    operand requires grad).

    The common cases (tensor with tensor of the same dtype, tensor with a Python number)
    are decided first: this runs for every arithmetic operation, forward and backward.
    """
    if isinstance(input, Tensor):
        x = input._data
        requires_grad = input._requires_grad
        if isinstance(other, Tensor):
            y = other._data
            requires_grad = requires_grad or other._requires_grad
            if x.dtype is not y.dtype or type(x) is not type(y):
                x, y = promoted(input, other)
        elif (type(other) is float or type(other) is int) and x.dtype.kind == "f":
            y = other
        else:
            other = operand(other, op)
            x, y = promoted(input, other)
            requires_grad = requires_grad or _needs(other)
    else:
        input = operand(input, op, 1, "input")
        if not isinstance(other, Tensor):
            raise TypeError(f"{op}(): expected at least one Tensor operand, got two numbers")
        x, y = promoted(input, other)
        requires_grad = _needs(input) or other._requires_grad
    try:
        data = compute(x, y)
    except ValueError:
        raise broadcast_error(shape_of(x), shape_of(y)) from None
    return input, other, Tensor._make(data), requires_grad and _state.enabled


def _needs(value):
    return isinstance(value, Tensor) and value._requires_grad


def _recording(a, b):
    """Whether ``op(a, b)`` is recorded: grad mode on and a tensor operand requires grad."""
    return _state.enabled and (
        (isinstance(a, Tensor) and a._requires_grad) or (isinstance(b, Tensor) and b._requires_grad)
    )


# -- + - * / ----------------------------------------------------------------------------
class AddBackward0(Node):
    __slots__ = ("alpha", "metas")

    def apply(self, grad):
        a_meta, b_meta = self.metas
        a_fn, b_fn = self._next_nodes
        grad_a = None if a_fn is None else grad if a_meta is None else to_input(grad, a_meta)
        grad_b = None
        if b_fn is not None:
            grad_b = to_input(grad if self.alpha == 1 else grad * self.alpha, b_meta)
        return grad_a, grad_b


class SubBackward0(AddBackward0):
    __slots__ = ()

    def apply(self, grad):
        grad_a, grad_b = super().apply(grad)
        return grad_a, (None if grad_b is None else -grad_b)


def add(input, other, *, alpha=1):
    compute = operator.add if alpha == 1 else (lambda x, y: x + alpha * y)
    a, b, out, recording = _binary("add", input, other, compute)
    if recording:
        node = record(AddBackward0, out, (a, b))
        node.alpha, node.metas = alpha, _metas(a, b, out)
    return out


def _is_bool(value):
    return isinstance(value, bool) or (isinstance(value, Tensor) and value._data.dtype.kind == "b")


def sub(input, other, *, alpha=1):
    if _is_bool(input) and _is_bool(other):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    compute = operator.sub if alpha == 1 else (lambda x, y: x - alpha * y)
    a, b, out, recording = _binary("sub", input, other, compute)
    if recording and isinstance(a, Tensor):
        record(SubBackward0, out, (a, b), alpha=alpha, metas=_metas(a, b, out))
    elif recording:  # number - tensor
        record(RsubBackward1, out, (b,), alpha=alpha, meta=_meta(b, out))
    return out


class RsubBackward1(Node):
    __slots__ = ("alpha", "meta")

    def apply(self, grad):
        return (to_input(-grad if self.alpha == 1 else grad * -self.alpha, self.meta),)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return sub(other, input, alpha=alpha)


class MulBackward0(Node):
    __slots__ = ("metas",)

    def apply(self, grad):
        a, b = self.saved_values
        a_meta, b_meta = self.metas
        a_fn, b_fn = self._next_nodes
        grad_a = to_input(grad * b, a_meta) if a_fn is not None else None
        grad_b = to_input(grad * a, b_meta) if b_fn is not None else None
        return grad_a, grad_b


def mul(input, other):
    a, b, out, recording = _binary("mul", input, other, operator.mul)
    if recording:
        # Like PyTorch, save only what the needed gradients use.
        node = record(MulBackward0, out, (a, b),
                      saved=(a if _needs(b) else None, b if _needs(a) else None))
        node.metas = _metas(a, b, out)
    return out


class DivBackward0(Node):
    __slots__ = ("metas",)

    def apply(self, grad):
        a, b = self.saved_values
        a_meta, b_meta = self.metas
        a_fn, b_fn = self._next_nodes
        grad_a = to_input(grad / b, a_meta) if a_fn is not None else None
        grad_b = to_input(-grad * a / (b * b), b_meta) if b_fn is not None else None
        return grad_a, grad_b


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


def div(input, other, *, rounding_mode=None):
    if rounding_mode is not None:
        return _rounding_div(input, other, rounding_mode)
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        return mul(reciprocal(other), input)  # number / tensor, recorded as PyTorch does
    a, b, out, recording = _binary("div", input, other, _true_divide)
    if recording:
        node = record(DivBackward0, out, (a, b), saved=(a if _needs(b) else None, b))
        node.metas = _metas(a, b, out)
    return out


def _rounding_div(input, other, rounding_mode):
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    rounding = np.trunc if rounding_mode == "trunc" else np.floor

    def compute(x, y):
        if getattr(x, "dtype", np.dtype(float)).kind in "iu" and getattr(y, "dtype", np.dtype(int)).kind in "iu":
            # promoted: the array operand(s) already have the result dtype
            dtype = x.dtype if hasattr(x, "dtype") else y.dtype
            return x // y if rounding_mode == "floor" else np.trunc(x / y).astype(dtype)
        return rounding(x / y)

    a, b, out, recording = _binary("div", input, other, compute)
    if recording:
        record(DivBackward1, out, (a, b), metas=_metas(a, b, out))
    return out


class DivBackward1(Node):
    """Rounded division: piecewise constant, so its gradient is zero."""

    __slots__ = ("metas",)

    def apply(self, grad):
        return tuple(None if fn is None else zeros_like(to_input(grad, meta))
                     for fn, meta in zip(self._next_nodes, self.metas))


def floor_divide(input, other):
    return div(input, other, rounding_mode="floor")


def true_divide(input, other):
    return div(input, other)


class ReciprocalBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (-grad * result * result,)


def reciprocal(input):
    x = tensor_operand(input, "reciprocal")
    with np.errstate(divide="ignore"):
        out = Tensor._make(1 / floating(x._data))
    if should_record(x):
        record(ReciprocalBackward0, out, (x,), saved=(OUTPUT,))
    return out


class NegBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (-grad,)


def neg(input):
    x = tensor_operand(input, "neg")
    if x._data.dtype.kind == "b":
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    out = Tensor._make(-x._data)
    if should_record(x):
        record(NegBackward0, out, (x,))
    return out


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
    if getattr(x, "dtype", None) is not None and x.dtype.kind in "iu":
        if isinstance(p, int) and p < 0 or getattr(p, "dtype", None) is not None and (
            p.dtype.kind in "iu" and (p < 0).any()
        ):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return x ** p


def pow(input, exponent):
    a, b, out, _ = _binary("pow", input, exponent, _power)
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        if should_record(a):
            record(PowBackward0, out, (a,), saved=(a,), exponent=b)
    elif isinstance(a, Tensor):
        if should_record(a, b):
            record(PowBackward1, out, (a, b), saved=(a, b, OUTPUT), metas=_metas(a, b, out))
    elif should_record(b):
        record(PowBackward2, out, (b,), saved=(OUTPUT,), base=a, meta=_meta(b, out))
    return out


def square(input):
    return pow(input, 2)


# -- elementwise math -------------------------------------------------------------------
def _unary(op, input, compute, node_cls, saved, quiet=False):
    """``compute`` on a float version of the input; record ``node_cls`` saving ``saved``.

    ``saved`` is "input", "output" or "nothing": what the derivative is written in.
    ``quiet``: like PyTorch, return nan/-inf outside the domain without NumPy's warning.
    """
    x = tensor_operand(input, op)
    if quiet:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = Tensor._make(compute(floating(x._data)))
    else:
        out = Tensor._make(compute(floating(x._data)))
    if should_record(x):
        record(node_cls, out, (x,), saved={"input": (x,), "output": (OUTPUT,), "nothing": ()}[saved])
    return out


class ExpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad * result,)


class LogBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad / x,)


class SqrtBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad / (2 * result),)


class SinBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * x.cos(),)


class CosBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * -x.sin(),)


class AbsBackward0(Node):
    """d|x|/dx = sign(x): +1, -1, and 0 at x = 0 (a subgradient; chapter 06)."""

    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * x.sign(),)


def exp(input):
    return _unary("exp", input, np.exp, ExpBackward0, "output")


def log(input):
    return _unary("log", input, np.log, LogBackward0, "input", quiet=True)


def sqrt(input):
    return _unary("sqrt", input, np.sqrt, SqrtBackward0, "output", quiet=True)


def sin(input):
    return _unary("sin", input, np.sin, SinBackward0, "input")


def cos(input):
    return _unary("cos", input, np.cos, CosBackward0, "input")


def abs(input):
    x = tensor_operand(input, "abs")
    out = Tensor._make(np.abs(x._data))
    if should_record(x):
        record(AbsBackward0, out, (x,), saved=(x,))
    return out


# -- clamping and choosing --------------------------------------------------------------
class ClampBackward1(Node):
    """The gradient passes where min <= x <= max (boundaries included), else 0."""

    __slots__ = ("min", "max")

    def apply(self, grad):
        (x,) = self.saved_values
        inside = None
        if self.min is not None:
            inside = x >= self.min
        if self.max is not None:
            below = x <= self.max
            inside = below if inside is None else inside & below
        return (grad * inside,)


class ClampBackward0(Node):
    """Tensor bounds: x gets the gradient where min <= x <= max, a bound where it binds."""

    __slots__ = ("metas",)

    def apply(self, grad):
        x, low, high = self.saved_values
        inside = None
        grads = [None, None, None]
        x_fn, low_fn, high_fn = self._next_nodes
        if low is not None:
            inside = x >= low
            if low_fn is not None:
                grads[1] = to_input(grad * (x < low), self.metas[1])
        if high is not None:
            below = x <= high
            inside = below if inside is None else inside & below
            if high_fn is not None:
                grads[2] = to_input(grad * (x > high), self.metas[2])
        if x_fn is not None:
            grads[0] = grad * inside
        return tuple(grads)


def clamp(input, min=None, max=None):
    x = tensor_operand(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensors(x, min, max)
    data = x._data
    if isinstance(min, float) or isinstance(max, float):
        data = floating(data)
    xp = array_module(data)
    data = xp.clip(data, min, max) if min is None or max is None or min <= max else xp.full_like(data, max)
    out = Tensor._make(data)
    if should_record(x):
        record(ClampBackward1, out, (x,), saved=(x,), min=min, max=max)
    return out


def _clamp_tensors(x, min, max):
    low = _like(x, min) if min is not None and not isinstance(min, Tensor) else min
    high = _like(x, max) if max is not None and not isinstance(max, Tensor) else max
    same_device(x, low, high)
    data = x._data
    xp = array_module(data)
    if low is not None:
        data = xp.maximum(data, low._data)
    if high is not None:
        data = xp.minimum(data, high._data)
    out = Tensor._make(data)
    if should_record(*(t for t in (x, low, high) if t is not None)):
        record(ClampBackward0, out, (x, low, high), saved=(x, low, high),
               metas=(_meta(x, out), None if low is None else _meta(low, out),
                      None if high is None else _meta(high, out)))
    return out


def clip(input, min=None, max=None):
    return clamp(input, min, max)


def _like(x, value):
    """A number as a 0-d tensor of ``x``'s dtype, on ``x``'s device."""
    return Tensor._make(array_module(x._data).asarray(value, dtype=x._data.dtype))


class MaximumBackward0(Node):
    """Ties send half of the gradient to each input, as PyTorch does."""

    __slots__ = ("metas", "pick_max")

    def apply(self, grad):
        a, b = self.saved_values
        a_wins = (a > b) if self.pick_max else (a < b)
        tie = (a == b)
        share_a = a_wins + tie * 0.5
        share_b = (~a_wins & ~tie) + tie * 0.5
        a_fn, b_fn = self._next_nodes
        grad_a = to_input(grad * share_a, self.metas[0]) if a_fn is not None else None
        grad_b = to_input(grad * share_b, self.metas[1]) if b_fn is not None else None
        return grad_a, grad_b


class MinimumBackward0(MaximumBackward0):
    __slots__ = ()


def _choose(op, node_cls, pick_max, input, other):
    a = tensor_operand(input, op)
    b = tensor_operand(other, op, 2, "other")
    a, b, out, _ = _binary(op, a, b, np.maximum if pick_max else np.minimum)
    if should_record(a, b):
        record(node_cls, out, (a, b), saved=(a, b), metas=_metas(a, b, out), pick_max=pick_max)
    return out


def maximum(input, other):
    return _choose("maximum", MaximumBackward0, True, input, other)


def minimum(input, other):
    return _choose("minimum", MinimumBackward0, False, input, other)


class WhereBackward0(Node):
    __slots__ = ("metas",)

    def apply(self, grad):
        (condition,) = self.saved_values
        a_fn, b_fn = self._next_nodes
        zero = zeros_like(grad)
        grad_a = to_input(grad.where(condition, zero), self.metas[0]) if a_fn is not None else None
        grad_b = to_input(zero.where(condition, grad), self.metas[1]) if b_fn is not None else None
        return grad_a, grad_b


def where(condition, input, other):
    c = tensor_operand(condition, "where", 1, "condition")
    if c._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {c.dtype.name.capitalize()}")
    a = operand(input, "where", 2, "input")
    b = operand(other, "where", 3, "other")
    same_device(c, a, b)
    xp = array_module(c._data)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = Tensor._make(xp.asarray(a, dtype=dtypes.result_type(a, b)))
    x, y = promoted(a, b)
    try:
        data = xp.where(c._data, x, y)
    except ValueError:
        shapes = [c._data.shape, shape_of(x), shape_of(y)]
        for first in range(3):
            for second in range(first + 1, 3):
                try:
                    np.broadcast_shapes(shapes[first], shapes[second])
                except ValueError:
                    raise broadcast_error(shapes[first], shapes[second]) from None
        raise
    out = Tensor._make(data)
    if _recording(a, b):
        # Not ``_metas``: the condition takes part in the broadcast too.
        record(WhereBackward0, out, (a, b), saved=(c,), metas=(_meta(a, out), _meta(b, out)))
    return out


class MaskedFillBackward0(Node):
    __slots__ = ("meta",)

    def apply(self, grad):
        (mask,) = self.saved_values
        return (to_input(grad.where(~mask, zeros_like(grad)), self.meta),)


def masked_fill(input, mask, value):
    x = tensor_operand(input, "masked_fill")
    m = tensor_operand(mask, "masked_fill", 2, "mask")
    if m._data.dtype.kind != "b":
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {m.dtype.name}")
    same_device(x, m)
    if isinstance(value, Tensor):
        value = value.item()
    xp = array_module(x._data)
    out = Tensor._make(xp.where(m._data, xp.asarray(value, dtype=x._data.dtype), x._data))
    if should_record(x):
        record(MaskedFillBackward0, out, (x,), saved=(m,), meta=_meta(x, out))
    return out
