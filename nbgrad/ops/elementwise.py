"""The shared skeletons of elementwise operations.

* ``unary``: a one-tensor operation, computed in floating point, recording its node;
* ``binary``: two operands (tensors or numbers) checked, promoted as PyTorch promotes them
  and broadcast, the result computed; it says whether the op joins the graph;
* ``to_input``: a binary op's backward sums the gradient back over the dimensions its
  input was broadcast along, and casts it to the input's dtype (``to_input_array``: the
  same in a node's ``fast_apply``, on the arrays);
* ``REFUSED_DTYPES``: the dtypes for which PyTorch has no kernel of an op, and its error;
* ``NotImplementedBackward``: the node of an op that PyTorch gives no derivative.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..autograd.graph import OUTPUT, record, should_record
from ..backend import array_module
from ..core.grad_mode import grad_mode
from ..core.node import Node
from ..tensor import Tensor
from .dims import broadcast_axes
from .operands import broadcast_error, floating, operand, promoted, shape_of, tensor_operand


INPUT = object()  # stands for the input in ``unary(..., saves=INPUT)``


def unary(op, node_cls, input, compute, saves, quiet=False, integers=False):
    """``op(input)``: ``compute`` on the input's array, recording ``node_cls`` that saves
    ``saves`` (``INPUT``, ``OUTPUT`` or ``None``: what its derivative is written in).

    The array is first made floating (``sin`` of an integer tensor is float32), unless
    ``integers`` (``abs`` keeps integers). ``quiet``: like PyTorch, return nan/-inf outside
    the domain without NumPy's warning.
    """
    x = tensor_operand(input, op)
    data = x._data if integers else floating(x._data)
    if integers and data.dtype.kind != "f":
        check_dtype(op, data.dtype)
    if quiet:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = Tensor._make(compute(data))
    else:
        out = Tensor._make(compute(data))
    if should_record(x):
        saved = (x,) if saves is INPUT else (OUTPUT,) if saves is OUTPUT else ()
        record(node_cls, out, (x,), saved=saved)
    return out


def binary(op, input, other, compute):
    """Check and promote two operands, compute, and return ``(a, b, result, recording)``:
    ``a`` and ``b`` are the operands as the op records them (tensors, or numbers), and
    ``recording`` is ``should_record(a, b)``, decided on the way (grad mode on, and an
    operand that requires grad), as this runs for every arithmetic operation, forward and
    backward.

    The common cases (tensor with tensor of the same dtype, tensor with a Python number)
    are decided first.
    """
    if isinstance(input, Tensor):
        x = input._data
        requires_grad = input._requires_grad
        if isinstance(other, Tensor):
            y = other._data
            requires_grad = requires_grad or other._requires_grad
            if x.dtype is not y.dtype or type(x) is not type(y):
                x, y = promoted(input, other)
        elif (type(other) is float or type(other) is int) and x.dtype.kind == "f":
            y = other
        else:
            other = operand(other, op)
            x, y = promoted(input, other)
            requires_grad = requires_grad or needs_grad(other)
    else:
        input = operand(input, op, 1, "input")
        if not isinstance(other, Tensor):
            raise TypeError(f"{op}(): expected at least one Tensor operand, got two numbers")
        x, y = promoted(input, other)
        requires_grad = needs_grad(input) or other._requires_grad
    try:
        data = compute(x, y)
    except ValueError:
        raise broadcast_error(shape_of(x), shape_of(y)) from None
    return input, other, Tensor._make(data), requires_grad and grad_mode.enabled


def needs_grad(value):
    """Whether ``value`` is a tensor that requires grad (a number never does)."""
    return isinstance(value, Tensor) and value._requires_grad


def meta(value, out):
    """What ``to_input`` needs to turn the output's gradient into ``value``'s: its shape and
    dtype, or ``None`` when nothing is to be done (a number, or the output's own shape and
    dtype: the common case, which then costs nothing in backward)."""
    if not isinstance(value, Tensor):
        return None
    result = out._data
    return _meta(value._data, result.shape, result.dtype)


def metas(a, b, out):
    """``meta`` of both operands of ``out = op(a, b)``, an elementwise operation whose output
    has the two operands' broadcast shape; one shared tuple in the common case (fewer
    objects to keep alive per operation means less work for Python's garbage collector)."""
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        # With a number, the tensor operand already has the output's shape (a number does
        # not broadcast), so only its dtype can differ; comparing shapes costs more than
        # the rest of this function.
        tensor = a if isinstance(a, Tensor) else b
        if tensor._data.dtype is out._data.dtype:
            return NOTHING_TO_DO
        a_meta, b_meta = meta(a, out), meta(b, out)
    else:  # the output's shape read once (NumPy builds the tuple on every read)
        result = out._data
        shape, dtype = result.shape, result.dtype
        a_meta, b_meta = _meta(a._data, shape, dtype), _meta(b._data, shape, dtype)
    return NOTHING_TO_DO if a_meta is None and b_meta is None else (a_meta, b_meta)


def _meta(data, shape, dtype):
    """``meta`` of an operand's array against the output's ``shape`` and ``dtype``."""
    if data.dtype is dtype or data.dtype == dtype:  # NumPy's own dtypes are shared objects
        data_shape = data.shape
        if data_shape == shape:
            return None
        return (data_shape, dtype)
    return (data.shape, data.dtype)


NOTHING_TO_DO = (None, None)


def to_input(grad, meta):
    """The gradient summed over broadcast dimensions and cast back to the input's dtype."""
    if meta is None:
        return grad
    shape, dtype = meta
    if grad._data.shape != shape:
        grad = grad.sum_to_size(shape)
    if grad._data.dtype != dtype:
        grad = grad.to(dtype=dtypes.from_numpy_dtype(dtype))
    return grad


