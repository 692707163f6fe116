"""Adam (and AdamW): steps scaled by running averages of the gradient and its square.

For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...`` (PyTorch's order)::

    g = -g                                    if maximize
    p = p * (1 - lr * weight_decay)           if decoupled (AdamW)
    g = g + weight_decay * p                  otherwise, if weight_decay != 0
    m = m + (1 - beta1) * (g - m)             (lerp: m = beta1 m + (1 - beta1) g)
    v = beta2 * v + (1 - beta2) * g * g
    v_max = max(v_max, v)                     if amsgrad (then used instead of v)
    p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

``m`` and ``v`` start at zero, so early on they are biased towards zero; dividing by
``1 - beta^t`` (the *bias correction*) removes that bias.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import creation
from ..backend import array_module
from ..tensor import Tensor
from .optimizer import Optimizer, hyperparameter

if TYPE_CHECKING:
    from .optimizer import Closure, Params

__all__ = ["Adam", "AdamW", "adam"]


class Adam(Optimizer):
    """Adam (Kingma and Ba), with PyTorch's options: ``betas``, ``eps``, ``weight_decay``
    (added to the gradient), ``amsgrad`` and ``maximize``; the update is PyTorch's
    single-tensor one.

    Parameters
    ----------
    params : iterable
        The parameters to optimize, or parameter groups (dicts with ``"params"``): see
        ``Optimizer``.
    lr : float or Tensor, default 1e-3
        Learning rate (a tensor of one element: computed with in its
        dtype, as PyTorch does).
    betas : tuple of (float, float), default (0.9, 0.999)
        The decay rates of the running averages of the gradient and of its square (both
        floats, or both one-element tensors, read as floats).
    eps : float, default 1e-8
        Added to the denominator, after the square root and bias correction.
    weight_decay : float, default 0
        L2 penalty, added to the gradient (or, with ``decoupled_weight_decay``, applied to
        the parameter directly, as ``AdamW`` does).
    amsgrad : bool, default False
        Divide by the largest running average of the squared gradient seen so far
        (``state[p]["max_exp_avg_sq"]``).
    maximize : bool, default False
        Maximize the objective instead of minimizing it.
    decoupled_weight_decay : bool, default False
        Shrink ``p`` by ``lr * weight_decay`` directly: ``AdamW``.
    foreach, capturable, differentiable, fused : bool, optional
        PyTorch's kernel choices; nbgrad has one implementation and keeps them so that
        ``param_groups`` look like PyTorch's (``differentiable=True`` is refused).

    Notes
    -----
    The state of each parameter has PyTorch's keys: ``step`` (a float tensor),
    ``exp_avg``, ``exp_avg_sq`` and, with ``amsgrad``, ``max_exp_avg_sq``; it is made at
    the parameter's first step.
    """

    def __init__(self, params: Params, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] | tuple[Tensor, Tensor] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False):
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
        if not (all(isinstance(b, float) for b in betas)
                or all(isinstance(b, Tensor) for b in betas)):
            raise ValueError("betas must be either both floats or both Tensors")
        if differentiable:
            raise NotImplementedError("nbgrad's optimizers do not support differentiable=True")
        float_betas = tuple(float(b) for b in betas)
        # foreach, capturable and fused select PyTorch kernels; nbgrad has one
        # implementation and keeps them only so that param_groups look like PyTorch's.
        defaults = dict(lr=lr, betas=float_betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _init_state(self, p, amsgrad):
        state = self.state[p]
        if not state:
            state["step"] = creation.tensor(0.0)  # float32 (float64 if that is the default)
            state["exp_avg"] = creation.zeros_like(p)
            state["exp_avg_sq"] = creation.zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = creation.zeros_like(p)
        return state

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
        loss = self._evaluate(closure)
        for group in self.param_groups:
            amsgrad = group["amsgrad"]
            params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps = self._gather(
                group, ("exp_avg", "exp_avg_sq", "max_exp_avg_sq" if amsgrad else None, "step"),
                self._init_state, amsgrad)
            beta1, beta2 = group["betas"]
            adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps,
                 amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=hyperparameter(group["lr"]),
                 weight_decay=group["weight_decay"], eps=group["eps"],
                 maximize=group["maximize"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


class AdamW(Adam):
    """Adam with *decoupled* weight decay: ``p`` shrinks by ``lr * weight_decay`` directly,
    instead of ``weight_decay * p`` being added to the gradient (Loshchilov and Hutter).

    ``Adam(..., decoupled_weight_decay=True)``, with a weight decay of 1e-2 by default.

    Parameters
    ----------
    params, lr, betas, eps, amsgrad, maximize
        As for ``Adam``.
    weight_decay : float, default 1e-2
        The fraction ``lr * weight_decay`` by which every step shrinks the parameters.
    foreach, capturable, differentiable, fused : bool, optional
        As for ``Adam``: accepted for PyTorch's signature.
    """

    def __init__(self, params: Params, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] | tuple[Tensor, Tensor] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
         exp_avg_sqs: list[Tensor], max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor],
         *, amsgrad: bool, beta1: float, beta2: float, lr: float, weight_decay: float,
         eps: float, maximize: bool, decoupled_weight_decay: bool = False) -> None:
    """The Adam update itself, on the arrays (in place; version counters bumped).

    Parameters
    ----------
    params, grads, exp_avgs, exp_avg_sqs, state_steps : list of Tensor
        One entry per parameter that has a gradient.
    max_exp_avg_sqs : list of Tensor
        The largest ``exp_avg_sq`` so far (used only with ``amsgrad``).
    amsgrad, beta1, beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay
        The group's options, as in ``Adam``.
    """
    for i, param in enumerate(params):
        p = param._data
        g = grads[i]._data
        m, v = exp_avgs[i]._data, exp_avg_sqs[i]._data
        xp = array_module(p)
        if maximize:
            g = -g

        step_t = state_steps[i]
        step_t._data += 1
        step_t._bump_version()
        step = float(step_t._data)

        if weight_decay != 0:
            if decoupled_weight_decay:
                p *= 1 - lr * weight_decay
            else:
                g = g + weight_decay * p

        lerp_(m, g, 1 - beta1)
        decay_square_(v, g, beta2)

        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5

        if amsgrad:
            v_max = max_exp_avg_sqs[i]._data
            xp.maximum(v_max, v, out=v_max)
            max_exp_avg_sqs[i]._bump_version()
            v = v_max
        denom = xp.sqrt(v)
        denom /= bias_correction2_sqrt
        denom += eps
        addcdiv_(p, m, denom, -step_size)

        exp_avgs[i]._bump_version()
        exp_avg_sqs[i]._bump_version()
        param._bump_version()


def lerp_(start, end, weight):
    """``start.lerp_(end, weight)`` on arrays: ``start += weight * (end - start)``, in place.

    PyTorch's two forms, the accurate one for each weight (``end - (1 - weight) * (end -
    start)`` when ``weight >= 0.5``), so that running averages round as PyTorch's do.
    """
    delta = end - start
    if abs(weight) < 0.5:
        delta *= weight
        start += delta
    else:
        delta *= 1 - weight
        array_module(start).subtract(end, delta, out=start)


def decay_square_(average, g, decay):
    """``average.mul_(decay).addcmul_(g, g, value=1 - decay)`` on arrays, in place: the
    running average of the squared gradient, rounded in PyTorch's order."""
    average *= decay
    square = g * (1 - decay)
    square *= g
    average += square


def addcdiv_(target, numerator, denominator, value):
    """``target.addcdiv_(numerator, denominator, value=value)`` on arrays, in place, rounded
    in PyTorch's order: ``target + (value * numerator) / denominator``."""
    update = numerator * value
    update /= denominator
    target += update
