"""A node's saved values by PyTorch's names, and saved-tensor hooks.

*Names.* ``grad_fn._saved_self``, ``_saved_other``, ``_saved_result``: PyTorch names each
saved tensor after the argument of the operation it was (``self``, ``other``, ...) or
``result`` for the operation's output. nbgrad's nodes save a tuple, so the names are
worked out from it when asked (never while recording): a node that saves one value per
input, in order (``None`` where no gradient needs it, a number for a number), names them
by position; otherwise an output saved is ``result``, and a saved input is matched to the
input whose edge (``next_functions``) leads where its gradient goes. Any other
``_saved_<name>`` is the node's attribute ``<name>`` (``_saved_dim``).
``_raw_saved_<name>`` gives the saved value itself, on which ``register_hooks(pack,
unpack)`` can be called.

*Hooks.* Inside ``autograd.graph.saved_tensors_hooks(pack, unpack)`` every tensor a node
saves is replaced by ``pack(tensor)``, and backward sees ``unpack(packed)``, as PyTorch's
``SavedVariable`` does it: the node keeps only what ``pack`` returned (so a hook that
copies, compresses or moves the tensor frees the original once nothing else holds it) and
a few facts about the tensor: whether it was a leaf, its ``grad_fn`` and output number,
``requires_grad``, its leaf's ``AccumulateGrad``. Unpacking makes a new tensor with
``unpack``'s values and joins it to the graph where the original was, so double backward
(``create_graph=True``) differentiates through it even when ``unpack`` returns a detached
tensor. There is no version check then (the hooks own the value); ``pack`` itself may not
change its input in place.
"""

from __future__ import annotations

import threading

from .grad_mode import set_grad_enabled
from .node import _FREED, _SAVED_TYPES, SECOND_BACKWARD, Node, SavedName, SavedOutput, SavedTensor

# The names PyTorch gives an operation's tensor arguments, where they are not
# ``(self, other)``: by node class name.
INPUT_NAMES = {
    "MmBackward0": ("self", "mat2"),
    "BmmBackward0": ("self", "mat2"),
    "DotBackward0": ("self", "tensor"),
    "PowBackward1": ("self", "exponent"),
    "PowBackward2": ("self", "exponent"),
    "WhereBackward0": ("condition", "self", "other"),
}
DEFAULT_INPUT_NAMES = ("self", "other")


def saved_names(node):
    """``{name: index into node._saved}`` for the node's saved values."""
    saved = node._saved
    if saved is _FREED:
        raise RuntimeError(SECOND_BACKWARD)
    input_names = INPUT_NAMES.get(type(node).__name__, DEFAULT_INPUT_NAMES)

    def name_of(position):
        return input_names[position] if position < len(input_names) else f"input{position}"

    edges = list(zip(node._next_nodes, node._output_nrs))
    if _aligned(saved, edges):  # one saved value per input, in order (None: not needed)
        return {name_of(position): position for position in range(len(saved))}
    names, taken = {}, set()
    for index, value in enumerate(saved):
        kind = _kind(value)
        if kind == "output":
            names.setdefault("result", index)
        elif kind == "input":
            position = _input_position(_saved_edge(value), edges, taken)
            if position is not None:
                taken.add(position)
                names.setdefault(name_of(position), index)
    return names


def _kind(value):
    """``"output"``, ``"input"`` (any other saved tensor) or ``None`` (not a tensor)."""
    cls = type(value)
    if cls is SavedOutput or (cls is PackedSaved and value.is_output):
        return "output"
    if cls is SavedTensor or cls is PackedSaved:
        return "input"
    return None


def _saved_edge(value):
    """The edge of a saved input, as it was when saved (packed) or is now (not packed);
    ``None`` when unknown: an in-place change since has moved the tensor in the graph."""
    if type(value) is PackedSaved:
        return value.edge()
    tensor = value.tensor
    if tensor._version != value.version:
        return None
    return _edge(tensor)


