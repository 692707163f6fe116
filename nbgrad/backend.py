"""Where a tensor's numbers live: NumPy arrays on the CPU, CuPy arrays on a CUDA GPU.

Every operation computes with the array module of its inputs (``array_module``), so the
same code runs on either device and nothing is copied between them behind your back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .types import DeviceLike

try:  # CuPy is optional: the ``cuda12`` extra installs it.
    import cupy
except Exception:  # ImportError, or a CUDA library that fails to load
    cupy = None


class device:
    """A device name as PyTorch spells it: ``device("cpu")``, ``device("cuda", 0)``.

    Equal devices compare equal (also to their string: ``device("cuda:0") == "cuda:0"``);
    ``device("cuda")`` has no index and is not equal to ``device("cuda", 0)``.

    Parameters
    ----------
    type : str or device
        ``"cpu"`` or ``"cuda"``, optionally with an index (``"cuda:1"``), or a device to copy.
    index : int, optional
        The CUDA device's number; ignored for the CPU, and for a string or device
        that carries its own.

    Attributes
    ----------
    type : str
        ``"cpu"`` or ``"cuda"``.
    index : int or None
        None for the CPU, and for ``"cuda"`` without a number.

    Raises
    ------
    RuntimeError
        The type is neither ``cpu`` nor ``cuda``, or the index in the string is not a
        number.
    """

    __slots__ = ("type", "index")
    type: str
    index: int | None

    def __init__(self, type: str | device, index: int | None = None) -> None:
        if isinstance(type, device):
            index = type.index  # first: mypy reads the tuple form's type.index as str.index
            type = type.type
        elif isinstance(type, str) and ":" in type:
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type}"
            )
        if type == "cpu":
            index = None
        self.type = type
        self.index = index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


CPU = device("cpu")

# Where creation functions put a tensor when no ``device=`` is given: ``None`` is the CPU
# (nothing to look up, nothing to move), else the device ``set_default_device`` named.
default_device = None


def set_default_device(dev: device | str | None) -> None:
    """Make ``dev`` the device of tensors made without ``device=`` (``zeros``, ``tensor``,
    ``rand``, layers' parameters, ...), as ``torch.set_default_device`` does; ``None``
    means the CPU again. ``*_like`` functions and ``from_numpy`` are not affected.

    Parameters
    ----------
    dev : str, device or None
        ``"cpu"``, ``"cuda"``, ``"cuda:1"``, a ``device``, or None.

    Raises
    ------
    TypeError
        ``dev`` is neither a string, a device nor None.
    RuntimeError
        ``dev`` names no device (as ``device(dev)``).
    """
    global default_device
    if dev is not None and not isinstance(dev, (str, device)):
        raise TypeError(f"device() received an invalid combination of arguments - got "
                        f"({type(dev).__name__}), but expected one of:\n"
                        " * (nbgrad.device device)\n * (str type, int index = -1)")
    dev = None if dev is None else device(dev)
    default_device = None if dev == CPU else dev


def get_default_device() -> device:
    """The device of tensors made without ``device=``.

    Returns
    -------
    device
        ``device(type='cpu')`` unless ``set_default_device`` changed it; a CUDA device
        with its index.

    Raises
    ------
    AssertionError
        The default device is CUDA but no GPU is usable (PyTorch's CPU build says the same).
    """
    if default_device is None:
        return CPU
    return device("cuda", _cuda_index(default_device))


def cuda_is_available():
    """True only when CuPy imports *and* a GPU can actually be used."""
    if cupy is None:
        return False
    try:
        return bool(cupy.is_available())
    except Exception:
        return False


def cuda_device_count():
    if not cuda_is_available():
        return 0
    return cupy.cuda.runtime.getDeviceCount()


def array_module(array):
    """``numpy`` for a NumPy array, ``cupy`` for a CuPy one."""
    if type(array) is np.ndarray or cupy is None:
        return np
    return cupy.get_array_module(array)


def is_read_only(array):
    """Whether the array's memory may not be written: a NumPy array marked not writable
    (``from_numpy`` of a read-only array). CuPy arrays have no such flag."""
    return type(array) is np.ndarray and not array.flags.writeable


def device_of(array):
    if type(array) is np.ndarray:
        return CPU
    return device("cuda", array.device.id)


def _cuda_index(dev):
    if not cuda_is_available():
        # PyTorch's CPU build raises AssertionError here; so does nbgrad without a GPU.
        raise AssertionError(
            "Torch not compiled with CUDA enabled\nnbgrad hint: no usable GPU was found "
            "(CuPy from the `cuda12` extra and an NVIDIA GPU are needed)."
        )
    index = 0 if dev.index is None else dev.index
    if index >= cuda_device_count():
        raise RuntimeError(
            f"CUDA error: invalid device ordinal (device {index} requested, "
            f"{cuda_device_count()} available)"
        )
    return index


def to_device(array, dev):
    """The array on ``dev``: the same array when it is already there, else a copy."""
    dev = device(dev)
    if dev.type == "cpu":
        if type(array) is np.ndarray:
            return array
        return cupy.asnumpy(array)
    index = _cuda_index(dev)
    if type(array) is np.ndarray:
        with cupy.cuda.Device(index):
            return cupy.asarray(array)
    if array.device.id == index:
        return array
    with cupy.cuda.Device(index):
        return array.copy()  # CuPy copies onto the current device (asarray would not)


def module_for(dev):
    """The array module that creates arrays on ``dev``."""
    dev = device(dev)
    if dev.type == "cpu":
        return np
    _cuda_index(dev)
    return cupy
