# Generated from solutions/08_training.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 08: parameters, modules, a loss and an optimizer: enough to train a network.

A ``Parameter`` is a leaf that requires grad. A ``Module`` finds the parameters and
submodules assigned to it, in order, so that ``model.parameters()`` lists them for the
optimizer. ``SGD.step()`` changes every parameter in place, under ``no_grad()``, by PyTorch's
rule (momentum included); ``zero_grad()`` sets the gradients back to ``None``.
"""

import math
import numpy as np

from buildgrad.c07_detach import *  # noqa: F403  (chapter 08 continues chapter 07)


class Parameter(Tensor):
    def __init__(self, data, requires_grad=True):
        super().__init__(as_tensor(data).array, requires_grad=requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


class Module:
    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif name in self._parameters:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter "
                                f"'{name}' (Parameter or None expected)")
            self._parameters[name] = None
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def parameters(self):
        seen, stack = set(), [self]
        while stack:
            module = stack.pop()
            for p in module._parameters.values():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield p
            stack.extend(reversed(module._modules.values()))

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def __call__(self, *inputs):
        return self.forward(*inputs)


class Linear(Module):
    """``y = x W^T + b``, initialised as PyTorch does: uniform in +-1/sqrt(in_features)."""

    def __init__(self, in_features, out_features, rng=None):
        super().__init__()
        rng = np.random.default_rng() if rng is None else rng
        bound = 1 / math.sqrt(in_features)
        self.weight = Parameter(rng.uniform(-bound, bound, (out_features, in_features)).astype(np.float32))
        self.bias = Parameter(rng.uniform(-bound, bound, out_features).astype(np.float32))

    def forward(self, x):
        return x.mm(self.weight.t()) + self.bias


class Tanh(Module):
    def forward(self, x):
        return x.tanh()


class ReLU(Module):
    def forward(self, x):
        return x.relu()


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        for index, module in enumerate(modules):
            setattr(self, str(index), module)

    def forward(self, x):
        for module in self._modules.values():
            x = module(x)
        return x


class LogSoftmaxBackward0(Node):
    def backward(self, grad):
        (result,) = self.saved
        return (grad - np.exp(result.array) * grad.sum(axis=1, keepdims=True),)


def log_softmax(x):
    """log softmax over dim 1, shifted by the row maximum so that exp cannot overflow."""
    shifted = x.array - x.array.max(axis=1, keepdims=True)
    out = Tensor(shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True)))
    return record(LogSoftmaxBackward0, out, (x,), saved=(out,))


class NllLossBackward0(Node):
    def backward(self, grad):
        full = np.zeros(self.shape, dtype=grad.dtype)
        full[np.arange(self.shape[0]), self.target] = -grad / self.shape[0]
        return (full,)


def nll_loss(log_probabilities, target):
    """The mean of ``-log_probabilities[n, target[n]]``."""
    picked = log_probabilities.array[np.arange(len(target.array)), target.array]
    out = Tensor(-picked.mean())
    return record(NllLossBackward0, out, (log_probabilities,),
                  shape=log_probabilities.shape, target=target.array)


def cross_entropy(logits, target):
    return nll_loss(log_softmax(logits), target)


class SGD:
    """``p -= lr * g``, or with momentum ``b = momentum * b + g`` (``b = g`` at the first
    step) and ``p -= lr * b``: PyTorch's rule."""

    def __init__(self, params, lr, momentum=0.0):
        self.params, self.lr, self.momentum = list(params), lr, momentum
        for p in self.params:
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        self.buffers = {}

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        with no_grad():
            for p in self.params:
                if p.grad is None:
                    continue
                g = p.grad.array
                if self.momentum:
                    b = self.buffers.get(p)
                    b = g.copy() if b is None else self.momentum * b + g
                    self.buffers[p] = b
                    g = b
                p.sub_(Tensor(self.lr * g))


__all__ = public_names(globals())
