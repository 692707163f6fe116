"""RMSprop: steps divided by a running root mean square of the gradient.

For each parameter ``p`` with gradient ``g`` (PyTorch's order of operations)::

    g = -g                                    if maximize
    g = g + weight_decay * p                  if weight_decay != 0
    v = alpha * v + (1 - alpha) * g * g
    a = a + (1 - alpha) * (g - a)             if centered (a running mean of g)
    d = sqrt(v - a * a) + eps                 if centered, else  d = sqrt(v) + eps
    b = momentum * b + g / d;  p = p - lr * b     if momentum > 0
    p = p - lr * g / d                        otherwise

``v`` (``square_avg``), ``a`` (``grad_avg``) and ``b`` (``momentum_buffer``) start at zero.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import creation
from ..backend import array_module
from ..tensor import Tensor
from .adam import decay_square_, lerp_
from .optimizer import Optimizer

if TYPE_CHECKING:
    from .optimizer import Closure, Params

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """RMSprop (Hinton's lecture 6e), with PyTorch's options and update rule.

    Parameters
    ----------
    params : iterable
        The parameters to optimize, or parameter groups (dicts with ``"params"``): see
        ``Optimizer``.
    lr : float or Tensor, default 1e-2
        Learning rate (a tensor of one element is read as a float at each step).
    alpha : float, default 0.99
        Smoothing constant of the running average of squared gradients.
    eps : float, default 1e-8
        Added to the denominator, after the square root.
    weight_decay : float, default 0
        L2 penalty, added to the gradient.
    momentum : float, default 0
        Momentum factor (a buffer of the scaled steps, as in PyTorch).
    centered : bool, default False
        Divide by an estimate of the gradient's *variance* (the running mean of the
        gradient subtracted) instead of its second moment.
    capturable, foreach, differentiable : bool
        PyTorch's kernel choices; nbgrad has one implementation and keeps them so that
        ``param_groups`` look like PyTorch's (``differentiable=True`` is refused).
    maximize : bool, default False
        Maximize the objective instead of minimizing it.

    Notes
    -----
    The state of each parameter has PyTorch's keys: ``step``, ``square_avg``, and
    ``momentum_buffer`` (with ``momentum > 0``) and ``grad_avg`` (with ``centered``).
    """

    def __init__(self, params: Params, lr: float | Tensor = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if differentiable:
            raise NotImplementedError("nbgrad's optimizers do not support differentiable=True")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, group: dict) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = creation.tensor(0.0)  # float32 (float64 if that is the default)
            state["square_avg"] = creation.zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = creation.zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = creation.zeros_like(p)
        return state

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params, grads, square_avgs, grad_avgs, buffers, steps = self._gather(
                group, ("square_avg",
                        "grad_avg" if group["centered"] else None,
                        "momentum_buffer" if group["momentum"] > 0 else None,
                        "step"),
                self._init_state, group)
            rmsprop(params, grads, square_avgs, grad_avgs, buffers, steps,
                    lr=float(group["lr"]), alpha=group["alpha"], eps=group["eps"],
                    weight_decay=group["weight_decay"], momentum=group["momentum"],
                    centered=group["centered"], maximize=group["maximize"])
        return loss


def rmsprop(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor],
            grad_avgs: list[Tensor], momentum_buffer_list: list[Tensor],
            state_steps: list[Tensor], *, lr: float, alpha: float, eps: float,
            weight_decay: float, momentum: float, centered: bool, maximize: bool) -> None:
    """The RMSprop update itself, on the arrays (in place; version counters bumped).

    Parameters
    ----------
    params, grads, square_avgs, state_steps : list of Tensor
        One entry per parameter that has a gradient.
    grad_avgs : list of Tensor
        The running means of the gradients (used only when ``centered``).
    momentum_buffer_list : list of Tensor
        The momentum buffers (used only when ``momentum > 0``).
    lr, alpha, eps, weight_decay, momentum, centered, maximize
        The group's options, as in ``RMSprop``.
    """
    for i, param in enumerate(params):
        p = param._data
        g = grads[i]._data
        if maximize:
            g = -g
        step_t = state_steps[i]
        step_t._data += 1
        step_t._bump_version()
        if weight_decay != 0:
            g = g + weight_decay * p

        v = square_avgs[i]._data
        decay_square_(v, g, alpha)
        square_avgs[i]._bump_version()

        if centered:
            a = grad_avgs[i]._data
            lerp_(a, g, 1 - alpha)
            grad_avgs[i]._bump_version()
            # a difference rounded below zero gives nan, as in PyTorch
            avg = array_module(v).sqrt(v - a * a)
        else:
            avg = array_module(v).sqrt(v)
        avg += eps

        if momentum > 0:
            # buf.mul_(momentum).addcdiv_(g, avg); p.add_(buf, alpha=-lr)
            b = momentum_buffer_list[i]._data
            b *= momentum
            b += g / avg
            momentum_buffer_list[i]._bump_version()
            p -= lr * b
        else:
            # p.addcdiv_(g, avg, value=-lr)
            p += -lr * (g / avg)
        param._bump_version()
