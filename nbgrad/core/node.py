"""The backward graph: nodes (``grad_fn``), their edges, and the tensors they save.

Running an operation on tensors that require grad creates one node, an instance of a
class named as PyTorch names it (``MulBackward0``). The node knows

* ``next_functions``: one edge ``(node, output_nr)`` per differentiable input, leading
  to the node that produced that input, to an ``AccumulateGrad`` for a leaf, or
  ``(None, 0)`` for an input that needs no gradient;
* its saved values: what its backward formula needs from the forward pass. A saved
  tensor remembers the version it had when it was saved; if an in-place operation has
  changed it since, unpacking it raises. After backward they are freed (unless
  ``retain_graph=True``), and using them again raises.

A node never holds its own outputs (that would be a reference cycle); an output it must
save is kept as its array and version counter, and rebuilt when unpacked.

A node stores its edges as two flat tuples, the nodes and which output of each
(``_next_nodes``, ``_output_nrs``), and ``next_functions`` pairs them up when asked. A
tuple of pairs would cost an extra object per edge, kept alive as long as the graph, and
every live object is more work for Python's garbage collector; a graph a million
operations deep holds a million nodes.
"""

from __future__ import annotations

import itertools
import re
import weakref
from collections.abc import Callable
from typing import Any

from .anomaly import anomaly, forward_stack
from .grad_mode import grad_mode

_sequence = itertools.count()
_FREED = object()

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.\nnbgrad hint: chapter 04 (retain_graph) explains why."
)


