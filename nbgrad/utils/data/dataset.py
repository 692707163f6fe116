"""Datasets: things with ``__getitem__`` and ``__len__`` (map-style) or ``__iter__``
(iterable-style), and ways to combine and split them, as in ``torch.utils.data``."""

from __future__ import annotations

import bisect
import math
import operator
import warnings
from collections import abc
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import TYPE_CHECKING, Any

from ...tensor import Tensor
from . import shuffle

if TYPE_CHECKING:
    from ...random.generator import Generator

__all__ = ["ChainDataset", "ConcatDataset", "Dataset", "IterableDataset", "Subset",
           "TensorDataset", "random_split"]


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(index)`` and usually
    ``__len__()``. ``a + b`` concatenates two datasets (``ConcatDataset``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset, abc.Iterable):
    """An iterable-style dataset: subclasses define ``__iter__``, which yields the samples
    (a stream, for data that cannot be indexed); without one it cannot be instantiated, as
    in PyTorch. ``a + b`` chains two (``ChainDataset``)."""

    def __add__(self, other: Dataset) -> "ChainDataset":  # type: ignore[override]  # as PyTorch
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows of the given tensors: ``dataset[i]`` is
    ``tuple(t[i] for t in tensors)``.

    Parameters
    ----------
    *tensors : Tensor
        Tensors with the same size of the first dimension.

    Raises
    ------
    AssertionError
        "Size mismatch between tensors" when the first dimensions differ (PyTorch asserts).
    """

    def __init__(self, *tensors: Tensor) -> None:
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """The datasets one after another: index ``len(a)`` is ``b[0]``.

    Parameters
    ----------
    datasets : iterable of Dataset
        Map-style datasets (at least one; not ``IterableDataset``).
    """

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        """The running total of the lengths of ``sequence``.

        Parameters
        ----------
        sequence : iterable of Sized
            The datasets.

        Returns
        -------
        list of int
            ``cumulative_sizes``: element ``i`` is the number of samples in datasets
            ``0 .. i``.
        """
        totals, total = [], 0
        for dataset in sequence:
            total += len(dataset)
            totals.append(total)
        return totals

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another.

    Parameters
    ----------
    datasets : iterable of IterableDataset
    """

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator:
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            total += len(d)  # type: ignore[arg-type]  # TypeError without one, as in PyTorch
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    Parameters
    ----------
    dataset : Dataset
    indices : sequence of int
    """

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_of_fractions(fractions: Sequence[float], n: int) -> list[int]:
    """PyTorch's rule: ``floor(n * fraction)`` each, then the remainder one by one to the
    splits in order."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                          "dataset.", UserWarning, stacklevel=3)
    return lengths


def random_split(dataset: Sized, lengths: Sequence[int | float],
                 generator: Generator | None = None) -> list[Subset]:
    """Split ``dataset`` at random into non-overlapping ``Subset`` objects of the given lengths.

    Parameters
    ----------
    dataset : Dataset
    lengths : sequence of int or float
        The lengths of the splits, or fractions that sum to 1 (``[0.8, 0.2]``); the items
        that flooring leaves over go one each to the first splits, as in PyTorch.
    generator : nbgrad.Generator, optional
        Where the permutation comes from; the default generator (``manual_seed``) if omitted.

    Returns
    -------
    list of Subset
    """
    total = math.fsum(lengths)
    if math.isclose(total, 1) and total <= 1:
        sizes = _lengths_of_fractions(lengths, len(dataset))
    else:
        sizes = [operator.index(n) for n in lengths]  # type: ignore[arg-type]  # floats: TypeError
    if sum(sizes) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = shuffle.permutation(sum(sizes), generator)
    splits, offset = [], 0
    for size in sizes:
        splits.append(Subset(dataset, indices[offset:offset + size]))
        offset += size
    return splits
