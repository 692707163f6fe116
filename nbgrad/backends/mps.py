"""``nbgrad.backends.mps``: Apple's Metal backend, which nbgrad does not have."""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """Whether the MPS backend can be used: never in nbgrad.

    Returns
    -------
    bool
        False: ``device("mps")`` is not one of nbgrad's devices.
    """
    return False


def is_built() -> bool:
    """Whether nbgrad was built with MPS support: it never is.

    Returns
    -------
    bool
        False.
    """
    return False
