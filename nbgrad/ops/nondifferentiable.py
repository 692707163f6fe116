"""Operations without a useful derivative (chapter 06).

* Comparisons, ``argmax``/``argmin`` and the logical operations return bool or integer
  tensors: they never join the graph, and their results cannot require grad.
* ``sign``, ``round``, ``floor``, ``ceil`` and ``trunc`` are piecewise constant. PyTorch
  gives them a gradient of zero everywhere (even at the jumps, where none exists), so
  backward through them runs but teaches the inputs nothing.
"""

import numpy as np

from ..autograd.graph import record, should_record
from ..autograd.node import Node
from ..backend import array_module
from ..tensor import Tensor, _dim
from .operands import broadcast_error, operand, promoted, shape_of, tensor_operand, zeros_like


# -- comparisons and logic: results outside the graph -----------------------------------
def _compare(op, compute):
    def comparison(input, other):
        a = operand(input, op, 1, "input")
        b = operand(other, op)
        x, y = promoted(a, b)
        try:
            return Tensor._make(compute(x, y))
        except ValueError:
            raise broadcast_error(shape_of(x), shape_of(y)) from None

    comparison.__name__ = op
    comparison.__doc__ = f"Elementwise ``{op}``: a bool tensor, never part of the graph."
    return comparison


eq = _compare("eq", np.equal)
ne = _compare("ne", np.not_equal)
lt = _compare("lt", np.less)
le = _compare("le", np.less_equal)
gt = _compare("gt", np.greater)
ge = _compare("ge", np.greater_equal)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _logical(op, compute):
    def logical(input, other):
        a = operand(input, op, 1, "input")
        b = operand(other, op)
        x, y = promoted(a, b)
        for value in (x, y):
            if getattr(value, "dtype", np.dtype(int)).kind == "f" or isinstance(value, float):
                raise NotImplementedError(f'"{op}_cpu" not implemented for \'Float\'')
        try:
            return Tensor._make(compute(x, y))
        except ValueError:
            raise broadcast_error(shape_of(x), shape_of(y)) from None

    logical.__name__ = op
    return logical


bitwise_and = _logical("bitwise_and", np.bitwise_and)
bitwise_or = _logical("bitwise_or", np.bitwise_or)
bitwise_xor = _logical("bitwise_xor", np.bitwise_xor)


def bitwise_not(input):
    x = tensor_operand(input, "bitwise_not")
    if x._data.dtype.kind == "f":
        raise NotImplementedError("\"bitwise_not_cpu\" not implemented for 'Float'")
    return Tensor._make(np.invert(x._data))


def logical_not(input):
    return Tensor._make(np.logical_not(tensor_operand(input, "logical_not")._data))


def isnan(input):
    return Tensor._make(np.isnan(tensor_operand(input, "isnan")._data))


def isfinite(input):
    return Tensor._make(np.isfinite(tensor_operand(input, "isfinite")._data))


def isinf(input):
    return Tensor._make(np.isinf(tensor_operand(input, "isinf")._data))


def any(input, dim=None, keepdim=False):
    x = tensor_operand(input, "any")
    return Tensor._make(x._data.any(axis=None if dim is None else _dim(dim, x._data.ndim),
                                    keepdims=keepdim))


def all(input, dim=None, keepdim=False):
    x = tensor_operand(input, "all")
    return Tensor._make(x._data.all(axis=None if dim is None else _dim(dim, x._data.ndim),
                                    keepdims=keepdim))


def equal(input, other):
    """True when both tensors have the same shape and the same values."""
    a, b = tensor_operand(input, "equal"), tensor_operand(other, "equal", 2, "other")
    return a._data.shape == b._data.shape and bool((a._data == b._data).all())


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = tensor_operand(input, "allclose"), tensor_operand(other, "allclose", 2, "other")
    return bool(array_module(a._data).allclose(a._data, b._data, rtol=rtol, atol=atol,
                                               equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = tensor_operand(input, "isclose"), tensor_operand(other, "isclose", 2, "other")
    return Tensor._make(array_module(a._data).isclose(a._data, b._data, rtol=rtol, atol=atol,
                                                      equal_nan=equal_nan))


# -- arg-extremes: integer results ------------------------------------------------------
def _arg(op, input, dim, keepdim):
    x = tensor_operand(input, op)
    data = x._data
    if data.size == 0:
        raise IndexError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0."
        )
    xp = array_module(data)
    find = xp.argmax if op == "argmax" else xp.argmin
    if dim is None:
        index = xp.asarray(find(data.reshape(-1)))
        if keepdim:
            index = index.reshape((1,) * data.ndim)
    else:
        axis = _dim(dim, data.ndim)
        index = find(data, axis=axis, keepdims=keepdim) if data.ndim else xp.asarray(0)
    return Tensor._make(xp.asarray(index).astype(np.int64))


def argmax(input, dim=None, keepdim=False):
    """The index of the largest value: an int64 tensor with no ``grad_fn``."""
    return _arg("argmax", input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    return _arg("argmin", input, dim, keepdim)


# -- piecewise constant: zero gradient --------------------------------------------------
class ZeroGradient(Node):
    """The derivative of a step function: zero wherever it exists (and taken as zero at
    the steps, where it does not)."""

    __slots__ = ()

    def apply(self, grad):
        return (zeros_like(grad),)


class SignBackward0(ZeroGradient):
    __slots__ = ()


class RoundBackward0(ZeroGradient):
    __slots__ = ()


class RoundBackward1(ZeroGradient):
    __slots__ = ()


class FloorBackward0(ZeroGradient):
    __slots__ = ()


class CeilBackward0(ZeroGradient):
    __slots__ = ()


class TruncBackward0(ZeroGradient):
    __slots__ = ()


def _step(op, node_cls, compute, input):
    x = tensor_operand(input, op)
    data = x._data
    out = Tensor._make(compute(data) if data.dtype.kind == "f" or op == "sign" else data.copy())
    if should_record(x):
        record(node_cls, out, (x,))
    return out


def sign(input):
    return _step("sign", SignBackward0, np.sign, input)


def round(input, *, decimals=0):
    if decimals:
        return _step("round", RoundBackward1, lambda d: d.round(decimals), input)
    return _step("round", RoundBackward0, lambda d: d.round(), input)


def floor(input):
    return _step("floor", FloorBackward0, np.floor, input)


def ceil(input):
    return _step("ceil", CeilBackward0, np.ceil, input)


def trunc(input):
    return _step("trunc", TruncBackward0, np.trunc, input)
