# Generated from solutions/05_inplace.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 05: in-place operations, version counters and views.

Every tensor carries a *version counter*, bumped by each in-place change; a view shares
its base's counter, because it shares its memory. A saved tensor remembers the version it
was saved at, and backward refuses to use it once that has changed. A leaf that requires
grad may not be changed in place while recording (nor through a view of it): the change
would have to be recorded, and a leaf has no history to record it in.
"""

import numpy as np

from buildgrad import c00_graph
from buildgrad.c04_saved import *  # noqa: F403  (chapter 05 continues chapter 04)


class VersionCounter:
    def __init__(self):
        self.version = 0


_init_without_version = Tensor.__init__


@extend(Tensor)
def __init__(self, array, requires_grad=False):
    _init_without_version(self, array, requires_grad)
    self._version_counter = VersionCounter()


@extend(Tensor)
@property
def _version(self):
    return self._version_counter.version


def short_name(node):
    """PyTorch names a node without its ``Backward0`` in this message."""
    return node.name().split("Backward")[0]


_save_without_version = SavedTensor.__init__
_unpack_without_check = SavedTensor.unpack


@extend(SavedTensor)
def __init__(self, tensor, node):
    _save_without_version(self, tensor, node)
    # the tensor's own counter: for an output, self.tensor is a new tensor with another one
    self.version_counter, self.saved_version = tensor._version_counter, tensor._version
    self.output_of = short_name(node) if self.is_output else None


@extend(SavedTensor)
def unpack(self):
    tensor = _unpack_without_check(self)
    if self.version_counter.version != self.saved_version:
        # the node that produced it: this one for an output, else its grad_fn now
        name = self.output_of or (short_name(tensor.grad_fn) if tensor.grad_fn else None)
        where = f", which is output 0 of {name}," if name else ""
        kind = {np.float32: "FloatTensor", np.float64: "DoubleTensor"}.get(
            tensor.dtype.type, f"{tensor.dtype}Tensor")
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [buildgrad.{kind} {list(tensor.shape)}]{where} is at version "
            f"{self.version_counter.version}; expected version {self.saved_version} instead.")
    return tensor


# Views: the result shares the input's memory, so it shares its version counter too. It
# also keeps the steps that made it from its base, to be made again when the base has
# changed in place: from then on its history is that of the base as it is now.

Tensor._base = None         # for a view: the tensor whose memory it shows
Tensor._view_steps = ()     # (op, args) after (op, args), from the base to the view
Tensor._grad_fn_version = 0  # the version at which a view's grad_fn was made


def as_view(out, a, step):
    out._version_counter = a._version_counter
    out._base = a._base if a._base is not None else a
    out._view_steps = a._view_steps + (step,)
    out._grad_fn_version = out._version
    return out


def replay(tensor, steps):
    for op, args in steps:
        tensor = op(tensor, *args)
    return tensor


@extend(Tensor)
@property
def grad_fn(self):
    base = self._base
    if base is not None and self._grad_fn_version != self._version and base.requires_grad:
        with set_grad_enabled(True):  # the base changed in place: view the new base
            self._grad_fn = replay(base, self._view_steps).grad_fn
        self._grad_fn_version = self._version
    return self._grad_fn


@grad_fn.setter
def grad_fn(self, node):
    self._grad_fn = node


Tensor.grad_fn = grad_fn


def view_op(op):
    def made_a_view(a, *args):
        return as_view(op(a, *args), a, (made_a_view, args))
    made_a_view.__name__ = op.__name__
    return made_a_view


view = extend(c00_graph)(view_op(c00_graph.view))
t = extend(c00_graph)(view_op(c00_graph.t))


class SliceBackward0(Node):
    def backward(self, grad):
        full = np.zeros(self.shape, dtype=grad.dtype)
        full[self.key] = grad
        return (full,)


SelectBackward0 = type("SelectBackward0", (SliceBackward0,), {})  # x[0]: one index


def getitem(a, key):
    node_class = SelectBackward0 if isinstance(key, int) else SliceBackward0
    index = key if isinstance(key, tuple) else (key,)
    if Ellipsis not in index:
        index += (Ellipsis,)  # x[0] of a vector: a 0-d view, not a copy of the number
    out = record(node_class, Tensor(a.array[index]), (a,), shape=a.shape, key=key)
    return as_view(out, a, (getitem, (key,)))


Tensor.__getitem__ = getitem


def positions_in_base(view):
    """The flat indices of the base's elements that ``view`` shows, in the view's shape."""
    base = view._base
    return replay(Tensor(np.arange(base.array.size).reshape(base.shape)), view._view_steps).array


# In-place operations.

LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_IN_PLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation.")


class CopySlices(Node):
    """An in-place change through a view, recorded on the base. Its edges: the base's edge
    before the change, then the edges of ``op_node``'s other inputs. Backward: the
    gradient of the base's elements the view shows (``positions``) goes through
    ``op_node``, the rest passes unchanged."""

    def backward(self, grad):
        grad_base = np.array(grad)         # a copy, so that the region can be replaced
        flat = grad_base.reshape(-1)
        grads = self.op_node(flat[self.positions])
        flat[self.positions] = grads[0]
        return (grad_base,) + grads[1:]


def check_in_place(self):
    if GradMode.enabled and self.requires_grad and self.is_leaf:
        raise RuntimeError(LEAF_IN_PLACE)
    if GradMode.enabled and self._base is not None and self._base.is_leaf and self._base.requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_IN_PLACE)


def in_place(op, self, other):
    """``self = op(self, other)`` written into ``self``'s memory: the version goes up and the
    change is recorded as ``op``'s node, on ``self`` (or, for a view, on its base)."""
    check_in_place(self)
    before = Tensor(self.array.copy())  # the old values, where self stood in the graph
    before.grad_fn = self.grad_fn
    result = op(before, other)
    self.array[...] = result.array      # self's memory: its base and views see it
    self._version_counter.version += 1
    if result.grad_fn is not None:
        if self._base is None:
            self.grad_fn = result.grad_fn  # the tensor's history now ends with the change
        else:
            base = self._base
            copy = CopySlices((gradient_edge(base),) + result.grad_fn.next_functions[1:])
            copy.op_node, copy.positions = result.grad_fn, positions_in_base(self)
            base.grad_fn = copy
    return self


class CopyBackwards(Node):
    def backward(self, grad):
        return np.zeros_like(grad), sum_to(grad, self.value_shape)


def copy_values(before, value):
    value = as_tensor(value, before)
    out = Tensor(np.broadcast_to(value.array, before.shape).astype(before.dtype))
    return record(CopyBackwards, out, (before, value), value_shape=value.shape)


@extend(Tensor)
def add_(self, other):
    return in_place(add, self, other)


@extend(Tensor)
def sub_(self, other):
    return in_place(sub, self, other)


@extend(Tensor)
def mul_(self, other):
    return in_place(mul, self, other)


@extend(Tensor)
def copy_(self, other):
    return in_place(copy_values, self, other)


@extend(Tensor)
def zero_(self):
    return in_place(copy_values, self, 0.0)


Tensor.__iadd__, Tensor.__isub__, Tensor.__imul__ = Tensor.add_, Tensor.sub_, Tensor.mul_


@extend(Tensor)
def __setitem__(self, key, value):
    self[key].copy_(value)


__all__ = public_names(globals())
