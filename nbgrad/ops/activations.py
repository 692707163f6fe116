"""Activation functions and the softmax family, each with its derivative.

Every derivative here is written in terms of the *output*, which is what the node saves:
``relu' = (y > 0)``, ``sigmoid' = y (1 - y)``, ``tanh' = 1 - y^2``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import math
import warnings

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from . import selection
from .declare import op
from .elementwise import OUTPUT, NotImplementedBackward, unary
from .inplace import apply_inplace
from .operands import tensor_operand, zeros_like
from .reductions import numpy_spelling, peak

if TYPE_CHECKING:
    from ..dtypes import dtype


class ReluBackward0(Node):
    """The gradient passes where the output is positive; at x = 0 it is 0 (chapter 06)."""

    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (threshold_backward(grad, result),)


@op(ReluBackward0, inplace=True)
def relu(input: Tensor) -> Tensor:
    """``max(x, 0)`` of each element; its gradient at 0 is 0 (chapter 06).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Of ``input``'s dtype: integers stay integers.
    """
    return unary("relu", ReluBackward0, input, _relu, saves=OUTPUT, integers=True)


def _relu(data):
    return np.maximum(data, 0)


class ThresholdBackwardBackward0(Node):
    """Differentiating relu's backward again: grad passes through the same mask; with
    respect to the output the derivative is zero (but, as in PyTorch, it is in the graph)."""

    __slots__ = ()

    def apply(self, grad):
        (mask,) = self.saved_values
        grad_fn, result_fn = self._next_nodes
        return (threshold_backward(grad, mask) if grad_fn is not None else None,
                zeros_like(grad) if result_fn is not None else None)


def threshold_backward(grad, result):
    """0 where ``result <= 0``, else ``grad``: relu's backward as one operation.

    It *selects*, as PyTorch does, rather than multiplying by a mask: an ``inf`` gradient
    where the output is 0 gives 0, not ``inf * 0 = nan``; and a NaN output, which is not
    ``<= 0``, lets the gradient through.
    """
    mask = ~(result._data <= 0)
    out = Tensor._make(_select(mask, grad._data))
    if should_record(grad, result):
        record(ThresholdBackwardBackward0, out, (grad, result), saved=(Tensor._make(mask),))
    return out


def _select(mask, values):
    """``where(mask, values, 0)`` as a bitwise and of ``values`` with all-ones or all-zeros
    words: the same bits (an ``inf`` or NaN outside the mask gives 0), without the branch
    per element that makes ``where`` on a random mask about 9x slower."""
    if values.dtype.kind != "f" or values.shape != mask.shape:
        return array_module(mask).where(mask, values, 0)
    words = np.dtype(f"u{values.dtype.itemsize}")
    return (values.view(words) & -mask.astype(words)).view(values.dtype)


class SigmoidBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad * result * (1 - result),)

    def fast_apply(self, grad):
        (result,) = self.saved_values
        y = result._data
        try:
            return (Tensor._make(grad._data * y * (1 - y)),)
        except ValueError:  # shapes that do not broadcast (node.py: fast_apply)
            return self.apply(grad)


def _sigmoid(data):
    xp = array_module(data)
    # exp of a negative number only: no overflow warning for large |x|
    e = xp.exp(-xp.abs(data))
    return xp.where(data >= 0, 1 / (1 + e), e / (1 + e)).astype(data.dtype, copy=False)


@op(SigmoidBackward0, inplace=True, functional=True, layer="Sigmoid")
def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-x))`` of each element.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Floating point: an integer input gives the default float dtype.
    """
    return unary("sigmoid", SigmoidBackward0, input, _sigmoid, saves=OUTPUT)


class TanhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad * (1 - result * result),)

    def fast_apply(self, grad):
        (result,) = self.saved_values
        y = result._data
        try:
            return (Tensor._make(grad._data * (1 - y * y)),)
        except ValueError:  # shapes that do not broadcast (node.py: fast_apply)
            return self.apply(grad)


@op(TanhBackward0, inplace=True, functional=True, layer="Tanh")
def tanh(input: Tensor) -> Tensor:
    """The hyperbolic tangent of each element.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        Floating point: an integer input gives the default float dtype.
    """
    return unary("tanh", TanhBackward0, input, np.tanh, saves=OUTPUT)


def _softmax_dim(name, ndim, dim):
    if dim is None:
        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change the call to "
            "include dim=X as an argument.",
            UserWarning,
            stacklevel=3,
        )
        return 0 if ndim in (0, 1, 3) else 1
    return dtypes.dim_index(dim, ndim)


