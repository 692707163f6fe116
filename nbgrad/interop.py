"""Moving tensors between nbgrad and other array libraries without copying (DLPack), and
whole objects (state_dicts, optimizer state) between nbgrad and PyTorch.

* ``nbgrad.from_dlpack(x)``: a tensor sharing the memory of ``x``, any object with
  ``__dlpack__`` (a PyTorch tensor, a NumPy or CuPy array, a JAX array); and the other
  way, ``torch.from_dlpack(t)`` / ``numpy.from_dlpack(t)`` / ``cupy.from_dlpack(t)`` take
  an nbgrad tensor (``Tensor.__dlpack__``).
* ``to_torch(obj)`` / ``from_torch(obj)``: the same object with every tensor inside it
  converted (through DLPack, so sharing memory), ``requires_grad`` kept and ``Parameter``
  as the other library's ``Parameter``. This is the route between the two libraries'
  files: ``nbgrad.load`` reads only nbgrad's safe format and PyTorch's ``torch.load`` only
  its own, so a checkpoint crosses over as

      torch_model.load_state_dict(to_torch(nbgrad.load("model.nbgrad")))
      nbgrad.save(from_torch(torch.load("model.pt")), "model.nbgrad")

  nbgrad's layers have PyTorch's parameter names, shapes and layouts, so the keys match.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import backend, dtypes
from .tensor import Parameter, Tensor

__all__ = ["from_dlpack", "from_torch", "to_torch"]

_CPU = 1  # DLPack's device type numbers
_CUDA = 2


def from_dlpack(ext_tensor: Any) -> Tensor:
    """A tensor that shares the memory of ``ext_tensor``, through DLPack.

    Parameters
    ----------
    ext_tensor : object with ``__dlpack__`` and ``__dlpack_device__``
        A PyTorch tensor, NumPy or CuPy array, ..., on the CPU or a CUDA GPU (then CuPy
        imports it). A legacy DLPack capsule (``torch.utils.dlpack.to_dlpack``) is taken
        too, as PyTorch takes it, and read as CPU memory (a GPU capsule needs CuPy).

    Returns
    -------
    Tensor
        A leaf that does not require grad; writing to either changes both.

    Raises
    ------
    RuntimeError
        For an object that is neither (PyTorch's message). A PyTorch tensor that requires
        grad refuses to export itself (``BufferError``): pass ``x.detach()``.
    """
    if hasattr(ext_tensor, "__dlpack__"):
        kind = ext_tensor.__dlpack_device__()[0]
        if int(kind) == _CUDA:
            return _wrap(_cupy().from_dlpack(ext_tensor))
        if int(kind) != _CPU:
            raise RuntimeError(f"nbgrad.from_dlpack: DLPack device type {int(kind)} is not "
                               "supported (only the CPU and CUDA GPUs)")
        return _wrap(np.from_dlpack(ext_tensor))
    if type(ext_tensor).__name__ == "PyCapsule":
        return _wrap(_from_capsule(ext_tensor))
    raise RuntimeError(
        "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
        "only once, so you might have already constructed a tensor from it once.\nnbgrad hint: "
        f"expected an object with __dlpack__ (a tensor or array of another library), got "
        f"{dtypes.type_name(ext_tensor)}."
    )


class _Capsule:
    """A legacy DLPack capsule dressed as an object of the current protocol, for NumPy."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (_CPU, 0)


def _from_capsule(capsule):
    try:
        return np.from_dlpack(_Capsule(capsule))
    except BufferError:  # not CPU memory: CuPy's legacy reader knows where it lives
        return _cupy().from_dlpack(capsule)


def _cupy():
    if backend.cupy is None:
        raise RuntimeError("nbgrad.from_dlpack: the array lives on a GPU, and CuPy (the "
                           "`cuda12` extra) is not installed")
    return backend.cupy


def _wrap(array):
    dtypes.from_numpy_dtype(array.dtype)  # a dtype nbgrad has no name for: its clear error
    return Tensor._make(array)


def to_dlpack(tensor: Tensor) -> Any:
    """The legacy DLPack capsule of ``tensor`` (``torch.utils.dlpack.to_dlpack``).

    A capsule can be consumed once. Prefer passing the tensor itself to ``from_dlpack``.

    Parameters
    ----------
    tensor : Tensor
        One that does not require grad (``Tensor.__dlpack__``).

    Returns
    -------
    PyCapsule
        Sharing the tensor's memory.
    """
    return tensor.__dlpack__()


# -- whole objects between nbgrad and PyTorch -------------------------------------------
def _convert(obj, is_source, make):
    """``obj`` with every tensor ``t`` for which ``is_source(t)`` replaced by ``make(t)``;
    containers rebuilt with their types, anything else kept as it is."""
    if is_source(obj):
        return make(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple
        return type(obj)(*(_convert(v, is_source, make) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_convert(v, is_source, make) for v in obj)
    if isinstance(obj, dict):
        items = [(k, _convert(v, is_source, make)) for k, v in obj.items()]
        try:
            return type(obj)(items)
        except TypeError:  # a dict type that cannot be built from items (defaultdict)
            return dict(items)
    return obj


def _torch():
    import torch  # optional: only these two functions need it
    return torch


def to_torch(obj: Any) -> Any:
    """``obj`` with each nbgrad tensor inside it as a PyTorch tensor sharing its memory.

    Parameters
    ----------
    obj : object
        A tensor, or lists / tuples / dicts of them and other values (a ``state_dict``,
        an optimizer's state).

    Returns
    -------
    The same structure; ``requires_grad`` is kept, a ``Parameter`` becomes
    ``torch.nn.Parameter``. Needs PyTorch installed.
    """
    torch = _torch()

    def make(t):
        converted = torch.from_dlpack(t.detach())
        if isinstance(t, Parameter):
            return torch.nn.Parameter(converted, requires_grad=t.requires_grad)
        return converted.requires_grad_(t.requires_grad)

    return _convert(obj, lambda v: isinstance(v, Tensor), make)


def from_torch(obj: Any) -> Any:
    """``obj`` with each PyTorch tensor inside it as an nbgrad tensor sharing its memory
    (``torch.load``'s result, a PyTorch ``state_dict``, ...).

    Parameters
    ----------
    obj : object
        A PyTorch tensor, or lists / tuples / dicts of them and other values.

    Returns
    -------
    The same structure; ``requires_grad`` is kept, ``torch.nn.Parameter`` becomes
    ``nbgrad.nn.Parameter``. Tensors of a dtype nbgrad lacks (bfloat16, complex) raise.
    """
    torch = _torch()

    def make(t):
        converted = from_dlpack(t.detach())
        if isinstance(t, torch.nn.Parameter):
            return Parameter(converted, requires_grad=t.requires_grad)
        return converted.requires_grad_(t.requires_grad)

    return _convert(obj, lambda v: isinstance(v, torch.Tensor), make)
