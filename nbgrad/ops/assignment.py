"""The operations that exist only in place: ``copy_``, ``fill_``, ``zero_`` and ``t[i] = v``.

Each is written, like every in-place method, as its out-of-place form (``copy``,
``fill``, ``zero``, ``index_put``) that ``inplace.apply_inplace`` applies to a snapshot of
the tensor and writes back (chapter 05). The out-of-place forms are not exported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import backend, dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .elementwise import to_input
from .indexing import (advanced_index, apply_basic, checked_slice, index_error, indices_error,
                       is_whole_slice, select_part, slice_view, type_name)
from .inplace import apply_inplace
from .methods import tensor_method
from .nondifferentiable import ZeroGradient
from .operands import broadcast_error, operand, same_device, tensor_operand, zeros_like
from .shape import unsqueeze

if TYPE_CHECKING:
    from ..types import TensorOrNumber


class CopyBackwards(Node):
    """``t.copy_(src)``: the old values of ``t`` get no gradient, ``src`` gets it all
    (summed to its shape, cast to its dtype and sent back to its device)."""

    __slots__ = ("meta", "device")

    def apply(self, grad):
        self_fn, src_fn = self._next_nodes
        grad_src = None
        if src_fn is not None:
            grad_src = to_input(grad, self.meta)
            if grad_src.device != self.device:
                grad_src = grad_src.to(self.device)
        return (zeros_like(grad) if self_fn is not None else None, grad_src)


@op(CopyBackwards, export=False, method=False, inplace=True)
def copy(input: Tensor, src: TensorOrNumber) -> Tensor:
    """``src`` broadcast to this tensor's shape, cast to its dtype and moved to its device.

    ``copy_`` out of place: the one operation that crosses devices (as in PyTorch). The
    old values get no gradient; ``src`` gets all of it, summed to its shape and sent back to
    its device.

    Parameters
    ----------
    input : Tensor
    src : Tensor or number

    Returns
    -------
    Tensor
    """
    value = operand(src, "copy_", 1, "src")
    data = input._data
    xp = array_module(data)
    is_tensor = isinstance(value, Tensor)
    # copy_ is the one operation that crosses devices, explicitly (as in PyTorch)
    source = backend.to_device(value._data, input.device) if is_tensor else value
    try:
        result = xp.broadcast_to(xp.asarray(source, dtype=data.dtype), data.shape).copy()
    except ValueError:
        raise broadcast_error(data.shape, getattr(source, "shape", ())) from None
    out = Tensor._make(result)
    if should_record(input, *([value] if is_tensor else [])):
        record(CopyBackwards, out, (input, value if is_tensor else None),
               meta=(source.shape, source.dtype) if is_tensor else None,
               device=value.device if is_tensor else None)
    return out


class FillBackward2(ZeroGradient):
    """``fill_`` with a number: the result does not depend on the old values."""

    __slots__ = ()


class FillBackward3(CopyBackwards):
    """``fill_`` with a 0-d tensor: as ``copy_`` of it, the value gets the whole gradient
    (summed)."""

    __slots__ = ()


@op(FillBackward2, FillBackward3, export=False, method=False, inplace=True)
def fill(input: Tensor, value: TensorOrNumber) -> Tensor:
    """``value`` everywhere, in this tensor's shape and dtype.

    ``fill_`` out of place. The old values get no gradient; a tensor ``value`` gets the sum
    of it.

    Parameters
    ----------
    input : Tensor
    value : Tensor or number
        A number or a 0-d tensor.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        If ``value`` is a tensor with dimensions.
    """
    if isinstance(value, Tensor):
        return _filled_from(input, value)
    return _filled(input, value, FillBackward2)


def _filled_from(input, value):
    if value._data.ndim:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{value._data.ndim} dimensions."
        )
    source = backend.to_device(value._data, input.device)
    out = Tensor._make(array_module(input._data).full_like(input._data, source))
    if should_record(input, value):
        record(FillBackward3, out, (input, value), meta=((), source.dtype), device=value.device)
    return out


def _filled(input, value, node_cls):
    out = Tensor._make(array_module(input._data).full_like(input._data, value))
    if should_record(input):
        record(node_cls, out, (input,))
    return out


class ZeroBackward0(ZeroGradient):
    """``zero_``: the result does not depend on the old values."""

    __slots__ = ()


@op(ZeroBackward0, export=False, method=False, inplace=True)
def zero(input: Tensor) -> Tensor:
    """Zeros in this tensor's shape and dtype.

    ``zero_`` out of place: the old values get no gradient.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return _filled(input, 0, ZeroBackward0)


