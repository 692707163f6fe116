"""Elementwise math of two tensors, each one block: atan2, hypot, logaddexp, xlogy and lerp.

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
from .operands import floating, operand, same_device, tensor_operand


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
