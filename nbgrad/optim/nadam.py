"""NAdam: Adam with Nesterov momentum, the gradient's running average looked at one step
ahead, its momentum coefficient warming up over the first steps.

For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...`` (PyTorch's order)::

    g = -g                                    if maximize
    p = p * (1 - lr * weight_decay)           if decoupled_weight_decay
    g = g + weight_decay * p                  otherwise, if weight_decay != 0
    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))
    P = P * mu_t                              (mu_product, the product of the mu's)
    m = m + (1 - beta1) * (g - m)
    v = beta2 * v + (1 - beta2) * g * g
    d = sqrt(v / (1 - beta2^t)) + eps
    p = p - lr * (1 - mu_t) / (1 - P) * g / d
          - lr * mu_{t+1} / (1 - P * mu_{t+1}) * m / d

``m`` (``exp_avg``) and ``v`` (``exp_avg_sq``) start at zero, ``P`` at one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import creation
from ..backend import array_module
from ..tensor import Tensor
from .adam import addcdiv_, decay_square_, lerp_
from .optimizer import Optimizer, hyperparameter

if TYPE_CHECKING:
    from .optimizer import Closure, Params

__all__ = ["NAdam", "nadam"]


class NAdam(Optimizer):
    """NAdam (Dozat), with PyTorch's options and update rule.

    Parameters
    ----------
    params : iterable
        The parameters to optimize, or parameter groups (dicts with ``"params"``): see
        ``Optimizer``.
    lr : float or Tensor, default 2e-3
        Learning rate (a tensor of one element: computed with in its
        dtype, as PyTorch does).
    betas : tuple of (float, float), default (0.9, 0.999)
        The decay rates of the running averages of the gradient and of its square.
    eps : float, default 1e-8
        Added to the denominator, after the square root and bias correction.
    weight_decay : float, default 0
        L2 penalty, added to the gradient (or, with ``decoupled_weight_decay``, applied to
        the parameter directly, as AdamW does).
    momentum_decay : float, default 4e-3
        How fast the momentum coefficient warms up to ``beta1``.
    decoupled_weight_decay : bool, default False
        Shrink ``p`` by ``lr * weight_decay`` directly (NAdamW).
    foreach, capturable, differentiable : bool
        PyTorch's kernel choices; nbgrad has one implementation and keeps them so that
        ``param_groups`` look like PyTorch's (``differentiable=True`` is refused).
    maximize : bool, default False
        Maximize the objective instead of minimizing it.

    Notes
    -----
    The state of each parameter has PyTorch's keys: ``step``, ``mu_product`` (both
    0-d float tensors), ``exp_avg`` and ``exp_avg_sq``; it is made at the parameter's
    first step.
    """

    def __init__(self, params: Params, lr: float | Tensor = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
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
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        if differentiable:
            raise NotImplementedError("nbgrad's optimizers do not support differentiable=True")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor) -> dict:
        state = self.state[p]
        if not state:
            # float32 (float64 if that is the default): mu_product rounds as PyTorch's does
            state["step"] = creation.tensor(0.0)
            state["mu_product"] = creation.tensor(1.0)
            state["exp_avg"] = creation.zeros_like(p)
            state["exp_avg_sq"] = creation.zeros_like(p)
        return state

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, mu_products, steps = self._gather(
                group, ("exp_avg", "exp_avg_sq", "mu_product", "step"), self._init_state)
            beta1, beta2 = group["betas"]
            nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, steps,
                  beta1=float(beta1), beta2=float(beta2),
                  lr=hyperparameter(group["lr"]),
                  weight_decay=group["weight_decay"], momentum_decay=group["momentum_decay"],
                  eps=group["eps"], decoupled_weight_decay=group["decoupled_weight_decay"],
                  maximize=group["maximize"])
        return loss


def nadam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
          exp_avg_sqs: list[Tensor], mu_products: list[Tensor], state_steps: list[Tensor],
          *, beta1: float, beta2: float, lr: float, weight_decay: float,
          momentum_decay: float, eps: float, decoupled_weight_decay: bool,
          maximize: bool) -> None:
    """The NAdam update itself, on the arrays (in place; version counters bumped).

    Parameters
    ----------
    params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps : list of Tensor
        One entry per parameter that has a gradient.
    beta1, beta2, lr, weight_decay, momentum_decay, eps, decoupled_weight_decay, maximize
        The group's options, as in ``NAdam``.
    """
    for param, grad, exp_avg, exp_avg_sq, mu_product, step_t in zip(
            params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, strict=True):
        p = param._data
        g = grad._data
        if maximize:
            g = -g
        step_t._data += 1
        step_t._bump_version()
        step = float(step_t._data)
        bias_correction2 = 1 - beta2**step
        if weight_decay != 0:
            if decoupled_weight_decay:
                p *= 1 - lr * weight_decay
            else:
                g = g + weight_decay * p

        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product._data *= mu  # in the step counter's dtype, as PyTorch rounds it
        mu_product._bump_version()
        product = float(mu_product._data)

        m, v = exp_avg._data, exp_avg_sq._data
        lerp_(m, g, 1 - beta1)
        decay_square_(v, g, beta2)
        denom = array_module(v).sqrt(v / bias_correction2)
        denom += eps
        addcdiv_(p, g, denom, -lr * (1.0 - mu) / (1.0 - product))
        addcdiv_(p, m, denom, -lr * mu_next / (1.0 - product * mu_next))
        exp_avg._bump_version()
        exp_avg_sq._bump_version()
        param._bump_version()
