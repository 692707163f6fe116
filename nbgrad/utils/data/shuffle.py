"""Where the data utilities draw their random numbers: the one place they meet
``nbgrad.random``.

A ``generator`` is any object that nbgrad's random functions take as ``generator=``
(``nbgrad.Generator``); ``None`` means the module-level generator that ``manual_seed``
seeds, so shuffled loaders are reproducible after ``nbgrad.manual_seed(...)``.
"""

from ... import random

__all__ = ["integers", "permutation"]


def _generator_keywords(generator):
    return {} if generator is None else {"generator": generator}


def permutation(n: int, generator=None) -> list:
    """A random permutation of ``range(n)``, as a list of ints (``randperm(n).tolist()``)."""
    return random.randperm(n, **_generator_keywords(generator)).tolist()


def integers(high: int, size: int, generator=None) -> list:
    """``size`` random ints in ``[0, high)`` (``randint(high, (size,)).tolist()``)."""
    return random.randint(0, high, (size,), **_generator_keywords(generator)).tolist()
