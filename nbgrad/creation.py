"""Making tensors: from data (``tensor``, ``as_tensor``, ``from_numpy``) and from shapes.

Every creation function takes PyTorch's keywords ``dtype=``, ``device=`` and
``requires_grad=``. ``zeros``, ``ones`` and ``full`` are built on the device directly;
the others are built with NumPy and then moved to the device.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np

from . import backend, dtypes
from .ops.methods import tensor_method
from .tensor import ONLY_FLOAT_GRAD, Tensor, warn_if_scalar_of_grad
from .warn import keep_numpy_warnings_silenced

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .backend import device
    from .dtypes import dtype
    from .types import Number, Shape

_SCALARS = (bool, int, float, np.generic)
_INT64_MAX = 2 ** 63 - 1
_LONG_OVERFLOW = "Overflow when unpacking long long"


def _finish(data, dtype, device, requires_grad):
    """Cast, move and flag a freshly built array as a leaf tensor."""
    keep_numpy_warnings_silenced()  # where tensors are made, not on every operation
    if dtype is not None:
        np_dtype = dtypes.to_numpy_dtype(dtype)
        if data.dtype != np_dtype:
            data = data.astype(np_dtype)
    dtypes.from_numpy_dtype(data.dtype)  # refuses dtypes nbgrad has no name for
    if device is None:
        device = backend.default_device  # set_default_device; None: the CPU
    if device is not None:
        data = backend.to_device(data, device)
    t = Tensor._make(data)
    if requires_grad:
        if data.dtype.kind != "f":
            raise RuntimeError(ONLY_FLOAT_GRAD)
        t._requires_grad = True
    return t


def _is_cupy(value):
    return backend.cupy is not None and isinstance(value, backend.cupy.ndarray)


def _infer(values, float_dtype=None):
    """A NumPy array from nested Python data, with PyTorch's choice of dtype.

    Python floats become ``float_dtype`` (the requested dtype, else the default float
    dtype) directly, so that ``tensor(0.2, dtype=float64)`` is exactly 0.2.
    """
    if isinstance(values, Tensor):  # an element of a sequence: one number, as in PyTorch
        return _element_value(values)
    if isinstance(values, np.ndarray):
        return values
    if isinstance(values, _SCALARS):
        if type(values) is float or float_dtype is not None and type(values) is int:
            return np.asarray(values, dtype=float_dtype or dtypes.get_default_dtype().numpy)
        return _scalar_array(values)
    if not isinstance(values, (list, tuple)):
        if isinstance(values, str):
            raise TypeError("new(): invalid data type 'str'")
        raise RuntimeError(f"Could not infer dtype of {type(values).__name__}")
    _check_ragged(values)
    if not values:
        return np.zeros(0, dtypes.get_default_dtype().numpy)
    if any(isinstance(v, (Tensor, np.ndarray)) for v in values):
        parts = [_infer(v, float_dtype) for v in values]
        return np.stack(parts).astype(dtypes.result_type(*parts), copy=False)
    try:
        array = np.array(values)
    except (TypeError, ValueError):
        array = np.array(values, dtype=object)
    kind = array.dtype.kind
    if kind == "f":  # Python floats: the default dtype, not float64
        return array.astype(float_dtype or dtypes.get_default_dtype().numpy)
    if kind == "b":
        return array
    if kind in "US":
        raise ValueError("too many dimensions 'str'")
    if kind == "O":  # something that is not a number, or integers beyond NumPy's
        for v in array.flat:
            if not isinstance(v, _SCALARS):
                raise RuntimeError(f"Could not infer dtype of {type(v).__name__}")
    if float_dtype is not None:  # integers too large for int64 are fine as floats
        return array.astype(float_dtype)
    if kind == "i" or kind == "u" and array.max() <= _INT64_MAX:
        return array.astype(np.int64)
    raise ValueError(_LONG_OVERFLOW)  # NumPy made them uint64 or objects: beyond int64


def _element_value(t):
    """A tensor inside the data given to ``tensor()``: its one value, as a 0-d array of its
    dtype (PyTorch converts it as ``float()`` would, warning when it requires grad)."""
    warn_if_scalar_of_grad(t, stacklevel=4)  # the caller of tensor()
    if t._data.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return backend.to_device(t._data, "cpu").reshape(())


def _scalar_array(value):
    if isinstance(value, np.generic):
        return np.asarray(value)
    if isinstance(value, bool):
        return np.asarray(value, dtype=np.bool_)
    if isinstance(value, int):
        if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
            raise ValueError(_LONG_OVERFLOW)
        return np.asarray(value, dtype=np.int64)
    return np.asarray(value, dtype=dtypes.get_default_dtype().numpy)


def _check_ragged(values):
    """The nested sequences have the shape their first elements give, as PyTorch requires;
    what it says when not: a value that is not a number first (it infers the dtype before
    the shape), then a number where a sequence should be (or the reverse), then a length."""
    shape, first = [], values
    while isinstance(first, (list, tuple)):
        shape.append(len(first))
        first = first[0] if first else None
    _check_shape(values, shape, 0, values)


def _check_shape(values, shape, dim, root):
    if len(values) != shape[dim]:
        _refuse_values(root)
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(values)})")
    deeper = dim + 1 < len(shape)
    for v in values:
        if isinstance(v, (list, tuple)) != deeper:
            _refuse_values(root)
            if deeper:
                raise TypeError("not a sequence")
            raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an integer")
        if deeper:
            _check_shape(v, shape, dim + 1, root)


def _refuse_values(values):
    """PyTorch's error for the first value in nested sequences that is not a number."""
    for v in values:
        if isinstance(v, (list, tuple)):
            _refuse_values(v)
        elif isinstance(v, str):
            raise TypeError("new(): invalid data type 'str'")
        elif not isinstance(v, _SCALARS + (Tensor, np.ndarray)):
            raise RuntimeError(f"Could not infer dtype of {type(v).__name__}")


