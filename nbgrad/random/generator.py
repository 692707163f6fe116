"""``Generator``: a seeded source of random numbers, and ``default_generator``.

A generator wraps NumPy's PCG64 bit generator. Numbers drawn for a seed are reproducible
within nbgrad but are not PyTorch's for the same seed (PyTorch uses a Mersenne Twister on the
CPU and Philox on CUDA). Samples are drawn on the CPU and moved to the tensor's device, so
the same seed gives the same numbers on every device.
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..tensor import Tensor

DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val: a fresh Generator's seed
_STATE_BYTES = 56  # seed, PCG64 state and increment (128 bits each), the cached 32 bits
_MASK_64 = 2 ** 64 - 1


def _checked_seed(seed, op):
    """``seed`` as PyTorch's ``manual_seed`` takes it: an int in [-2**63, 2**64), modulo 2**64."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise RuntimeError(f"{op} expected a long, but got {type(seed).__name__}")  # noqa: TRY004  (PyTorch's type)
    seed = int(seed)
    if not -2 ** 63 <= seed < 2 ** 64:
        raise ValueError("Overflow when unpacking long long")
    return seed & _MASK_64


class Generator:
    """A random-number generator with its own seed and state, as ``torch.Generator``.

    Parameters
    ----------
    device : str or nbgrad.device, optional
        The device of the tensors it fills (``"cpu"`` by default). A random function given
        ``generator=`` refuses a generator of another device type, as PyTorch does.

    Notes
    -----
    A fresh generator is seeded with PyTorch's default seed, 67280421310721. Its numbers come
    from NumPy's PCG64, so they differ from PyTorch's for the same seed; ``get_state`` returns
    nbgrad's own state layout (56 bytes), which PyTorch's ``set_state`` does not read.
    """

    __slots__ = ("_device", "_numpy", "_seed")

    def __init__(self, device: str | backend.device = "cpu") -> None:
        self._device = backend.device(device)
        if self._device.type == "cuda":
            backend.module_for(self._device)  # refuses a GPU that is not there
        self.manual_seed(DEFAULT_SEED)

    @property
    def device(self) -> backend.device:
        """The device whose tensors this generator fills.

        Returns
        -------
        nbgrad.device
        """
        return self._device

    def manual_seed(self, seed: int) -> Generator:
        """Reseed the generator with ``seed`` (taken modulo 2**64, so it may be negative).

        Parameters
        ----------
        seed : int
            The new seed; a float or a string raises PyTorch's RuntimeError.

        Returns
        -------
        Generator
            This generator, as in PyTorch.
        """
        self._seed = _checked_seed(seed, "manual_seed")
        self._numpy = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self) -> int:
        """Reseed with a non-deterministic seed (from the operating system).

        Returns
        -------
        int
            The new seed.
        """
        seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with.

        Returns
        -------
        int
            Modulo 2**64, so a negative seed reads back as its two's complement.
        """
        return self._seed

    def get_state(self) -> Tensor:
        """The generator's state as a uint8 tensor, for ``set_state``.

        Returns
        -------
        Tensor
            56 bytes: the seed, then NumPy's PCG64 state. The layout is nbgrad's own (PyTorch's
            states are 5056 bytes), so states do not travel between the two libraries.
        """
        state = self._numpy.bit_generator.state
        words = (self._seed, state["state"]["state"], state["state"]["inc"],
                 state["has_uint32"], state["uinteger"])
        sizes = (8, 16, 16, 8, 8)
        data = b"".join(int(w).to_bytes(n, "little") for w, n in zip(words, sizes))
        return Tensor._make(np.frombuffer(data, np.uint8).copy())

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state that ``get_state`` returned (the seed included).

        Parameters
        ----------
        new_state : Tensor
            A uint8 tensor of 56 elements.

        Returns
        -------
        Generator
            This generator.
        """
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a nbgrad.ByteTensor, but got {type(new_state).__name__}")
        if new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a nbgrad.ByteTensor")
        data = backend.to_device(new_state._data, "cpu").reshape(-1).tobytes()
        if len(data) != _STATE_BYTES:
            raise RuntimeError(f"Expected an nbgrad generator state of size {_STATE_BYTES} but "
                               f"found the input RNG state size to be {len(data)}")
        seed, state, inc, has_uint32, uinteger = (
            int.from_bytes(data[a:b], "little")
            for a, b in ((0, 8), (8, 24), (24, 40), (40, 48), (48, 56)))
        bits = np.random.PCG64()
        bits.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                      "has_uint32": has_uint32, "uinteger": uinteger}
        self._seed, self._numpy = seed, np.random.Generator(bits)
        return self

    def __repr__(self) -> str:
        return f"<nbgrad.Generator object on {self._device}>"


default_generator = Generator()


def numpy_generator(generator, device=None, op=None):
    """The NumPy generator behind ``generator`` (``default_generator`` when ``None``), checked
    as PyTorch checks ``generator=``: a Generator, of the device type of the result."""
    if generator is None:
        return default_generator._numpy
    if not isinstance(generator, Generator):
        where = f"{op}(): argument 'generator'" if op else "argument 'generator'"
        raise TypeError(f"{where} must be nbgrad.Generator, not {type(generator).__name__}")
    wanted = "cpu" if device is None else backend.device(device).type
    if generator._device.type != wanted:
        raise RuntimeError(f"Expected a '{wanted}' device type for generator but found "
                           f"'{generator._device.type}'")
    return generator._numpy
