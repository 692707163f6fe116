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
An operation declares that it has one (``@op(..., inplace=True)``, ``declare.py``); the
operations that exist only in place (``copy_``, ``fill_``, ``zero_``, ``t[i] = v``) are in
``assignment.py``.
"""

import numpy as np

from .. import backend, dtypes
from ..autograd.graph import attach, edge_of, should_record
from ..core.grad_mode import enable_grad, grad_mode, no_grad
from ..core.node import _FREED, Node, SavedOutput, short_name
from ..tensor import Tensor
from .operands import tensor_operand
from .views import NO_GRAD_VIEW, replay_view

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
HINT = ("\nnbgrad hint: update parameters inside `with nbgrad.no_grad():`, or use the "
        "out-of-place form (chapter 05).")


def check_leaf(t):
    """The leaf rule: no in-place change of a leaf that requires grad while recording."""
    if not grad_mode.enabled:
        return
    base = t._base
    if base is not None and base._requires_grad and t._made_without_grad:
        made = t._made_without_grad
        what = ("A view was created" if made is NO_GRAD_VIEW else
                f"Output {t._output_nr} of {_view_name(made)} is a view of a view which was created")
        raise RuntimeError(
            f"{what} in no_grad mode and is being modified inplace with grad mode "
            "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
            "You can clarify your code by moving both the view and the inplace either both "
            "inside the no_grad block (if you don't want the inplace to be tracked) or both "
            "outside (if you want the inplace to be tracked)."
        )
    if base is not None and base._grad_fn is None and base._requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_MESSAGE + HINT)
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError(LEAF_MESSAGE + HINT)


def check_multi_output_view(t):
    """A piece of ``unbind`` (or a view of one) that is in a graph may not be changed in
    place while recording: the one node behind all the pieces could not be rewritten for
    one of them. Outside a graph, or under ``no_grad``, there is nothing to rewrite."""
    if t._requires_grad and None in t._view_fn and grad_mode.enabled:
        raise RuntimeError(
            f"Output {t._output_nr} of {short_name(t._grad_fn)} is a view and is being "
            "modified inplace. This view is the output of a function that returns multiple "
            "views. Such functions do not allow the output views to be modified inplace. You "
            "should replace the inplace operation by an out-of-place one."
        )


def _view_name(node_cls):
    return node_cls.__name__.split("Backward")[0] if isinstance(node_cls, type) else "View"


def apply_inplace(t, op, *args, **kwargs):
    """``t.op_(*args)``: compute ``op(t, *args)`` and make ``t`` hold the result."""
    t = tensor_operand(t, op.__name__ + "_")
    if t._view_fn is not None:
        check_multi_output_view(t)
    check_leaf(t)
    if not should_record(t, *args):
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
            f"result type {dtypes.scalar_type_name(values.dtype)} can't be cast to the desired output type "
            f"{dtypes.scalar_type_name(target.dtype)}"
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
    if not array.size:  # NumPy may give an empty array zero strides: nothing is written
        return False
    return any(stride == 0 and size > 1 for stride, size in zip(array.strides, array.shape))


def _become_output(t, node):
    """``t`` is now the output of ``node``; a retained gradient follows it there."""
    old = t._grad_fn
    attach(t, node)
    if t._retains_grad and old is not None and old._hooks is not None:
        ref = old._hooks.retains_grad.pop(t._output_nr, None)
        if ref is not None:
            node._node_hooks().retains_grad[0] = ref


def _refresh_views(base):
    """Rebuild the ``grad_fn`` of every live view of ``base`` by replaying it on the base."""
    views = base._views
    if not views:
        return
    with enable_grad():
        for ref in list(views):
            view = ref()
            if view is None or view._view_fn[-1] is None:  # gone, or an unbind piece
                continue
            fresh = replay_view(view, base)  # the base requires grad now: so does the replay
            attach(view, fresh._grad_fn, fresh._output_nr)


class CopySlices(Node):
    """The new ``grad_fn`` of a base after an in-place change through one of its views.

    Backward: the region the view covers gets the gradient through the in-place
    operation ``fn``; everything else passes straight to the base's old ``grad_fn``.
    It saves what ``fn`` saved and ``fn`` itself: as in PyTorch, ``fn`` is freed after
    backward, so a second backward through the node refuses even where ``fn`` saves nothing.
    """

    __slots__ = ("view",)

    @classmethod
    def wrap(cls, base, view, fn):
        base_node, base_nr = edge_of(base)
        node = cls((base_node,) + fn._next_nodes[1:], (base_nr,) + fn._output_nrs[1:])
        node.view = view.detach()  # detach: the replays, without a cycle
        node.view._view_fn = view._view_fn
        node._saved = fn._saved + (fn,)  # what fn saved first: the chapters' graphs list it
        return node

    @property
    def fn(self):
        """The in-place operation's node (PyTorch's ``CopySlices::fn``)."""
        return self.saved_values[-1]

    def apply(self, grad):
        fn = self.fn
        result = grad.clone()
        region = replay_view(self.view, result)
        grads = fn.apply(region.clone())
        if grads[0] is None:
            region.zero_()
        else:
            region.copy_(grads[0])
        return (result,) + tuple(grads[1:])

    def _release(self):
        if self._saved is not _FREED:
            self._saved[-1]._release()
        self._saved = _FREED