class IndexPutBackward0(Node):
    """``t[idx] = v`` with index arrays or masks: the overwritten positions get no gradient,
    ``v`` gets the gradient at them (summed to its shape). The indices are saved, and freed
    after backward."""

    __slots__ = ("meta",)

    def apply(self, grad):
        (key,) = self.saved_values
        self_fn, value_fn = self._next_nodes
        grad_self = grad_value = None
        if self_fn is not None:
            grad_self = grad.masked_fill(_mask(grad, key), 0.0)
        if value_fn is not None:
            grad_value = to_input(advanced_index(grad, key), self.meta)
        return grad_self, grad_value


def _mask(like, key):
    mask = array_module(like._data).zeros(like._data.shape, dtype=bool)
    try:
        mask[key] = True
    except IndexError:  # an empty indexing result: nothing was written (as in index_put)
        pass
    return Tensor._make(mask)


def index_put(input, key, value):
    """``input`` with ``value`` put at ``key`` (``apply_basic``'s key): ``index_put_`` out of
    place, with PyTorch's checks (in its order) and errors."""
    same_device(input, value)
    data = input._data.copy()
    source = value._data
    if source.dtype != data.dtype and not _fills_a_mask(key, value):
        error = indices_error(data.shape, key, source.shape)  # PyTorch checks these first
        raise error or RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{dtypes.scalar_type_name(data.dtype)} for the destination and "
            f"{dtypes.scalar_type_name(source.dtype)} for the source."
        )
    try:
        data[key] = source
    except (IndexError, ValueError):
        error = index_error(data.shape, key, source.shape)
        if error is not None:
            raise error from None
        # nothing is written where the indexing result is empty (NumPy checks the indices anyway)
    out = Tensor._make(data)
    if should_record(input, value):
        record(IndexPutBackward0, out, (input, value), saved=(key,),
               meta=(source.shape, source.dtype))
    return out


def _fills_a_mask(key, value):
    """PyTorch puts one CPU value at a single mask with ``masked_fill_``, which casts it."""
    arrays = [p for p in key if type(p) is not slice]
    return value.numel() == 1 and value.device.type == "cpu" and len(arrays) == 1 \
        and arrays[0].dtype.kind == "b"


@tensor_method("__setitem__")
def setitem(t, index, value):
    """``t[index] = value``, as PyTorch does it (``set_item``): the basic parts of the index
    give a view of ``t`` (as in ``t[index]``); with no index arrays left, ``value`` is copied
    into that view (cast to its dtype, broadcast to its shape), else ``index_put_`` puts it
    there (same dtype required, leading dimensions of size 1 dropped first)."""
    t = tensor_operand(t, "__setitem__")
    value = _value_tensor(t, value)
    kind = type(index)
    if kind is int:  # one part, not in a tuple: PyTorch's short cuts
        return _copy_to(select_part(t, 0, index, 0), value)
    if kind is slice:
        part = checked_slice(index)
        whole = t._data.ndim and is_whole_slice(part, t._data.shape[0])
        return _copy_to(t if whole else slice_view(t, 0, part), value)
    if index is False:
        return None
    if index is Ellipsis:
        return _copy_to(t, value)
    if index is None or index is True:
        return _copy_to(unsqueeze(t, 0), value)
    target, key = apply_basic(t, index)
    if key is None:
        return _copy_to(target, value)
    apply_inplace(target, index_put, key, _without_leading_ones(value))
    return None


def _value_tensor(t, value):
    """The assigned value as a tensor: a number becomes a 0-d tensor of ``t``'s dtype."""
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        raise TypeError(f"can't assign a {type_name(value)} to a {t.type()}")
    dtype = t._data.dtype
    if isinstance(value, (complex, np.complexfloating)) and dtype.kind != "c":
        raise _overflow(dtype)
    try:
        return Tensor._make(array_module(t._data).asarray(value, dtype=dtype))
    except OverflowError:  # an int out of the dtype's range
        raise _overflow(dtype) from None


def _overflow(dtype):
    return RuntimeError(f"value cannot be converted to type {dtypes.c_type_name(dtype)} without overflow")


def _copy_to(target, value):
    """PyTorch's ``copy_to``: ``copy_`` of a value of the same shape, ``fill_`` with a 0-d
    one, else ``copy_`` of the value viewed without its leading 1s (and expanded, if that
    is not yet the shape)."""
    if value._data.shape != target._data.shape:
        if value._data.ndim == 0 and value.device.type == "cpu":
            apply_inplace(target, fill, value)
            return
        value = value.view(_without_leading_ones_shape(value._data.shape))
        if value._data.shape != target._data.shape:
            value = value.expand(target._data.shape)
    apply_inplace(target, copy, value)


def _without_leading_ones(value):
    shape = value._data.shape
    if not shape or shape[0] != 1:  # the common case: nothing to drop
        return value
    return value.view(_without_leading_ones_shape(shape))


def _without_leading_ones_shape(shape):
    """``shape`` without its leading 1s (NumPy's old rule, kept by PyTorch's setitem)."""
    first = next((i for i, n in enumerate(shape) if n != 1), len(shape))
    return shape[first:]
