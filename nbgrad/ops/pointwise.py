"""Elementwise math of one tensor, each one block (node, then function): exp, log, sqrt
and their relatives (log1p, expm1, log2, log10, exp2, rsqrt), the trigonometric and
hyperbolic functions and their inverses, abs, frac, nan_to_num and logit.

Each derivative is written in what its node saves: the input (``log' = 1/x``) or the
output (``exp' = exp(x)``, ``sqrt' = 1/(2 sqrt(x))``), whichever PyTorch saves. An integer
tensor is computed in the default float dtype, as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import inplace_docstring, op
from .elementwise import INPUT, OUTPUT, check_dtype, unary
from .inplace import apply_inplace
from .methods import tensor_method
from .operands import floating, tensor_operand


class ExpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad * result,)

    def fast_apply(self, grad):
        (result,) = self.saved_values
        try:
            return (Tensor._make(grad._data * result._data),)
        except ValueError:  # shapes that do not broadcast (node.py: fast_apply)
            return self.apply(grad)


@op(ExpBackward0, inplace=True)
def exp(input: Tensor) -> Tensor:
    """``e`` to the power of each element.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Floating point: an integer input gives the default float dtype.
    """
    return unary("exp", ExpBackward0, input, np.exp, saves=OUTPUT)


class LogBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad / x,)

    def fast_apply(self, grad):
        (x,) = self.saved_values
        try:
            return (Tensor._make(grad._data / x._data),)
        except ValueError:  # shapes that do not broadcast (node.py: fast_apply)
            return self.apply(grad)


@op(LogBackward0, inplace=True)
def log(input: Tensor) -> Tensor:
    """The natural logarithm of each element (``nan`` below 0, ``-inf`` at 0).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Floating point: an integer input gives the default float dtype.
    """
    return unary("log", LogBackward0, input, np.log, saves=INPUT, quiet=True)


class SqrtBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad / (2 * result),)


@op(SqrtBackward0, inplace=True)
def sqrt(input: Tensor) -> Tensor:
    """The square root of each element (``nan`` below 0).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Floating point: an integer input gives the default float dtype.
    """
    return unary("sqrt", SqrtBackward0, input, np.sqrt, saves=OUTPUT, quiet=True)


class SinBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * x.cos(),)


@op(SinBackward0, inplace=True)
def sin(input: Tensor) -> Tensor:
    """The sine of each element (in radians).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Floating point: an integer input gives the default float dtype.
    """
    return unary("sin", SinBackward0, input, np.sin, saves=INPUT)


class CosBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * -x.sin(),)


@op(CosBackward0, inplace=True)
def cos(input: Tensor) -> Tensor:
    """The cosine of each element (in radians).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Floating point: an integer input gives the default float dtype.
    """
    return unary("cos", CosBackward0, input, np.cos, saves=INPUT)


class AbsBackward0(Node):
    """d|x|/dx = sign(x): +1, -1, and 0 at x = 0 (a subgradient; chapter 06)."""

    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * x.sign(),)


@op(AbsBackward0, operator="abs", inplace=True)
def abs(input: Tensor) -> Tensor:
    """The absolute value of each element.

    Its gradient is ``sign(x)``: 0 at ``x = 0``, a subgradient (chapter 06).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Of ``input``'s dtype: integers stay integers.
    """
    return unary("abs", AbsBackward0, input, np.abs, saves=INPUT, integers=True)


# -- relatives of exp and log ---------------------------------------------------------
class Log1PBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad / (x + 1),)


@op(Log1PBackward0, inplace=True)
def log1p(input: Tensor) -> Tensor:
    """``log(1 + x)`` of each element, accurate for small ``x``.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Floating point (an integer input gives the default float dtype); ``nan`` below -1.
    """
    return unary("log1p", Log1PBackward0, input, np.log1p, saves=INPUT, quiet=True)


class Expm1Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad * (result + 1),)


@op(Expm1Backward0, inplace=True)
def expm1(input: Tensor) -> Tensor:
    """``exp(x) - 1`` of each element, accurate for small ``x``.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("expm1", Expm1Backward0, input, np.expm1, saves=OUTPUT, quiet=True)


class Log2Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad / (x * math.log(2.0)),)


@op(Log2Backward0, inplace=True)
def log2(input: Tensor) -> Tensor:
    """The base-2 logarithm of each element (``nan`` below 0, ``-inf`` at 0).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("log2", Log2Backward0, input, np.log2, saves=INPUT, quiet=True)


class Log10Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad / (x * math.log(10.0)),)


@op(Log10Backward0, inplace=True)
def log10(input: Tensor) -> Tensor:
    """The base-10 logarithm of each element (``nan`` below 0, ``-inf`` at 0).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("log10", Log10Backward0, input, np.log10, saves=INPUT, quiet=True)


