"""Adamax: Adam with the root mean square of the gradient replaced by a decaying maximum of
its magnitude (the infinity norm).

For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...`` (PyTorch's order)::

    g = -g                                    if maximize
    g = g + weight_decay * p                  if weight_decay != 0
    m = m + (1 - beta1) * (g - m)
    u = max(beta2 * u, |g| + eps)
    p = p - lr / (1 - beta1^t) * m / u

``m`` (``exp_avg``) and ``u`` (``exp_inf``) start at zero; only ``m`` needs the bias
correction, since the maximum is not biased towards zero.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import creation
from ..backend import array_module
from ..tensor import Tensor
from .adam import addcdiv_, lerp_
from .optimizer import Optimizer, hyperparameter

if TYPE_CHECKING:
    from .optimizer import Closure, Params

__all__ = ["Adamax", "adamax"]


class Adamax(Optimizer):
    """Adamax (Kingma and Ba, section 7), with PyTorch's options and update rule.

    Parameters
    ----------
    params : iterable
        The parameters to optimize, or parameter groups (dicts with ``"params"``): see
        ``Optimizer``.
    lr : float or Tensor, default 2e-3
        Learning rate (a tensor of one element: computed with in its
        dtype, as PyTorch does).
    betas : tuple of (float, float), default (0.9, 0.999)
        The decay rates of the running average of the gradient and of the running
        maximum of its magnitude.
    eps : float, default 1e-8
        Added to the gradient's magnitude before the maximum.
    weight_decay : float, default 0
        L2 penalty, added to the gradient.
    foreach, differentiable, capturable : bool
        PyTorch's kernel choices; nbgrad has one implementation and keeps them so that
        ``param_groups`` look like PyTorch's (``differentiable=True`` is refused).
    maximize : bool, default False
        Maximize the objective instead of minimizing it.

    Notes
    -----
    The state of each parameter has PyTorch's keys: ``step``, ``exp_avg`` and
    ``exp_inf``; it is made at the parameter's first step.
    """

    def __init__(self, params: Params, lr: float | Tensor = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
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
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = creation.tensor(0.0)  # float32 (float64 if that is the default)
            state["exp_avg"] = creation.zeros_like(p)
            state["exp_inf"] = creation.zeros_like(p)
        return state

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_infs, steps = self._gather(
                group, ("exp_avg", "exp_inf", "step"), self._init_state)
            beta1, beta2 = group["betas"]
            adamax(params, grads, exp_avgs, exp_infs, steps, eps=group["eps"],
                   beta1=float(beta1), beta2=float(beta2),
                   lr=hyperparameter(group["lr"]),
                   weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss


def adamax(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
           exp_infs: list[Tensor], state_steps: list[Tensor], *, eps: float, beta1: float,
           beta2: float, lr: float, weight_decay: float, maximize: bool) -> None:
    """The Adamax update itself, on the arrays (in place; version counters bumped).

    Parameters
    ----------
    params, grads, exp_avgs, exp_infs, state_steps : list of Tensor
        One entry per parameter that has a gradient.
    eps, beta1, beta2, lr, weight_decay, maximize
        The group's options, as in ``Adamax``.
    """
    for param, grad, exp_avg, exp_inf, step_t in zip(params, grads, exp_avgs, exp_infs,
                                                     state_steps, strict=True):
        p = param._data
        g = grad._data
        if maximize:
            g = -g
        step_t._data += 1
        step_t._bump_version()
        if weight_decay != 0:
            g = g + weight_decay * p
        m, u = exp_avg._data, exp_inf._data
        lerp_(m, g, 1 - beta1)
        u *= beta2
        magnitude = abs(g)
        magnitude += eps
        array_module(u).maximum(u, magnitude, out=u)  # a NaN spreads, as in PyTorch
        bias_correction = 1 - beta1 ** float(step_t._data)
        addcdiv_(p, m, u, -lr / bias_correction)
        exp_avg._bump_version()
        exp_inf._bump_version()
        param._bump_version()
