"""Adagrad: each coordinate's step divided by the root of its summed squared gradients.

For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...`` (PyTorch's order)::

    g = -g                                    if maximize
    g = g + weight_decay * p                  if weight_decay != 0
    clr = lr / (1 + (t - 1) * lr_decay)
    s = s + g * g
    p = p - clr * g / (sqrt(s) + eps)

``s`` (``sum``) starts at ``initial_accumulator_value``: coordinates that have had large
gradients take ever smaller steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import creation
from ..backend import array_module
from ..tensor import Tensor
from .optimizer import Optimizer

if TYPE_CHECKING:
    from .optimizer import Closure, Params

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """Adagrad (Duchi, Hazan and Singer), with PyTorch's options and update rule.

    Parameters
    ----------
    params : iterable
        The parameters to optimize, or parameter groups (dicts with ``"params"``): see
        ``Optimizer``.
    lr : float or Tensor, default 1e-2
        Learning rate (a tensor of one element is read as a float at each step).
    lr_decay : float, default 0
        The learning rate at step ``t`` is ``lr / (1 + (t - 1) * lr_decay)``.
    weight_decay : float, default 0
        L2 penalty, added to the gradient.
    initial_accumulator_value : float, default 0
        The starting value of every coordinate's sum of squared gradients.
    eps : float, default 1e-10
        Added to the denominator, after the square root.
    foreach, differentiable, fused : bool
        PyTorch's kernel choices; nbgrad has one implementation and keeps them so that
        ``param_groups`` look like PyTorch's (``differentiable`` and ``fused`` are refused).
    maximize : bool, default False
        Maximize the objective instead of minimizing it.

    Notes
    -----
    As in PyTorch, the state (``step`` and ``sum``) of the constructor's parameters is
    made at once, not at the first step.
    """

    def __init__(self, params: Params, lr: float | Tensor = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if differentiable:
            raise NotImplementedError("nbgrad's optimizers do not support differentiable=True")
        if fused:
            raise NotImplementedError("nbgrad's optimizers do not support fused=True")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p: Tensor) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = creation.tensor(0.0)  # float32 (float64 if that is the default)
            # PyTorch reads the constructor's value, whatever the group says
            state["sum"] = creation.full_like(p, self.defaults["initial_accumulator_value"])
        return state

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params, grads, sums, steps = self._gather(
                group, ("sum", "step"), self._init_state)
            adagrad(params, grads, sums, steps, lr=float(group["lr"]),
                    weight_decay=group["weight_decay"], lr_decay=group["lr_decay"],
                    eps=group["eps"], maximize=group["maximize"])
        return loss


def adagrad(params: list[Tensor], grads: list[Tensor], state_sums: list[Tensor],
            state_steps: list[Tensor], *, lr: float, weight_decay: float, lr_decay: float,
            eps: float, maximize: bool) -> None:
    """The Adagrad update itself, on the arrays (in place; version counters bumped).

    Parameters
    ----------
    params, grads, state_sums, state_steps : list of Tensor
        One entry per parameter that has a gradient.
    lr, weight_decay, lr_decay, eps, maximize
        The group's options, as in ``Adagrad``.
    """
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps,
                                              strict=True):
        p = param._data
        g = grad._data
        step_t._data += 1
        step_t._bump_version()
        step = float(step_t._data)
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + weight_decay * p
        clr = lr / (1 + (step - 1) * lr_decay)
        s = state_sum._data
        s += g * g
        state_sum._bump_version()
        std = array_module(s).sqrt(s)
        std += eps
        # p.addcdiv_(g, std, value=-clr)
        p += -clr * (g / std)
        param._bump_version()
