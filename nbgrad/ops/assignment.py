"""The operations that exist only in place: ``copy_``, ``fill_``, ``zero_`` and ``t[i] = v``.

Each is written, like every in-place method, as its out-of-place form (``copy``,
``fill``, ``zero``, ``index_put``) that ``inplace.apply_inplace`` applies to a snapshot of
the tensor and writes back (chapter 05). The out-of-place forms are not exported.
"""

from .. import backend
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .inplace import apply_inplace
from .methods import tensor_method
from .nondifferentiable import ZeroGradient
from .elementwise import to_input
from .operands import broadcast_error, operand, same_device, zeros_like
from .indexing import _key, getitem


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
def copy(input, src):
    """``src`` broadcast to ``input``'s shape and cast to its dtype: ``copy_`` out of place."""
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
    """``fill_``: the result does not depend on the old values."""

    __slots__ = ()


@op(FillBackward2, export=False, method=False, inplace=True)
def fill(input, value):
    """``value`` everywhere, shaped like ``input``: ``fill_`` out of place."""
    return _filled(input, value, FillBackward2)


def _filled(input, value, node_cls):
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        value = value.item()
    out = Tensor._make(array_module(input._data).full_like(input._data, value))
    if should_record(input):
        record(node_cls, out, (input,))
    return out


class ZeroBackward0(ZeroGradient):
    """``zero_``: the result does not depend on the old values."""

    __slots__ = ()


@op(ZeroBackward0, export=False, method=False, inplace=True)
def zero(input):
    """A tensor of zeros shaped like ``input``: ``zero_`` out of place."""
    return _filled(input, 0, ZeroBackward0)


class IndexPutBackward0(Node):
    """``t[idx] = v`` with integer-array or mask indices."""

    __slots__ = ("key", "meta")

    def apply(self, grad):
        self_fn, value_fn = self._next_nodes
        grad_self = grad_value = None
        if self_fn is not None:
            grad_self = grad.masked_fill(_mask(grad, self.key), 0.0)
        if value_fn is not None:
            grad_value = to_input(getitem(grad, self.key), self.meta)
        return grad_self, grad_value


def _mask(like, key):
    mask = array_module(like._data).zeros(like._data.shape, dtype=bool)
    mask[key] = True
    return Tensor._make(mask)


def index_put(input, key, value):
    value = operand(value, "index_put_", 3, "values")
    same_device(input, value)
    data = input._data.copy()
    source = value._data if isinstance(value, Tensor) else value
    data[key] = source
    out = Tensor._make(data)
    tensors = [t for t in (input, value) if isinstance(t, Tensor)]
    if should_record(*tensors):
        record(IndexPutBackward0, out, (input, value if isinstance(value, Tensor) else None),
               key=key, meta=(source.shape, source.dtype) if isinstance(value, Tensor) else None)
    return out


@tensor_method("__setitem__")
def setitem(t, index, value):
    """``t[index] = value``: through a view for basic indices, ``index_put_`` otherwise."""
    key, advanced = _key(index, t._data)
    if advanced:
        apply_inplace(t, index_put, key, value)
    else:
        apply_inplace(getitem(t, key), copy, value)
