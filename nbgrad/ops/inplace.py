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
   through the operation and the rest straight through. Every other view of the base
   notices the change the next time its ``grad_fn`` is read (the version counter it shares
   has moved on since the view got it) and gets a new one from the base then: an
   ``AsStridedBackward0``, where the view lies in the base (``views.Geometry``). PyTorch
   does the same, lazily: a base keeps no list of its views to update.

Each in-place method is the out-of-place function applied to a snapshot of ``t`` (a
copy that keeps ``t``'s place in the graph), followed by writing the result into ``t``.
An operation declares that it has one (``@op(..., inplace=True)``, ``declare.py``); the
operations that exist only in place (``copy_``, ``fill_``, ``zero_``, ``t[i] = v``) are in
``assignment.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import backend, dtypes
from ..autograd.graph import attach, edge_of, should_record
from ..core.grad_mode import grad_mode, no_grad
from ..core.node import _FREED, INFERENCE_COUNTER, INFERENCE_INPLACE, Node, SavedOutput
from ..tensor import IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE, NO_GRAD_MODE, Tensor
from .elementwise import NotImplementedBackward
from .methods import bind
from .operands import tensor_operand
from .views import Geometry, as_strided, internal_overlap, laid_out, rebuilt_view_node

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
HINT = ("\nnbgrad hint: update parameters inside `with nbgrad.no_grad():`, or use the "
        "out-of-place form (chapter 05).")
# Why a view made in a special way may not be changed in place (PyTorch's words).
FORBIDDEN = {
    MULTI_OUTPUT_NODE: (
        " This view is the output of a function that returns multiple views. Such functions "
        "do not allow the output views to be modified inplace. You should replace the inplace "
        "operation by an out-of-place one."),
    NO_GRAD_MODE: (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
        "clarify your code by moving both the view and the inplace either both inside the "
        "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
        "want the inplace to be tracked)."),
    IN_CUSTOM_FUNCTION: (
        " This view was created inside a custom Function (or because an input was returned "
        "as-is) and the autograd logic to handle view+inplace would override the custom "
        "backward associated with the custom Function, leading to incorrect gradients. This "
        "behavior is forbidden. You can fix this by cloning the output of the custom Function."),
}


def check_leaf(t: Tensor, recording: bool) -> None:
    """The leaf rule, when the in-place change is recorded (grad mode is on and ``t`` or an
    operand requires grad): no in-place change of a leaf that requires grad, of a view of
    one, or of a view made in a way that autograd cannot rewrite (``views.py``)."""
    if not recording:
        return
    base = t._base
    if base is not None:
        if t._creation_meta is not None:
            raise RuntimeError(view_rebase_message(t, indirect=False))
        if t._requires_grad and base._grad_fn is None:
            raise RuntimeError(VIEW_OF_LEAF_MESSAGE + HINT)
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError(LEAF_MESSAGE + HINT)


def view_rebase_message(view: Tensor, indirect: bool) -> str:
    """PyTorch's handle_view_on_rebase: why ``view`` (made in a special way) may not be
    changed in place, or (``indirect``) used after its base was."""
    modified = "its base or another view of its base has been" if indirect else "is being"
    fn = view._grad_fn
    creation = view._creation_meta
    if creation is NO_GRAD_MODE or fn is None:
        what = (f"Output {view._output_nr} of {_node_name(fn)} is a view of a view which was "
                "created in" if fn is not None else "A view was created in")
        message = f"{what} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        message = f"Output {view._output_nr} of {_node_name(fn)} is a view and {modified} modified inplace."
    return message + FORBIDDEN[creation]


def _node_name(node):
    """A node as these messages name it: ``SqueezeBackward1`` is ``Squeeze1``, and
    ``UnbindBackward0`` is ``Unbind`` (PyTorch's words)."""
    return re.sub(r"Backward0?", "", node.name(), count=1)


def apply_inplace(t: Tensor, op: Callable[..., Tensor], *args: Any, **kwargs: Any) -> Tensor:
    """``t.op_(*args)``: compute ``op(t, *args)`` and make ``t`` hold the result."""
    t = tensor_operand(t, op.__name__ + "_")
    recording = should_record(t, *args)
    check_leaf(t, recording)
    check_overlap(t, args)
    if not recording:
        with no_grad():
            result = op(t, *args, **kwargs)
        _write(t, result._data)
        return t
    snapshot = Tensor._make(t._data.copy())
    snapshot._requires_grad = t._requires_grad
    fn = t.grad_fn  # up to date: a view's, from its base's current grad_fn
    if fn is not None:
        attach(snapshot, fn, t._output_nr)
    result = op(snapshot, *args, **kwargs)
    _write(t, result._data)
    node = result._grad_fn
    if type(node) is NotImplementedBackward:
        node.op += "_"  # PyTorch names the in-place operation: aten::floor_divide_
    rebase_history(t, node)
    for saved in node._saved if isinstance(node._saved, tuple) else ():
        if type(saved) is SavedOutput:
            saved.retarget(t)
    return t


def rebase_history(t, node, output_nr=0):
    """``t`` was changed in place and now holds output ``output_nr`` of ``node``. If ``t`` is
    a view, its base holds it (``node`` has one output): the base's ``grad_fn`` becomes a
    ``CopySlices``. The base's views follow when next used (``regenerate_grad_fn``).
    PyTorch's rebase_history; ``Function.apply`` calls it for the tensors that
    ``mark_dirty`` names."""
    base = t._base
    if base is None:
        _become_output(t, node, output_nr)
        base = t
    else:
        _become_output(base, CopySlices.wrap(base, t, node))
    base._views_follow()  # the base may require grad now, and so its views outside the graph


def check_overlap(t: Tensor, operands: Sequence[Any]) -> None:
    """PyTorch's memory-overlap rules for the written-to tensor ``t`` (MemoryOverlap.cpp):
    no two of its elements may share memory, and no operand may share only part of its
    memory (the same elements in the same places is fine: ``x += x``)."""
    target = t._data
    if internal_overlap(target.shape, target.strides):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    for operand in operands:
        if isinstance(operand, Tensor) and operand is not t and _partial_overlap(target, operand._data):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation."
            )