def _prepare(name, input, dim, dtype):
    """The input (converted to ``dtype``), its dim, the NumPy axis, and the input shifted by
    its maximum along it (so that ``exp`` cannot overflow)."""
    x = tensor_operand(input, name)
    dim = _softmax_dim(name, x._data.ndim, dim)
    if dtype is not None:
        x = x.to(dtype)
    elif x._data.dtype.kind != "f":  # PyTorch has no integer kernel (with dtype= it converts)
        kernel = "lastdim_kernel_impl" if dim == x._data.ndim - 1 else "kernel_impl"
        raise NotImplementedError(f'"{name}_{kernel}" not implemented for '
                                  f"'{dtypes.scalar_type_name(x._data.dtype)}'")
    data = x._data
    axis = dim if data.ndim else None
    return x, dim, axis, data - peak(data, axis)


class SoftmaxBackward0(Node):
    __slots__ = ("dim",)

    def apply(self, grad):
        (result,) = self.saved_values
        return (result * (grad - (grad * result).sum(self.dim, keepdim=True)),)


@op(SoftmaxBackward0)
def softmax(input: Tensor, dim: int | None = None, dtype: dtype | None = None, *,
            axis: int | None = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``: each slice becomes a probability distribution.

    Parameters
    ----------
    input : Tensor
        Floating point, unless ``dtype`` is given (PyTorch has no integer kernel).
    dim : int, optional
        The dimension normalised. Without it, PyTorch's deprecated implicit choice (dim 0
        for 0-, 1- and 3-d inputs, else 1), with its warning.
    dtype : nbgrad.dtype, optional
        Convert ``input`` to it first.
    axis : int, optional
        NumPy's spelling of ``dim`` (not both spellings at once).

    Returns
    -------
    Tensor
    """
    if axis is not None:
        dim, _ = numpy_spelling("softmax", dim, axis)
    x, dim, axis, shifted = _prepare("softmax", input, dim, dtype)
    shifted = np.exp(shifted)
    out = Tensor._make(shifted / shifted.sum(axis=axis, keepdims=True))
    if should_record(x):
        record(SoftmaxBackward0, out, (x,), saved=(OUTPUT,), dim=dim)
    return out


class LogSoftmaxBackward0(Node):
    __slots__ = ("dim",)

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad - result.exp() * grad.sum(self.dim, keepdim=True),)

    def fast_apply(self, grad):
        # The same formula on the arrays, for a backward that builds no graph: the last
        # operation of a classifier runs once per step, and on small batches the tensor
        # operations' bookkeeping would cost more than the arithmetic.
        (result,) = self.saved_values
        g, y = grad._data, result._data
        axis = self.dim if y.ndim else None
        return (Tensor._make(g - array_module(y).exp(y) * g.sum(axis, keepdims=True)),)


@op(LogSoftmaxBackward0)
def log_softmax(input: Tensor, dim: int | None = None, dtype: dtype | None = None, *,
                axis: int | None = None) -> Tensor:
    """``log(softmax(x))`` along ``dim``, computed without forming the softmax.

    Parameters
    ----------
    input : Tensor
        Floating point, unless ``dtype`` is given (PyTorch has no integer kernel).
    dim : int, optional
        The dimension normalised. Without it, PyTorch's deprecated implicit choice (dim 0
        for 0-, 1- and 3-d inputs, else 1), with its warning.
    dtype : nbgrad.dtype, optional
        Convert ``input`` to it first.
    axis : int, optional
        NumPy's spelling of ``dim`` (not both spellings at once).

    Returns
    -------
    Tensor
    """
    if axis is not None:
        dim, _ = numpy_spelling("log_softmax", dim, axis)
    x, dim, axis, shifted = _prepare("log_softmax", input, dim, dtype)
    if shifted.size:  # (over no elements, the log of an empty sum would warn)
        shifted = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    out = Tensor._make(shifted)
    if should_record(x):
        record(LogSoftmaxBackward0, out, (x,), saved=(OUTPUT,), dim=dim)
    return out


# -- the activations of nn.functional ------------------------------------------------------
# Each is one node, as in PyTorch, whose derivative is written with nbgrad's differentiable
# operations in what the node saves (the input), so that it can be differentiated again.
# They are functions of ``nn.functional`` only (PyTorch has no ``Tensor.gelu``); ``inplace=``
# runs the same operation through ``apply_inplace``.
def _activation(name, kernel, node_cls, input, compute, inplace=False, integers=False, **params):
    """``name(input, **params)``: ``compute(array)``, recording ``node_cls`` that saves the
    input and ``params``. ``kernel`` names PyTorch's kernel in the error for an integer input
    (unless ``integers``: ``threshold`` and ``hardtanh`` keep integers)."""
    if inplace:
        def out_of_place(t):
            return _activation(name, kernel, node_cls, t, compute, integers=integers, **params)
        out_of_place.__name__ = name
        return apply_inplace(input, out_of_place)
    x = tensor_operand(input, name)
    data = x._data
    if data.dtype.kind != "f" and not integers:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(data.dtype)}'")
    out = Tensor._make(compute(data))
    if should_record(x):
        record(node_cls, out, (x,), saved=(x,), **params)
    return out


class PiecewiseLinearBackwardBackward(Node):
    """Differentiating the backward of a piecewise-linear activation again: it is linear in
    the incoming gradient, and its derivative in the input is zero (between kinks the slope
    is constant), though, as in PyTorch, the input is in the graph."""

    __slots__ = ("inside", "mask", "outside")

    def apply(self, grad):
        grad_fn, input_fn = self._next_nodes
        return (piecewise_backward(grad, None, self.mask, self.inside, self.outside)
                if grad_fn is not None else None,
                zeros_like(grad) if input_fn is not None else None)


def piecewise_backward(grad, x, mask, inside=1.0, outside=0.0,
                       node_cls=PiecewiseLinearBackwardBackward, **attributes):
    """``grad * inside`` where ``mask``, else ``grad * outside``, recorded as a function of
    ``grad`` and the input ``x`` (``node_cls`` with ``attributes``, when not the default).
    It selects (``where``) rather than multiplying by a 0/1
    mask, as PyTorch does: an ``inf`` gradient where the slope is 0 gives 0, not NaN."""
    g = grad._data
    xp = array_module(g)
    out = Tensor._make(xp.where(mask, g * inside if inside != 1 else g,
                                g * outside if outside else 0).astype(g.dtype, copy=False))
    if should_record(grad, x):
        record(node_cls, out, (grad, x),
               **(attributes or {"mask": mask, "inside": inside, "outside": outside}))
    return out


class LeakyReluBackward0(Node):
    __slots__ = ("negative_slope",)

    def apply(self, grad):
        (x,) = self.saved_values
        return (piecewise_backward(grad, x, x._data > 0, 1.0, self.negative_slope),)


@op(LeakyReluBackward0, export=False, method=False, functional=True)
def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where positive, else ``negative_slope * x``.

    Parameters
    ----------
    input : Tensor
    negative_slope : float
        The slope for negative inputs (0.01).
    inplace : bool
        Overwrite ``input`` (PyTorch's ``leaky_relu_``).

    Returns
    -------
    Tensor
        The result; its gradient at 0 is ``negative_slope``, as in PyTorch.
    """
    def compute(data):
        return array_module(data).where(data > 0, data, data * negative_slope)
    return _activation("leaky_relu", "leaky_relu_cpu", LeakyReluBackward0, input, compute,
                       inplace, negative_slope=negative_slope)


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_CUBIC = 0.044715


