"""Clamping and choosing: clamp, maximum, minimum, where and masked_fill, each one block.

Their gradients pass to whichever operand supplied each element of the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .elementwise import binary, meta, metas, to_input
from .methods import tensor_method
from .nondifferentiable import nonzero
from .operands import (broadcast_error, floating, operand, promoted, same_device, shape_of,
                       tensor_operand, zeros_like)

if TYPE_CHECKING:
    from ..types import TensorOrNumber


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
    """Tensor bounds, after PyTorch's clamp_backward and clamp_backward_min_max: x gets the
    gradient where min <= x <= max; min where x < min < max; max where x > max or max < min
    (so when min > max, all of it goes to max). Each is summed back to its operand's shape."""

    __slots__ = ("metas",)

    def apply(self, grad):
        x, low, high = self.saved_values
        x_fn, low_fn, high_fn = self._next_nodes
        x_meta, low_meta, high_meta = self.metas
        grads = [None, None, None]
        if x_fn is not None:
            inside = _within(x, low, high)
            grads[0] = to_input(grad.where(inside, 0.0), x_meta)
        if low is not None and low_fn is not None:
            binds = x < low if high is None else (x < low) & (low < high)
            grads[1] = to_input(grad.where(binds, 0.0), low_meta)
        if high is not None and high_fn is not None:
            binds = x > high if low is None else (x > high) | (high < low)
            grads[2] = to_input(grad.where(binds, 0.0), high_meta)
        return tuple(grads)


def _within(x, low, high):
    """Where ``low <= x <= high`` (a bound may be None); false at a NaN."""
    if low is None:
        return x <= high
    if high is None:
        return x >= low
    return (x >= low) & (x <= high)


