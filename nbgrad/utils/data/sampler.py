"""Samplers: which indices of a dataset a loader visits, and in what order, as in
``torch.utils.data``. Random ones draw through ``shuffle.py``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import TYPE_CHECKING, Any

from . import shuffle

if TYPE_CHECKING:
    from ...random.generator import Generator

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler"]

_CHUNK = 32  # PyTorch draws indices with replacement 32 at a time


class Sampler:
    """The base of samplers: subclasses define ``__iter__`` (indices) and usually ``__len__``.

    Parameters
    ----------
    data_source : Sized, optional
        Accepted for PyTorch's signature; the base keeps nothing.
    """

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """The indices ``0, 1, ..., len(data_source) - 1`` in order.

    Parameters
    ----------
    data_source : Sized
        Its length, read at each pass, is the number of indices.
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """The indices in a random order: a new permutation each pass.

    Parameters
    ----------
    data_source : Sized
    replacement : bool
        Draw with replacement (``num_samples`` independent indices) rather than permute.
    num_samples : int, optional
        How many indices per pass; ``len(data_source)`` by default. Without replacement,
        more than that many runs over several permutations, as in PyTorch.
    generator : nbgrad.Generator, optional
        Where the numbers come from; the default generator (``manual_seed``) if omitted.
    """

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """The number of indices one pass yields.

        Returns
        -------
        int
            ``num_samples`` as given, else ``len(data_source)`` (read each time).
        """
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        if self.replacement:
            for _ in range(self.num_samples // _CHUNK):
                yield from shuffle.integers(n, _CHUNK, self.generator)
            yield from shuffle.integers(n, self.num_samples % _CHUNK, self.generator)
        else:
            for _ in range(self.num_samples // n):
                yield from shuffle.permutation(n, self.generator)
            yield from shuffle.permutation(n, self.generator)[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (a new one each pass).

    Parameters
    ----------
    indices : sequence of int
    generator : nbgrad.Generator, optional
        Where the numbers come from; the default generator (``manual_seed``) if omitted.
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in shuffle.permutation(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``.

    Parameters
    ----------
    sampler : Sampler or iterable of int
    batch_size : int
    drop_last : bool
        Drop the last batch when it is smaller than ``batch_size``.
    """

    def __init__(self, sampler: Iterable[Any], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(  # noqa: TRY004 - PyTorch raises ValueError
                f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        length = len(self.sampler)  # type: ignore[arg-type]  # TypeError without one, as in PyTorch
        if self.drop_last:
            return length // self.batch_size
        return (length + self.batch_size - 1) // self.batch_size
