"""Elementwise math of two tensors, each one block: atan2, hypot, logaddexp, xlogy, copysign
and lerp; and of three, addcmul and addcdiv.

Operands broadcast and promote as in ``+``; the result is floating point (integers compute
in the default float dtype, where PyTorch has a kernel for them at all). Each gradient is
summed back to its operand's shape (``to_input``).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..autograd.graph import OUTPUT, record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .elementwise import binary, check_dtype, meta, metas, to_input
from .operands import (
    broadcast_error,
    floating,
    invalid_combination,
    operand,
    same_device,
    tensor_operand,
    zeros_like,
)


def _tensors(op, input, other):
    """Both operands, which PyTorch's ``op`` takes as tensors only."""
    return tensor_operand(input, op), tensor_operand(other, op, 2, "other")


def _floating_binary(op, input, other, compute):
    """``binary`` with ``compute`` on the promoted operands made floating; an op listed in
    ``REFUSED_DTYPES`` refuses integer operands first, as PyTorch has no kernel for them."""
    def floating_compute(x, y):
        dtype = x.dtype if hasattr(x, "dtype") else y.dtype
        check_dtype(op, dtype)
        if hasattr(x, "dtype"):
            x = floating(x)
        if hasattr(y, "dtype"):
            y = floating(y)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return compute(x, y)
    return binary(op, input, other, floating_compute)


class Atan2Backward0(Node):
    __slots__ = ("metas",)

    def apply(self, grad):
        x, y = self.saved_values
        scale = grad / (x * x + y * y)
        x_fn, y_fn = self._next_nodes
        return (to_input(scale * y, self.metas[0]) if x_fn is not None else None,
                to_input(scale * -x, self.metas[1]) if y_fn is not None else None)


@op(Atan2Backward0, aliases=("arctan2",), inplace=True)
def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of the point ``(other, input)``: ``atan(input / other)`` in the right quadrant.

    Parameters
    ----------
    input : Tensor
        The y coordinates.
    other : Tensor
        The x coordinates (broadcast with ``input``).

    Returns
    -------
    Tensor
        In ``[-pi, pi]``; floating point.
    """
    a, b = _tensors("atan2", input, other)
    a, b, out, recording = _floating_binary("atan2", a, b, np.arctan2)
    if recording:
        record(Atan2Backward0, out, (a, b), saved=(a, b), metas=metas(a, b, out))
    return out


class HypotBackward0(Node):
    __slots__ = ("metas",)

    def apply(self, grad):
        x, y, result = self.saved_values
        scale = grad / result
        x_fn, y_fn = self._next_nodes
        return (to_input(scale * x, self.metas[0]) if x_fn is not None else None,
                to_input(scale * y, self.metas[1]) if y_fn is not None else None)


@op(HypotBackward0, inplace=True)
def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``sqrt(input**2 + other**2)`` element by element, without overflow on the way.

    Parameters
    ----------
    input, other : Tensor
        Floating point (PyTorch has no integer kernel), broadcast together.

    Returns
    -------
    Tensor
    """
    a, b = _tensors("hypot", input, other)
    a, b, out, recording = _floating_binary("hypot", a, b, np.hypot)
    if recording:
        record(HypotBackward0, out, (a, b), saved=(a, b, OUTPUT), metas=metas(a, b, out))
    return out


class LogaddexpBackward0(Node):
    __slots__ = ("metas",)

    def apply(self, grad):
        x, y = self.saved_values
        x_fn, y_fn = self._next_nodes
        return (to_input(grad / ((y - x).exp() + 1), self.metas[0]) if x_fn is not None else None,
                to_input(grad / ((x - y).exp() + 1), self.metas[1]) if y_fn is not None else None)


@op(LogaddexpBackward0)
def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """``log(exp(input) + exp(other))`` element by element, without overflow.

    Parameters
    ----------
    input, other : Tensor
        Floating point (PyTorch has no integer kernel), broadcast together.

    Returns
    -------
    Tensor
    """
    a, b = _tensors("logaddexp", input, other)
    a, b, out, recording = _floating_binary("logaddexp", a, b, np.logaddexp)
    if recording:
        record(LogaddexpBackward0, out, (a, b), saved=(a, b), metas=metas(a, b, out))
    return out


def _xlogy(x, y):
    """``x * log(y)``, and 0 where ``x == 0`` (unless ``y`` is NaN), as PyTorch defines it."""
    array = x if hasattr(x, "dtype") else y
    xp = array_module(array)
    product = x * xp.log(y)
    return xp.where((x == 0) & ~xp.isnan(y), 0, product).astype(array.dtype, copy=False)


class XlogyBackward0(Node):
    """tensor, tensor: PyTorch's ``xlogy(grad, y)``, 0 where ``x == 0`` and ``y <= 0``."""

    __slots__ = ("metas",)

    def apply(self, grad):
        x, y = self.saved_values
        x_fn, y_fn = self._next_nodes
        grad_x = xlogy(grad, y).masked_fill((x == 0) & (y <= 0), 0.0) if x_fn is not None else None
        return (to_input(grad_x, self.metas[0]) if x_fn is not None else None,
                to_input(grad * x / y, self.metas[1]) if y_fn is not None else None)


