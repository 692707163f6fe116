# Generated from solutions/00_dynamic_graphs.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 00: the graph is recorded while the program runs.

A ``Tensor`` holds a NumPy array. Every operation computes its result with NumPy and, when
an input requires grad, records a *node*: an object that remembers where each input's
gradient must go (``next_functions``) and what backward will need (``save``). The result's
``grad_fn`` is that node. Nothing else keeps the graph: it is the chain of references
``tensor.grad_fn -> node.next_functions -> ...``.

Each operation is one block: its node class, with the local derivative (``backward``)
that chapter 01's engine will call, next to the function that computes it.
"""

import builtins
import itertools
import types
import weakref

import numpy as np


def extend(cls):
    """Decorator: add a function (or property) to ``cls`` under its own name.

    Later chapters grow the classes of earlier ones with it, so that there is one
    ``Tensor`` and one ``Node`` from chapter 00 to 10 (fastcore's ``@patch`` is the same idea).
    """
    def add(member):
        name = (member.fget if isinstance(member, property) else member).__name__
        setattr(cls, name, member)
        return member
    return add


def public_names(namespace):
    """What ``from <chapter> import *`` gives the next chapter: every public name except
    those that would hide a Python builtin (``sum``, ``max``, ``abs``: use the methods)."""
    return [name for name, value in namespace.items()
            if not name.startswith("_") and not hasattr(builtins, name)
            and not isinstance(value, types.ModuleType)]


def as_tensor(value, like=None):
    """``value`` as a tensor. A Python number next to the tensor ``like`` takes its dtype, as
    in PyTorch (a float next to integers: float32), so that ``x * 2`` stays float32."""
    if isinstance(value, Tensor):
        return value
    if like is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        keep = like.dtype.kind == "f" or isinstance(value, int)
        return Tensor(np.asarray(value, dtype=like.dtype if keep else np.float32))
    return Tensor(value)


def tensor(data, dtype=None, requires_grad=False):
    """A new leaf holding a copy of ``data`` (Python floats become float32, as in PyTorch)."""
    array = np.array(data, dtype=dtype)
    if dtype is None and array.dtype == np.float64 and not isinstance(data, np.ndarray):
        array = array.astype(np.float32)
    return Tensor(array, requires_grad=requires_grad)


class Tensor:
    """An array, and where it came from."""

    __array_priority__ = 1000  # array * tensor: NumPy leaves it to Tensor.__rmul__

    def __init__(self, array, requires_grad=False):
        self.array = np.asarray(array)
        self.grad_fn = None    # set by record: the node that made this tensor
        self.requires_grad = requires_grad
        self.grad = None       # filled by backward (chapter 01)
        self._accumulator = None

    @property
    def requires_grad(self):
        """A result requires grad when it was recorded; a leaf when you said so."""
        return self.grad_fn is not None or self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._requires_grad = value

    shape = property(lambda self: self.array.shape)
    dtype = property(lambda self: self.array.dtype)
    ndim = property(lambda self: self.array.ndim)

    def numpy(self):
        return self.array

    def item(self):
        return self.array.item()

    def __repr__(self):
        array = self.array
        whole = array.dtype.kind != "f" or np.all(array == np.round(array))
        body = np.array2string(array, separator=", ", prefix="tensor(", precision=4,
                               floatmode="unique" if whole else "fixed")
        extra = ""
        if self.grad_fn is not None:
            extra = f", grad_fn=<{self.grad_fn.name()}>"
        elif self.requires_grad:
            extra = ", requires_grad=True"
        return f"tensor({body}{extra})"

    def __add__(self, other): return add(self, other)
    def __radd__(self, other): return add(self, other)  # as PyTorch: the tensor first
    def __sub__(self, other): return sub(self, other)
    def __rsub__(self, other): return rsub(self, other)
    def __mul__(self, other): return mul(self, other)
    def __rmul__(self, other): return mul(self, other)
    def __truediv__(self, other): return div(self, other)
    def __rtruediv__(self, other): return mul(reciprocal(self), other)
    def __neg__(self): return neg(self)
    def __pow__(self, exponent): return pow(self, exponent)
    def __matmul__(self, other): return mm(self, other)

    def exp(self): return exp(self)
    def log(self): return log(self)
    def sin(self): return sin(self)
    def cos(self): return cos(self)
    def tanh(self): return tanh(self)
    def sum(self, dim=None, keepdim=False): return sum(self, dim, keepdim)
    def mean(self): return mean(self)
    def mm(self, other): return mm(self, other)
    def view(self, *shape): return view(self, *shape)
    def t(self): return t(self)


_sequence = itertools.count()  # creation order: chapter 01 runs nodes newest first


class Node:
    """A ``grad_fn``: one recorded operation, seen from the backward pass."""

    def __init__(self, next_functions):
        self.next_functions = next_functions  # per input: (node or None, output number)
        self.sequence_nr = next(_sequence)

    saved = ()  # what save() kept: tensors backward reads

    def save(self, *tensors):
        """Keep what ``backward`` will need (chapter 04 frees it, chapter 05 checks it)."""
        self.saved = tensors

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"


class AccumulateGrad(Node):
    """Where a leaf's gradient goes: into ``variable.grad`` (chapter 01)."""

    def __init__(self, variable):
        super().__init__(())
        self.variable = variable


def gradient_edge(tensor):
    """Where ``tensor``'s gradient goes next: its ``grad_fn``, the accumulator of a leaf
    that requires grad, or nowhere (``None``)."""
    if tensor.grad_fn is not None:
        return (tensor.grad_fn, 0)
    if not tensor.requires_grad:
        return (None, 0)
    accumulator = tensor._accumulator() if tensor._accumulator else None
    if accumulator is None:
        accumulator = AccumulateGrad(tensor)
        tensor._accumulator = weakref.ref(accumulator)  # the node holds the leaf, not back
    return (accumulator, 0)


def record(node_class, out, inputs, saved=(), **fields):
    """Join ``out`` to the graph when an input requires grad, and return it.

    ``saved`` are the tensors backward needs; ``fields`` anything else it needs (a shape,
    an exponent), set as attributes of the node.
    """
    if any(t.requires_grad for t in inputs):
        node = node_class(tuple(gradient_edge(t) for t in inputs))
        out.grad_fn = node
        node.save(*saved)
        node.__dict__.update(fields)
    return out


def sum_to(grad, shape):
    """Sum a broadcast gradient back to the shape of the input it belongs to."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


# Every operation below: the node with its local derivative, then the forward.

class AddBackward0(Node):
    def backward(self, grad):  # saves no tensor: only the shapes to sum back to
        return sum_to(grad, self.shapes[0]), sum_to(grad, self.shapes[1])


def add(a, b):
    a, b = as_tensor(a, b), as_tensor(b, a)
    return record(AddBackward0, Tensor(a.array + b.array), (a, b), shapes=(a.shape, b.shape))


class SubBackward0(Node):
    def backward(self, grad):
        return sum_to(grad, self.shapes[0]), sum_to(-grad, self.shapes[1])


def sub(a, b):
    a, b = as_tensor(a, b), as_tensor(b, a)
    return record(SubBackward0, Tensor(a.array - b.array), (a, b), shapes=(a.shape, b.shape))


class DivBackward0(Node):
    def backward(self, grad):
        a, b = self.saved
        return (sum_to(grad / b.array, a.shape),
                sum_to(-grad * a.array / (b.array * b.array), b.shape))


def div(a, b):
    a, b = as_tensor(a, b), as_tensor(b, a)
    return record(DivBackward0, Tensor(a.array / b.array), (a, b), saved=(a, b))


class RsubBackward1(Node):
    def backward(self, grad):
        return (-grad,)


def rsub(a, number):
    """``number - a`` for a Python number: one input, as PyTorch records it."""
    return record(RsubBackward1, Tensor(number - a.array), (a,))


class ReciprocalBackward0(Node):
    def backward(self, grad):
        (result,) = self.saved
        return (-grad * result.array * result.array,)


def reciprocal(a):
    out = Tensor(1 / a.array)
    return record(ReciprocalBackward0, out, (a,), saved=(out,))


class NegBackward0(Node):
    def backward(self, grad):
        return (-grad,)


def neg(a):
    return record(NegBackward0, Tensor(-a.array), (a,))


class PowBackward0(Node):
    def backward(self, grad):
        (a,) = self.saved
        return (grad * self.exponent * a.array ** (self.exponent - 1),)


def pow(a, exponent):
    return record(PowBackward0, Tensor(a.array ** exponent), (a,), saved=(a,), exponent=exponent)


class ExpBackward0(Node):
    def backward(self, grad):
        (result,) = self.saved        # exp' = exp: the output is what backward needs
        return (grad * result.array,)


def exp(a):
    out = Tensor(np.exp(a.array))
    return record(ExpBackward0, out, (a,), saved=(out,))


class LogBackward0(Node):
    def backward(self, grad):
        (a,) = self.saved
        return (grad / a.array,)


def log(a):
    return record(LogBackward0, Tensor(np.log(a.array)), (a,), saved=(a,))


class SinBackward0(Node):
    def backward(self, grad):
        (a,) = self.saved
        return (grad * np.cos(a.array),)


def sin(a):
    return record(SinBackward0, Tensor(np.sin(a.array)), (a,), saved=(a,))


class CosBackward0(Node):
    def backward(self, grad):
        (a,) = self.saved
        return (-grad * np.sin(a.array),)


def cos(a):
    return record(CosBackward0, Tensor(np.cos(a.array)), (a,), saved=(a,))


class TanhBackward0(Node):
    def backward(self, grad):
        (result,) = self.saved
        return (grad * (1 - result.array * result.array),)


def tanh(a):
    out = Tensor(np.tanh(a.array))
    return record(TanhBackward0, out, (a,), saved=(out,))


class SumBackward0(Node):
    def backward(self, grad):
        shape, dim, keepdim = self.shape, self.dim, self.keepdim
        if dim is not None and not keepdim:
            grad = np.expand_dims(grad, dim)
        return (np.broadcast_to(grad, shape),)


SumBackward1 = type("SumBackward1", (SumBackward0,), {})  # PyTorch's name when dim= is given


def sum(a, dim=None, keepdim=False):
    node_class = SumBackward0 if dim is None else SumBackward1
    return record(node_class, Tensor(a.array.sum(axis=dim, keepdims=keepdim)), (a,),
                  shape=a.shape, dim=dim, keepdim=keepdim)


class MeanBackward0(Node):
    def backward(self, grad):
        return (np.broadcast_to(grad / self.size, self.shape),)


def mean(a):
    return record(MeanBackward0, Tensor(a.array.mean()), (a,), shape=a.shape, size=a.array.size)


class MmBackward0(Node):
    def backward(self, grad):
        a, b = self.saved
        return grad @ b.array.T, a.array.T @ grad


def mm(a, b):
    return record(MmBackward0, Tensor(a.array @ b.array), (a, b), saved=(a, b))


class ViewBackward0(Node):
    def backward(self, grad):
        return (grad.reshape(self.shape),)


def view(a, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return record(ViewBackward0, Tensor(a.array.reshape(shape)), (a,), shape=a.shape)


class TBackward0(Node):
    def backward(self, grad):
        return (grad.T,)


def t(a):
    return record(TBackward0, Tensor(a.array.T), (a,))


class MulBackward0(Node):
    def backward(self, grad):
        a, b = self.saved
        return sum_to(grad * b.array, a.shape), sum_to(grad * a.array, b.shape)


def mul(a, b):
    a, b = as_tensor(a, b), as_tensor(b, a)
    return record(MulBackward0, Tensor(a.array * b.array), (a, b), saved=(a, b))


__all__ = public_names(globals())
