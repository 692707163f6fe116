"""Making tensors: from data (``tensor``, ``as_tensor``, ``from_numpy``) and from shapes.

Every creation function takes PyTorch's keywords ``dtype=``, ``device=`` and
``requires_grad=``. ``zeros``, ``ones`` and ``full`` are built on the device directly;
the others are built with NumPy and then moved to the device.
"""

import numbers
import warnings

import numpy as np

from . import backend, dtypes
from .warn import keep_numpy_warnings_silenced
from .ops.methods import tensor_method
from .tensor import ONLY_FLOAT_GRAD, Tensor, warn_if_scalar_of_grad

_SCALARS = (bool, int, float, np.generic)


def _finish(data, dtype, device, requires_grad):
    """Cast, move and flag a freshly built array as a leaf tensor."""
    keep_numpy_warnings_silenced()  # where tensors are made, not on every operation
    if dtype is not None:
        np_dtype = dtypes.to_numpy_dtype(dtype)
        if data.dtype != np_dtype:
            data = data.astype(np_dtype)
    dtypes.from_numpy_dtype(data.dtype)  # refuses dtypes nbgrad has no name for
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
        if type(values) is float:
            return np.asarray(values, dtype=float_dtype or dtypes.get_default_dtype().numpy)
        return _scalar_array(values)
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"new(): invalid data type '{type(values).__name__}'")
    _check_ragged(values, 0)
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
    if kind in "iu":
        return array.astype(np.int64)
    if kind == "b":
        return array
    first = np.ravel(array)[0]
    if isinstance(first, str):
        raise TypeError("new(): invalid data type 'str'")
    raise RuntimeError(f"Could not infer dtype of {type(first).__name__}")


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
        return np.asarray(value, dtype=np.int64)
    return np.asarray(value, dtype=dtypes.get_default_dtype().numpy)


def _check_ragged(values, dim):
    lengths = {len(v) if isinstance(v, (list, tuple)) else None for v in values}
    if len(lengths) > 1:
        first = len(values[0]) if isinstance(values[0], (list, tuple)) else None
        for v in values:
            got = len(v) if isinstance(v, (list, tuple)) else None
            if got != first:
                raise ValueError(
                    f"expected sequence of length {first} at dim {dim + 1} (got {got})"
                )
    for v in values:
        if isinstance(v, (list, tuple)):
            _check_ragged(v, dim + 1)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of ``data`` (numbers, nested lists, arrays)."""
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
    return _finish(np.array(array, copy=True), dtype, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with a NumPy array or Tensor when it can."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device) if (dtype or device) else data
    if _is_cupy(data):  # shares the GPU memory, as with a NumPy array on the CPU
        return _finish(data, dtype, device, False)
    if isinstance(data, np.ndarray):
        _warn_if_not_writable(data)
    wanted = dtypes.to_numpy_dtype(dtype) if dtype is not None else None
    return _finish(_infer(data, wanted if wanted is not None and wanted.kind == "f" else None),
                   dtype, device, False)


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray``: changing one changes the other."""
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


def _size(size, op="size"):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(
                f"{op}(): argument 'size' (position 1) must be tuple of ints, not "
                f"{type(s).__name__}"
            )
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(size)}"
            )
    return tuple(int(s) for s in size)


def _default(dtype):
    return dtypes.get_default_dtype() if dtype is None else dtype


def _module(device):
    """The array module that builds arrays directly on ``device`` (NumPy for the CPU)."""
    return np if device is None else backend.module_for(device)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of zeros of shape ``size`` (sizes, or one sequence of them)."""
    data = _module(device).zeros(_size(size, "zeros"), dtypes.to_numpy_dtype(_default(dtype)))
    return _finish(data, None, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of ones of shape ``size`` (sizes, or one sequence of them)."""
    data = _module(device).ones(_size(size, "ones"), dtypes.to_numpy_dtype(_default(dtype)))
    return _finish(data, None, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of shape ``size``: its values are whatever the memory held."""
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A tensor of shape ``size`` filled with ``fill_value`` (its dtype follows the value)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = dtypes.from_numpy_dtype(_scalar_array(fill_value).dtype)
    data = _module(device).full(_size((size,)), fill_value, dtypes.to_numpy_dtype(dtype))
    return _finish(data, None, device, requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """The values ``start, start + step, ...`` below ``end`` (``arange(n)`` is ``0 .. n-1``)."""
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if values[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (values[1] - values[0]) * values[2] < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        floating = any(isinstance(v, float) for v in values)
        dtype = dtypes.get_default_dtype() if floating else dtypes.int64
    n = max(0, int(np.ceil((values[1] - values[0]) / values[2])))
    data = (values[0] + values[2] * np.arange(n, dtype=np.float64))
    return _finish(data.astype(dtypes.to_numpy_dtype(dtype)), None, device, requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end``, both included."""
    if not isinstance(steps, numbers.Integral) or steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    data = np.linspace(start, end, steps, dtype=np.float64)
    return _finish(data.astype(dtypes.to_numpy_dtype(_default(dtype))), None, device,
                   requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """The ``n`` x ``m`` identity matrix (square when ``m`` is not given)."""
    return _finish(np.eye(n, n if m is None else m, dtype=dtypes.to_numpy_dtype(_default(dtype))),
                   None, device, requires_grad)


def _like(name, input, dtype, device, requires_grad, make):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return make(input.shape, dtype=input.dtype if dtype is None else dtype,
                device=input.device if device is None else device, requires_grad=requires_grad)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False):
    """Zeros with ``input``'s shape, and its dtype and device unless given."""
    return _like("zeros_like", input, dtype, device, requires_grad, zeros)


def ones_like(input, *, dtype=None, device=None, requires_grad=False):
    """Ones with ``input``'s shape, and its dtype and device unless given."""
    return _like("ones_like", input, dtype, device, requires_grad, ones)


def empty_like(input, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor with ``input``'s shape, dtype and device (unless given)."""
    return _like("empty_like", input, dtype, device, requires_grad, zeros)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``fill_value`` everywhere, with ``input``'s shape, and its dtype and device unless given."""
    return _like("full_like", input, dtype, device, requires_grad,
                 lambda size, **kw: full(size, fill_value, **kw))


# -- the same, as methods of an existing tensor: its dtype and device by default -----------
def _new_defaults(tensor, dtype, device):
    return dict(dtype=tensor.dtype if dtype is None else dtype,
                device=tensor.device if device is None else device)


@tensor_method()
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    """Zeros of ``size``, with this tensor's dtype and device unless given."""
    return zeros(*size, **_new_defaults(self, dtype, device), requires_grad=requires_grad)


@tensor_method()
def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    """Ones of ``size``, with this tensor's dtype and device unless given."""
    return ones(*size, **_new_defaults(self, dtype, device), requires_grad=requires_grad)


@tensor_method()
def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of ``size``, with this tensor's dtype and device unless given."""
    return empty(*size, **_new_defaults(self, dtype, device), requires_grad=requires_grad)


@tensor_method()
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``fill_value`` everywhere, with this tensor's dtype and device unless given."""
    return full(size, fill_value, **_new_defaults(self, dtype, device),
                requires_grad=requires_grad)


@tensor_method()
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A new leaf holding a copy of ``data``, with this tensor's dtype and device unless given."""
    return tensor(data, **_new_defaults(self, dtype, device), requires_grad=requires_grad)
