"""PyTorch's legacy constructors: ``nbgrad.Tensor(data)``, ``nbgrad.Tensor(*sizes)`` and the
typed classes ``FloatTensor``, ``LongTensor``, ... (``torch.FloatTensor([1, 2])``).

They predate ``nbgrad.tensor``, and differ from it:

* ``Tensor([1, 2])`` is always of the default float dtype (float32), never int64;
* a number is a *size*: ``Tensor(2, 3)`` is an (uninitialised in PyTorch, here zero) 2x3
  tensor, and ``Tensor(2.5)`` is an error, since a float is neither a size nor a sequence;
* ``Tensor(t)`` for a tensor ``t`` shares ``t``'s memory (PyTorch's ``alias``; here a
  view, so its ``grad_fn`` is ``ViewBackward0`` where PyTorch's is ``AliasBackward0``), and
  ``Tensor(array)`` shares a NumPy array's memory when its dtype is already the one made.

The typed classes are not subclasses of ``Tensor`` (they are not in PyTorch either), but
``isinstance(nbgrad.zeros(2), nbgrad.FloatTensor)`` is True, as in PyTorch: the check is
on the dtype (and on being on the CPU).

This module installs ``Tensor.__new__`` (it needs ``creation.py``, which ``tensor.py``
cannot import). Only these constructors come through it: nbgrad's own code makes tensors
with ``Tensor._make``, which never calls ``Tensor.__new__``.
"""

from __future__ import annotations

import numpy as np

from . import backend, dtypes
from .creation import tensor
from .tensor import Size, Tensor
from .warn import keep_numpy_warnings_silenced

_SIGNATURES = (
    " * (*, nbgrad.device device = None)\n"
    " * (nbgrad.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, nbgrad.device device = None)\n"
    " * (object data, *, nbgrad.device device = None)\n"
)
_OPTIONS = ("TensorOptions(dtype={}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def _argument_type(value):
    if isinstance(value, dtypes.dtype):
        return "nbgrad.dtype"
    if isinstance(value, Tensor):
        return "Tensor"
    return dtypes.type_name(value)


def _invalid_combination(args, kwargs):
    """PyTorch's TypeError for arguments that match none of the constructor's forms."""
    given = [_argument_type(a) for a in args]
    given += [f"{k}={_argument_type(v)}" for k, v in kwargs.items()]
    listed = ", ".join(given) if args else ", ".join(given) + ", "
    return TypeError(f"new() received an invalid combination of arguments - got ({listed}), "
                     f"but expected one of:\n{_SIGNATURES}")


def _is_size_element(value):
    """An int as PyTorch's size parser takes it: Python and NumPy ints, 0-d integer arrays
    (anything with ``__index__``), but not bool and not a tensor."""
    if isinstance(value, (bool, np.bool_, Tensor)):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu"


def _size(args):
    """The shape that ``Tensor(*sizes)`` asks for, with PyTorch's errors."""
    shape = []
    for position, value in enumerate(args, 1):
        if not _is_size_element(value):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {position} "
                            f'with error "type must be tuple of ints,but got {_argument_type(value)}"')
        size = int(value)
        if not -2 ** 63 <= size < 2 ** 63:
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {position} "
                            'with error "Overflow when unpacking long long"')
        shape.append(size)
    negative = next((s for s in shape if s < 0), None)
    if negative is not None:
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {shape}")
    return tuple(shape)


def _alias(source, dtype, device):
    """``Tensor(t)``: ``t``'s memory, under a new tensor (PyTorch's alias)."""
    if device is not None:
        raise RuntimeError("Legacy tensor constructor of the form nbgrad.Tensor(tensor, "
                           "device=device) is not supported.  Use nbgrad.tensor(...) or "
                           "nbgrad.as_tensor(...) instead.")
    if dtype is not None and source.dtype is not dtype:
        raise TypeError(f"expected {_OPTIONS.format(dtypes.c_type_name(dtype.numpy))} "
                        f"(got {_OPTIONS.format(dtypes.c_type_name(source._data.dtype))})")
    return source.view(source.shape)