class XlogyBackward1(Node):
    """number, tensor"""

    __slots__ = ("meta", "x")

    def apply(self, grad):
        (y,) = self.saved_values
        return (to_input(grad * self.x / y, self.meta),)


class XlogyBackward2(Node):
    """tensor, number"""

    __slots__ = ("meta", "y")

    def apply(self, grad):
        (x,) = self.saved_values
        grad_x = xlogy(grad, self.y)
        if not self.y > 0:
            grad_x = grad_x.masked_fill(x == 0, 0.0)
        return (to_input(grad_x, self.meta),)


@op(XlogyBackward0, XlogyBackward1, XlogyBackward2, inplace=True)
def xlogy(input: Tensor | float, other: Tensor | float) -> Tensor:
    """``input * log(other)``, taken as 0 where ``input`` is 0 (the convention of entropies).

    Parameters
    ----------
    input, other : Tensor or number
        At least one a tensor; broadcast together.

    Returns
    -------
    Tensor
        Floating point; NaN where ``other`` is NaN, even where ``input`` is 0.
    """
    a, b, out, recording = _floating_binary("xlogy", input, other, _xlogy)
    if not recording:
        return out
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        record(XlogyBackward0, out, (a, b), saved=(a, b), metas=metas(a, b, out))
    elif isinstance(a, Tensor):
        record(XlogyBackward2, out, (a,), saved=(a,), y=b, meta=meta(a, out))
    else:
        record(XlogyBackward1, out, (b,), saved=(b,), x=a, meta=meta(b, out))
    return out


class LerpBackward0(Node):
    """a number weight"""

    __slots__ = ("metas", "weight")

    def apply(self, grad):
        start_fn, end_fn = self._next_nodes
        w = self.weight
        return (to_input(grad * (1 - w), self.metas[0]) if start_fn is not None else None,
                to_input(grad * w, self.metas[1]) if end_fn is not None else None)


class LerpBackward1(Node):
    """a tensor weight"""

    __slots__ = ("metas",)

    def apply(self, grad):
        start, end, weight = self.saved_values
        fns = self._next_nodes
        grads = (grad * (1 - weight), grad * weight, grad * (end - start))
        return tuple(to_input(g, m) if fn is not None else None
                     for g, m, fn in zip(grads, self.metas, fns))


def _lerp(start, end, weight):
    """PyTorch's formula: from the nearer end, so that ``weight == 1`` gives ``end`` exactly."""
    xp = array_module(start)
    return xp.where(xp.abs(weight) < 0.5, start + weight * (end - start),
                    end - (end - start) * (1 - weight))


def _same_dtype(start, other, name):
    if other._data.dtype != start._data.dtype:
        raise RuntimeError(f"expected dtype {dtypes.scalar_type_name(start._data.dtype).lower()} for "
                           f"`{name}` but got dtype {dtypes.scalar_type_name(other._data.dtype).lower()}")


@op(LerpBackward0, LerpBackward1, inplace=True)
def lerp(input: Tensor, end: Tensor, weight: Tensor | float) -> Tensor:
    """``input + weight * (end - input)``: the linear interpolation from ``input`` to ``end``.

    Parameters
    ----------
    input, end : Tensor
        Floating point tensors of one dtype (PyTorch does not promote them), broadcast.
    weight : Tensor or float
        A number, or a tensor of the same dtype, broadcast too.

    Returns
    -------
    Tensor
    """
    start = tensor_operand(input, "lerp")
    end = tensor_operand(end, "lerp", 2, "end")
    weight = operand(weight, "lerp", 3, "weight")
    _same_dtype(start, end, "end")
    check_dtype("lerp", start._data.dtype)
    if isinstance(weight, Tensor):
        _same_dtype(start, weight, "weight")
        same_device(start, end, weight)
    else:
        same_device(start, end)
    w = weight._data if isinstance(weight, Tensor) else weight
    out = Tensor._make(_lerp(start._data, end._data, w).astype(start._data.dtype, copy=False))
    if isinstance(weight, Tensor):
        if should_record(start, end, weight):
            record(LerpBackward1, out, (start, end, weight), saved=(start, end, weight),
                   metas=(meta(start, out), meta(end, out), meta(weight, out)))
    elif should_record(start, end):
        record(LerpBackward0, out, (start, end), weight=weight, metas=metas(start, end, out))
    return out


class CopysignBackward0(Node):
    """tensor, tensor: ``grad * result / input`` (0 where the input is 0, as PyTorch); the
    sign's source gets a zero gradient."""

    __slots__ = ("metas",)

    def apply(self, grad):
        x, result = self.saved_values
        x_fn, y_fn = self._next_nodes
        grad_x = (grad * (result / x)).masked_fill(x == 0, 0.0) if x_fn is not None else None
        return (to_input(grad_x, self.metas[0]) if x_fn is not None else None,
                to_input(zeros_like(grad), self.metas[1]) if y_fn is not None else None)


