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

from typing import TYPE_CHECKING

from ..tensor import Tensor
from .optimizer import Optimizer

if TYPE_CHECKING:
    from .optimizer import Closure, Params

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Stochastic gradient descent, with PyTorch's options: ``momentum`` (with ``dampening``
    and ``nesterov``), ``weight_decay`` and ``maximize``; the update is PyTorch's (``sgd``).

    Parameters
    ----------
    params : iterable
        The parameters to optimize, or parameter groups (dicts with ``"params"``): see
        ``Optimizer``.
    lr : float or Tensor, default 1e-3
        Learning rate (a tensor of one element is read as a float at each step).
    momentum : float, default 0
        Momentum factor: the step follows a buffer ``b = momentum * b + (1 - dampening) * g``
        (the first step starts it at the gradient), kept as ``state[p]["momentum_buffer"]``.
    dampening : float, default 0
        How much of each new gradient the momentum buffer does not take.
    weight_decay : float, default 0
        L2 penalty, added to the gradient.
    nesterov : bool, default False
        Nesterov momentum: step along ``g + momentum * b``; needs a momentum and zero
        dampening.
    maximize : bool, default False
        Maximize the objective instead of minimizing it.
    foreach, differentiable, fused : bool, optional
        PyTorch's kernel choices; nbgrad has one implementation and keeps them so that
        ``param_groups`` look like PyTorch's (``differentiable=True`` is refused).
    """

    def __init__(self, params: Params, lr: float | Tensor = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None):
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

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
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


def sgd(params: list[Tensor], grads: list[Tensor], momentum_buffer_list: list[Tensor | None],
        *, lr: float, momentum: float, dampening: float, weight_decay: float, nesterov: bool,
        maximize: bool) -> None:
    """The update itself, on the parameters' arrays (in place; version counters bumped).

    Parameters
    ----------
    params, grads : list of Tensor
        One entry per parameter that has a gradient.
    momentum_buffer_list : list of (Tensor or None)
        The momentum buffers (used only when ``momentum != 0``); ``None`` before the first
        step, replaced by the new buffer so that the caller can store it in the
        optimizer's state.
    lr, momentum, dampening, weight_decay, nesterov, maximize
        The group's options, as in ``SGD``.
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
