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

from .. import creation
from ..backend import array_module
from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW", "adam"]


class Adam(Optimizer):
    """Adam (Kingma and Ba), with PyTorch's options: ``betas``, ``eps``, ``weight_decay``
    (added to the gradient), ``amsgrad`` and ``maximize``; the update is PyTorch's
    single-tensor one."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
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
        betas = tuple(float(b) for b in betas)
        # foreach, capturable and fused select PyTorch kernels; nbgrad has one
        # implementation and keeps them only so that param_groups look like PyTorch's.
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
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

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            amsgrad = group["amsgrad"]
            params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps = [], [], [], [], [], []
            for p in group["params"]:
                grad = p._grad  # .grad without the property's checks: p is a leaf
                if grad is None:
                    continue
                state = self._init_state(p, amsgrad)
                params.append(p)
                grads.append(grad)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                if amsgrad:
                    max_exp_avg_sqs.append(state["max_exp_avg_sq"])
                steps.append(state["step"])
            beta1, beta2 = group["betas"]
            adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps,
                 amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=float(group["lr"]),
                 weight_decay=group["weight_decay"], eps=group["eps"],
                 maximize=group["maximize"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


class AdamW(Adam):
    """Adam with *decoupled* weight decay: ``p`` shrinks by ``lr * weight_decay`` directly,
    instead of ``weight_decay * p`` being added to the gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad,
         beta1, beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay=False):
    """The update itself, on the arrays (in place; version counters bumped)."""
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
        # v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        v *= beta2
        square = g * (1 - beta2)
        square *= g
        v += square

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
        # p.addcdiv_(m, denom, value=-step_size)
        update = m * -step_size
        update /= denom
        p += update

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
