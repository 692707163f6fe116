"""Datasets, samplers and the ``DataLoader``: PyTorch's ``torch.utils.data`` on nbgrad.

    >>> from nbgrad.utils.data import DataLoader, TensorDataset
    >>> loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    >>> for xb, yb in loader: ...

Every loader runs in the calling process: ``num_workers`` is accepted and checked as
PyTorch checks it, but no worker processes are started (``dataloader.py`` says why).
"""

from __future__ import annotations

from ... import missing as _missing
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler",
    "TensorDataset", "default_collate", "default_convert", "get_worker_info", "random_split",
]


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
