"""In-place operations: version counters, the leaf rule, and rewriting the graph.

``t.add_(1)`` changes ``t``'s storage, so three things must happen (chapter 05):

1. **The leaf rule.** With grad mode on, a leaf that requires grad (or a view of one)
   may not be changed in place: its old value may be needed and its ``.grad`` would lose
   its meaning. (Under ``no_grad``, as in an optimizer step, it is fine.)
2. **The version counter** of ``t`` (shared by its views) goes up by one, so that any
   node that saved ``t`` earlier notices at backward time.
3. **The graph is rewritten.** ``t`` now holds ``op(old t)``: its ``grad_fn`` becomes the
   node of that operation. If ``t`` is a view, its *base* changed too: the base's new
   ``grad_fn`` is a ``CopySlices`` node that routes the gradient of the changed region
   through the operation and the rest straight through, and every live view of the base
   gets its ``grad_fn`` rebuilt from the base.

Each in-place method is the out-of-place function applied to a snapshot of ``t`` (a
copy that keeps ``t``'s place in the graph), followed by writing the result into ``t``.
"""

import numpy as np

from .. import backend
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import attach, edge_of, record, should_record
from ..autograd.node import Node, SavedOutput, short_name
from ..backend import array_module
from ..tensor import Tensor
from . import activations, arithmetic, shape
from .arithmetic import to_input
from .nondifferentiable import ZeroGradient
from .operands import broadcast_error, operand, same_device, tensor_operand, zeros_like

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
HINT = ("\nnbgrad hint: update parameters inside `with nbgrad.no_grad():`, or use the "
        "out-of-place form (chapter 05).")


def check_leaf(t):
    """The leaf rule: no in-place change of a leaf that requires grad while recording."""
    if not is_grad_enabled():
        return
    base = t._base
    if base is not None and base._requires_grad and getattr(t, "_made_without_grad", False):
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad mode "
            "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
            "You can clarify your code by moving both the view and the inplace either both "
            "inside the no_grad block (if you don't want the inplace to be tracked) or both "
            "outside (if you want the inplace to be tracked)."
        )
    if base is not None and base._grad_fn is None and base._requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_MESSAGE + HINT)
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError(LEAF_MESSAGE + HINT)


def apply_inplace(t, op, *args, **kwargs):
    """``t.op_(*args)``: compute ``op(t, *args)`` and make ``t`` hold the result."""
    t = tensor_operand(t, op.__name__ + "_")
    check_leaf(t)
    replays = getattr(t, "_view_fn", None)
    if replays and replays[-1] is None:
        raise RuntimeError(
            f"Output {t._output_nr} of {short_name(t._grad_fn) if t._grad_fn else 'Unbind'} is a "
            "view and is being modified inplace. This view is the output of a function that "
            "returns multiple views. Such functions do not allow the output views to be modified "
            "inplace. You should replace the inplace operation by an out-of-place one."
        )
    tensors = [a for a in args if isinstance(a, Tensor)]
    if not should_record(t, *tensors):
        with no_grad():
            result = op(t, *args, **kwargs)
        _write(t, result._data)
        return t
    snapshot = Tensor._make(t._data.copy())
    snapshot._requires_grad = t._requires_grad
    if t._grad_fn is not None:
        attach(snapshot, t._grad_fn, t._output_nr)
    result = op(snapshot, *args, **kwargs)
    _write(t, result._data)
    node = result._grad_fn
    base = t._base
    if base is None:
        _become_output(t, node)
        _refresh_views(t)
    else:
        _become_output(base, CopySlices.wrap(base, t, node))
        _refresh_views(base)
    for saved in node._saved if isinstance(node._saved, tuple) else ():
        if type(saved) is SavedOutput:
            saved.retarget(t)
    return t


def _write(t, values):
    """Write ``values`` into ``t``'s storage (shared with its views) and bump the version."""
    target = t._data
    if values.shape != target.shape:
        raise RuntimeError(
            f"output with shape {list(target.shape)} doesn't match the broadcast shape "
            f"{list(values.shape)}"
        )
    if values.dtype != target.dtype and not np.can_cast(values.dtype, target.dtype, "same_kind"):
        raise RuntimeError(
            f"result type {_type_name(values.dtype)} can't be cast to the desired output type "
            f"{_type_name(target.dtype)}"
        )
    if _overlapping(target):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    if backend.is_read_only(target):
        raise RuntimeError(
            "this tensor's memory is a NumPy array that is not writable (from_numpy or "
            "as_tensor of a read-only array), so it cannot be changed in place.\n"
            "nbgrad hint: copy the array, or clone() the tensor, before changing it."
        )
    target[...] = values
    t._bump_version()


def _overlapping(array):
    """Whether elements share memory, as in an ``expand``ed view: a zero stride over a
    dimension of size > 1 (NumPy's read-only flag would not tell: an array can be read-only
    for other reasons, and CuPy has no such flag)."""
    return any(stride == 0 and size > 1 for stride, size in zip(array.strides, array.shape))


