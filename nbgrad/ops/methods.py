"""Binding the operations to ``Tensor`` as methods and Python operators.

``x.exp()`` *is* ``nbgrad.exp(x)``: the functions are attached to the class directly (no
wrapper in between, which would cost a Python call on every operation).
"""

import numpy as np

from ..tensor import Tensor
from . import activations, arithmetic, conversion, inplace, linalg, nondifferentiable, reductions, shape

_OPERANDS = (Tensor, float, int, bool, np.generic, np.ndarray)  # most frequent first

METHODS = {
    # arithmetic and math
    "add": arithmetic.add, "sub": arithmetic.sub, "subtract": arithmetic.sub,
    "mul": arithmetic.mul, "multiply": arithmetic.mul, "div": arithmetic.div,
    "divide": arithmetic.div, "true_divide": arithmetic.true_divide,
    "floor_divide": arithmetic.floor_divide, "pow": arithmetic.pow, "square": arithmetic.square,
    "neg": arithmetic.neg, "negative": arithmetic.neg, "reciprocal": arithmetic.reciprocal,
    "abs": arithmetic.abs, "exp": arithmetic.exp, "log": arithmetic.log, "sqrt": arithmetic.sqrt,
    "sin": arithmetic.sin, "cos": arithmetic.cos, "clamp": arithmetic.clamp,
    "clip": arithmetic.clip, "maximum": arithmetic.maximum, "minimum": arithmetic.minimum,
    "masked_fill": arithmetic.masked_fill,
    # activations
    "relu": activations.relu, "sigmoid": activations.sigmoid, "tanh": activations.tanh,
    "softmax": activations.softmax, "log_softmax": activations.log_softmax,
    # reductions
    "sum": reductions.sum, "mean": reductions.mean, "var": reductions.var, "std": reductions.std,
    "max": reductions.max, "min": reductions.min, "amax": reductions.amax,
    "amin": reductions.amin, "norm": reductions.norm, "logsumexp": reductions.logsumexp,
    "sum_to_size": reductions.sum_to_size,
    # linear algebra
    "mm": linalg.mm, "mv": linalg.mv, "bmm": linalg.bmm, "matmul": linalg.matmul,
    "dot": linalg.dot,
    # shapes and views
    "view": shape.view, "view_as": shape.view_as, "reshape": shape.reshape,
    "reshape_as": shape.reshape_as, "flatten": shape.flatten, "squeeze": shape.squeeze,
    "unsqueeze": shape.unsqueeze, "t": shape.t, "transpose": shape.transpose,
    "swapaxes": shape.swapaxes, "permute": shape.permute, "expand": shape.expand,
    "expand_as": shape.expand_as, "clone": shape.clone, "contiguous": shape.contiguous,
    "select": shape.select, "unbind": shape.unbind,
    "to": conversion.to,
    # no gradient
    "sign": nondifferentiable.sign, "round": nondifferentiable.round,
    "floor": nondifferentiable.floor, "ceil": nondifferentiable.ceil,
    "trunc": nondifferentiable.trunc, "argmax": nondifferentiable.argmax,
    "argmin": nondifferentiable.argmin, "eq": nondifferentiable.eq, "ne": nondifferentiable.ne,
    "lt": nondifferentiable.lt, "le": nondifferentiable.le, "gt": nondifferentiable.gt,
    "ge": nondifferentiable.ge, "equal": nondifferentiable.equal,
    "allclose": nondifferentiable.allclose, "isclose": nondifferentiable.isclose,
    "isnan": nondifferentiable.isnan, "isfinite": nondifferentiable.isfinite,
    "isinf": nondifferentiable.isinf, "any": nondifferentiable.any, "all": nondifferentiable.all,
    "logical_not": nondifferentiable.logical_not,
    # in place
    "add_": inplace.add_, "sub_": inplace.sub_, "mul_": inplace.mul_, "div_": inplace.div_,
    "pow_": inplace.pow_, "neg_": inplace.neg_, "exp_": inplace.exp_, "clamp_": inplace.clamp_,
    "masked_fill_": inplace.masked_fill_, "relu_": inplace.relu_, "sigmoid_": inplace.sigmoid_,
    "tanh_": inplace.tanh_, "copy_": inplace.copy_, "fill_": inplace.fill_,
    "zero_": inplace.zero_, "__setitem__": inplace.setitem,
    "__getitem__": shape.getitem,
}


def _operator(function, reflected=False, operands=_OPERANDS):
    """A Python operator: NotImplemented for operands it does not know, so that Python
    reports ``unsupported operand type(s)`` as usual."""
    if reflected:
        def method(self, other):
            if not isinstance(other, operands):
                return NotImplemented
            return function(other, self)
    else:
        def method(self, other):
            if not isinstance(other, operands):
                return NotImplemented
            return function(self, other)
    return method


def _where(self, condition, other):
    """``x.where(condition, y)`` is ``where(condition, x, y)``."""
    return arithmetic.where(condition, self, other)


def _new(make):
    def method(self, *size, dtype=None, device=None, requires_grad=False):
        return make(*size, dtype=self.dtype if dtype is None else dtype,
                    device=self.device if device is None else device, requires_grad=requires_grad)
    return method


def bind():
    from .. import creation

    for name, function in METHODS.items():
        setattr(Tensor, name, function)
    operators = {
        "add": arithmetic.add, "sub": arithmetic.sub, "mul": arithmetic.mul,
        "truediv": arithmetic.div, "floordiv": arithmetic.floor_divide, "pow": arithmetic.pow,
        "matmul": linalg.matmul, "and": nondifferentiable.bitwise_and,
        "or": nondifferentiable.bitwise_or, "xor": nondifferentiable.bitwise_xor,
    }
    commutative = {"add", "mul", "and", "or", "xor"}
    for name, function in operators.items():
        operands = (Tensor, np.ndarray) if name == "matmul" else _OPERANDS
        setattr(Tensor, f"__{name}__", _operator(function, operands=operands))
        # 1 + x records like x + 1 (PyTorch keeps the tensor first for these)
        setattr(Tensor, f"__r{name}__",
                _operator(function, reflected=name not in commutative, operands=operands))
    for name, function in (("eq", nondifferentiable.eq), ("ne", nondifferentiable.ne),
                           ("lt", nondifferentiable.lt), ("le", nondifferentiable.le),
                           ("gt", nondifferentiable.gt), ("ge", nondifferentiable.ge)):
        setattr(Tensor, f"__{name}__", _operator(function))
    for name, method in (("iadd", inplace.add_), ("isub", inplace.sub_), ("imul", inplace.mul_),
                         ("itruediv", inplace.div_)):
        setattr(Tensor, f"__{name}__", _operator(method))
    Tensor.__neg__ = arithmetic.neg
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = arithmetic.abs
    Tensor.__invert__ = nondifferentiable.bitwise_not
    Tensor.T = property(shape.numpy_T)
    Tensor.where = _where
    Tensor.new_zeros = _new(creation.zeros)
    Tensor.new_ones = _new(creation.ones)
    Tensor.new_empty = _new(creation.empty)
    Tensor.new_full = lambda self, size, fill_value, **kw: creation.full(
        size, fill_value, dtype=kw.get("dtype") or self.dtype,
        device=kw.get("device") or self.device, requires_grad=kw.get("requires_grad", False))
    Tensor.new_tensor = lambda self, data, **kw: creation.tensor(
        data, dtype=kw.get("dtype") or self.dtype, device=kw.get("device") or self.device,
        requires_grad=kw.get("requires_grad", False))