def _from_data(cls, data, dtype, device):
    """``Tensor(sequence)``: the values converted to ``dtype``; a NumPy array already of
    that dtype is shared, not copied."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not isinstance(data, (list, tuple, range, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {dtypes.type_name(data)})")
    if isinstance(data, np.ndarray) and data.dtype == dtype.numpy:
        array = data
    elif isinstance(data, np.ndarray):
        dtypes.from_numpy_dtype(data.dtype)  # refuses strings and objects, as PyTorch does
        array = data.astype(dtype.numpy)
    else:
        array = tensor(list(data) if isinstance(data, range) else data, dtype=dtype)._data
    if device is not None:
        array = backend.to_device(array, device)
    return cls._make(array)


def legacy_new(cls, dtype, args, kwargs):
    """A tensor of ``cls`` (``Tensor`` or a subclass) by PyTorch's legacy rules; ``dtype``
    is the typed class's (``FloatTensor``: float32), ``None`` for the default dtype."""
    keep_numpy_warnings_silenced()  # a cast that overflows gives inf, silently (PyTorch)
    if any(k not in ("device", "size", "data") for k in kwargs):
        raise _invalid_combination(args, kwargs)
    device = kwargs.get("device")
    shown = {k: v for k, v in kwargs.items() if k != "device"}
    if args and shown or len(shown) > 1:
        raise _invalid_combination(args, kwargs)
    made = dtypes.get_default_dtype() if dtype is None else dtype
    if "data" in shown:
        return _from_data(cls, shown["data"], made, device)
    if "size" in shown:
        if not isinstance(shown["size"], (tuple, list)):
            raise _invalid_combination(args, kwargs)
        return _zeros(cls, _size(shown["size"]), made, device)
    if not args:
        return _zeros(cls, (0,), made, device)  # Tensor(): empty, one-dimensional
    if len(args) == 1:
        if isinstance(args[0], Tensor):
            return _alias(args[0], dtype, device)
        if isinstance(args[0], Size):
            return _zeros(cls, _size(args[0]), made, device)
        if not _is_size_element(args[0]):
            return _from_data(cls, args[0], made, device)
    elif not _is_size_element(args[0]):
        raise _invalid_combination(args, kwargs)
    return _zeros(cls, _size(args), made, device)


def _zeros(cls, shape, dtype, device):
    """PyTorch leaves the memory uninitialised; nbgrad fills zeros, which is a valid choice
    of 'anything' and keeps results reproducible."""
    data = np.zeros(shape, dtype.numpy)
    if device is not None:
        data = backend.to_device(data, device)
    return cls._make(data)


def _tensor_new(cls, *args, **kwargs):
    """PyTorch's legacy constructor: ``Tensor(data)`` (always of the default float dtype),
    ``Tensor(*sizes)`` (zeros), ``Tensor()`` (empty) and ``Tensor(tensor)`` (shares its
    memory); keywords ``device=``, and ``data=`` or ``size=``. ``nbgrad.tensor(data)`` is
    the constructor to prefer (``nbgrad.legacy`` has the rules)."""
    return legacy_new(cls, None, args, kwargs)


Tensor.__new__ = staticmethod(_tensor_new)  # type: ignore[method-assign]  # installed here, see above


class tensortype(type):
    """(PyTorch's name.) The type of the typed classes: calling one builds a tensor of its dtype, and
    ``isinstance`` answers by dtype, as PyTorch's ``torch.tensortype`` does."""

    def __call__(cls, *args, **kwargs):
        return legacy_new(Tensor, cls.dtype, args, kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and not obj.is_cuda and obj._data.dtype == cls.dtype.numpy

    def __repr__(cls):
        return f"<class 'nbgrad.{cls.__name__}'>"


def _typed_class(d):
    name = d._tensor_type
    doc = f"""The legacy constructor of {d!r} tensors, as ``torch.{name}``.

    ``isinstance(t, nbgrad.{name})`` is True for a CPU tensor of that dtype, although the
    class is not a subclass of ``Tensor`` (nor is it in PyTorch).

    Parameters
    ----------
    *args, **kwargs
        ``{name}(data)`` converts a sequence (and shares a NumPy array of that dtype),
        ``{name}(*sizes)`` and ``{name}(size=...)`` make zeros of that shape, ``{name}()``
        an empty one-dimensional tensor, and ``{name}(t)`` shares the memory of a tensor
        of that dtype; ``device=`` places it (``nbgrad.legacy`` has the rules).
    """
    return tensortype(name, (), {"dtype": d, "is_cuda": False, "__doc__": doc,
                                           "__module__": "nbgrad"})


# written out, one per dtype, so that IDEs and ``help()`` find them
HalfTensor = _typed_class(dtypes.float16)
FloatTensor = _typed_class(dtypes.float32)
DoubleTensor = _typed_class(dtypes.float64)
ByteTensor = _typed_class(dtypes.uint8)
CharTensor = _typed_class(dtypes.int8)
ShortTensor = _typed_class(dtypes.int16)
IntTensor = _typed_class(dtypes.int32)
LongTensor = _typed_class(dtypes.int64)
BoolTensor = _typed_class(dtypes.bool)

__all__ = ["BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor", "HalfTensor",
           "IntTensor", "LongTensor", "ShortTensor"]
