"""``Tensor.to``: change dtype and/or device, differentiably (``ToCopyBackward0``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import backend, dtypes
from ..autograd.graph import record, should_record
from ..core.node import Node
from ..tensor import Tensor
from .declare import op

if TYPE_CHECKING:
    from ..dtypes import dtype
    from ..types import DeviceLike


class ToCopyBackward0(Node):
    """The gradient goes back to the input's dtype and device."""

    __slots__ = ("dtype", "device")

    def apply(self, grad):
        return (grad.to(self.device, self.dtype),)


def _parse(args, kwargs):
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for arg in args:
        if isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, dtypes.dtype) or arg in (float, int, bool):  # float: float64
            dtype = dtypes.dtype_argument(arg, "to")
        elif isinstance(arg, (str, backend.device)):
            device = arg
        elif isinstance(arg, int) and not isinstance(arg, bool):
            device = backend.device("cuda", arg)
        elif isinstance(arg, bool):
            continue  # the old positional non_blocking
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {arg!r}")
    return device, dtype, copy


@op(ToCopyBackward0, export=False)
def to(input: Tensor, *args: Tensor | dtype | DeviceLike | type,
       **kwargs: dtype | DeviceLike | bool | None) -> Tensor:
    """This tensor with another dtype and/or on another device.

    ``x.to(dtype)``, ``x.to(device)``, ``x.to(device, dtype)`` or ``x.to(other)`` (the dtype
    and device of the tensor ``other``). It is differentiable: the gradient goes back to the
    input's dtype and device, except from an integer or bool result, which leaves the graph
    (as in PyTorch).

    Parameters
    ----------
    input : Tensor
    *args
        A dtype (``float``, ``int`` and ``bool`` mean float64, int64 and bool), a device (a
        name such as ``"cuda:0"``, an ``nbgrad.device`` or a CUDA index), both, or a tensor.
        A bool among them is PyTorch's old positional ``non_blocking``, ignored.
    **kwargs
        ``dtype=``, ``device=``, ``copy=True`` (a new tensor even when nothing changes) and
        ``non_blocking=`` (accepted, ignored).

    Returns
    -------
    Tensor
        ``input`` itself when neither dtype nor device changes and ``copy`` is not asked for.

    Raises
    ------
    TypeError
        For another keyword or an argument that is neither a dtype, a device nor a tensor.
    """
    device, dtype, copy = _parse(args, dict(kwargs))
    x = input
    data = x._data
    target_dtype = data.dtype if dtype is None else dtypes.to_numpy_dtype(dtype, "to")
    target_device = x.device if device is None else backend.device(device)
    if target_dtype == data.dtype and target_device == x.device and not copy:
        return x
    moved = backend.to_device(data, target_device)
    if moved is data and copy:
        moved = data.copy()
    out = Tensor._make(moved.astype(target_dtype, copy=False) if moved.dtype != target_dtype else moved)
    if should_record(x):
        if target_dtype.kind != "f":
            return out  # an integer copy leaves the graph, as in PyTorch
        record(ToCopyBackward0, out, (x,), dtype=x.dtype, device=x.device)
    return out