def _aligned(values, edges):
    """Whether ``values[i]`` is what the node saved of input ``i``, for every ``i``."""
    if len(values) != len(edges):
        return False
    for value, (fn, output_nr) in zip(values, edges):
        kind = _kind(value)
        if kind == "output":
            return False
        if kind == "input" and fn is not None:
            edge = _saved_edge(value)
            if edge is not None and edge != (fn, output_nr):
                return False
    return True


def _input_position(edge, edges, taken):
    """Which input a saved tensor was: the first not yet named whose edge is its ``edge``
    (any not yet named, for an unknown edge)."""
    for position, candidate in enumerate(edges):
        if position in taken:
            continue
        if edge is None:
            return position
        if candidate[0] is edge[0] and \
                (edge[0] is None or candidate[1] == edge[1]):
            return position
    return None


def _edge(tensor):
    if tensor._grad_fn is not None:
        return tensor._grad_fn, tensor._output_nr
    ref = tensor._accumulator
    accumulator = ref() if ref is not None and tensor._requires_grad else None
    return accumulator, 0


def saved_dir(node):
    """The ``_saved_*`` and ``_raw_saved_*`` names of ``node``, for ``dir()``."""
    if node._saved is _FREED:
        return []
    names = saved_names(node)
    return sorted(f"_saved_{n}" for n in names) + sorted(f"_raw_saved_{n}" for n in names)


def _node_dir(node):
    """``Node.__dir__``: its attributes, with the ``_saved_*`` names of what it saved (not
    every ``SavedName`` its class has)."""
    return [*(name for name in object.__dir__(node)
              if not name.startswith(("_saved_", "_raw_saved_"))), *saved_dir(node)]


# The names an input can have (``saved_names``): PyTorch's argument names, then ``input2``,
# ``input3``, ... for the inputs past them, up to ``MAX_NAMED_INPUTS``.
MAX_NAMED_INPUTS = 64
SAVED_NAMES = ("result", *DEFAULT_INPUT_NAMES, *{n for names in INPUT_NAMES.values() for n in names},
               *(f"input{position}" for position in range(2, MAX_NAMED_INPUTS)))


def saved_attribute(node, name, raw):
    """``node._saved_<name>`` (``raw``: ``node._raw_saved_<name>``)."""
    if not raw and any(name in getattr(cls, "__slots__", ()) for cls in type(node).__mro__):
        return getattr(node, name)  # a plain value the formula needs: kept after backward
    if raw and node._saved is _FREED:
        # PyTorch's SavedTensor outlives the value it held: it is there, empty. The names
        # were worked out from the values, now gone, so any input's name or ``result`` is
        # taken for one.
        input_names = INPUT_NAMES.get(type(node).__name__, DEFAULT_INPUT_NAMES)
        if name == "result" or name in input_names[:len(node._next_nodes)] or \
                (name.startswith("input") and name[5:].isdigit()):
            return RawSaved(node, None)
    index = saved_names(node).get(name)  # raises once the saved tensors are freed
    if index is None:
        prefix = "_raw_saved_" if raw else "_saved_"
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{prefix}{name}'")
    if raw:
        return RawSaved(node, index)
    value = node._saved[index]
    if type(value) not in _SAVED_TYPES:
        return value  # None, or a number
    tensor = value.unpack(node)
    if type(value) is SavedOutput and value.requires_grad and tensor._grad_fn is None:
        # Read by the user (not by backward) under no_grad: still the node's output, as
        # PyTorch always gives it.
        _join(tensor, node, value.output_nr)
    return tensor


def _join(tensor, node, output_nr):
    """Make ``tensor`` output ``output_nr`` of ``node`` without touching the node (unlike
    ``attach``, which records the output's dtype as the node's)."""
    tensor._grad_fn = node
    tensor._output_nr = output_nr
    tensor._requires_grad = True


FREED_REGISTER = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved variables after calling backward."
)
PACK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook."
)


