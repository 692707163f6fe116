# Generated from solutions/03_retain_grad.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 03: hooks, and retain_grad built on them.

Backward computes the gradient of every intermediate tensor and drops it once it has been
passed on; only leaves keep theirs, in ``.grad``. A *hook* is a function the engine calls
with a tensor's gradient when it is complete; what the hook returns replaces it.
``retain_grad()`` is a hook of the engine's own that stores the gradient in ``.grad``,
run after the user's hooks.
"""

import itertools
import warnings
import weakref

from buildgrad.c02_leaves import *  # noqa: F403  (chapter 03 continues chapter 02)


NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")

Tensor._hooks = Tensor._hooks_ids = ()  # a leaf's hooks; a result's live on its grad_fn
Node.pre_hooks = Node.pre_hooks_ids = ()  # hooks of the tensor this node produced
Node.retains = None  # a weak reference to that tensor, once it called retain_grad()
AccumulateGrad.pre_hooks = property(lambda self: self.variable._hooks)


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` takes this one registration off
    again (a function registered twice stays once). The owner keeps, next to its hooks,
    the handles' ids in the same order (``_hooks_ids``, ``pre_hooks_ids``)."""

    ids = itertools.count()

    def __init__(self, owner, attribute):
        self.owner, self.attribute, self.id = owner, attribute, next(RemovableHandle.ids)

    def remove(self):
        hooks, ids = getattr(self.owner, self.attribute), getattr(self.owner, self.attribute + "_ids")
        if self.id in ids:
            i = ids.index(self.id)
            setattr(self.owner, self.attribute, hooks[:i] + hooks[i + 1:])
            setattr(self.owner, self.attribute + "_ids", ids[:i] + ids[i + 1:])


@extend(Tensor)
def register_hook(self, hook):
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    owner, attribute = (self, "_hooks") if self.is_leaf else (self.grad_fn, "pre_hooks")
    handle = RemovableHandle(owner, attribute)
    setattr(owner, attribute, getattr(owner, attribute) + (hook,))
    setattr(owner, attribute + "_ids", getattr(owner, attribute + "_ids") + (handle.id,))
    return handle


@extend(Tensor)
def retain_grad(self):
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if not self.is_leaf:  # a leaf keeps its gradient anyway
        self.grad_fn.retains = weakref.ref(self)


@extend(Tensor)
@property
def retains_grad(self):
    return not self.is_leaf and self.grad_fn.retains is not None


@extend(Tensor)
@property
def grad(self):
    if not self.is_leaf and not self.retains_grad and self._grad is None:
        warnings.warn(NON_LEAF_GRAD, UserWarning, stacklevel=2)
    return self._grad


@grad.setter
def grad(self, value):
    self._grad = value


Tensor.grad = grad


_call_without_hooks = Node.__call__


@extend(Node)
def __call__(self, grad):
    """The hooks of the tensor this node produced, then ``retain_grad``'s, then the node."""
    for hook in self.pre_hooks:
        replaced = hook(Tensor(grad))
        if replaced is not None:
            grad = as_tensor(replaced).array
    retained = self.retains() if self.retains is not None else None
    if retained is not None:
        retained._grad = Tensor(grad.copy() if retained._grad is None else retained._grad.array + grad)
    return _call_without_hooks(self, grad)


__all__ = public_names(globals())
