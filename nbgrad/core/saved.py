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
saves is replaced by ``pack(tensor)``, and backward sees ``unpack(packed)``, as in
PyTorch without a version check (the hooks own the value).
"""

from __future__ import annotations

import threading

from .grad_mode import grad_mode
from .node import (
    _FREED,
    _SAVED_TYPES,
    SECOND_BACKWARD,
    Node,
    SavedOutput,
    SavedTensor,
    attach,
)

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
    values = [v.original if type(v) is PackedSaved else v for v in saved]
    if _aligned(values, edges):  # one saved value per input, in order (None: not needed)
        return {name_of(position): position for position in range(len(values))}
    names, taken = {}, set()
    for index, value in enumerate(values):
        if type(value) is SavedOutput:
            names.setdefault("result", index)
        elif type(value) is SavedTensor:
            position = _input_position(_edge(value.tensor), edges, taken)
            if position is not None:
                taken.add(position)
                names.setdefault(name_of(position), index)
    return names


def _aligned(values, edges):
    """Whether ``values[i]`` is what the node saved of input ``i``, for every ``i``."""
    if len(values) != len(edges):
        return False
    for value, (fn, output_nr) in zip(values, edges):
        if type(value) is SavedOutput:
            return False
        if type(value) is SavedTensor and fn is not None and _edge(value.tensor) != (fn, output_nr):
            return False
    return True


def _input_position(edge, edges, taken):
    """Which input a saved tensor was: the first not yet named whose edge is its ``edge``."""
    for position, candidate in enumerate(edges):
        if position not in taken and candidate[0] is edge[0] and \
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


def _node_getattr(node, name):
    """``Node.__getattr__``: ``_saved_<name>`` and ``_raw_saved_<name>``. Python calls it
    only when an attribute is not found, so a node's own attributes cost nothing more."""
    if name.startswith("_saved_"):
        return saved_attribute(node, name[7:], raw=False)
    if name.startswith("_raw_saved_"):
        return saved_attribute(node, name[11:], raw=True)
    raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")


def _node_dir(node):
    """``Node.__dir__``: its attributes, with its ``_saved_*`` names."""
    return [*object.__dir__(node), *saved_dir(node)]


def saved_attribute(node, name, raw):
    """``node._saved_<name>`` (``raw``: ``node._raw_saved_<name>``)."""
    if not raw and any(name in getattr(cls, "__slots__", ()) for cls in type(node).__mro__):
        return getattr(node, name)  # a plain value the formula needs: kept after backward
    index = saved_names(node).get(name)  # raises once the saved tensors are freed
    if index is None:
        prefix = "_raw_saved_" if raw else "_saved_"
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{prefix}{name}'")
    value = node._saved[index]
    if raw:
        return RawSaved(node, index)
    return value.unpack(node) if type(value) in _SAVED_TYPES else value


class RawSaved:
    """``grad_fn._raw_saved_<name>``: one saved tensor of a node, as PyTorch's
    ``SavedTensor``: ``unpack()`` it, or ``register_hooks(pack_hook, unpack_hook)`` on it."""

    __slots__ = ("index", "node")

    def __init__(self, node, index):
        self.node = node
        self.index = index

    def _value(self):
        saved = self.node._saved
        if saved is _FREED:
            raise RuntimeError(SECOND_BACKWARD)
        return saved[self.index]

    def unpack(self):
        """The saved tensor, version-checked (and through its unpack hook, if any)."""
        return self._value().unpack(self.node)

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack the saved tensor now with ``pack_hook``; backward will see
        ``unpack_hook(packed)``. Only one pair per saved tensor."""
        value = self._value()
        if type(value) is PackedSaved:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        _check_callable(pack_hook, unpack_hook)
        saved = list(self.node._saved)
        saved[self.index] = PackedSaved(value, value.unpack(self.node), pack_hook, unpack_hook)
        self.node._saved = tuple(saved)


class PackedSaved:
    """A saved tensor given to hooks: what ``pack_hook`` returned, and how to unpack it.
    As in PyTorch, what ``unpack_hook`` returns is used without a version check: the hooks
    own the value now. ``original`` (the ``SavedTensor`` or ``SavedOutput``) tells which
    input or output it was."""

    __slots__ = ("original", "packed", "unpack_hook")

    def __init__(self, original, tensor, pack_hook, unpack_hook):
        self.original = original
        self.packed = pack_hook(tensor)
        self.unpack_hook = unpack_hook

    def unpack(self, node):
        tensor = self.unpack_hook(self.packed)
        if not hasattr(tensor, "_data"):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(tensor).__name__}")
        original = self.original
        if type(original) is SavedOutput and grad_mode.enabled and original.requires_grad \
                and tensor._grad_fn is None:
            # The output as a node's input to double backward: joined to its node again.
            tensor = type(tensor)._make(tensor._data, tensor._counter())
            attach(tensor, node, original.output_nr)
        return tensor


_SAVED_TYPES.append(PackedSaved)  # unpacked by Node.saved_values like the other two
setattr(Node, "__getattr__", _node_getattr)  # set here: node.py cannot import this module
setattr(Node, "__dir__", _node_dir)


def _check_callable(pack_hook, unpack_hook):
    for hook in (pack_hook, unpack_hook):
        if not callable(hook):
            raise TypeError(f"hook must be callable, got {type(hook).__name__}")


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
    _check_callable(pack_hook, unpack_hook)
    hook_stack.pairs = (*hook_stack.pairs, (pack_hook, unpack_hook))
    with _count_lock:
        hooks_in_use.count += 1


def pop_hooks():
    hook_stack.pairs = hook_stack.pairs[:-1]
    with _count_lock:
        hooks_in_use.count -= 1


def packed(values, tensors):
    """``values`` (a node's saved tuple) with each saved tensor packed by this thread's
    innermost hooks; ``tensors[i]`` is the tensor behind ``values[i]``."""
    if not hook_stack.pairs:
        return values
    pack_hook, unpack_hook = hook_stack.pairs[-1]
    return tuple(PackedSaved(v, t, pack_hook, unpack_hook)
                 if type(v) is SavedTensor or type(v) is SavedOutput else v
                 for v, t in zip(values, tensors))
