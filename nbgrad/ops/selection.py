"""Clamping and choosing: clamp, maximum, minimum, where and masked_fill, each one block.

Their gradients pass to whichever operand supplied each element of the result.
"""

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .elementwise import binary, meta, metas, to_input
from .methods import tensor_method
from .operands import (broadcast_error, floating, operand, promoted, same_device, shape_of,
                       tensor_operand, zeros_like)


class ClampBackward1(Node):
    """The gradient passes where min <= x <= max (boundaries included), else 0: selected,
    as in PyTorch, so an ``inf`` gradient outside gives 0 rather than ``inf * 0 = nan``."""

    __slots__ = ("min", "max")

    def apply(self, grad):
        (x,) = self.saved_values
        inside = None
        if self.min is not None:
            inside = x >= self.min
        if self.max is not None:
            below = x <= self.max
            inside = below if inside is None else inside & below
        return (grad.where(inside, 0.0),)


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
                grads[1] = to_input(grad.where(x < low, 0.0), self.metas[1])
        if high is not None:
            below = x <= high
            inside = below if inside is None else inside & below
            if high_fn is not None:
                grads[2] = to_input(grad.where(x > high, 0.0), self.metas[2])
        if x_fn is not None:
            grads[0] = grad.where(inside, 0.0)
        return tuple(grads)


@op(ClampBackward1, ClampBackward0, aliases=("clip",), inplace=True)
def clamp(input, min=None, max=None):
    """Each element limited to ``[min, max]`` (numbers or tensors; either may be ``None``).

    When ``min > max``, every element is ``max``, as in PyTorch.
    """
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
               metas=(meta(x, out), None if low is None else meta(low, out),
                      None if high is None else meta(high, out)))
    return out


def _like(x, value):
    """A number as a 0-d tensor of ``x``'s dtype, on ``x``'s device."""
    return Tensor._make(array_module(x._data).asarray(value, dtype=x._data.dtype))


def _choose(op, node_cls, pick_max, input, other):
    a = tensor_operand(input, op)
    b = tensor_operand(other, op, 2, "other")
    a, b, out, recording = binary(op, a, b, np.maximum if pick_max else np.minimum)
    if recording:
        record(node_cls, out, (a, b), saved=(a, b), metas=metas(a, b, out), pick_max=pick_max)
    return out


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


@op(MaximumBackward0)
def maximum(input, other):
    """The larger of the two, element by element (a tie splits the gradient in half)."""
    return _choose("maximum", MaximumBackward0, True, input, other)


class MinimumBackward0(MaximumBackward0):
    __slots__ = ()


@op(MinimumBackward0)
def minimum(input, other):
    """The smaller of the two, element by element (a tie splits the gradient in half)."""
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


@op(WhereBackward0, method=False)
def where(condition, input, other):
    """``input`` where ``condition`` holds, else ``other`` (tensors or numbers, broadcast)."""
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
    if should_record(a, b):
        # Not ``metas``: the condition takes part in the broadcast too.
        record(WhereBackward0, out, (a, b), saved=(c,), metas=(meta(a, out), meta(b, out)))
    return out


class MaskedFillBackward0(Node):
    __slots__ = ("meta",)

    def apply(self, grad):
        (mask,) = self.saved_values
        return (to_input(grad.where(~mask, zeros_like(grad)), self.meta),)


@op(MaskedFillBackward0, inplace=True)
def masked_fill(input, mask, value):
    """``value`` where ``mask`` is True, ``input`` elsewhere."""
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
        record(MaskedFillBackward0, out, (x,), saved=(m,), meta=meta(x, out))
    return out


@tensor_method("where")
def where_method(self, condition, other):
    """``x.where(condition, y)`` is ``where(condition, x, y)``."""
    return where(condition, self, other)
