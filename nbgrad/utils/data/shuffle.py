"""Where the data utilities draw their random numbers: the one place they meet
``nbgrad.random``'s sampling functions.

A ``generator`` is any object that nbgrad's random functions take as ``generator=``
(``nbgrad.Generator``); ``None`` means the module-level generator that ``manual_seed``
seeds, so shuffled loaders are reproducible after ``nbgrad.manual_seed(...)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...random.sampling import randint, randperm

if TYPE_CHECKING:
    from ...random.generator import Generator

__all__ = ["integers", "permutation"]


def permutation(n: int, generator: Generator | None = None) -> list[int]:
    """A random permutation of ``range(n)``, as a list of ints (``randperm(n).tolist()``)."""
    return randperm(n, generator=generator).tolist()


def integers(high: int, size: int, generator: Generator | None = None) -> list[int]:
    """``size`` random ints in ``[0, high)`` (``randint(high, (size,)).tolist()``)."""
    return randint(0, high, (size,), generator=generator).tolist()
