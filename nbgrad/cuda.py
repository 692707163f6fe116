"""``nbgrad.cuda``: is a GPU usable here, and how many."""

from __future__ import annotations

from . import missing as _missing
from .backend import cuda_device_count, cuda_is_available

__all__ = ["device_count", "is_available"]


def is_available() -> bool:
    """Whether nbgrad can compute on a GPU here.

    Returns
    -------
    bool
        True only when CuPy imports *and* a CUDA device can actually be used.
    """
    return cuda_is_available()


def device_count() -> int:
    """The number of CUDA devices CuPy sees.

    Returns
    -------
    int
        0 without CuPy or a usable GPU.
    """
    return cuda_device_count()


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