def _partial_overlap(a, b):
    """PyTorch's get_overlap_status(a, b) == PARTIAL: both dense (where it can tell), in the
    same memory, and covering overlapping bytes but not the same ones in the same order."""
    if _owner(a) is not _owner(b) or not a.size or not b.size:
        return False
    span_a, span_b = _dense_span(a), _dense_span(b)
    if span_a is None or span_b is None:
        return False  # PyTorch's TOO_HARD: not checked
    if span_a == span_b:
        return a.strides != b.strides
    return span_a[0] < span_b[1] and span_b[0] < span_a[1]


def _owner(array):
    """The array (or buffer) that owns ``array``'s memory."""
    base = array.base
    return array if base is None else base


def _dense_span(array):
    """The bytes ``[begin, end)`` that ``array`` covers when its elements fill them exactly
    (PyTorch's is_non_overlapping_and_dense), else ``None``."""
    expected = array.itemsize
    for stride, size in sorted((s, n) for s, n in zip(array.strides, array.shape) if n != 1):
        if stride != expected:
            return None
        expected *= size
    begin = array.__array_interface__["data"][0] if type(array) is np.ndarray else array.data.ptr
    return begin, begin + array.size * array.itemsize


def _write(t, values):
    """Write ``values`` into ``t``'s storage (shared with its views) and bump the version."""
    if t._vc is INFERENCE_COUNTER and not grad_mode.inference:
        raise RuntimeError(INFERENCE_INPLACE)
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
    if not target.size:  # nothing to write (an empty expand is read-only, and fine)
        t._bump_version()
        return
    if backend.is_read_only(target):
        raise RuntimeError(
            "this tensor's memory is a NumPy array that is not writable (from_numpy or "
            "as_tensor of a read-only array), so it cannot be changed in place.\n"
            "nbgrad hint: copy the array, or clone() the tensor, before changing it."
        )
    target[...] = values
    t._bump_version()


def _become_output(t, node, output_nr=0):
    """``t`` is now output ``output_nr`` of ``node``; a retained gradient follows it there."""
    old, old_nr = t._grad_fn, t._output_nr
    attach(t, node, output_nr)
    if t._retains_grad and old is not None and old._hooks is not None:
        ref = old._hooks.retains_grad.pop(old_nr, None)
        if ref is not None:
            node._node_hooks().retains_grad[output_nr] = ref


def regenerate_grad_fn(view: Tensor) -> None:
    """``view``'s base, or another view of it, was changed in place after ``view`` got its
    ``grad_fn`` (the version counter they share has moved on): the view's elements now come
    from the base's current ``grad_fn``, through a new ``AsStridedBackward0``. A view made
    in a special way (``views.py``) refuses instead. PyTorch's VariableHooks::grad_fn,
    which runs whenever a view's ``grad_fn`` is read (here: ``Tensor.grad_fn`` and
    ``graph.next_edges``) and the version differs."""
    base = view._base
    if view._grad_fn is None and not base._requires_grad:
        return  # outside any graph: nothing comes from the base's grad_fn (yet)
    if view._creation_meta is not None:
        raise RuntimeError(view_rebase_message(view, indirect=True))
    node = rebuilt_view_node(view, base)
    if node is not None:
        _become_output(view, node)
    view._grad_fn_version = view._vc[0]


class CopySlices(Node):
    """The new ``grad_fn`` of a base after an in-place change through one of its views.

    Backward: the region the view covers gets the gradient through the in-place
    operation ``fn``; everything else passes straight to the base's old ``grad_fn``.
    It saves what ``fn`` saved and ``fn`` itself: as in PyTorch, ``fn`` is freed after
    backward, so a second backward through the node refuses even where ``fn`` saves nothing.
    """

    __slots__ = ("geometry",)

    @classmethod
    def wrap(cls, base, view, fn):
        base_node, base_nr = edge_of(base)
        node = cls((base_node,) + fn._next_nodes[1:], (base_nr,) + fn._output_nrs[1:])
        node.geometry = Geometry(view._data, base._data)
        node._saved = fn._saved + (fn,)  # what fn saved first: the chapters' graphs list it
        return node

    @property
    def fn(self):
        """The in-place operation's node (PyTorch's ``CopySlices::fn``)."""
        return self.saved_values[-1]

    def apply(self, grad):
        fn = self.fn
        result = laid_out(grad, self.geometry)  # laid out as the base, to find the view in it
        region = as_strided(result, self.geometry)
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


# ``Function.apply`` (``autograd/function.py``, a layer below this one) treats the tensors
# that ``mark_dirty`` names as changed in place, with the first two; reading a view's
# ``grad_fn`` (``tensor.py``, ``autograd/graph.py``) brings it up to date with the third.
bind("_check_inplace", check_leaf)
bind("_rebase_history", rebase_history)
bind("_regenerate_grad_fn", regenerate_grad_fn)