def _type_name(np_dtype):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
            "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}[np_dtype.name]


def _become_output(t, node):
    """``t`` is now the output of ``node``; a retained gradient follows it there."""
    old = t._grad_fn
    attach(t, node)
    if getattr(t, "_retains_grad", False) and old is not None and old._hooks is not None:
        ref = old._hooks.retains_grad.pop(t._output_nr, None)
        if ref is not None:
            node._node_hooks().retains_grad[0] = ref


def _refresh_views(base):
    """Rebuild the ``grad_fn`` of every live view of ``base`` by replaying it on the base."""
    views = getattr(base, "_views", None)
    if not views:
        return
    with enable_grad():
        for ref in list(views):
            view = ref()
            if view is None or view._view_fn[-1] is None:  # gone, or an unbind piece
                continue
            fresh = shape.replay_view(view, base)
            view._grad_fn = fresh._grad_fn
            view._requires_grad = fresh._requires_grad
            if fresh._grad_fn is not None:
                view._output_nr = fresh._output_nr


class CopySlices(Node):
    """The new ``grad_fn`` of a base after an in-place change through one of its views.

    Backward: the region the view covers gets the gradient through the in-place
    operation ``fn``; everything else passes straight to the base's old ``grad_fn``.
    """

    __slots__ = ("view", "fn")

    @classmethod
    def wrap(cls, base, view, fn):
        base_node, base_nr = edge_of(base)
        node = cls((base_node,) + fn._next_nodes[1:], (base_nr,) + fn._output_nrs[1:])
        node.view, node.fn = view.detach(), fn  # detach: the replays, without a cycle
        node.view._view_fn = view._view_fn
        node._saved = fn._saved  # what backward needs is what ``fn`` saved
        return node

    def apply(self, grad):
        result = grad.clone()
        region = shape.replay_view(self.view, result)
        grads = self.fn.apply(region.clone())
        if grads[0] is None:
            region.zero_()
        else:
            region.copy_(grads[0])
        return (result,) + tuple(grads[1:])

    def _release(self):
        self.fn._release()
        self._saved = self.fn._saved


# -- the operations that have no out-of-place counterpart elsewhere ---------------------
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


def copied(input, src):
    """``src`` broadcast to ``input``'s shape and cast to its dtype (``copy_`` out of place)."""
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


class ZeroBackward0(ZeroGradient):
    """``zero_``: the result does not depend on the old values."""

    __slots__ = ()


class FillBackward2(ZeroGradient):
    """``fill_``: the result does not depend on the old values."""

    __slots__ = ()


def filled(input, value, node_cls=FillBackward2):
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


def zeroed(input):
    return filled(input, 0, ZeroBackward0)


class IndexPutBackward0(Node):
    """``t[idx] = v`` with integer-array or mask indices."""

    __slots__ = ("key", "meta")

    def apply(self, grad):
        self_fn, value_fn = self._next_nodes
        grad_self = grad_value = None
        if self_fn is not None:
            grad_self = grad.masked_fill(_mask(grad, self.key), 0.0)
        if value_fn is not None:
            grad_value = to_input(shape.getitem(grad, self.key), self.meta)
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


def setitem(t, index, value):
    """``t[index] = value``: through a view for basic indices, ``index_put_`` otherwise."""
    key, advanced = shape._key(index, t._data)
    if advanced:
        apply_inplace(t, index_put, key, value)
    else:
        apply_inplace(shape.getitem(t, key), copied, value)


# -- the in-place methods ---------------------------------------------------------------
def _inplace_method(op, name):
    def method(self, *args, **kwargs):
        return apply_inplace(self, op, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"In-place ``{op.__name__}``: changes this tensor and bumps its version."
    return method


add_ = _inplace_method(arithmetic.add, "add_")
sub_ = _inplace_method(arithmetic.sub, "sub_")
mul_ = _inplace_method(arithmetic.mul, "mul_")
div_ = _inplace_method(arithmetic.div, "div_")
pow_ = _inplace_method(arithmetic.pow, "pow_")
neg_ = _inplace_method(arithmetic.neg, "neg_")
exp_ = _inplace_method(arithmetic.exp, "exp_")
clamp_ = _inplace_method(arithmetic.clamp, "clamp_")
masked_fill_ = _inplace_method(arithmetic.masked_fill, "masked_fill_")
relu_ = _inplace_method(activations.relu, "relu_")
sigmoid_ = _inplace_method(activations.sigmoid, "sigmoid_")
tanh_ = _inplace_method(activations.tanh, "tanh_")
copy_ = _inplace_method(copied, "copy_")
fill_ = _inplace_method(filled, "fill_")
zero_ = _inplace_method(zeroed, "zero_")