class RawSaved:
    """``grad_fn._raw_saved_<name>``: one saved tensor of a node, as PyTorch's
    ``SavedTensor``: ``unpack()`` it, or ``register_hooks(pack_hook, unpack_hook)`` on it.
    ``index`` is ``None`` once backward has freed the node's saved values."""

    __slots__ = ("index", "node")

    def __init__(self, node, index):
        self.node = node
        self.index = index

    def _value(self):
        """The saved value, or ``_FREED``."""
        saved = self.node._saved
        if saved is _FREED or self.index is None:
            return _FREED
        return saved[self.index]

    @property
    def data(self):
        """What is held now: the tensor, what ``pack_hook`` returned, or ``None`` (freed,
        or nothing was saved)."""
        value = self._value()
        if type(value) is SavedTensor:
            return value.tensor
        if type(value) is SavedOutput:
            return value.tensor_type._make(value.data, vc=value.vc)
        if type(value) is PackedSaved:
            return value.packed
        return None

    @property
    def unpack_hook(self):
        """The unpack hook in force, or ``None``."""
        value = self._value()
        return value.unpack_hook if type(value) is PackedSaved else None

    def unpack(self):
        """The saved tensor, version-checked (and through its unpack hook, if any)."""
        value = self._value()
        if value is _FREED:
            raise RuntimeError(SECOND_BACKWARD)
        return value.unpack(self.node) if type(value) in _SAVED_TYPES else value

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack the saved tensor now with ``pack_hook``; backward will see
        ``unpack_hook(packed)``. Only one pair per saved tensor. As in PyTorch,
        ``pack_hook`` gets the tensor detached (sharing its values and version), and the
        node keeps only what it returns."""
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("register_hooks(): incompatible function arguments. The following "
                            "argument types are supported:\n    1. (self, arg0: Callable, "
                            "arg1: Callable) -> None")
        value = self._value()
        if type(value) is PackedSaved:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        if value is _FREED:
            raise RuntimeError(FREED_REGISTER)
        if type(value) is SavedTensor:
            original = value.tensor
            tensor = type(original)._make(original._data, vc=original._counter())
        elif type(value) is SavedOutput:
            tensor = value.tensor_type._make(value.data, vc=value.vc)
        else:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        saved = list(self.node._saved)
        saved[self.index] = PackedSaved(value, tensor, pack_hook, unpack_hook)
        self.node._saved = tuple(saved)


class PackedSaved:
    """A saved tensor given to hooks, as PyTorch's ``SavedVariable`` with hooks: what
    ``pack_hook`` returned, the hook that unpacks it, and where the tensor was in the graph.

    It holds neither the tensor nor its array (only ``packed`` may), so a hook that
    returns a copy lets the original be freed. Unpacked, it is a new tensor with the
    values ``unpack_hook`` returns, joined to the graph where the saved one was: output
    ``output_nr`` of ``grad_fn`` (of the node itself for a saved output), or, for a leaf,
    requiring grad and sharing its ``AccumulateGrad``. As in PyTorch nothing checks its
    version: the hooks own the value.
    """

    __slots__ = ("packed", "unpack_hook", "is_output", "requires_grad", "output_nr",
                 "grad_fn", "accumulator")

    def __init__(self, value, tensor, pack_hook, unpack_hook):
        """``value``: the ``SavedTensor`` or ``SavedOutput`` it replaces; ``tensor``: what
        ``pack_hook`` gets."""
        if type(value) is SavedOutput:
            self.is_output = True
            self.requires_grad = value.requires_grad
            self.output_nr = value.output_nr
            self.grad_fn = self.accumulator = None  # the node itself: known when unpacked
        else:
            original = value.tensor
            self.is_output = False
            self.requires_grad = original._requires_grad
            self.output_nr = original._output_nr
            self.grad_fn = original._grad_fn
            self.accumulator = original._accumulator if original._grad_fn is None else None
        self.unpack_hook = unpack_hook
        version = tensor._version
        with set_grad_enabled(False):  # PyTorch packs under no_grad
            self.packed = pack_hook(tensor)
        if tensor._version != version:
            raise RuntimeError(PACK_INPLACE)

    def edge(self):
        """The edge the saved tensor had (for its name): ``(grad_fn, output_nr)``, or its
        leaf's ``AccumulateGrad`` (``None`` for a leaf that needs no gradient)."""
        if self.grad_fn is not None:
            return self.grad_fn, self.output_nr
        ref = self.accumulator
        return (ref() if ref is not None and self.requires_grad else None), 0

    def unpack(self, node):
        """What backward uses: ``unpack_hook``'s tensor, as a new tensor joined to the
        graph where the saved one was (``node`` is the node that saved it)."""
        data = self.unpack_hook(self.packed)
        if not hasattr(data, "_data"):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(data).__name__}")
        tensor = type(data)._make(data._data, vc=data._counter())  # never a view
        if not self.requires_grad:
            return tensor
        grad_fn = node if self.is_output else self.grad_fn
        if grad_fn is not None:
            _join(tensor, grad_fn, self.output_nr)
        else:  # a leaf: its gradient goes to the saved leaf's AccumulateGrad
            if tensor._data.dtype.kind not in "fc":
                raise RuntimeError("Only Tensors of floating point and complex dtype can "
                                   "require gradients")
            tensor._requires_grad = True
            tensor._accumulator = self.accumulator
        return tensor


