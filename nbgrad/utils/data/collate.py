"""Turning a list of samples into a batch (``default_collate``) and a single sample into
tensors (``default_convert``), with PyTorch's rules for each kind of element."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ... import dtypes
from ...creation import as_tensor, tensor
from ...ops.shape import stack
from ...tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                  "lists; found {}")
_STRING_DTYPES = "SaUO"  # NumPy dtype characters of strings and objects: not numbers


def _is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _same_kind(elem, values):
    """A mapping or sequence of ``elem``'s type holding ``values``, falling back to a plain
    dict / list when that type cannot be built from one (as PyTorch does)."""
    try:
        return type(elem)(values)
    except TypeError:
        return dict(values) if isinstance(elem, Mapping) else list(values)


def default_collate(batch: Sequence) -> Any:
    """Stack a list of samples into a batch, element by element.

    Tensors are stacked along a new first dimension; NumPy arrays and NumPy scalars become
    tensors and are stacked; Python floats become a float64 tensor, ints an int64 tensor
    (bools a bool tensor); strings stay a list; dicts, namedtuples and lists are collated
    per key / position. A tuple of fields gives a *list* of batches, as in PyTorch.

    Parameters
    ----------
    batch : sequence
        The samples, all of the same structure.

    Returns
    -------
    The batch, with the structure of one sample.

    Raises
    ------
    TypeError
        For an element of another type, or a NumPy array of strings or objects.
    RuntimeError
        When the sequences in the batch differ in length.
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.char in _STRING_DTYPES:
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number)):
        return as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        return _same_kind(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(samples) for samples in zip(*batch)]
        return columns if isinstance(elem, tuple) else _same_kind(elem, columns)
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def default_convert(data: Any) -> Any:
    """Turn NumPy arrays and scalars inside one sample into tensors, keeping its structure
    (what a loader with ``batch_size=None`` applies to each sample).

    Parameters
    ----------
    data : any
        A sample: tensors, NumPy values, numbers, and dicts / sequences of them.

    Returns
    -------
    The sample with NumPy values as tensors; a plain tuple becomes a list, as in PyTorch.
    """
    if isinstance(data, np.ndarray):
        return data if data.dtype.char in _STRING_DTYPES else as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return as_tensor(np.asarray(data))
    if isinstance(data, Mapping):
        return _same_kind(data, {key: default_convert(data[key]) for key in data})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _same_kind(data, [default_convert(d) for d in data])
    return data