def _erf(data):
    """The error function of an array: SciPy's (or CuPy's) kernel when installed, else
    Python's ``math.erf`` element by element (NumPy has none)."""
    xp = array_module(data)
    try:
        if xp is np:
            from scipy.special import erf
        else:
            from cupyx.scipy.special import erf
    except ImportError:
        return np.vectorize(math.erf, otypes=[data.dtype])(data)
    return erf(data).astype(data.dtype, copy=False)


class NormalCdfBackward(Node):
    """The derivative of the standard normal CDF is its density (an internal step of
    ``gelu``'s derivative, so that ``gelu`` can be differentiated twice)."""

    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * _normal_pdf(x),)


def _normal_cdf(x):
    data = x._data
    out = Tensor._make(0.5 * (1 + _erf(data * (1 / math.sqrt(2)))))
    if should_record(x):
        record(NormalCdfBackward, out, (x,), saved=(x,))
    return out


def _normal_pdf(x):
    return (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))


class GeluBackward0(Node):
    __slots__ = ("approximate",)

    def apply(self, grad):
        (x,) = self.saved_values
        if self.approximate == "none":
            return (grad * (_normal_cdf(x) + x * _normal_pdf(x)),)
        t = ((x + _GELU_CUBIC * x * x * x) * _SQRT_2_OVER_PI).tanh()
        slope = _SQRT_2_OVER_PI * (1 + 3 * _GELU_CUBIC * x * x)
        return (grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * slope),)