_SAVED_TYPES.append(PackedSaved)  # unpacked by Node.saved_values like the other two
SavedName.read = saved_attribute  # set here: node.py cannot import this module
setattr(Node, "__dir__", _node_dir)
for _name in SAVED_NAMES:
    setattr(Node, f"_saved_{_name}", SavedName(_name, raw=False))
    setattr(Node, f"_raw_saved_{_name}", SavedName(_name, raw=True))


# -- saved_tensors_hooks: the hooks in force --------------------------------------------
class _HookStack(threading.local):
    """Per thread, as in PyTorch: the (pack, unpack) pairs in force, innermost last, and
    the message of an enclosing ``disable_saved_tensors_hooks``."""

    pairs = ()
    disabled = None


hook_stack = _HookStack()


class HooksInUse:
    """How many ``saved_tensors_hooks`` blocks are open, in all threads: what ``record``
    checks (one attribute) before it looks at this thread's hooks."""

    __slots__ = ("count",)

    def __init__(self):
        self.count = 0


hooks_in_use = HooksInUse()
_count_lock = threading.Lock()


def push_hooks(pack_hook, unpack_hook):
    if hook_stack.disabled is not None:
        raise RuntimeError(hook_stack.disabled)
    if not (callable(pack_hook) and callable(unpack_hook)):
        raise TypeError("_push_saved_tensors_default_hooks(): incompatible function arguments. "
                        "The following argument types are supported:\n    1. (arg0: Callable, "
                        "arg1: Callable) -> None")
    hook_stack.pairs = (*hook_stack.pairs, (pack_hook, unpack_hook))
    with _count_lock:
        hooks_in_use.count += 1


def pop_hooks():
    hook_stack.pairs = hook_stack.pairs[:-1]
    with _count_lock:
        hooks_in_use.count -= 1


def restore_hooks(pairs):
    """Make ``pairs`` this thread's hooks again: what a backward pass entered or left while
    it ran (an ``unpack`` hook that opens a ``saved_tensors_hooks`` block and never closes
    it) does not outlive the pass, as PyTorch restores a graph task's thread-local state."""
    current = hook_stack.pairs
    if current is not pairs:
        hook_stack.pairs = pairs
        with _count_lock:
            hooks_in_use.count += len(pairs) - len(current)


def packed(values, tensors):
    """``values`` (a node's saved tuple) with each saved tensor packed by this thread's
    innermost hooks; ``tensors[i]`` is the tensor behind ``values[i]``."""
    if not hook_stack.pairs:
        return values
    pack_hook, unpack_hook = hook_stack.pairs[-1]
    return tuple(PackedSaved(v, t, pack_hook, unpack_hook)
                 if type(v) is SavedTensor or type(v) is SavedOutput else v
                 for v, t in zip(values, tensors))