@op(ClampBackward1, ClampBackward0, aliases=("clip",), inplace=True)
def clamp(input: Tensor, min: TensorOrNumber | None = None,
          max: TensorOrNumber | None = None) -> Tensor:
    """Each element limited to ``[min, max]``.

    When ``min > max``, every element is ``max``; a NaN anywhere gives NaN, as in PyTorch.

    Parameters
    ----------
    input : Tensor
    min, max : Tensor or number, optional
        The bounds: both numbers (or 0-d tensors that do not require grad, read as
        numbers), or both tensors, broadcast; either may be ``None``, not both. A float
        bound makes an integer input float.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        If both bounds are ``None``.
    TypeError
        For a number mixed with a tensor that is not read as a number.
    """
    x = tensor_operand(input, "clamp")
    bounds = (min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if all(b is None or isinstance(b, Tensor) for b in bounds):
        return _clamp_tensors(x, min, max, ClampBackward0)
    low, high = (_number_bound(b, bounds) for b in bounds)
    return _clamp_numbers(x, low, high, ClampBackward1)


def _clamp_numbers(x, low, high, node_cls):
    data = x._data
    if isinstance(low, float) or isinstance(high, float):
        data = floating(data)
    xp = array_module(data)
    # maximum, then minimum, as PyTorch: max wins when min > max, and NaN propagates
    if low is not None:
        data = xp.maximum(data, low)
    if high is not None:
        data = xp.minimum(data, high)
    out = Tensor._make(data)
    if should_record(x):
        record(node_cls, out, (x,), saved=(x,), min=low, max=high)
    return out


def _number_bound(bound, bounds):
    """A bound of the numbers' form of clamp: a Python number (PyTorch's argument parser
    reads a 0-d tensor that does not require grad as one); anything else is PyTorch's
    TypeError."""
    if bound is None or isinstance(bound, (bool, int, float)):
        return bound
    if isinstance(bound, np.generic):
        return bound.item()
    if isinstance(bound, Tensor) and not bound._data.ndim and not bound._requires_grad:
        return bound.item()
    given = ", ".join(f"{name}={type(b).__name__}" for name, b in zip(("min", "max"), bounds)
                      if b is not None)
    raise TypeError(
        f"clamp() received an invalid combination of arguments - got (Tensor, {given}), but "
        "expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None)\n"
        " * (Tensor input, Number min = None, Number max = None)"
    )


def _one_sided(op, name, number_node, tensor_node, input, bound):
    """``clamp_min``/``clamp_max``: one bound, a tensor or a number, and nodes of their own."""
    x = tensor_operand(input, op)
    if isinstance(bound, Tensor):
        a, b, out, recording = binary(op, x, bound, np.maximum if name == "min" else np.minimum)
        if recording:
            record(tensor_node, out, (a, b), saved=(a, b), metas=metas(a, b, out))
        return out
    if isinstance(bound, np.generic):
        bound = bound.item()
    if isinstance(bound, bool) or not isinstance(bound, (int, float)):
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got (Tensor, "
            f"{type(bound).__name__}), but expected one of:\n * (Tensor input, Tensor {name})\n"
            f" * (Tensor input, Number {name})")
    return _clamp_numbers(x, *_sided(name, bound), number_node)


def _sided(name, bound):
    return (bound, None) if name == "min" else (None, bound)


def _one_sided_grads(node, grad, to_x, to_bound):
    x_fn, bound_fn = node._next_nodes
    return (to_input(grad.where(to_x, 0.0), node.metas[0]) if x_fn is not None else None,
            to_input(grad.where(to_bound, 0.0), node.metas[1]) if bound_fn is not None else None)


class ClampMinBackward0(ClampBackward1):
    __slots__ = ()


class ClampMinBackward1(Node):
    """A tensor bound: ``x`` gets the gradient where ``x >= min``, ``min`` where ``x < min``."""

    __slots__ = ("metas",)

    def apply(self, grad):
        x, bound = self.saved_values
        return _one_sided_grads(self, grad, x >= bound, x < bound)


@op(ClampMinBackward0, ClampMinBackward1, inplace=True)
def clamp_min(input: Tensor, min: Tensor | float) -> Tensor:
    """Each element at least ``min``: ``clamp(input, min=min)``, with PyTorch's own nodes.

    Parameters
    ----------
    input : Tensor
    min : Tensor or number
        A tensor bound broadcasts with ``input`` and gets its share of the gradient.

    Returns
    -------
    Tensor
    """
    return _one_sided("clamp_min", "min", ClampMinBackward0, ClampMinBackward1, input, min)


class ClampMaxBackward0(ClampBackward1):
    __slots__ = ()


class ClampMaxBackward1(Node):
    """A tensor bound: ``x`` gets the gradient where ``x <= max``, ``max`` where ``x > max``."""

    __slots__ = ("metas",)

    def apply(self, grad):
        x, bound = self.saved_values
        return _one_sided_grads(self, grad, x <= bound, x > bound)


@op(ClampMaxBackward0, ClampMaxBackward1, inplace=True)
def clamp_max(input: Tensor, max: Tensor | float) -> Tensor:
    """Each element at most ``max``: ``clamp(input, max=max)``, with PyTorch's own nodes.

    Parameters
    ----------
    input : Tensor
    max : Tensor or number
        A tensor bound broadcasts with ``input`` and gets its share of the gradient.

    Returns
    -------
    Tensor
    """
    return _one_sided("clamp_max", "max", ClampMaxBackward0, ClampMaxBackward1, input, max)


def _clamp_tensors(x, low, high, node_cls):
    same_device(x, low, high)
    operands = [t for t in (x, low, high) if t is not None]
    want = dtypes.result_type(*(t._data for t in operands))
    data = x._data.astype(want, copy=False)
    xp = array_module(data)
    try:
        if low is not None:
            data = xp.maximum(data, low._data.astype(want, copy=False))
        if high is not None:
            data = xp.minimum(data, high._data.astype(want, copy=False))
    except ValueError:
        raise _first_broadcast_error([t._data.shape for t in operands]) from None
    out = Tensor._make(data)
    if should_record(*operands):
        record(node_cls, out, (x, low, high), saved=(x, low, high),
               metas=tuple(None if t is None else meta(t, out) for t in (x, low, high)))
    return out


def _first_broadcast_error(shapes):
    """PyTorch's error for operands broadcast in turn: the shape so far against the next."""
    shape = shapes[0]
    for other in shapes[1:]:
        try:
            shape = np.broadcast_shapes(shape, other)
        except ValueError:
            return broadcast_error(shape, other)
    raise AssertionError(f"shapes {shapes} broadcast")  # only called after NumPy refused them


def _choose(op, node_cls, pick_max, input, other):
    a = tensor_operand(input, op)
    b = tensor_operand(other, op, 2, "other")
    a, b, out, recording = binary(op, a, b, np.maximum if pick_max else np.minimum)
    if recording:
        record(node_cls, out, (a, b), saved=(a, b), metas=metas(a, b, out), pick_max=pick_max)
    return out


class MaximumBackward0(Node):
    """PyTorch's formula: a tie sends half of the gradient to each input, the smaller one
    (the larger, for minimum) gets 0, and where either is NaN both get all of it."""

    __slots__ = ("metas", "pick_max")

    def apply(self, grad):
        a, b = self.saved_values
        shared = (grad / 2).where(a == b, grad)
        a_loses, b_loses = (a < b, a > b) if self.pick_max else (a > b, a < b)
        a_fn, b_fn = self._next_nodes
        grad_a = to_input(shared.where(~a_loses, 0.0), self.metas[0]) if a_fn is not None else None
        grad_b = to_input(shared.where(~b_loses, 0.0), self.metas[1]) if b_fn is not None else None
        return grad_a, grad_b


@op(MaximumBackward0)
def maximum(input: Tensor, other: Tensor) -> Tensor:
    """The larger of the two, element by element, broadcast.

    A tie splits the gradient in half between them; a NaN in either gives NaN.

    Parameters
    ----------
    input, other : Tensor
        Tensors both (PyTorch takes no number here).

    Returns
    -------
    Tensor
    """
    return _choose("maximum", MaximumBackward0, True, input, other)


class MinimumBackward0(MaximumBackward0):
    __slots__ = ()


@op(MinimumBackward0)
def minimum(input: Tensor, other: Tensor) -> Tensor:
    """The smaller of the two, element by element, broadcast.

    A tie splits the gradient in half between them; a NaN in either gives NaN.

    Parameters
    ----------
    input, other : Tensor
        Tensors both (PyTorch takes no number here).

    Returns
    -------
    Tensor
    """
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
def where(condition: Tensor, input: Tensor | float | None = None,
          other: Tensor | float | None = None) -> Tensor | tuple[Tensor, ...]:
    """``input`` where ``condition`` holds, else ``other`` (tensors or numbers, broadcast);
    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.

    Parameters
    ----------
    condition : Tensor
        A bool tensor (any dtype for the one-argument form).
    input, other : Tensor or number
        Both or neither; promoted together as PyTorch promotes them.

    Returns
    -------
    Tensor, or a tuple of index tensors for the one-argument form
    """
    if input is None and other is None:
        return nonzero(tensor_operand(condition, "where", 1, "condition"), as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() received an invalid combination of arguments - got (Tensor, "
                        "Tensor), but expected one of:\n * (Tensor condition)\n"
                        " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)")
    c = tensor_operand(condition, "where", 1, "condition")
    if c._data.dtype.kind != "b":
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with "
                           f"dtype {dtypes.scalar_type_name(c._data.dtype)}")
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
    """A number filled in: the gradient passes where the mask is off."""

    __slots__ = ("meta",)

    def apply(self, grad):
        (mask,) = self.saved_values
        return (to_input(grad.where(~mask, 0.0), self.meta),)


class MaskedFillBackward1(Node):
    """A 0-d tensor filled in: it gets the sum of the gradient where the mask is on."""

    __slots__ = ("metas",)

    def apply(self, grad):
        (mask,) = self.saved_values
        x_fn, value_fn = self._next_nodes
        grad_x = to_input(grad.where(~mask, 0.0), self.metas[0]) if x_fn is not None else None
        grad_value = (to_input(grad.where(mask, 0.0).sum(), self.metas[1])
                      if value_fn is not None else None)
        return grad_x, grad_value


@op(MaskedFillBackward0, MaskedFillBackward1, inplace=True)
def masked_fill(input: Tensor, mask: Tensor, value: TensorOrNumber) -> Tensor:
    """``value`` where ``mask`` is True, ``input`` elsewhere.

    Parameters
    ----------
    input : Tensor
    mask : Tensor
        bool, broadcast with ``input``.
    value : Tensor or number
        A number, or a 0-d tensor whose gradient is then the sum of the result's where
        ``mask`` is True; cast to ``input``'s dtype.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        If ``mask`` is not bool, or ``value`` is a tensor with dimensions.
    """
    x = tensor_operand(input, "masked_fill")
    m = tensor_operand(mask, "masked_fill", 2, "mask")
    if m._data.dtype.kind != "b":
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {m.dtype.name}")
    _check_fill_value(value)
    same_device(x, m, value)
    xp = array_module(x._data)
    filler = value._data if isinstance(value, Tensor) else value
    out = Tensor._make(xp.where(m._data, xp.asarray(filler).astype(x._data.dtype), x._data))
    if isinstance(value, Tensor):
        if should_record(x, value):
            record(MaskedFillBackward1, out, (x, value), saved=(m,),
                   metas=(meta(x, out), meta(value, out)))
    elif should_record(x):
        record(MaskedFillBackward0, out, (x,), saved=(m,), meta=meta(x, out))
    return out


def _check_fill_value(value):
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s).")
    elif not isinstance(value, (bool, int, float, np.generic)):
        raise TypeError(
            f"masked_fill() received an invalid combination of arguments - got (Tensor, "
            f"{type(value).__name__}), but expected one of:\n * (Tensor mask, Tensor value)\n"
            " * (Tensor mask, Number value)"
        )


@tensor_method("where")
def where_method(self: Tensor, condition: Tensor, other: TensorOrNumber) -> Tensor:
    """``x.where(condition, y)`` is ``where(condition, x, y)``: this tensor where
    ``condition`` is True, ``other`` elsewhere.

    Parameters
    ----------
    condition : Tensor
        bool, broadcast with the two.
    other : Tensor or number

    Returns
    -------
    Tensor
    """
    return where(condition, self, other)