def tensor(data: Any, *, dtype: dtype | None = None, device: device | str | None = None,
           requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data``.

    Parameters
    ----------
    data : number, nested sequence, NumPy array or Tensor
        Always copied (``as_tensor`` and ``from_numpy`` share memory instead). From a
        tensor PyTorch warns and suggests ``t.detach().clone()``, and so does nbgrad.
    dtype : nbgrad.dtype, optional
        Default: inferred as PyTorch does (Python floats give the default dtype, ints
        ``int64``, bools ``bool``; a NumPy array keeps its dtype).
    device : str or nbgrad.device, optional
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).
    pin_memory : bool
        Accepted for PyTorch's signature; it changes nothing here.

    Returns
    -------
    Tensor
        A leaf (``grad_fn is None``), whatever ``data`` was.
    """
    dtype = _keywords("tensor", dtype, device, requires_grad)
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        # a copy on the source's device (unless ``device=`` says otherwise), as in PyTorch
        return _finish(data._data.copy(), dtype, data.device if device is None else device,
                       requires_grad)
    if _is_cupy(data):  # a CuPy array stays on its GPU (unless ``device=`` says otherwise)
        return _finish(data.copy(), dtype, backend.device_of(data) if device is None else device,
                       requires_grad)
    wanted = dtypes.to_numpy_dtype(dtype) if dtype is not None else None
    array = _infer(data, wanted if wanted is not None and wanted.kind == "f" else None)
    if wanted is not None and wanted.kind in "iu" and not isinstance(data, np.ndarray):
        _check_fits(array, wanted)
    return _finish(np.array(array, copy=True), dtype, device, requires_grad)


def _check_fits(array, wanted):
    """Python integers given for an integer dtype must fit it, as PyTorch checks (an unsigned
    type takes negative numbers down to minus its maximum: ``tensor(-1, dtype=uint8)`` is 255)."""
    if array.dtype.kind not in "iu" or not array.size:
        return
    info = np.iinfo(wanted)
    low = -info.max if wanted.kind == "u" else info.min
    if array.min() < low or array.max() > info.max:
        raise RuntimeError(f"value cannot be converted to type {wanted.name} without overflow")


def as_tensor(data: Any, dtype: dtype | None = None,
              device: device | str | None = None) -> Tensor:
    """Like ``tensor``, but sharing memory with a NumPy array or a tensor when it can.

    Parameters
    ----------
    data : number, nested sequence, NumPy (or CuPy) array or Tensor
        A tensor is returned as it is (``to(dtype, device)`` when those are given, so a
        copy only when they differ), and an array of the dtype asked for is shared; other
        data is copied as by ``tensor``.
    dtype : nbgrad.dtype, optional
        Default: ``data``'s own dtype, or the one ``tensor`` would infer.
    device : str or nbgrad.device, optional
        Default: ``data``'s device for a tensor, else ``nbgrad.get_default_device()``.

    Returns
    -------
    Tensor
        ``data`` itself for a tensor that needs no change; the result does not require grad
        unless that tensor does.

    Warns
    -----
    UserWarning
        Once per program, for a NumPy array that is not writable.
    """
    dtype = _keywords("as_tensor", dtype, device, False)
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device) if (dtype or device) else data
    if _is_cupy(data):  # shares the GPU memory, as with a NumPy array on the CPU
        return _finish(data, dtype, device, False)
    if isinstance(data, np.ndarray):
        _warn_if_not_writable(data)
    wanted = dtypes.to_numpy_dtype(dtype) if dtype is not None else None
    return _finish(_infer(data, wanted if wanted is not None and wanted.kind == "f" else None),
                   dtype, device, False)


def from_numpy(ndarray: Any) -> Tensor:
    """A tensor sharing memory with ``ndarray``: changing one changes the other.

    Parameters
    ----------
    ndarray : numpy.ndarray
        Of one of nbgrad's dtypes; it keeps its dtype (a float64 array gives float64).

    Returns
    -------
    Tensor
        On the CPU, whatever the default device.

    Raises
    ------
    TypeError
        ``ndarray`` is not a NumPy array, or its dtype is not one of nbgrad's.

    Warns
    -----
    UserWarning
        Once per program, for an array that is not writable.
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dtypes.from_numpy_dtype(ndarray.dtype)  # raises for a dtype nbgrad lacks
    _warn_if_not_writable(ndarray)
    keep_numpy_warnings_silenced()
    return Tensor._make(ndarray)


