"""Activation functions and the softmax family, each with its derivative.

Every derivative here is written in terms of the *output*, which is what the node saves:
``relu' = (y > 0)``, ``sigmoid' = y (1 - y)``, ``tanh' = 1 - y^2``.
"""

import warnings

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .elementwise import OUTPUT, unary
from .operands import tensor_operand, zeros_like
from .reductions import numpy_spelling, peak


class ReluBackward0(Node):
    """The gradient passes where the output is positive; at x = 0 it is 0 (chapter 06)."""

    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (threshold_backward(grad, result),)


@op(ReluBackward0, inplace=True)
def relu(input):
    """``max(x, 0)`` of each element; its gradient at 0 is 0 (chapter 06)."""
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


def _sigmoid(data):
    xp = array_module(data)
    # exp of a negative number only: no overflow warning for large |x|
    e = xp.exp(-xp.abs(data))
    return xp.where(data >= 0, 1 / (1 + e), e / (1 + e)).astype(data.dtype, copy=False)


@op(SigmoidBackward0, inplace=True, functional=True, layer="Sigmoid")
def sigmoid(input):
    """``1 / (1 + exp(-x))`` of each element."""
    return unary("sigmoid", SigmoidBackward0, input, _sigmoid, saves=OUTPUT)


class TanhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (result,) = self.saved_values
        return (grad * (1 - result * result),)


@op(TanhBackward0, inplace=True, functional=True, layer="Tanh")
def tanh(input):
    """The hyperbolic tangent of each element."""
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
def softmax(input, dim=None, dtype=None, *, axis=None):
    """``exp(x) / sum(exp(x))`` along ``dim``: each slice becomes a probability distribution
    (``axis=``: NumPy's spelling of ``dim=``)."""
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
def log_softmax(input, dim=None, dtype=None, *, axis=None):
    """``log(softmax(x))`` along ``dim``, computed without forming the softmax (``axis=``:
    NumPy's spelling of ``dim=``)."""
    if axis is not None:
        dim, _ = numpy_spelling("log_softmax", dim, axis)
    x, dim, axis, shifted = _prepare("log_softmax", input, dim, dtype)
    if shifted.size:  # (over no elements, the log of an empty sum would warn)
        shifted = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    out = Tensor._make(shifted)
    if should_record(x):
        record(LogSoftmaxBackward0, out, (x,), saved=(OUTPUT,), dim=dim)
    return out
