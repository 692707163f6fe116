"""The error function and its relatives: erf, erfc and erfinv, each one block.

NumPy has no error function. SciPy's (``cupyx.scipy.special`` for CuPy arrays) is used
where it is installed; without it, Python's ``math.erf``/``math.erfc`` element by element,
and ``erfinv`` by Newton's method on ``erf`` (nbgrad depends on NumPy alone).
"""

from __future__ import annotations

import math

import numpy as np

from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .elementwise import INPUT, unary

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _scipy_special(data):
    """SciPy's ``special`` module for ``data`` (CuPy's for a CuPy array), or None."""
    try:
        if array_module(data) is not np:
            from cupyx.scipy import special
        else:
            from scipy import special
    except ImportError:
        return None
    return special


def _elementwise(function, data):
    return np.vectorize(function, otypes=[data.dtype])(data) if data.size else data.copy()


def _erf(data):
    special = _scipy_special(data)
    return special.erf(data) if special is not None else _elementwise(math.erf, data)


def _erfc(data):
    special = _scipy_special(data)
    return special.erfc(data) if special is not None else _elementwise(math.erfc, data)


def _erfinv(data):
    special = _scipy_special(data)
    if special is not None:
        return special.erfinv(data)
    wide = data.astype(np.float64)
    inside = np.abs(wide) < 1
    # a start within a few percent (Winitzki's approximation), then Newton's steps on erf
    a = 0.147
    log_term = np.log1p(-np.where(inside, wide, 0) ** 2)
    first = 2 / (math.pi * a) + log_term / 2
    y = np.sign(wide) * np.sqrt(np.sqrt(first ** 2 - log_term / a) - first)
    for _ in range(4):
        y = y - (_elementwise(math.erf, y) - wide) / (_TWO_OVER_SQRT_PI * np.exp(-y * y))
    edge = np.where(np.abs(wide) == 1, np.sign(wide) * np.inf, np.nan)
    return np.where(inside, y, edge).astype(data.dtype)


class ErfBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * (-x * x).exp() * _TWO_OVER_SQRT_PI,)


@op(ErfBackward0, inplace=True)
def erf(input: Tensor) -> Tensor:
    """The error function ``2/sqrt(pi) * integral of exp(-t^2) from 0 to x``, element by element.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Floating point (an integer input gives the default float dtype).
    """
    return unary("erf", ErfBackward0, input, _erf, saves=INPUT)


class ErfcBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * (-x * x).exp() * -_TWO_OVER_SQRT_PI,)


@op(ErfcBackward0, inplace=True)
def erfc(input: Tensor) -> Tensor:
    """The complementary error function ``1 - erf(x)``, accurate where ``erf`` is near 1.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("erfc", ErfcBackward0, input, _erfc, saves=INPUT)


class ErfinvBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values  # the input, as PyTorch saves it: erfinv is computed again
        result = x.erfinv()
        return (grad * (result * result).exp() * (math.sqrt(math.pi) / 2),)


@op(ErfinvBackward0, inplace=True)
def erfinv(input: Tensor) -> Tensor:
    """The inverse of ``erf``: ``±inf`` at ±1 and ``nan`` outside ``[-1, 1]``, as in PyTorch.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("erfinv", ErfinvBackward0, input, _erfinv, saves=INPUT, quiet=True)