@op(GeluBackward0, export=False, method=False, functional=True)
def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Phi(x)``, ``Phi`` the standard normal CDF.

    Parameters
    ----------
    input : Tensor
    approximate : str
        ``'none'`` (exact, with ``erf``) or ``'tanh'``:
        ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.

    Returns
    -------
    Tensor
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")

    def compute(data):
        xp = array_module(data)
        if approximate == "tanh":
            inner = (data + _GELU_CUBIC * data * data * data) * _SQRT_2_OVER_PI
            return 0.5 * data * (1 + xp.tanh(inner))
        return 0.5 * data * (1 + _erf(data * (1 / math.sqrt(2))))
    return _activation("gelu", "GeluKernelImpl", GeluBackward0, input, compute,
                       approximate=approximate)


class EluBackward0(Node):
    """``scale * x`` for ``x > 0``, else ``scale * alpha * (exp(input_scale * x) - 1)``."""

    __slots__ = ("alpha", "input_scale", "scale")

    def apply(self, grad):
        (x,) = self.saved_values
        negative = (x * self.input_scale).exp() * (self.input_scale * self.scale * self.alpha)
        return (selection.where(x > 0, grad * self.scale, grad * negative),)


def _elu(name, node_cls, input, alpha, scale, input_scale, inplace):
    def compute(data):
        xp = array_module(data)
        # expm1 of the non-positive part only: no overflow warning for large x
        negative = xp.expm1(xp.minimum(data, 0) * input_scale) * (scale * alpha)
        return xp.where(data > 0, data * scale, negative).astype(data.dtype, copy=False)
    return _activation(name, "elu_cpu", node_cls, input, compute, inplace, alpha=alpha,
                       scale=scale, input_scale=input_scale)


@op(EluBackward0, export=False, method=False, functional=True)
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where positive, else ``alpha * (exp(x) - 1)``.

    Parameters
    ----------
    input : Tensor
    alpha : float
        The value approached for large negative ``x`` is ``-alpha``.
    inplace : bool
        Overwrite ``input`` (``elu_``).

    Returns
    -------
    Tensor
    """
    return _elu("elu", EluBackward0, input, alpha, 1.0, 1.0, inplace)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@op(export=True, method=False, functional=True)  # records elu's node
def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants of Klambauer et al.
    (``alpha = 1.6733``, ``scale = 1.0507``); recorded as ``EluBackward0``, as in PyTorch.

    Parameters
    ----------
    input : Tensor
    inplace : bool
        Overwrite ``input``.

    Returns
    -------
    Tensor
    """
    return _elu("selu", EluBackward0, input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace)


class CeluBackward0(EluBackward0):
    """``celu`` is ``elu`` with ``input_scale = 1 / alpha`` (PyTorch names its node apart)."""

    __slots__ = ()