class Exp2Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad * result * math.log(2.0),)


@op(Exp2Backward0, inplace=True)
def exp2(input: Tensor) -> Tensor:
    """``2`` to the power of each element.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("exp2", Exp2Backward0, input, np.exp2, saves=OUTPUT, quiet=True)


class RsqrtBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad * result ** 3 * -0.5,)


def _rsqrt(data):
    return 1 / np.sqrt(data)


@op(RsqrtBackward0, inplace=True)
def rsqrt(input: Tensor) -> Tensor:
    """``1 / sqrt(x)`` of each element (``inf`` at 0, ``nan`` below).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("rsqrt", RsqrtBackward0, input, _rsqrt, saves=OUTPUT, quiet=True)


# -- asinh_, acosh_, atanh_: in place, PyTorch gives them no derivative ----------------------
class InplaceWithoutDerivative(Node):
    """The node of an in-place op PyTorch defines no derivative for: backward raises."""

    __slots__ = ()
    op: str | None = None  # each subclass names its op

    def apply(self, grad):
        raise NotImplementedError(f"the derivative for 'inplace version of {self.op}' is not "
                                  "implemented.")


def _inplace_without_derivative(documented, compute, node_cls):
    """``Tensor.<name>_`` of the function ``documented``: computes as it does, and records
    ``node_cls``, which raises in backward (PyTorch's ``asinh_`` records AsinhBackward1,
    which does)."""
    name = documented.__name__

    def function(input):
        return unary(name, node_cls, input, compute, saves=None, quiet=True)

    function.__name__ = name

    @tensor_method(name + "_")
    def method(self: Tensor) -> Tensor:
        return apply_inplace(self, function)

    method.__doc__ = inplace_docstring(documented) + (
        "\n\nNotes\n-----\nAs in PyTorch, backward through it raises: its node, "
        f"``{node_cls.__name__}``, has no derivative.")
    return method


# -- trigonometric and hyperbolic functions, and their inverses --------------------------
class TanBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad * (result * result + 1),)


@op(TanBackward0, inplace=True)
def tan(input: Tensor) -> Tensor:
    """The tangent of each element (in radians).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("tan", TanBackward0, input, np.tan, saves=OUTPUT)


class AsinBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * (1 - x * x).rsqrt(),)


@op(AsinBackward0, aliases=("arcsin",), inplace=True)
def asin(input: Tensor) -> Tensor:
    """The inverse sine of each element, in ``[-pi/2, pi/2]`` (``nan`` outside ``[-1, 1]``).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("asin", AsinBackward0, input, np.arcsin, saves=INPUT, quiet=True)


class AcosBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (-grad * (1 - x * x).rsqrt(),)


@op(AcosBackward0, aliases=("arccos",), inplace=True)
def acos(input: Tensor) -> Tensor:
    """The inverse cosine of each element, in ``[0, pi]`` (``nan`` outside ``[-1, 1]``).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("acos", AcosBackward0, input, np.arccos, saves=INPUT, quiet=True)


class AtanBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad / (x * x + 1),)


@op(AtanBackward0, aliases=("arctan",), inplace=True)
def atan(input: Tensor) -> Tensor:
    """The inverse tangent of each element, in ``(-pi/2, pi/2)``.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("atan", AtanBackward0, input, np.arctan, saves=INPUT)


class SinhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * x.cosh(),)


@op(SinhBackward0, inplace=True)
def sinh(input: Tensor) -> Tensor:
    """The hyperbolic sine of each element.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("sinh", SinhBackward0, input, np.sinh, saves=INPUT, quiet=True)


class CoshBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * x.sinh(),)


@op(CoshBackward0, inplace=True)
def cosh(input: Tensor) -> Tensor:
    """The hyperbolic cosine of each element.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("cosh", CoshBackward0, input, np.cosh, saves=INPUT, quiet=True)


class AsinhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * (x * x + 1).rsqrt(),)


class AsinhBackward1(InplaceWithoutDerivative):
    __slots__ = ()
    op = "asinh"


@op(AsinhBackward0, AsinhBackward1, aliases=("arcsinh",))
def asinh(input: Tensor) -> Tensor:
    """The inverse hyperbolic sine of each element.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("asinh", AsinhBackward0, input, np.arcsinh, saves=INPUT)


asinh_ = _inplace_without_derivative(asinh, np.arcsinh, AsinhBackward1)


class AcoshBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * (x * x - 1).rsqrt(),)


class AcoshBackward1(InplaceWithoutDerivative):
    __slots__ = ()
    op = "acosh"


@op(AcoshBackward0, AcoshBackward1, aliases=("arccosh",))
def acosh(input: Tensor) -> Tensor:
    """The inverse hyperbolic cosine of each element (``nan`` below 1).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("acosh", AcoshBackward0, input, np.arccosh, saves=INPUT, quiet=True)