# -- the arrays' arithmetic, for a binary node's fast_apply (core/node.py) ------------------
def same_dtype(metas, dtype):
    """Whether every tensor operand of a binary op has ``dtype``, the gradient's: then
    NumPy's arithmetic on the arrays promotes as PyTorch's does (a Python number is weak in
    both), and ``fast_apply`` may use it; operands of two dtypes take the formula."""
    for meta in metas:
        if meta is not None and meta[1] != dtype:
            return False
    return True


def to_input_array(data, meta):
    """``to_input`` on a gradient's array, as a tensor, where ``same_dtype`` holds: only
    the input's shape can differ from the output's."""
    if meta is not None and data.shape != meta[0]:
        data = data.sum(axis=broadcast_axes(data.shape, meta[0]), keepdims=True).reshape(meta[0])
    return Tensor._make(data)


def array_of(value):
    """A saved operand as the arrays' arithmetic takes it: a tensor's array, or the number."""
    return value._data if isinstance(value, Tensor) else value


# -- the dtypes an operation refuses ------------------------------------------------------
def _no_kernel(kernel):
    return NotImplementedError, f'"{kernel}" not implemented for \'{{type}}\''


_BOOL_MASK_HINT = "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."

# PyTorch compiles each kernel for some dtypes only and refuses the others, judged on the
# dtype the kernel computes in (the operands' promoted dtype): ``bool // 2`` is computed in
# int64 and runs, ``bool // True`` in bool and is refused.
# op: (the dtype kinds refused, the exception, PyTorch's message; {type} is e.g. 'Bool')
REFUSED_DTYPES = {
    "abs": ("b", *_no_kernel("abs_cpu")),
    "neg": ("b", RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported. "
                               + _BOOL_MASK_HINT),
    "relu": ("b", RuntimeError, "Boolean inputs not supported for relu"),
    "floor": ("b", *_no_kernel("floor_vml_cpu")),
    "ceil": ("b", *_no_kernel("ceil_vml_cpu")),
    "trunc": ("b", *_no_kernel("trunc_vml_cpu")),
    "round": ("b", *_no_kernel("round_vml_cpu")),
    "frac": ("biu", *_no_kernel("frac_cpu")),
    "hypot": ("biu", *_no_kernel("hypot_cpu")),
    "logaddexp": ("biu", *_no_kernel("logaddexp_cpu")),
    "lerp": ("biu", *_no_kernel("lerp_kernel_scalar")),
    "addcmul": ("b", *_no_kernel("addcmul_cpu_out")),
    "cross": ("b", *_no_kernel("cross")),
    "logcumsumexp": ("biu", *_no_kernel("logcumsumexp_out_cpu")),
    "median": ("b", *_no_kernel("median_cpu")),
    "round_decimals": ("biu", *_no_kernel("round_cpu")),
    "div_floor": ("b", *_no_kernel("div_floor_cpu")),
    "div_trunc": ("b", *_no_kernel("div_trunc_cpu")),
    "remainder": ("b", *_no_kernel("remainder_cpu")),
    "fmod": ("b", *_no_kernel("fmod_cpu")),
    "pow": ("b", *_no_kernel("pow")),
    "argmax": ("b", RuntimeError, "argmax(): does not support bool input"),
    "argmin": ("b", RuntimeError, "argmin(): does not support bool input"),
    "mm": ("b", *_no_kernel("addmm_impl_cpu_")),
    "mv": ("b", *_no_kernel("addmv_impl_cpu")),
    "dot": ("b", *_no_kernel("dot")),
    "bmm": ("b", *_no_kernel("bmm")),
    "bitwise_and": ("f", *_no_kernel("bitwise_and_cpu")),
    "bitwise_or": ("f", *_no_kernel("bitwise_or_cpu")),
    "bitwise_xor": ("f", *_no_kernel("bitwise_xor_cpu")),
    "bitwise_not": ("f", *_no_kernel("bitwise_not_cpu")),
}
_REFUSES_NOTHING = ("", None, "")


def check_dtype(op, np_dtype):
    """PyTorch's error when ``op`` has no kernel for ``np_dtype`` (see ``REFUSED_DTYPES``).

    Called only where a refused dtype can arrive (most ops refuse no floating dtype, so
    their float path never asks); an op without an entry refuses nothing.
    """
    kinds, error, message = REFUSED_DTYPES.get(op, _REFUSES_NOTHING)
    if np_dtype.kind in kinds:
        raise error(message.format(type=dtypes.scalar_type_name(np_dtype)))


def common_dtype(x, y):
    """The dtype two promoted operands (arrays, or one array and a number) compute in."""
    return x.dtype if hasattr(x, "dtype") else y.dtype


def common_module(x, y):
    """The array module (NumPy or CuPy) of two promoted operands, one may be a number."""
    return array_module(x if hasattr(x, "dtype") else y)


def check_nonzero_divisor(y):
    """PyTorch's error for an integer division by zero (a float one gives inf or nan)."""
    if (y == 0).any() if hasattr(y, "dtype") else y == 0:
        raise RuntimeError("ZeroDivisionError")


# -- operations without a derivative --------------------------------------------------------
class NotImplementedBackward(Node):
    """The node PyTorch records for an operation it gives no derivative (``x // 2``): the
    forward runs and requires grad, but backward through it raises."""

    __slots__ = ("op",)
    op: str  # the operation's name in PyTorch's message: "floor_divide"

    def apply(self, grad):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


NotImplementedBackward.__name__ = NotImplementedBackward.__qualname__ = "NotImplemented"  # PyTorch's