@op(CeluBackward0, export=True, method=False, functional=True)
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Parameters
    ----------
    input : Tensor
    alpha : float
        Must not be 0 (PyTorch's error).
    inplace : bool
        Overwrite ``input``.

    Returns
    -------
    Tensor
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu("celu", CeluBackward0, input, alpha, 1.0, 1.0 / alpha, inplace)


class SiluBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        s = x.sigmoid()
        return (grad * s * (1 + x * (1 - s)),)


@op(SiluBackward0, export=False, method=False, functional=True)
def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (also called swish).

    Parameters
    ----------
    input : Tensor
    inplace : bool
        Overwrite ``input``.

    Returns
    -------
    Tensor
    """
    return _activation("silu", "silu_cpu", SiluBackward0, input,
                       lambda data: data * _sigmoid(data), inplace)


def _softplus_array(data, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``."""
    xp = array_module(data)
    scaled = data * beta
    smooth = xp.log1p(xp.exp(xp.minimum(scaled, threshold))) / beta  # no overflow warning
    return xp.where(scaled > threshold, data, smooth).astype(data.dtype, copy=False)


class MishBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        t = softplus(x).tanh()
        return (grad * (t + x * x.sigmoid() * (1 - t * t)),)


@op(MishBackward0, export=False, method=False, functional=True)
def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``.

    Parameters
    ----------
    input : Tensor
    inplace : bool
        Overwrite ``input``.

    Returns
    -------
    Tensor
    """
    return _activation("mish", "mish_cpu", MishBackward0, input,
                       lambda data: data * array_module(data).tanh(_softplus_array(data)), inplace)


class SoftplusBackward0(Node):
    __slots__ = ("beta", "threshold")

    def apply(self, grad):
        (x,) = self.saved_values
        scaled = x * self.beta
        return (selection.where(scaled > self.threshold, grad, grad * scaled.sigmoid()),)


@op(SoftplusBackward0, export=False, method=False, functional=True)
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, a smooth ``relu``.

    Parameters
    ----------
    input : Tensor
    beta : float
    threshold : float
        Where ``beta * x > threshold`` the result is ``x`` itself (as in PyTorch, for
        numerical stability; the gradient there is 1).

    Returns
    -------
    Tensor
    """
    return _activation("softplus", "softplus_cpu", SoftplusBackward0, input,
                       lambda data: _softplus_array(data, beta, threshold),
                       beta=beta, threshold=threshold)


class HardtanhBackward0(Node):
    __slots__ = ("max_val", "min_val")

    def apply(self, grad):
        (x,) = self.saved_values
        data = x._data
        return (piecewise_backward(grad, x, (data > self.min_val) & (data < self.max_val)),)


@op(HardtanhBackward0, export=False, method=False, functional=True)
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """``x`` clamped to ``[min_val, max_val]``; the gradient is 0 outside the open interval.

    Parameters
    ----------
    input : Tensor
        Integer tensors stay integers (as in PyTorch).
    min_val, max_val : float
    inplace : bool
        Overwrite ``input`` (``hardtanh_``).

    Returns
    -------
    Tensor
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")

    def compute(data):
        xp = array_module(data)
        return xp.clip(data, min_val, max_val).astype(data.dtype, copy=False)
    return _activation("hardtanh", "hardtanh_cpu", HardtanhBackward0, input, compute, inplace,
                       integers=True, min_val=min_val, max_val=max_val)


@op(export=False, method=False, functional=True)  # records hardtanh's node
def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``: ``hardtanh(x, 0, 6)``, recorded as ``HardtanhBackward0``.

    Parameters
    ----------
    input : Tensor
    inplace : bool
        Overwrite ``input``.

    Returns
    -------
    Tensor
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def _hardsigmoid(data):
    return array_module(data).clip(data / 6 + 0.5, 0, 1).astype(data.dtype, copy=False)


def _hardswish(data):
    return (data * array_module(data).clip(data + 3, 0, 6) / 6).astype(data.dtype, copy=False)


_ONE_SIXTH = float(np.float32(1 / 6))


class HardsigmoidBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        data = x._data
        # PyTorch has no derivative of this backward: differentiating it again raises
        # (1/6 in single precision, as PyTorch's CPU kernel has it, also for float64)
        return (piecewise_backward(grad, x, (data > -3) & (data < 3), _ONE_SIXTH,
                                   node_cls=NotImplementedBackward, op="hardsigmoid_backward"),)


@op(HardsigmoidBackward0, export=False, method=False, functional=True)
def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``x / 6 + 1/2`` clamped to ``[0, 1]``.

    Parameters
    ----------
    input : Tensor
    inplace : bool
        Overwrite ``input``.

    Returns
    -------
    Tensor
    """
    return _activation("hardsigmoid", "hardsigmoid_cpu", HardsigmoidBackward0, input,
                       _hardsigmoid,
                       inplace)


class HardswishBackward0(Node):
    """PyTorch's formula: 0 up to -3, ``x / 3 + 1/2`` between, 1 from 3 on."""

    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        middle = selection.where(x < 3, grad * (x / 3 + 0.5), grad)
        return (selection.where(x <= -3, 0.0, middle),)


@op(HardswishBackward0, export=False, method=False, functional=True)
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``.

    Parameters
    ----------
    input : Tensor
    inplace : bool
        Overwrite ``input``.

    Returns
    -------
    Tensor
    """
    return _activation("hardswish", "hardswish_cpu", HardswishBackward0, input,
                       _hardswish,
                       inplace)


class LogSigmoidBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_values
        return (grad * (-x).sigmoid(),)


@op(LogSigmoidBackward0, export=False, method=False, functional=True)
def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, computed without overflow.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return _activation("logsigmoid", "log_sigmoid_cpu", LogSigmoidBackward0, input,
                       lambda data: -_softplus_array(-data))


class HardshrinkBackward0(Node):
    __slots__ = ("lambd",)

    def apply(self, grad):
        (x,) = self.saved_values
        return (piecewise_backward(grad, x, abs(x._data) > self.lambd),)


@op(HardshrinkBackward0, export=True, method=True, functional=True)
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, else 0.

    Parameters
    ----------
    input : Tensor
    lambd : float

    Returns
    -------
    Tensor
    """
    return _activation("hardshrink", "hardshrink_cpu", HardshrinkBackward0, input,
                       lambda data: array_module(data).where(abs(data) > lambd, data, 0)
                       .astype(data.dtype, copy=False),
                       lambd=lambd)


class SoftshrinkBackward0(HardshrinkBackward0):
    __slots__ = ()


@op(SoftshrinkBackward0, export=False, method=False, functional=True)
def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0.

    Parameters
    ----------
    input : Tensor
    lambd : float
        Must be at least 0 (PyTorch's error).

    Returns
    -------
    Tensor
    """
    def compute(data):
        if lambd < 0:
            raise RuntimeError(
                f"lambda must be in range [0, {float(np.finfo(data.dtype).max):g}] for input "
                f"dtype {dtypes.scalar_type_name(data.dtype)}, but found {lambd:g}")
        xp = array_module(data)
        return (xp.sign(data) * xp.maximum(abs(data) - lambd, 0)).astype(data.dtype, copy=False)
    return _activation("softshrink", "softshrink_check", SoftshrinkBackward0, input, compute,
                       lambd=lambd)


class ThresholdBackward0(Node):
    __slots__ = ("threshold",)

    def apply(self, grad):
        (x,) = self.saved_values
        return (piecewise_backward(grad, x, x._data > self.threshold),)


@op(ThresholdBackward0, export=True, method=False, functional=True)
def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``.

    Parameters
    ----------
    input : Tensor
        Integer tensors stay integers.
    threshold, value : float
    inplace : bool
        Overwrite ``input`` (``threshold_``).

    Returns
    -------
    Tensor
    """
    def compute(data):
        xp = array_module(data)
        return xp.where(data > threshold, data, value).astype(data.dtype, copy=False)
    return _activation("threshold", "threshold_cpu", ThresholdBackward0, input, compute,
                       inplace, integers=True, threshold=threshold)



class PreluKernelBackward0(Node):
    """``x`` where positive, else ``w x`` (``w`` broadcast along ``x``): the input's gradient
    is 1 or ``w``; the weight's is ``x`` where ``x`` is not positive, summed to its shape."""

    __slots__ = ()

    def apply(self, grad):
        x, weight = self.saved_values
        input_fn, weight_fn = self._next_nodes
        positive = x > 0
        grad_input = selection.where(positive, grad, grad * weight) if input_fn is not None else None
        grad_weight = None
        if weight_fn is not None:
            grad_weight = selection.where(positive, 0.0, grad * x).sum_to_size(weight.shape)
        return grad_input, grad_weight


@op(PreluKernelBackward0, functional=True)
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, else ``weight * x``, one learnt slope per channel (dim 1).

    Parameters
    ----------
    input : Tensor
    weight : Tensor
        A scalar or 1-D tensor: one slope for all, or one per channel of ``input``.

    Returns
    -------
    Tensor
        As in PyTorch, the weight is first reshaped (a view) to broadcast along ``input``'s
        channel dimension, then the kernel (``PreluKernelBackward0``) is recorded.
    """
    x = tensor_operand(input, "prelu")
    w = tensor_operand(weight, "prelu", 2, "weight")
    channels = x.shape[1] if x.dim() >= 2 else 1
    if w.numel() != 1 and w.numel() != channels:  # checked first, as PyTorch does
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {w.numel()} and channel size = {channels}.")
    if w.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {w.dim()}")
    if x._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"prelu_cpu\" not implemented for '{dtypes.scalar_type_name(x._data.dtype)}'")
    if w.dim() != x.dim():
        w = w.reshape([w.numel() if d == 1 else 1 for d in range(x.dim())])
    x_data, w_data = x._data, w._data
    out = Tensor._make(array_module(x_data).where(x_data > 0, x_data, x_data * w_data))
    if should_record(x, w):
        record(PreluKernelBackward0, out, (x, w), saved=(x, w))
    return out