class CopysignBackward1(Node):
    """tensor, number"""

    __slots__ = ("meta",)

    def apply(self, grad):
        x, result = self.saved_values
        return (to_input((grad * (result / x)).masked_fill(x == 0, 0.0), self.meta),)


@op(CopysignBackward0, CopysignBackward1, inplace=True)
def copysign(input: Tensor, other: Tensor | float) -> Tensor:
    """The magnitude of ``input`` with the sign of ``other``, element by element.

    Parameters
    ----------
    input : Tensor
    other : Tensor or number
        Broadcast with ``input``; its sign bit counts, so ``-0.0`` is negative.

    Returns
    -------
    Tensor
        Floating point (integers give the default float dtype). The gradient of ``input``
        is 0 where ``input`` is 0, and ``other`` gets a zero gradient (as in PyTorch).
    """
    if not isinstance(input, Tensor):
        raise invalid_combination("copysign", input, other)
    a, b, out, recording = _floating_binary("copysign", input, other, np.copysign)
    if not recording:
        return out
    if isinstance(b, Tensor):
        record(CopysignBackward0, out, (a, b), saved=(a, OUTPUT), metas=metas(a, b, out))
    else:
        record(CopysignBackward1, out, (a,), saved=(a, OUTPUT), meta=meta(a, out))
    return out


def _addc(op, input, tensor1, tensor2, value, combine):
    """``input + value * combine(tensor1, tensor2)`` of three tensors promoted together and
    broadcast, ``value`` cast to their dtype (an integer result truncates it, as PyTorch's
    kernel does); returns the operands, ``value`` as used, the result and ``recording``."""
    x = tensor_operand(input, op)
    t1 = tensor_operand(tensor1, op, 2, "tensor1")
    t2 = tensor_operand(tensor2, op, 3, "tensor2")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str) or not isinstance(value, (bool, int, float)):
        raise TypeError(f"{op}(): argument 'value' must be Number, not {type(value).__name__}")
    same_device(x, t1, t2)
    if op == "addcdiv" and t1._data.dtype.kind in "biu" and t2._data.dtype.kind in "biu":
        raise RuntimeError(_INTEGER_ADDCDIV)
    shape = ()
    for t in (x, t1, t2):  # PyTorch broadcasts the operands in order, and says which failed
        try:
            shape = np.broadcast_shapes(shape, t._data.shape)
        except ValueError:
            raise broadcast_error(shape, t._data.shape) from None
    want = dtypes.result_type(x._data, t1._data, t2._data)
    check_dtype(op, want)
    value = float(value) if want.kind == "f" else int(value)
    a, b, c = (t._data.astype(want, copy=False) for t in (x, t1, t2))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        data = (a + value * combine(b, c)).astype(want, copy=False)
    return x, t1, t2, value, Tensor._make(data), should_record(x, t1, t2)


_INTEGER_ADDCDIV = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes.")


class AddcmulBackward0(Node):
    __slots__ = ("metas", "value")

    def apply(self, grad):
        t1, t2 = self.saved_values
        grads = (grad, grad * t2 * self.value, grad * t1 * self.value)
        return tuple(to_input(g, m) if fn is not None else None
                     for g, m, fn in zip(grads, self.metas, self._next_nodes))


@op(AddcmulBackward0, inplace=True)
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """``input + value * tensor1 * tensor2``, element by element.

    Parameters
    ----------
    input, tensor1, tensor2 : Tensor
        Promoted together and broadcast (bool has no kernel, as in PyTorch).
    value : number
        Cast to the result's dtype first: an integer result truncates a float ``value``.

    Returns
    -------
    Tensor
    """
    x, t1, t2, value, out, recording = _addc("addcmul", input, tensor1, tensor2, value,
                                             lambda b, c: b * c)
    if recording:
        record(AddcmulBackward0, out, (x, t1, t2), saved=(t1, t2), value=value,
               metas=(meta(x, out), meta(t1, out), meta(t2, out)))
    return out


class AddcdivBackward0(Node):
    __slots__ = ("metas", "value")

    def apply(self, grad):
        t1, t2 = self.saved_values
        _, t1_fn, t2_fn = self._next_nodes
        scaled = grad * self.value / t2
        grads = (grad, scaled if t1_fn is not None else None,
                 -scaled * t1 / t2 if t2_fn is not None else None)
        return tuple(to_input(g, m) if fn is not None else None
                     for g, m, fn in zip(grads, self.metas, self._next_nodes))


@op(AddcdivBackward0, inplace=True)
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """``input + value * tensor1 / tensor2``, element by element.

    Parameters
    ----------
    input, tensor1, tensor2 : Tensor
        Promoted together and broadcast; ``tensor1`` and ``tensor2`` not both integer
        (PyTorch refuses the integer division it used to do).
    value : number
        Cast to the result's dtype first.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        ``tensor1`` and ``tensor2`` are both integer (or bool) tensors.
    """
    x, t1, t2, value, out, recording = _addc("addcdiv", input, tensor1, tensor2, value,
                                             lambda b, c: b / c)
    if recording:
        record(AddcdivBackward0, out, (x, t1, t2), saved=(t1, t2), value=value,
               metas=(meta(x, out), meta(t1, out), meta(t2, out)))
    return out
