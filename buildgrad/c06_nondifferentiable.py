# Generated from solutions/06_non_differentiable.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 06: operations without a useful derivative, and ``Function`` for your own.

``argmax`` returns integers: no graph. ``sign``, ``round``, ``floor`` and ``ceil`` are
piecewise constant: their gradient is zero wherever it exists, and autograd uses zero
everywhere. ``abs`` and ``relu`` have a kink at 0, where PyTorch picks the subgradient 0;
``max`` shares its gradient evenly among tied maxima. A ``Function`` subclass declares its
own forward and backward: the straight-through estimator is one.
"""

import numpy as np

from buildgrad.c05_inplace import *  # noqa: F403  (chapter 06 continues chapter 05)


class ZeroGradient(Node):
    """Piecewise constant: the gradient is zero (where it exists at all)."""

    def backward(self, grad):
        return (np.zeros_like(grad),)


SignBackward0 = type("SignBackward0", (ZeroGradient,), {})
RoundBackward0 = type("RoundBackward0", (ZeroGradient,), {})
FloorBackward0 = type("FloorBackward0", (ZeroGradient,), {})
CeilBackward0 = type("CeilBackward0", (ZeroGradient,), {})


def piecewise_constant(node_class, array_function):
    def op(a):
        return record(node_class, Tensor(array_function(a.array)), (a,))
    op.__name__ = array_function.__name__
    return op


sign = piecewise_constant(SignBackward0, np.sign)
round = piecewise_constant(RoundBackward0, np.round)
floor = piecewise_constant(FloorBackward0, np.floor)
ceil = piecewise_constant(CeilBackward0, np.ceil)


class AbsBackward0(Node):
    def backward(self, grad):
        (a,) = self.saved
        return (grad * np.sign(a.array),)  # sign(0) = 0: the subgradient PyTorch picks


def abs(a):
    return record(AbsBackward0, Tensor(np.abs(a.array)), (a,), saved=(a,))


class ReluBackward0(Node):
    def backward(self, grad):
        (result,) = self.saved
        return (np.where(result.array <= 0, 0, grad),)  # selects, as PyTorch: relu(nan) passes


def relu(a):
    out = Tensor(np.maximum(a.array, 0))
    return record(ReluBackward0, out, (a,), saved=(out,))


class MaxBackward1(Node):
    def backward(self, grad):
        a, result = self.saved
        winners = a.array == result.array
        return (np.where(winners, grad / winners.sum(), 0),)  # ties share evenly


def max(a):
    out = Tensor(a.array.max())
    return record(MaxBackward1, out, (a,), saved=(a, out))


def argmax(a, dim=None):
    """The winner's index: an integer, so nothing is recorded."""
    return Tensor(np.argmax(a.array, axis=dim))


for _op in (sign, round, floor, ceil, abs, relu, max, argmax):
    setattr(Tensor, _op.__name__, _op)


class BackwardFunction(Node):
    """The node of a ``Function``: it is also the ``ctx`` its forward and backward see."""

    def save_for_backward(self, *tensors):
        self.save(*tensors)

    @property
    def saved_tensors(self):
        return self.saved

    def backward(self, grad):
        grads = self.function.backward(self, Tensor(grad))
        grads = grads if isinstance(grads, tuple) else (grads,)
        return tuple(None if g is None else as_tensor(g).array for g in grads)


class Function:
    """Subclass it with ``forward(ctx, *args)`` and ``backward(ctx, grad)`` (both
    static methods) and call ``YourFunction.apply(*args)``, as in PyTorch."""

    def __init_subclass__(cls):
        cls.node_class = type(cls.__name__ + "Backward", (BackwardFunction,), {"function": cls})

    @classmethod
    def apply(cls, *args):
        ctx = cls.node_class(tuple(
            gradient_edge(a) if isinstance(a, Tensor) else (None, 0) for a in args))
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            out = cls.forward(ctx, *args)
        if any(a is out for a in args):
            out = Tensor(out.array)  # an input returned as it is: a new tensor over it
        if GradMode.enabled and any(ctx.needs_input_grad):
            out.grad_fn = ctx
        return out


__all__ = public_names(globals())
