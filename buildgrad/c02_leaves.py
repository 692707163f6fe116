# Generated from solutions/02_requires_grad.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 02: requires_grad, leaves and grad mode.

A tensor you create is a *leaf*; a result of a recorded operation is not. Only a leaf's
``requires_grad`` is yours to set, and only a floating-point leaf may require grad. Under
``no_grad()`` nothing is recorded: results are new leaves that do not require grad.
"""

from buildgrad import c00_graph
from buildgrad.c01_engine import *  # noqa: F403  (chapter 02 continues chapter 01)

ONLY_FLOAT = "Only Tensors of floating point and complex dtype can require gradients"
ONLY_LEAVES = "you can only change requires_grad flags of leaf variables."
USE_DETACH = (" If you want to use a computed variable in a subgraph that doesn't require "
              "differentiation use var_no_grad = var.detach().")


@extend(Tensor)
@property
def is_leaf(self):
    """No recorded operation made this tensor: you did (or nothing needed recording)."""
    return self.grad_fn is None


@Tensor.requires_grad.setter
def requires_grad(self, value):
    """Only a leaf's flag can change, and only a floating-point tensor may require grad."""
    if not self.is_leaf:
        raise RuntimeError(ONLY_LEAVES if value else ONLY_LEAVES + USE_DETACH)
    if value and self.dtype.kind != "f":
        raise RuntimeError(ONLY_FLOAT.replace("Only", "only"))
    self._requires_grad = value


Tensor.requires_grad = requires_grad  # chapter 00's getter, with the leaf rules as setter


@extend(Tensor)
def requires_grad_(self, requires_grad=True):
    """The flag, in place, returning the tensor: a result may only be told ``True``."""
    if not self.is_leaf:
        if requires_grad:
            return self  # a result already requires grad
        raise RuntimeError(ONLY_LEAVES + USE_DETACH)
    if requires_grad and self.dtype.kind != "f":
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    self._requires_grad = bool(requires_grad)
    return self


_tensor_without_checks = tensor


@extend(c00_graph)
def tensor(data, dtype=None, requires_grad=False):
    """Chapter 00's ``tensor``, refusing ``requires_grad=True`` for integers."""
    out = _tensor_without_checks(data, dtype)
    if requires_grad and out.dtype.kind != "f":
        raise RuntimeError(ONLY_FLOAT)
    return out.requires_grad_(requires_grad)


class GradMode:
    enabled = True  # PyTorch keeps this flag per thread; one thread is enough here


def is_grad_enabled():
    return GradMode.enabled


class set_grad_enabled:
    """Context manager: record operations (``True``) or not (``False``) inside the block."""

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.previous, GradMode.enabled = GradMode.enabled, self.mode

    def __exit__(self, *exc_info):
        GradMode.enabled = self.previous


def no_grad():
    """A block that records nothing."""
    return set_grad_enabled(False)


def enable_grad():
    """A block that records again (inside ``no_grad``)."""
    return set_grad_enabled(True)


_record_in_any_mode = c00_graph.record


@extend(c00_graph)
def record(node_class, out, inputs, saved=(), **fields):
    """Chapter 00's ``record``, in grad mode only: under ``no_grad()`` results are leaves."""
    if not GradMode.enabled:
        return out
    return _record_in_any_mode(node_class, out, inputs, saved, **fields)


_backward_without_checks = Tensor.backward


@extend(Tensor)
def backward(self, gradient=None):
    """Chapter 01's ``backward``, for a tensor that requires grad only."""
    if not self.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    _backward_without_checks(self, gradient)


__all__ = public_names(globals())