NOT_WRITABLE_WARNING = (
    "The given NumPy array is not writable, and nbgrad does not support non-writable tensors. "
    "This means writing to this tensor will raise an error. You may want to copy the array to "
    "protect its data or make it writable before converting it to a tensor. This type of "
    "warning will be suppressed for the rest of this program."
)
_warned_not_writable = False  # once per program, as PyTorch warns


def _warn_if_not_writable(array):
    global _warned_not_writable
    if backend.is_read_only(array) and not _warned_not_writable:
        _warned_not_writable = True
        warnings.warn(NOT_WRITABLE_WARNING, UserWarning, stacklevel=3)


# -- the arguments every creation function takes, checked as PyTorch's argument parser does --


def _is_int(value):
    if isinstance(value, Tensor):  # a one-element integer tensor counts as an int
        return value._data.size == 1 and value._data.dtype.kind in "iu"
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _size_value(value, op, where):
    value = int(value)
    if value > _INT64_MAX:
        raise TypeError(f"{op}(): argument 'size' failed to unpack the object at pos {where} "
                        f'with error "{_LONG_OVERFLOW}"')
    return value


def _size(size, op="size"):
    """The shape given to ``zeros(2, 3)`` or ``zeros((2, 3))``, checked."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if all(type(s) is int and 0 <= s <= _INT64_MAX for s in size):
        return size  # the common case, in one pass
    if len(size) == 1 and not _is_int(size[0]):
        raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{dtypes.type_name(size[0])}")
    for pos, s in enumerate(size, 1):
        if not _is_int(s):
            raise TypeError(f"{op}(): argument 'size' failed to unpack the object at pos {pos} "
                            f'with error "type must be tuple of ints,but got {dtypes.type_name(s)}"')
    return _nonnegative(tuple(_size_value(s, op, pos) for pos, s in enumerate(size, 1)), op)


def _size_sequence(size, op, position=1):
    """The shape given as one sequence (``full((2, 3), 1.0)``), checked."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{op}(): argument 'size' (position {position}) must be tuple of ints, "
                        f"not {dtypes.type_name(size)}")
    for pos, s in enumerate(size):
        if not _is_int(s):
            raise TypeError(f"{op}(): argument 'size' (position {position}) must be tuple of "
                            f"ints, but found element of type {dtypes.type_name(s)} at pos {pos}")
    return _nonnegative(tuple(_size_value(s, op, pos) for pos, s in enumerate(size, 1)), op)


