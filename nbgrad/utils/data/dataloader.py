"""The ``DataLoader``: batches from a dataset, in the order a sampler gives.

Everything runs in the calling process. ``num_workers > 0`` is accepted (PyTorch's
programs pass it routinely) and checked as PyTorch checks it, but no worker processes
are started: nbgrad's arrays live in this process, and a loader over them gains nothing
from processes that would copy each batch back. So ``get_worker_info()`` is always
``None`` and ``worker_init_fn`` is never called; ``pin_memory`` has no effect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sized
from typing import TYPE_CHECKING, Any, cast

from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

if TYPE_CHECKING:
    from ...random.generator import Generator

__all__ = ["DataLoader", "get_worker_info"]

# set only in ``__init__``, as PyTorch enforces
_FIXED = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


def get_worker_info() -> None:
    """Information about the current worker process: always ``None``, since nbgrad's
    loaders load in the calling process (``dataloader.py``)."""
    return


class _InfiniteConstantSampler(Sampler):
    """For an iterable dataset: ``None`` forever (the dataset decides where to stop)."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


def _check_options(dataset, shuffle, sampler, batch_sampler, batch_size, drop_last,
                   num_workers, timeout, prefetch_factor, persistent_workers):
    """PyTorch's checks of the loader's options, in its order and words."""
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if isinstance(dataset, IterableDataset):
        for name, value in (("shuffle", shuffle), ("sampler", sampler),
                            ("batch_sampler", batch_sampler)):
            if value not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} "
                                 f"option, but got {name}={value}")
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None:
        if batch_size != 1 or shuffle or sampler is not None or drop_last:
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                             "shuffle, sampler, and drop_last")
    elif batch_size is None and drop_last:
        raise ValueError("batch_size=None option disables auto-batching and is mutually "
                         "exclusive with drop_last")


class DataLoader:
    """Iterate over ``dataset`` in batches.

    Parameters
    ----------
    dataset : Dataset or IterableDataset
    batch_size : int or None
        Samples per batch (1); ``None`` turns batching off (each sample is converted by
        ``default_convert``).
    shuffle : bool, optional
        A new random order each epoch (a ``RandomSampler`` over ``generator``).
    sampler : Sampler or iterable, optional
        The order of the indices (excludes ``shuffle``).
    batch_sampler : Sampler or iterable of lists, optional
        The batches of indices (excludes ``batch_size``, ``shuffle``, ``sampler``,
        ``drop_last``).
    num_workers : int
        Checked as in PyTorch and otherwise ignored: loading runs in this process.
    collate_fn : callable, optional
        Makes a batch from a list of samples; ``default_collate`` by default.
    pin_memory : bool
        Accepted; no effect.
    drop_last : bool
        Drop the last, smaller batch.
    timeout, worker_init_fn, multiprocessing_context, prefetch_factor
        PyTorch's worker options: checked as PyTorch checks them where that matters
        without workers (``timeout`` non-negative, ``prefetch_factor`` only with
        workers), and otherwise unused.
    persistent_workers, pin_memory_device, in_order
        The same (``persistent_workers`` needs ``num_workers > 0``).
    generator : nbgrad.Generator, optional
        Where ``shuffle`` draws from; the default generator (``manual_seed``) if omitted.

    Notes
    -----
    ``len(loader)`` is the number of batches (for an iterable dataset, computed from its
    ``len()``). Options that define the batches may not be set after construction.
    """

    def __init__(self, dataset: Dataset, batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler: Iterable | None = None,
                 batch_sampler: Iterable | None = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, multiprocessing_context: Any = None,
                 generator: Generator | None = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:
        _check_options(dataset, shuffle, sampler, batch_sampler, batch_size, drop_last,
                       num_workers, timeout, prefetch_factor, persistent_workers)
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        if sampler is None:
            if isinstance(dataset, IterableDataset):
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(cast(Sized, dataset), generator=generator)
            else:
                sampler = SequentialSampler(cast(Sized, dataset))
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._initialized = True

    def __setattr__(self, name, value):
        if getattr(self, "_initialized", False) and name in _FIXED:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    def __iter__(self) -> Iterator:
        dataset = self.dataset
        if isinstance(dataset, IterableDataset):
            return self._iterate_stream(dataset, self.batch_size)
        return self._iterate_indexed(dataset)

    def _iterate_indexed(self, dataset: Dataset) -> Iterator:
        collate, batch_sampler = self.collate_fn, self.batch_sampler
        if batch_sampler is None:  # no batching: each sample converted on its own
            for index in self.sampler:
                yield collate(dataset[index])
            return
        fetch_many = getattr(dataset, "__getitems__", None)
        for indices in batch_sampler:
            samples = fetch_many(indices) if fetch_many else [dataset[i] for i in indices]
            yield collate(samples)

    def _iterate_stream(self, dataset: IterableDataset, batch_size: int | None) -> Iterator:
        collate = self.collate_fn
        if batch_size is None:
            for sample in dataset:
                yield collate(sample)
            return
        stream = iter(dataset)
        while True:
            batch = []
            for sample in stream:
                batch.append(sample)
                if len(batch) == batch_size:
                    break
            if not batch or self.drop_last and len(batch) < batch_size:
                return
            yield collate(batch)
            if len(batch) < batch_size:
                return

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            length = len(self.dataset)  # type: ignore[arg-type]  # TypeError without one, as in PyTorch
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return (length + self.batch_size - 1) // self.batch_size
            return length
        counted = self.sampler if self.batch_sampler is None else self.batch_sampler
        return len(counted)  # type: ignore[arg-type]  # a sampler without len: TypeError, as in PyTorch