class Node:
    """A ``grad_fn``: one operation of the forward pass, seen from the backward pass."""

    # ``_dtype``: the dtype of the gradient this node takes, its outputs' dtype (set when the
    # node joins the graph, by ``attach``); ``None`` when its outputs differ in dtype.
    __slots__ = ("_next_nodes", "_output_nrs", "_sequence_nr", "_saved", "_hooks", "_dtype",
                 "__weakref__")
    num_outputs = 1
    # A node may also define ``fast_apply``: the same formula as ``apply`` computed on the
    # arrays, which the engine calls when backward builds no graph (``create_graph=False``).
    # ``apply`` stays the formula the chapters show, and the one that ``create_graph=True``
    # differentiates again; a test checks that the two agree for every node that has both.
    # Where the arrays' arithmetic fails (a saved-tensor hook's ``unpack`` returned another
    # shape), ``fast_apply`` calls ``apply``, which raises PyTorch's error for it.
    # ``apply_without_graph`` is whichever of the two the engine calls then, decided once
    # per class rather than on every node. A subclass that writes its own ``apply`` has no
    # fast path until it writes its own ``fast_apply`` (the inherited one is another formula).
    fast_apply = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        slots = vars(cls).get("__slots__", ())
        for attribute in (slots,) if isinstance(slots, str) else slots:
            if not attribute.startswith("_"):
                setattr(cls, f"_saved_{attribute}", SavedName(attribute, raw=False))
        if "apply" in vars(cls) and "fast_apply" not in vars(cls):
            cls.fast_apply = None
        cls.apply_without_graph = cls.apply if cls.fast_apply is None else cls.fast_apply

    def __init__(self, next_nodes=(), output_nrs=()):
        self._next_nodes = next_nodes
        self._output_nrs = output_nrs
        self._sequence_nr = next(_sequence)
        self._saved = ()
        self._hooks = None
        if anomaly.enabled:  # detect_anomaly: remember where the forward pass made this node
            self.metadata["traceback_"] = forward_stack()

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """One edge ``(node, output_nr)`` per input: where that input's gradient goes.

        Returns
        -------
        tuple of (Node or None, int)
            ``(None, 0)`` for an input that takes no gradient.
        """
        return tuple(zip(self._next_nodes, self._output_nrs))

    def apply(self, *grad_outputs):
        """Gradients for ``next_functions`` given the gradients of this node's outputs."""
        raise NotImplementedError

    def __call__(self, *grad_outputs):
        """This node's backward on ``grad_outputs``, called directly, as PyTorch allows.

        Returns the gradient of each input (``next_functions``): one tensor for a node of
        one input, else a tuple, with ``None`` for an input that takes none. It records a
        graph when grad mode is on, and all ``None`` gradients give ``None`` back.
        """
        if len(grad_outputs) != self.num_outputs:
            raise TypeError(f"expected {self.num_outputs} arguments, got {len(grad_outputs)} "
                            "instead")
        n_inputs = len(self._next_nodes)
        if all(g is None for g in grad_outputs):
            grads = (None,) * n_inputs
        else:
            grads = tuple(self.apply(*grad_outputs))
            grads += (None,) * (n_inputs - len(grads))
        return grads[0] if n_inputs == 1 else grads

    def input_dtype(self, output_nr):
        """The dtype that the gradient of output ``output_nr`` must have: that output's."""
        return self._dtype

    # -- saved values -----------------------------------------------------------------
    @property
    def saved_values(self):
        """The saved values, unpacked: tensors are checked against their saved version."""
        saved = self._saved
        if saved is _FREED:
            raise RuntimeError(SECOND_BACKWARD)
        values = []  # a plain loop: on Python 3.11 a comprehension is one more call per node
        for v in saved:
            values.append(v.unpack(self) if v.__class__ in _SAVED_TYPES else v)
        return values

    def _release(self):
        if self._saved:
            self._saved = _FREED

    # -- introspection, as PyTorch offers it -----------------------------------------
    # ``_saved_<name>`` and ``_raw_saved_<name>`` are class attributes, ``SavedName``s:
    # the names of inputs and ``result`` on Node (``core/saved.py``, which also gives Node
    # its ``__dir__``), ``_saved_<attribute>`` on the class whose slot ``<attribute>`` is.

    def name(self) -> str:
        """The node's class name, as PyTorch's: ``"MulBackward0"``.

        Returns
        -------
        str
        """
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def _repr_pretty_(self, printer, cycle):
        # IPython shows PyTorch's nodes (C types without a __repr__ of their own) this way
        printer.text(f"<{type(self).__name__} at {id(self):#x}>")

    @property
    def metadata(self) -> dict[str, Any]:
        """A dict for anything worth keeping on the node (``detect_anomaly`` keeps the
        forward pass's traceback there, as ``"traceback_"``).

        Returns
        -------
        dict
        """
        return self._node_hooks().metadata

    # -- hooks ------------------------------------------------------------------------
    def _node_hooks(self):
        if self._hooks is None:
            self._hooks = NodeHooks()
        return self._hooks

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs.

        Parameters
        ----------
        fn : callable
            Given two tuples, the gradients this node computed (one per
            ``next_functions`` entry) and those it received; it returns None or a
            replacement for the first.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        return add_hook(self._node_hooks().post, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs.

        Parameters
        ----------
        fn : callable
            Given the tuple of gradients this node received; it returns None or a
            replacement.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        return add_hook(self._node_hooks().pre, fn)


class SavedName:
    """``node._saved_<name>`` (``raw``: ``node._raw_saved_<name>``), PyTorch's name for what
    the node saved; ``core/saved.py`` works out which value it is (``read``).

    A class attribute rather than a ``__getattr__`` on Node: in a class with ``__getattr__``
    CPython does not specialize attribute access, and the engine reads a node's attributes
    on every step of backward.
    """

    __slots__ = ("name", "raw")
    read: Callable[[Node, str, bool], Any]  # saved.saved_attribute, set there

    def __init__(self, name, raw):
        self.name = name
        self.raw = raw

    def __get__(self, node, cls=None):
        if node is None:
            return self
        return SavedName.read(node, self.name, self.raw)


class NodeHooks:
    """Everything hooked onto a node; created only for nodes that have hooks."""

    __slots__ = ("pre", "post", "tensor_pre", "retains_grad", "metadata")

    def __init__(self):
        self.pre = {}
        self.post = {}
        self.tensor_pre = {}  # output_nr -> {id: hook}: hooks registered on the output tensor
        self.retains_grad = {}  # output_nr -> weak reference to the tensor that retains grad
        self.metadata = {}


class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` unregisters the hook."""

    __slots__ = ("_hooks", "id")
    _ids = itertools.count()

    def __init__(self, hooks):
        self._hooks = weakref.ref(hooks) if _weakrefable(hooks) else (lambda: hooks)
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        """Unregister the hook (nothing happens if it already was)."""
        hooks = self._hooks()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _weakrefable(obj):
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False


def add_hook(hooks, fn):
    if not callable(fn):
        raise TypeError(f"hook must be callable, got {type(fn).__name__}")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class AccumulateGrad(Node):
    """The node behind a leaf: adds the incoming gradient into ``leaf.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__()
        self.variable = variable
        self._dtype = variable._data.dtype

    def apply(self, grad):
        variable = self.variable
        if variable._grad_fn is not None:
            # an in-place op gave the leaf a grad_fn after this graph was built (as in
            # ``x.requires_grad_(False); x.mul_(w)``): its gradient would no longer be a leaf's
            raise RuntimeError("leaf variable has been moved into the graph interior")
        if not variable._requires_grad:  # requires_grad_(False) after the graph was built
            return ()
        current = variable._grad
        recording = grad_mode.enabled  # create_graph=True: .grad becomes part of a graph
        if current is None:
            # A copy: the incoming gradient may be shared with another leaf or be a read-only
            # broadcast, and .grad is later updated in place (with create_graph=True the
            # copy is recorded, as PyTorch's is).
            variable._grad = grad.clone() if recording else type(grad)._make(grad._data.copy())
        elif recording:
            variable._grad = current + grad
        else:
            current._data += grad._data
            current._bump_version()
        post_hooks = variable._post_accumulate_hooks
        for hook in tuple(post_hooks.values()) if post_hooks else ():
            if hook(variable) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return ()


INFERENCE_NOT_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `nbgrad.no_grad()` instead "
    "of `nbgrad.inference_mode()`."
)
INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)


class InferenceCounter:
    """The version counter of every inference tensor (``inference_mode``), as a tensor's
    ``_vc`` is: an inference tensor has none. Indexed, it reads 0 and ignores bumps (an
    inference tensor never joins a graph, so nothing compares its versions); asked for its
    truth, which is how ``Tensor._version`` reads a counter, it raises outside inference
    mode: reading the version, or saving the tensor for backward, fails as in PyTorch."""

    __slots__ = ()

    def __getitem__(self, index):
        return 0

    def __setitem__(self, index, value):
        pass

    def __bool__(self):
        if grad_mode.inference:
            return True
        raise RuntimeError("Inference tensors do not track version counter.")


INFERENCE_COUNTER = InferenceCounter()


class SavedTensor:
    """An input saved for backward, with the version it had when it was saved."""

    __slots__ = ("tensor", "version")

    def __init__(self, tensor):
        self.tensor = tensor
        try:  # costs nothing unless it raises, which only an inference tensor's version does
            self.version = tensor._version
        except RuntimeError:
            raise RuntimeError(INFERENCE_NOT_SAVED) from None

    def unpack(self, node):
        tensor = self.tensor
        if tensor._version != self.version:
            fn = tensor.grad_fn  # a view's, regenerated after the change as PyTorch names it
            output_nr = 0 if fn is None else tensor._output_nr
            raise RuntimeError(_modified_message(tensor, fn, output_nr, self.version))
        return tensor


class SavedOutput:
    """An output saved by the node that produced it: its array and version counter only."""

    __slots__ = ("tensor_type", "data", "vc", "version", "requires_grad", "output_nr")

    def __init__(self, output):
        self.tensor_type = type(output)
        self.retarget(output)

    def retarget(self, output):
        """Follow ``output`` (used when an in-place operation makes another tensor the output)."""
        self.data = output._data
        self.vc = output._counter()
        self.version = self.vc[0]
        self.requires_grad = output._requires_grad
        self.output_nr = output._output_nr

    def unpack(self, node):
        if self.vc[0] != self.version:
            probe = self.tensor_type._make(self.data)
            raise RuntimeError(_modified_message(probe, node, self.output_nr, self.version, self.vc[0]))
        out = self.tensor_type._make(self.data, vc=self.vc)
        if grad_mode.enabled and self.requires_grad:
            attach(out, node, self.output_nr)
        return out


_SAVED_TYPES: list[type] = [SavedTensor, SavedOutput]  # and saved.PackedSaved, which adds itself


def attach(output, node, output_nr=0):
    """Make ``node`` the ``grad_fn`` of ``output`` (its output number ``output_nr``): the
    output is now a non-leaf. The one place where a tensor joins the graph."""
    output._grad_fn = node
    output._output_nr = output_nr
    output._requires_grad = True
    dtype = output._data.dtype
    if output_nr == 0:
        node._dtype = dtype
    elif dtype != node._dtype:
        node._dtype = None  # outputs of several dtypes: input_dtype tells them apart
    return output


def short_name(node):
    """``MulBackward0`` -> ``Mul``, ``SumBackward1`` -> ``Sum1``: as PyTorch names a node
    inside error messages (the overload's number stays, but for the first)."""
    return re.sub(r"Backward(0$)?", "", node.name())


ANOMALY_HINT = (" Hint: the backtrace further above shows the operation that failed to "
                "compute its gradient. The variable in question was changed in there or "
                "anywhere later. Good luck!")
# PyTorch's hint where anomaly detection is off, with the switch spelled for nbgrad
ENABLE_ANOMALY_HINT = (" Hint: enable anomaly detection to find the operation that failed to "
                       "compute its gradient, with nbgrad.autograd.set_detect_anomaly(True, "
                       "check_nan=False).")


def _modified_message(tensor, fn, output_nr, expected, current=None):
    current = tensor._version if current is None else current
    where = f", which is output {output_nr} of {short_name(fn)}," if fn is not None else ""
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{tensor.type()} {list(tensor.shape)}]{where} is at version "
        f"{current}; expected version {expected} instead."
        f"{ANOMALY_HINT if anomaly.enabled else ENABLE_ANOMALY_HINT}\n"
        "nbgrad hint: an in-place operation changed a tensor that backward needs; use its "
        "out-of-place form (chapter 05 explains version counters)."
    )
