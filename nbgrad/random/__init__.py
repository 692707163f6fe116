"""Seeding nbgrad's random numbers, as ``torch.random``: one default generator for every
random function, ``manual_seed`` to make a program reproducible, ``fork_rng`` to draw numbers
without disturbing the rest of it.

The numbers come from NumPy's PCG64 generator, so they are reproducible within nbgrad but
differ from PyTorch's for the same seed. A difference on purpose: PyTorch seeds its default
generator from the operating system when it starts, nbgrad with the fixed seed
67280421310721 (a fresh ``torch.Generator``'s), so that a notebook without ``manual_seed``
shows the same numbers each time it runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..tensor import Tensor
from .generator import Generator, default_generator

__all__ = [
    "Generator",
    "default_generator",
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]


def manual_seed(seed: int) -> Generator:
    """Reseed the default generator, which every random function and ``nn.init`` use.

    Parameters
    ----------
    seed : int
        Converted with ``int()`` first, as PyTorch does (``"3"`` and ``1.7`` are accepted);
        it may be negative: it is taken modulo 2**64.

    Returns
    -------
    Generator
        ``nbgrad.default_generator``.
    """
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Reseed the default generator with a non-deterministic seed (from the operating system).

    Returns
    -------
    int
        The new seed, which ``initial_seed()`` gives from now on.
    """
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with.

    Returns
    -------
    int
        67280421310721 at start-up (PyTorch seeds from the operating system instead).
    """
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state, for ``set_rng_state``.

    Returns
    -------
    Tensor
        A uint8 tensor in nbgrad's own layout (``Generator.get_state``).
    """
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state from what ``get_rng_state`` returned.

    Parameters
    ----------
    new_state : Tensor
        A uint8 tensor of 56 elements.

    Raises
    ------
    TypeError
        ``new_state`` is not a uint8 tensor.
    RuntimeError
        It has another number of elements (a state from PyTorch, for instance).
    """
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices: object = None, enabled: bool = True, device_type: str = "cuda") -> Iterator[None]:
    """A context in which random numbers may be drawn without changing what the rest of the
    program draws: the default generator's state is restored on exit.

    Parameters
    ----------
    devices, device_type
        Accepted for PyTorch's signature. nbgrad has one default generator for all devices,
        so there is nothing more to save.
    enabled : bool
        ``False`` makes the context do nothing.

    Yields
    ------
    None
        The body of the ``with`` block runs here.
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
