"""RAdam: Adam whose adaptive step is switched on only once the variance of the squared
gradients' running average can be estimated, and then *rectified* (scaled down) while that
estimate is still poor; the first steps are plain momentum SGD.

For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...`` (PyTorch's order)::

    g = -g                                    if maximize
    p = p * (1 - lr * weight_decay)           if decoupled_weight_decay
    g = g + weight_decay * p                  otherwise, if weight_decay != 0
    m = m + (1 - beta1) * (g - m)
    v = beta2 * v + (1 - beta2) * g * g
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
    m_hat = m / (1 - beta1^t)
    p = p - m_hat * lr * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r     if rho_t > 5
    p = p - m_hat * lr                                               otherwise

with ``r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import creation
from ..backend import array_module
from ..tensor import Tensor
from .adam import decay_square_, lerp_
from .optimizer import Optimizer, hyperparameter

if TYPE_CHECKING:
    from .optimizer import Closure, Params

__all__ = ["RAdam", "radam"]


class RAdam(Optimizer):
    """RAdam (Liu et al.), with PyTorch's options and update rule.

    Parameters
    ----------
    params : iterable
        The parameters to optimize, or parameter groups (dicts with ``"params"``): see
        ``Optimizer``.
    lr : float or Tensor, default 1e-3
        Learning rate (a tensor of one element: computed with in its
        dtype, as PyTorch does).
    betas : tuple of (float, float), default (0.9, 0.999)
        The decay rates of the running averages of the gradient and of its square.
    eps : float, default 1e-8
        Added to the denominator, after the square root.
    weight_decay : float, default 0
        L2 penalty, added to the gradient (or, with ``decoupled_weight_decay``, applied to
        the parameter directly, as AdamW does).
    decoupled_weight_decay : bool, default False
        Shrink ``p`` by ``lr * weight_decay`` directly (RAdamW).
    foreach, capturable, differentiable : bool
        PyTorch's kernel choices; nbgrad has one implementation and keeps them so that
        ``param_groups`` look like PyTorch's (``differentiable=True`` is refused).
    maximize : bool, default False
        Maximize the objective instead of minimizing it.

    Notes
    -----
    The state of each parameter has PyTorch's keys: ``step``, ``exp_avg`` and
    ``exp_avg_sq``; it is made at the parameter's first step.
    """

    def __init__(self, params: Params, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("nbgrad's optimizers do not support differentiable=True")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = creation.tensor(0.0)  # float32 (float64 if that is the default)
            state["exp_avg"] = creation.zeros_like(p)
            state["exp_avg_sq"] = creation.zeros_like(p)
        return state

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, steps = self._gather(
                group, ("exp_avg", "exp_avg_sq", "step"), self._init_state)
            beta1, beta2 = group["betas"]
            radam(params, grads, exp_avgs, exp_avg_sqs, steps, beta1=float(beta1),
                  beta2=float(beta2), lr=hyperparameter(group["lr"]),
                  weight_decay=group["weight_decay"], eps=group["eps"],
                  decoupled_weight_decay=group["decoupled_weight_decay"],
                  maximize=group["maximize"])
        return loss


def radam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
          exp_avg_sqs: list[Tensor], state_steps: list[Tensor], *, beta1: float,
          beta2: float, lr: float, weight_decay: float, eps: float,
          decoupled_weight_decay: bool, maximize: bool) -> None:
    """The RAdam update itself, on the arrays (in place; version counters bumped).

    Parameters
    ----------
    params, grads, exp_avgs, exp_avg_sqs, state_steps : list of Tensor
        One entry per parameter that has a gradient.
    beta1, beta2, lr, weight_decay, eps, decoupled_weight_decay, maximize
        The group's options, as in ``RAdam``.
    """
    for param, grad, exp_avg, exp_avg_sq, step_t in zip(params, grads, exp_avgs,
                                                        exp_avg_sqs, state_steps,
                                                        strict=True):
        p = param._data
        g = grad._data
        if maximize:
            g = -g
        step_t._data += 1
        step_t._bump_version()
        step = float(step_t._data)
        if weight_decay != 0:
            if decoupled_weight_decay:
                p *= 1 - lr * weight_decay
            else:
                g = g + weight_decay * p

        m, v = exp_avg._data, exp_avg_sq._data
        lerp_(m, g, 1 - beta1)
        decay_square_(v, g, beta2)
        exp_avg._bump_version()
        exp_avg_sq._bump_version()

        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        update = m / bias_correction1
        update *= lr
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:  # the variance is tractable: the rectified adaptive step
            denom = array_module(v).sqrt(v)
            denom += eps
            update *= bias_correction2**0.5 / denom
            update *= ((rho_t - 4) * (rho_t - 2) * rho_inf
                       / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        p -= update
        param._bump_version()
