"""Elementwise math: exp, log, sqrt, sin, cos and abs, each one block (node, then function).

Each derivative is written in what its node saves: the input (``log' = 1/x``) or the
output (``exp' = exp(x)``, ``sqrt' = 1/(2 sqrt(x))``), whichever PyTorch saves.
"""

import numpy as np

from ..core.node import Node
from .declare import op
from .elementwise import INPUT, OUTPUT, unary


class ExpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad * result,)


@op(ExpBackward0, inplace=True)
def exp(input):
    """``e`` to the power of each element."""
    return unary("exp", ExpBackward0, input, np.exp, saves=OUTPUT)


class LogBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad / x,)


@op(LogBackward0)
def log(input):
    """The natural logarithm of each element (``nan`` below 0, ``-inf`` at 0)."""
    return unary("log", LogBackward0, input, np.log, saves=INPUT, quiet=True)


class SqrtBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad / (2 * result),)


@op(SqrtBackward0)
def sqrt(input):
    """The square root of each element (``nan`` below 0)."""
    return unary("sqrt", SqrtBackward0, input, np.sqrt, saves=OUTPUT, quiet=True)


class SinBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * x.cos(),)


@op(SinBackward0)
def sin(input):
    """The sine of each element (in radians)."""
    return unary("sin", SinBackward0, input, np.sin, saves=INPUT)


class CosBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * -x.sin(),)


@op(CosBackward0)
def cos(input):
    """The cosine of each element (in radians)."""
    return unary("cos", CosBackward0, input, np.cos, saves=INPUT)


class AbsBackward0(Node):
    """d|x|/dx = sign(x): +1, -1, and 0 at x = 0 (a subgradient; chapter 06)."""

    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * x.sign(),)


@op(AbsBackward0, operator="abs", inplace=True)
def abs(input):
    """The absolute value of each element (integers stay integers)."""
    return unary("abs", AbsBackward0, input, np.abs, saves=INPUT, integers=True)
