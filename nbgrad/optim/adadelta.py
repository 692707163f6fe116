"""Adadelta: steps whose size is a running root mean square of the past *steps*, divided by
that of the gradients, so that no learning rate is needed (``lr`` only scales the result).

For each parameter ``p`` with gradient ``g`` (PyTorch's order of operations)::

    g = -g                                    if maximize
    g = g + weight_decay * p                  if weight_decay != 0
    v = rho * v + (1 - rho) * g * g
    delta = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * delta * delta
    p = p - lr * delta

``v`` (``square_avg``) and ``u`` (``acc_delta``) start at zero.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import creation
from ..backend import array_module
from ..tensor import Tensor
from .adam import decay_square_
from .optimizer import Optimizer, hyperparameter

if TYPE_CHECKING:
    from .optimizer import Closure, Params

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler), with PyTorch's options and update rule.

    Parameters
    ----------
    params : iterable
        The parameters to optimize, or parameter groups (dicts with ``"params"``): see
        ``Optimizer``.
    lr : float or Tensor, default 1.0
        Scales the step (a tensor of one element: computed with in its
        dtype, as PyTorch does).
    rho : float, default 0.9
        Decay rate of the running averages of the squared gradients and squared steps,
        in ``[0, 1]``.
    eps : float, default 1e-6
        Added inside both square roots.
    weight_decay : float, default 0
        L2 penalty, added to the gradient.
    foreach, capturable, differentiable : bool
        PyTorch's kernel choices; nbgrad has one implementation and keeps them so that
        ``param_groups`` look like PyTorch's (``differentiable=True`` is refused).
    maximize : bool, default False
        Maximize the objective instead of minimizing it.

    Notes
    -----
    The state of each parameter has PyTorch's keys: ``step``, ``square_avg`` and
    ``acc_delta``; it is made at the parameter's first step.
    """

    def __init__(self, params: Params, lr: float | Tensor = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("nbgrad's optimizers do not support differentiable=True")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = creation.tensor(0.0)  # float32 (float64 if that is the default)
            state["square_avg"] = creation.zeros_like(p)
            state["acc_delta"] = creation.zeros_like(p)
        return state

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params, grads, square_avgs, acc_deltas, steps = self._gather(
                group, ("square_avg", "acc_delta", "step"), self._init_state)
            adadelta(params, grads, square_avgs, acc_deltas, steps,
                     lr=hyperparameter(group["lr"]), rho=group["rho"], eps=group["eps"],
                     weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss


def adadelta(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor],
             acc_deltas: list[Tensor], state_steps: list[Tensor], *, lr: float, rho: float,
             eps: float, weight_decay: float, maximize: bool) -> None:
    """The Adadelta update itself, on the arrays (in place; version counters bumped).

    Parameters
    ----------
    params, grads, square_avgs, acc_deltas, state_steps : list of Tensor
        One entry per parameter that has a gradient.
    lr, rho, eps, weight_decay, maximize
        The group's options, as in ``Adadelta``.
    """
    for param, grad, square_avg, acc_delta, step_t in zip(params, grads, square_avgs,
                                                          acc_deltas, state_steps,
                                                          strict=True):
        p = param._data
        g = grad._data
        xp = array_module(p)
        step_t._data += 1
        step_t._bump_version()
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + weight_decay * p
        v, u = square_avg._data, acc_delta._data
        decay_square_(v, g, rho)
        std = xp.sqrt(v + eps)
        delta = xp.sqrt(u + eps)
        delta /= std
        delta *= g
        decay_square_(u, delta, rho)
        p += -lr * delta
        square_avg._bump_version()
        acc_delta._bump_version()
        param._bump_version()