acosh_ = _inplace_without_derivative(acosh, np.arccosh, AcoshBackward1)


class AtanhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad / (1 - x * x),)


class AtanhBackward1(InplaceWithoutDerivative):
    __slots__ = ()
    op = "atanh"


@op(AtanhBackward0, AtanhBackward1, aliases=("arctanh",))
def atanh(input: Tensor) -> Tensor:
    """The inverse hyperbolic tangent of each element (``±inf`` at ±1, ``nan`` beyond).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return unary("atanh", AtanhBackward0, input, np.arctanh, saves=INPUT, quiet=True)


atanh_ = _inplace_without_derivative(atanh, np.arctanh, AtanhBackward1)


# -- parts and repairs ------------------------------------------------------------------
class FracBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad,)


def _frac(data):
    return data - np.trunc(data)


@op(FracBackward0, inplace=True)
def frac(input: Tensor) -> Tensor:
    """The fractional part of each element, with its sign: ``x - trunc(x)``.

    Parameters
    ----------
    input : Tensor
        Floating point (PyTorch has no integer kernel).

    Returns
    -------
    Tensor
    """
    check_dtype("frac", tensor_operand(input, "frac")._data.dtype)
    return unary("frac", FracBackward0, input, _frac, saves=None, quiet=True)


class NanToNumBackward0(Node):
    """The gradient passes where the input was finite, and is 0 where it was replaced."""

    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * x.isfinite(),)


@op(NanToNumBackward0, inplace=True)
def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf``.

    Parameters
    ----------
    input : Tensor
    nan : float
        What NaN becomes (0 by default).
    posinf, neginf : float, optional
        What ±inf become; by default the largest and smallest finite value of the dtype.

    Returns
    -------
    Tensor
        The input's dtype; an integer or bool tensor is copied unchanged, as in PyTorch.
    """
    x = tensor_operand(input, "nan_to_num")
    data = x._data
    if data.dtype.kind != "f":
        return Tensor._make(data.copy())
    xp = array_module(data)
    info = np.finfo(data.dtype)
    out = Tensor._make(xp.nan_to_num(data, nan=nan, posinf=info.max if posinf is None else posinf,
                                     neginf=info.min if neginf is None else neginf))
    if should_record(x):
        record(NanToNumBackward0, out, (x,), saved=(x,))
    return out


class LogitBackward0(Node):
    """``grad / (x (1 - x))``; NaN outside ``[0, 1]`` without ``eps``, and 0 outside
    ``[eps, 1 - eps]`` with it (where the forward clamped), as PyTorch."""

    __slots__ = ("eps",)

    def apply(self, grad):
        (x,) = self.saved_values
        # x (1 - x) >= 0 wherever the result is kept: abs() only turns -0.0 into 0.0, so
        # that the gradient at x = -0.0 is +inf, as PyTorch's
        derivative = grad / (x * (1 - x)).abs()
        if self.eps is None:
            return (derivative.masked_fill((x < 0) | (x > 1), math.nan),)
        return (derivative.masked_fill((x < self.eps) | (x > 1 - self.eps), 0.0),)


@op(LogitBackward0, inplace=True)
def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """The log-odds ``log(p / (1 - p))`` of each element, the inverse of ``sigmoid``.

    Parameters
    ----------
    input : Tensor
        Probabilities; an integer tensor is computed in the default float dtype.
    eps : float, optional
        Clamp the input to ``[eps, 1 - eps]`` first; ``None`` (or a negative ``eps``, as
        in PyTorch) clamps nothing, and values outside ``[0, 1]`` give NaN.

    Returns
    -------
    Tensor
        Floating point; ``-inf`` at 0 and ``inf`` at 1 without ``eps``.
    """
    x = tensor_operand(input, "logit")
    if eps is not None and (isinstance(eps, (bool, str)) or not isinstance(eps, (int, float))):
        raise TypeError(f"logit(): argument 'eps' (position 2) must be float, not {type(eps).__name__}")
    if eps is not None and eps < 0:
        eps = None
    data = floating(x._data)
    xp = array_module(data)
    if eps is not None:  # PyTorch's clamp: to eps below, else to 1 - eps above (eps > 0.5 too)
        data = xp.where(data < eps, eps, xp.where(data > 1 - eps, 1 - eps, data))
        data = data.astype(x._data.dtype if x._data.dtype.kind == "f" else data.dtype, copy=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = Tensor._make(xp.log(data / (1 - data)).astype(data.dtype, copy=False))
    if should_record(x):
        record(LogitBackward0, out, (x,), saved=(x,), eps=None if eps is None else float(eps))
    return out