def _nonnegative(shape, op):
    for s in shape:
        if s < 0:
            if op == "zeros":  # PyTorch's zeros checks sizes before the others do
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return shape


def _check_storage(shape, np_dtype):
    """PyTorch's refusal of a shape whose bytes do not fit in 64 bits, before NumPy tries
    (NumPy's own error is a ValueError about ``arr.size``)."""
    nbytes = math.prod(shape) * np_dtype.itemsize
    if nbytes > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    return nbytes


def _allocate(make, shape, np_dtype):
    """``make(shape, np_dtype)`` with PyTorch's errors for a shape too large to hold."""
    nbytes = _check_storage(shape, np_dtype)
    try:
        return make(shape, np_dtype)
    except MemoryError:
        raise RuntimeError(f"DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                           f"{nbytes} bytes.") from None


def _keywords(op, dtype, device, requires_grad):
    """Check ``dtype=``, ``device=`` and ``requires_grad=`` of ``op``; the dtype, resolved."""
    if not isinstance(device, (str, backend.device, type(None))):
        raise TypeError(f"{op}(): argument 'device' must be nbgrad.device, not "
                        f"{dtypes.type_name(device)}")
    if not isinstance(requires_grad, bool):
        raise TypeError(f"{op}(): argument 'requires_grad' must be bool, not "
                        f"{dtypes.type_name(requires_grad)}")
    return dtypes.dtype_argument(dtype, op)


def _default(dtype):
    return dtypes.get_default_dtype() if dtype is None else dtype


def _module(device):
    """The array module that builds arrays directly on ``device`` (NumPy for the CPU)."""
    if device is None:
        device = backend.default_device
    return np if device is None else backend.module_for(device)


def _filled(op, make, size, dtype, device, requires_grad):
    """A tensor of shape ``size`` made by ``make(xp, shape, numpy_dtype)`` with the array
    module ``xp`` of ``device``, after ``op``'s keywords are checked."""
    dtype = _default(_keywords(op, dtype, device, requires_grad))
    xp = _module(device)
    data = _allocate(lambda shape, np_dtype: make(xp, shape, np_dtype), size,
                     dtypes.to_numpy_dtype(dtype))
    return _finish(data, None, device, requires_grad)


def _zeros(xp, shape, np_dtype):
    return xp.zeros(shape, np_dtype)


def _ones(xp, shape, np_dtype):
    return xp.ones(shape, np_dtype)


def zeros(*size: int | Sequence[int], dtype: dtype | None = None,
          device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of zeros of shape ``size``.

    Parameters
    ----------
    *size : int, or one sequence of ints
        The shape: ``zeros(2, 3)``, ``zeros((2, 3))`` and ``zeros(nbgrad.Size([2, 3]))``
        are the same; ``zeros()`` is 0-d.
    dtype : nbgrad.dtype, optional
        Default: ``nbgrad.get_default_dtype()`` (float32).
    device : str or nbgrad.device, optional
        ``"cpu"`` (NumPy) or ``"cuda"`` (CuPy); default: ``nbgrad.get_default_device()``.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only, as in PyTorch).

    Returns
    -------
    Tensor
    """
    return _filled("zeros", _zeros, _size(size, "zeros"), dtype, device, requires_grad)


def ones(*size: int | Sequence[int], dtype: dtype | None = None,
          device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of ones of shape ``size``.

    Parameters
    ----------
    *size : int, or one sequence of ints
        The shape: ``ones(2, 3)``, ``ones((2, 3))`` and ``ones(nbgrad.Size([2, 3]))``
        are the same; ``ones()`` is 0-d.
    dtype : nbgrad.dtype, optional
        Default: ``nbgrad.get_default_dtype()`` (float32).
    device : str or nbgrad.device, optional
        ``"cpu"`` (NumPy) or ``"cuda"`` (CuPy); default: ``nbgrad.get_default_device()``.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only, as in PyTorch).

    Returns
    -------
    Tensor
    """
    return _filled("ones", _ones, _size(size, "ones"), dtype, device, requires_grad)


def empty(*size: int | Sequence[int], dtype: dtype | None = None,
          device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of shape ``size`` whose values are not meant to be read before written.

    PyTorch leaves the memory as it is; nbgrad fills zeros (NumPy's ``empty`` would hand
    back old data, which makes tests irreproducible).

    Parameters
    ----------
    *size : int, or one sequence of ints
        The shape: ``empty(2, 3)``, ``empty((2, 3))`` and ``empty(nbgrad.Size([2, 3]))``
        are the same; ``empty()`` is 0-d.
    dtype : nbgrad.dtype, optional
        Default: ``nbgrad.get_default_dtype()`` (float32).
    device : str or nbgrad.device, optional
        ``"cpu"`` (NumPy) or ``"cuda"`` (CuPy); default: ``nbgrad.get_default_device()``.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only, as in PyTorch).

    Returns
    -------
    Tensor
    """
    return _filled("empty", _zeros, _size(size, "empty"), dtype, device, requires_grad)


_NUMBERS = (bool, int, float, np.bool_, np.integer, np.floating)


def _number(value, op, name, position):
    """A Python number (a one-element tensor counts as one), or PyTorch's TypeError."""
    if isinstance(value, Tensor) and value._data.size == 1:
        return value._data.item()
    if not isinstance(value, _NUMBERS):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Number, not "
                        f"{dtypes.type_name(value)}")
    return value


