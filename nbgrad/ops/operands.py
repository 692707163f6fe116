"""Turning what a user passes into what an operation computes with.

Operations accept tensors and Python numbers (as PyTorch does, a number is a "wrapped
scalar": it takes part in the computation but not in the graph). This module checks the
operands, applies PyTorch's type promotion, and translates NumPy's broadcasting errors
into PyTorch's wording.
"""

from __future__ import annotations

import numpy as np

from .. import backend, dtypes
from ..tensor import Tensor

_ndarray = np.ndarray


def operand(value, op, position=2, name="other"):
    """A Tensor or a Python number; anything else is a clear TypeError."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.generic):  # before the Python types: np.float64 is a float
        return value.item()
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, np.ndarray):
        return Tensor._make(value)
    raise TypeError(
        f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
        f"{type(value).__name__}"
    )


def tensor_operand(value, op, position=1, name="input"):
    """A Tensor, or a clear TypeError that says what was given instead."""
    if isinstance(value, Tensor):
        return value
    raise TypeError(
        f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
        f"{type(value).__name__}"
    )


def invalid_combination(op, *args, **kwargs):
    """PyTorch's TypeError for arguments that fit none of the op's signatures, such as a
    number where only the second operand may be one (``eq(2.0, x)``)."""
    got = ", ".join([_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n * (Tensor input, Tensor other)\n * (Tensor input, Number other)"
    )


def _type_name(value):
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def promoted(a, b):
    """The arrays (or numbers) of two operands, converted to PyTorch's result dtype."""
    a_is_tensor, b_is_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    x = a._data if a_is_tensor else a
    y = b._data if b_is_tensor else b
    if a_is_tensor and b_is_tensor:
        if type(x) is not type(y):
            same_device(a, b)
        if x.dtype is y.dtype:
            return x, y
        want = dtypes.result_type(x, y)
        return _cast(x, want), _cast(y, want)
    # NumPy already keeps a tensor's dtype against a Python number, except that an
    # integer or bool tensor meeting a float goes to the default float dtype, not float64,
    # and an integer out of the tensor's range wraps around (NumPy refuses it).
    if a_is_tensor:
        return _with_number(x, y)
    y, x = _with_number(y, x)
    return x, y


def _with_number(array, number):
    if isinstance(number, float):
        return floating(array), number
    if type(number) is int and array.dtype.kind == "b":  # bool meets int in int64
        return array.astype(np.int64), number
    if type(number) is int and array.dtype.kind in "iu":
        info = np.iinfo(array.dtype)
        if not info.min <= number <= info.max:
            # a NumPy scalar, not a 0-d array: CuPy takes scalars, but no NumPy arrays
            return array, np.asarray(number).astype(array.dtype)[()]
    return array, number


def floating(array):
    """The array itself when floating, else converted to the default float dtype."""
    if array.dtype.kind == "f":
        return array
    return array.astype(dtypes.get_default_dtype().numpy)


def _cast(array, want):
    return array if array.dtype == want else array.astype(want)


def same_device(*tensors):
    """PyTorch's error when the tensors (``None`` and numbers are skipped) live on
    different devices."""
    kinds = {type(t._data) for t in tensors if isinstance(t, Tensor)}
    if not kinds or kinds == {_ndarray}:
        return  # all on the CPU: the common case, decided without building devices
    devices = {t.device for t in tensors if isinstance(t, Tensor)}
    if len(devices) > 1:
        first, second = sorted(devices, key=str, reverse=True)[:2]
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{first} and {second}!"
        )


def broadcast_error(a_shape, b_shape):
    """PyTorch's message for shapes that do not broadcast."""
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    n = max(len(a_shape), len(b_shape))
    pa = (1,) * (n - len(a_shape)) + a_shape
    pb = (1,) * (n - len(b_shape)) + b_shape
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            return RuntimeError(
                f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) at "
                f"non-singleton dimension {i}"
            )
    return RuntimeError(f"shapes {list(a_shape)} and {list(b_shape)} cannot be broadcast")


def shape_of(value):
    return value.shape if hasattr(value, "shape") else ()


def zeros_like(tensor):
    """Exact zeros shaped like ``tensor`` (``grad * 0`` would give -0.0, and nan for inf)."""
    return Tensor._make(backend.array_module(tensor._data).zeros_like(tensor._data))
