# Generated from solutions/04_retain_graph.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 04: saved tensors, freed by backward unless ``retain_graph=True``.

A node keeps what its backward needs: the *saved tensors*. The engine frees them as soon
as the node has run, so a graph can be walked once; a second walk finds them gone and
says so. ``retain_graph=True`` keeps them for another backward. ``backward(gradient=g)``
starts from ``g`` instead of 1, so that non-scalar outputs can be backpropagated (the
vector-Jacobian product), and every call *adds* into the leaves' ``.grad``.
"""

from buildgrad.c03_hooks import *  # noqa: F403  (chapter 04 continues chapter 03)

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


class SavedTensor:
    """One tensor a node saved. An output of the node itself is kept as a new tensor over
    the same array: holding the output would make a cycle (output -> node -> output)."""

    def __init__(self, tensor, node):
        self.is_output = tensor.grad_fn is node
        self.tensor = Tensor(tensor.array) if self.is_output else tensor

    def unpack(self):
        if self.tensor is None:
            raise RuntimeError(SECOND_BACKWARD)
        return self.tensor

    def release(self):
        self.tensor = None


@extend(Node)
def save(self, *tensors):
    self._saved = tuple(SavedTensor(t, self) for t in tensors)


Node._saved = ()


@extend(Node)
@property
def saved(self):
    return tuple(saved.unpack() for saved in self._saved)


@extend(Node)
def release(self):
    """Free what this node saved (its other fields are a few numbers)."""
    for saved in self._saved:
        saved.release()


class GraphTask:
    """What the running backward was asked (PyTorch keeps it per call, in its GraphTask)."""
    retain_graph = False


_call_without_freeing = Node.__call__


@extend(Node)
def __call__(self, grad):
    grads = _call_without_freeing(self, grad)
    if not GraphTask.retain_graph:
        self.release()
    return grads


_backward_without_options = Tensor.backward


@extend(Tensor)
def backward(self, gradient=None, retain_graph=None):
    """``gradient``: d(loss)/d(self), needed when self is not a scalar.
    ``retain_graph``: keep the saved tensors for another backward through this graph."""
    shape = None if gradient is None else as_tensor(gradient).shape
    if shape is not None and shape != self.shape:
        raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {shape} and "
                           f"output[0] has a shape of {self.shape}.")
    previous, GraphTask.retain_graph = GraphTask.retain_graph, bool(retain_graph)
    try:
        _backward_without_options(self, gradient)
    finally:
        GraphTask.retain_graph = previous


__all__ = public_names(globals())