def full(size: Shape, fill_value: Number, *, dtype: dtype | None = None,
         device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of shape ``size`` filled with ``fill_value``.

    Parameters
    ----------
    size : sequence of int
        The shape, as one sequence (``full((2, 3), 7.0)``).
    fill_value : number
        Its type sets the dtype when ``dtype`` is not given, as in PyTorch: a bool gives
        ``bool``, an int ``int64``, a float the default dtype. A one-element tensor counts
        as its number.
    dtype, device, requires_grad
        As for ``zeros``.

    Returns
    -------
    Tensor
    """
    return _full("full", size, fill_value, dtype, device, requires_grad)


def _full(op, size, fill_value, dtype, device, requires_grad):
    shape = _size_sequence(size, op)
    fill_value = _number(fill_value, op, "fill_value", 2)
    dtype = _keywords(op, dtype, device, requires_grad)
    if dtype is None:
        dtype = dtypes.from_numpy_dtype(_scalar_array(fill_value).dtype)
    return _filled(op, lambda xp, shape, d: xp.full(shape, fill_value, d), shape, dtype,
                   device, requires_grad)


def arange(start: Number, end: Number | None = None, step: Number = 1, *,
           dtype: dtype | None = None, device: device | str | None = None,
           requires_grad: bool = False) -> Tensor:
    """The values ``start, start + step, ...`` below ``end`` (``arange(n)`` is ``0, 1, ..., n-1``).

    Parameters
    ----------
    start : number
        The first value; with ``end`` omitted, ``start`` is the end and 0 the start.
    end : number, optional
        The bound, not included.
    step : number
        Non-zero, of the sign of ``end - start``.
    dtype : nbgrad.dtype, optional
        Default: ``int64`` when all three are integers, else the default float dtype.
    device, requires_grad
        As for ``zeros``.

    Returns
    -------
    Tensor
        One-dimensional, of ``ceil((end - start) / step)`` values.

    Raises
    ------
    RuntimeError
        ``step`` is zero or of the wrong sign, or a bound is not finite.
    TypeError
        An argument is not a number (a one-element tensor counts as its number).
    """
    if end is None:
        start, end = 0, _number(start, "arange", "end", 1)
    values = [_number(v, "arange", name, i)
              for i, (name, v) in enumerate((("start", start), ("end", end), ("step", step)), 1)]
    dtype = _keywords("arange", dtype, device, requires_grad)
    low, high, step = values
    if not all(math.isfinite(v) for v in (low, high)):
        raise RuntimeError(f"unsupported range: {low} -> {high}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (high - low) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        floating = any(isinstance(v, (float, np.floating)) for v in values)
        dtype = dtypes.get_default_dtype() if floating else dtypes.int64
    n = max(0, int(np.ceil((high - low) / step)))
    data = low + step * np.arange(n, dtype=np.float64)
    return _finish(data.astype(dtypes.to_numpy_dtype(dtype)), None, device, requires_grad)


def linspace(start: Number, end: Number, steps: int, *, dtype: dtype | None = None,
             device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included.

    Parameters
    ----------
    start, end : number
        The first and the last value (a one-element tensor counts as its number).
    steps : int
        How many values: non-negative (1 gives just ``start``).
    dtype : nbgrad.dtype, optional
        Default: the default float dtype, whatever the type of ``start`` and ``end``.
    device, requires_grad
        As for ``zeros``.

    Returns
    -------
    Tensor
        One-dimensional, of ``steps`` values.

    Raises
    ------
    TypeError
        ``steps`` is not an int, or a bound not a number.
    RuntimeError
        ``steps`` is negative.
    """
    start = _number(start, "linspace", "start", 1)
    end = _number(end, "linspace", "end", 2)
    if not _is_int(steps):
        raise TypeError(f"linspace(): argument 'steps' (position 3) must be int, not "
                        f"{dtypes.type_name(steps)}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = _default(_keywords("linspace", dtype, device, requires_grad))
    data = np.linspace(start, end, int(steps), dtype=np.float64)
    return _finish(data.astype(dtypes.to_numpy_dtype(dtype)), None, device, requires_grad)


def _count(value, op, name, position):
    """An argument such as ``eye``'s ``n``: a non-negative int."""
    if not _is_int(value):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be int, not "
                        f"{dtypes.type_name(value)}")
    if value < 0:
        raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    return int(value)


def eye(n: int, m: int | None = None, *, dtype: dtype | None = None,
        device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """The ``n`` x ``m`` identity matrix: ones on the diagonal, zeros elsewhere.

    Parameters
    ----------
    n : int
        The number of rows (non-negative).
    m : int, optional
        The number of columns; ``n`` (a square matrix) when omitted.
    dtype : nbgrad.dtype, optional
        Default: the default float dtype.
    device, requires_grad
        As for ``zeros``.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        ``n`` or ``m`` is not an int.
    RuntimeError
        ``n`` or ``m`` is negative.
    """
    n = _count(n, "eye", "n", 1)
    m = n if m is None else _count(m, "eye", "m", 2)
    dtype = _default(_keywords("eye", dtype, device, requires_grad))
    data = _allocate(lambda shape, d: np.eye(*shape, dtype=d), (n, m), dtypes.to_numpy_dtype(dtype))
    return _finish(data, None, device, requires_grad)


def _like(name, input, dtype, device, requires_grad, make):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    dtype = _keywords(name, dtype, device, requires_grad)
    return make(input.shape, dtype=input.dtype if dtype is None else dtype,
                device=input.device if device is None else device, requires_grad=requires_grad)


def zeros_like(input: Tensor, *, dtype: dtype | None = None,
               device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """Zeros with ``input``'s shape, and its dtype and device unless given.

    Parameters
    ----------
    input : Tensor
    dtype : nbgrad.dtype, optional
        Default: ``input``'s dtype.
    device : str or nbgrad.device, optional
        Default: ``input``'s device.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only); ``input``'s own flag
        does not carry over.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        ``input`` is not a tensor.
    """
    return _like("zeros_like", input, dtype, device, requires_grad, zeros)


def ones_like(input: Tensor, *, dtype: dtype | None = None,
              device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """Ones with ``input``'s shape, and its dtype and device unless given.

    Parameters
    ----------
    input : Tensor
    dtype : nbgrad.dtype, optional
        Default: ``input``'s dtype.
    device : str or nbgrad.device, optional
        Default: ``input``'s device.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only); ``input``'s own flag
        does not carry over.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        ``input`` is not a tensor.
    """
    return _like("ones_like", input, dtype, device, requires_grad, ones)


def empty_like(input: Tensor, *, dtype: dtype | None = None,
               device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor with ``input``'s shape, dtype and device (unless given).

    As ``empty``, nbgrad fills zeros where PyTorch leaves the memory as it is.

    Parameters
    ----------
    input : Tensor
    dtype : nbgrad.dtype, optional
        Default: ``input``'s dtype.
    device : str or nbgrad.device, optional
        Default: ``input``'s device.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only); ``input``'s own flag
        does not carry over.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        ``input`` is not a tensor.
    """
    return _like("empty_like", input, dtype, device, requires_grad, zeros)


def full_like(input: Tensor, fill_value: Number, *, dtype: dtype | None = None,
              device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """``fill_value`` everywhere, with ``input``'s shape, and its dtype and device unless given.

    Parameters
    ----------
    input : Tensor
    fill_value : number
        Converted to the dtype (``full_like`` of an int64 tensor and 2.7 holds 2).
    dtype : nbgrad.dtype, optional
        Default: ``input``'s dtype.
    device : str or nbgrad.device, optional
        Default: ``input``'s device.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only); ``input``'s own flag
        does not carry over.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        ``input`` is not a tensor.
    """
    return _like("full_like", input, dtype, device, requires_grad,
                 lambda size, **kw: full(size, fill_value, **kw))


# -- the same, as methods of an existing tensor: its dtype and device by default -----------
def _new_defaults(tensor, dtype, device):
    return dict(dtype=tensor.dtype if dtype is None else dtype,
                device=tensor.device if device is None else device)


@tensor_method()
def new_zeros(self: Tensor, *size: int | Sequence[int], dtype: dtype | None = None,
              device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """Zeros of ``size``, with this tensor's dtype and device unless given.

    Parameters
    ----------
    *size : int, or one sequence of ints
        The shape: ``x.new_zeros(2, 3)`` and ``x.new_zeros((2, 3))`` are the same.
    dtype : nbgrad.dtype, optional
        Default: this tensor's dtype.
    device : str or nbgrad.device, optional
        Default: this tensor's device.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).

    Returns
    -------
    Tensor
    """
    return _filled("new_zeros", _zeros, _size(size, "new_zeros"),
                   **_new_defaults(self, dtype, device), requires_grad=requires_grad)


@tensor_method()
def new_ones(self: Tensor, *size: int | Sequence[int], dtype: dtype | None = None,
             device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """Ones of ``size``, with this tensor's dtype and device unless given.

    Parameters
    ----------
    *size : int, or one sequence of ints
        The shape: ``x.new_ones(2, 3)`` and ``x.new_ones((2, 3))`` are the same.
    dtype : nbgrad.dtype, optional
        Default: this tensor's dtype.
    device : str or nbgrad.device, optional
        Default: this tensor's device.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).

    Returns
    -------
    Tensor
    """
    return _filled("new_ones", _ones, _size(size, "new_ones"),
                   **_new_defaults(self, dtype, device), requires_grad=requires_grad)


@tensor_method()
def new_empty(self: Tensor, *size: int | Sequence[int], dtype: dtype | None = None,
              device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor of ``size``, with this tensor's dtype and device unless given.

    As ``empty``, nbgrad fills zeros where PyTorch leaves the memory as it is.

    Parameters
    ----------
    *size : int, or one sequence of ints
        The shape: ``x.new_empty(2, 3)`` and ``x.new_empty((2, 3))`` are the same.
    dtype : nbgrad.dtype, optional
        Default: this tensor's dtype.
    device : str or nbgrad.device, optional
        Default: this tensor's device.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).

    Returns
    -------
    Tensor
    """
    return _filled("new_empty", _zeros, _size(size, "new_empty"),
                   **_new_defaults(self, dtype, device), requires_grad=requires_grad)


@tensor_method()
def new_full(self: Tensor, size: Shape, fill_value: Number, *, dtype: dtype | None = None,
             device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """``fill_value`` everywhere, in shape ``size``, with this tensor's dtype and device unless given.

    Parameters
    ----------
    size : sequence of int
        The shape, as one sequence.
    fill_value : number
        Converted to the dtype.
    dtype : nbgrad.dtype, optional
        Default: this tensor's dtype.
    device : str or nbgrad.device, optional
        Default: this tensor's device.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).

    Returns
    -------
    Tensor
    """
    return _full("new_full", size, fill_value, **_new_defaults(self, dtype, device),
                 requires_grad=requires_grad)


@tensor_method()
def new_tensor(self: Tensor, data: Any, *, dtype: dtype | None = None,
               device: device | str | None = None, requires_grad: bool = False) -> Tensor:
    """A new leaf holding a copy of ``data``, with this tensor's dtype and device unless given.

    Parameters
    ----------
    data : number, nested sequence, NumPy array or Tensor
        Copied, as by ``nbgrad.tensor`` (which warns for a tensor).
    dtype : nbgrad.dtype, optional
        Default: this tensor's dtype.
    device : str or nbgrad.device, optional
        Default: this tensor's device.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).

    Returns
    -------
    Tensor
    """
    return tensor(data, **_new_defaults(self, dtype, device), requires_grad=requires_grad)
