"""Data types, named and promoted as PyTorch does.

A tensor keeps its values in a NumPy (or CuPy) array, so its dtype *is* the array's
dtype; this module only gives those dtypes PyTorch's names and PyTorch's promotion rules,
which differ from NumPy's in two places that matter for training:

* a Python number never widens a tensor (``float32_tensor * 0.5`` stays float32), and an
  integer tensor meets a Python float in the *default* float dtype, float32;
* between tensors, a dimensioned tensor outranks a zero-dimensional one of the same kind
  (``float32 [3]`` + ``float64 []`` is float32), and ``int64 + float32`` is float32.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import DTypeLike


class dtype:
    """A tensor element type, printed the way PyTorch prints it (``nbgrad.float32``).

    The nine of nbgrad are made once, here (``nbgrad.float32``, ...), and compared by
    identity; ``pickle`` gives back the same object.

    Parameters
    ----------
    name : str
        Its name in ``nbgrad`` (``'float32'``).
    numpy_dtype : numpy dtype or type
        The NumPy dtype of the arrays behind its tensors.
    tensor_type : str
        The name of its typed class (``'FloatTensor'``).

    Attributes
    ----------
    name : str
    numpy : numpy.dtype
        The NumPy dtype (the array's ``dtype`` of a tensor of this type).
    is_floating_point, is_signed : bool
        As in PyTorch (bool and uint8 are not signed).
    itemsize : int
        The size of one element in bytes.
    """

    __slots__ = ("name", "numpy", "is_floating_point", "is_signed", "itemsize", "_tensor_type")

    def __init__(self, name: str, numpy_dtype: DTypeLike, tensor_type: str) -> None:
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy.kind == "f"
        self.is_signed = self.numpy.kind in "fi"
        self.itemsize = self.numpy.itemsize
        self._tensor_type = tensor_type

    def __repr__(self):
        return f"nbgrad.{self.name}"

    def __reduce__(self):
        return self.name


float16 = half = dtype("float16", np.float16, "HalfTensor")
float32 = float = dtype("float32", np.float32, "FloatTensor")
float64 = double = dtype("float64", np.float64, "DoubleTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
int8 = dtype("int8", np.int8, "CharTensor")
int16 = short = dtype("int16", np.int16, "ShortTensor")
int32 = int = dtype("int32", np.int32, "IntTensor")
int64 = long = dtype("int64", np.int64, "LongTensor")
bool = dtype("bool", np.bool_, "BoolTensor")

ALL = (float16, float32, float64, uint8, int8, int16, int32, int64, bool)
_BY_NUMPY = {d.numpy: d for d in ALL}

_DEFAULT_FLOAT = [float32]


def get_default_dtype() -> dtype:
    """The floating-point dtype that Python floats become (``nbgrad.float32`` unless set).

    It is also the dtype of ``zeros``, ``rand``, ... without ``dtype=``, and of layers'
    parameters.

    Returns
    -------
    nbgrad.dtype
    """
    return _DEFAULT_FLOAT[0]


def set_default_dtype(d: dtype) -> None:
    """Make ``d`` the dtype that Python floats become (see ``get_default_dtype``).

    Parameters
    ----------
    d : nbgrad.dtype
        ``nbgrad.float32`` or ``nbgrad.float64``.

    Raises
    ------
    TypeError
        ``d`` is another dtype (or not a dtype).
    """
    if d not in (float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d!r}")
    _DEFAULT_FLOAT[0] = d


def from_numpy_dtype(np_dtype):
    """The nbgrad dtype of a NumPy dtype; a clear TypeError for the ones nbgrad lacks."""
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only "
            "supported types are: float64, float32, float16, int64, int32, int16, int8, "
            "uint8, and bool."
        ) from None


def type_name(value):
    """How PyTorch names the type of a wrong argument (``float``, ``numpy.dtypes.Float32DType``)."""
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def dtype_argument(d, op):
    """The nbgrad dtype that the ``dtype=`` argument ``d`` of ``op`` names: an nbgrad dtype,
    or Python's ``float``, ``int`` or ``bool``, which PyTorch reads as float64, int64 and
    bool. Anything else (``'float32'``, ``np.float32``) is PyTorch's TypeError."""
    if d is None or type(d) is dtype:
        return d
    for python, meant in ((builtins.float, float64), (builtins.int, int64), (builtins.bool, bool)):
        if d is python:
            return meant
    raise TypeError(f"{op}(): argument 'dtype' must be nbgrad.dtype, not {type_name(d)}")


def to_numpy_dtype(d, op="dtype"):
    """The NumPy dtype of the ``dtype=`` argument ``d`` of ``op`` (``dtype_argument``)."""
    if type(d) is dtype:
        return d.numpy
    d = dtype_argument(d, op)
    return None if d is None else d.numpy


def _category(np_dtype):
    kind = np_dtype.kind
    return 2 if kind == "f" else (0 if kind == "b" else 1)


def result_type(*operands):
    """PyTorch's type promotion for arrays and Python scalars (see the module docstring).

    Operands are arrays (anything with ``.dtype`` and ``.ndim``) or Python numbers.
    """
    dimensioned, zero_dim, scalars = [], [], []
    top = 0
    for op in operands:
        if hasattr(op, "dtype"):
            cat = _category(op.dtype)
            (dimensioned if op.ndim else zero_dim).append((cat, op.dtype))
        else:
            cat = 0 if isinstance(op, builtins.bool) else (2 if isinstance(op, builtins.float) else 1)
            scalars.append((cat, None))
        top = max(top, cat)
    for group in (dimensioned, zero_dim):
        candidates = [d for cat, d in group if cat == top]
        if candidates:
            return np.result_type(*candidates)
    return {2: get_default_dtype().numpy, 1: np.dtype(np.int64), 0: np.dtype(np.bool_)}[top]


# -- how PyTorch names things in its messages ---------------------------------------------
_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}


def scalar_type_name(np_dtype):
    """``Float``, ``Long``, ...: PyTorch's ScalarType name of a NumPy dtype."""
    return from_numpy_dtype(np_dtype)._tensor_type.removesuffix("Tensor")


def c_type_name(np_dtype):
    """``float``, ``double``, ``long int``, ...: the C type name some messages use."""
    return _C_NAMES[np.dtype(np_dtype).name]


def dim_index(dim, ndim):
    """A dimension index checked and made non-negative, with PyTorch's error message."""
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not isinstance(dim, (builtins.int, np.integer)) or isinstance(dim, builtins.bool):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    if not low <= dim <= high:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})"
        )
    return dim % ndim if ndim else 0
