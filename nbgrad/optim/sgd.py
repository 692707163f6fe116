"""Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay.

For each parameter ``p`` with gradient ``g`` (PyTorch's order of operations)::

    g = -g                              if maximize
    g = g + weight_decay * p            if weight_decay != 0
    if momentum != 0:
        b = g (a copy)                  on the first step
        b = momentum * b + (1 - dampening) * g    afterwards
        g = g + momentum * b            if nesterov, else  g = b
    p = p - lr * g
"""

from __future__ import annotations

from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Stochastic gradient descent, with PyTorch's options: ``momentum`` (with ``dampening``
    and ``nesterov``), ``weight_decay`` and ``maximize``; the update is PyTorch's (``sgd``)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("nbgrad's optimizers do not support differentiable=True")
        # foreach and fused select PyTorch kernels; nbgrad has one implementation and
        # keeps them only so that param_groups and state_dict look like PyTorch's.
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params, grads, buffers = [], [], []
            uses_momentum = group["momentum"] != 0
            for p in group["params"]:
                grad = p._grad  # .grad without the property's checks: p is a leaf
                if grad is not None:
                    params.append(p)
                    grads.append(grad)
                    if uses_momentum:
                        buffers.append(self.state[p].get("momentum_buffer"))
            sgd(params, grads, buffers, lr=float(group["lr"]), momentum=group["momentum"],
                dampening=group["dampening"], weight_decay=group["weight_decay"],
                nesterov=group["nesterov"], maximize=group["maximize"])
            if uses_momentum:
                for p, buffer in zip(params, buffers):
                    self.state[p]["momentum_buffer"] = buffer
        return loss


def sgd(params, grads, momentum_buffer_list, *, lr, momentum, dampening, weight_decay,
        nesterov, maximize):
    """The update itself, on the parameters' arrays (in place; version counters bumped).

    ``momentum_buffer_list[i]`` is ``None`` before the first step; it is replaced by the
    new buffer (a tensor) so that the caller can store it in the optimizer's state.
    """
    for i, param in enumerate(params):
        p = param._data
        g = grads[i]._data
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + weight_decay * p
        if momentum != 0:
            buffer = momentum_buffer_list[i]
            if buffer is None:
                # the first step starts the buffer at the gradient (not at zero)
                buffer = Tensor._make(g.copy() if g is grads[i]._data else g)
                momentum_buffer_list[i] = buffer
            else:
                b = buffer._data
                b *= momentum
                b += g if dampening == 0 else (1 - dampening) * g
                buffer._bump_version()
            g = g + momentum * buffer._data if nesterov else buffer._data
        p -= lr * g
        param._bump_version()
