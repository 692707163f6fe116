"""ASGD: SGD with a decaying learning rate, that also keeps ``ax``, an average of the
parameters over the steps after ``t0`` (Polyak-Ruppert averaging); ``ax``, not ``p``, is the
estimate to evaluate, by copying it into the parameters.

For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...`` (PyTorch's order)::

    g = -g                                    if maximize
    g = g + weight_decay * p                  if weight_decay != 0
    p = p * (1 - lambd * eta)
    p = p - eta * g
    ax = ax + mu * (p - ax)                   (ax = p while mu is 1)
    eta = lr / (1 + lambd * lr * t)^alpha
    mu = 1 / max(1, t - t0)

``eta`` starts at ``lr``, ``mu`` at one and ``ax`` at zero.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import creation
from ..tensor import Tensor
from .optimizer import Optimizer, hyperparameter

if TYPE_CHECKING:
    from .optimizer import Closure, Params

__all__ = ["ASGD", "asgd"]


class ASGD(Optimizer):
    """Averaged stochastic gradient descent (Polyak and Juditsky), with PyTorch's options
    and update rule.

    Parameters
    ----------
    params : iterable
        The parameters to optimize, or parameter groups (dicts with ``"params"``): see
        ``Optimizer``.
    lr : float or Tensor, default 1e-2
        Learning rate (a tensor of one element: computed with in its
        dtype, as PyTorch does).
    lambd : float, default 1e-4
        Decay term: the parameters shrink by ``lambd * eta`` each step, and ``eta``
        decays with it.
    alpha : float, default 0.75
        The power of the learning rate's decay.
    t0 : float, default 1e6
        The step at which averaging starts.
    weight_decay : float, default 0
        L2 penalty, added to the gradient.
    foreach, differentiable, capturable : bool
        PyTorch's kernel choices; nbgrad has one implementation and keeps them so that
        ``param_groups`` look like PyTorch's (``differentiable=True`` is refused).
    maximize : bool, default False
        Maximize the objective instead of minimizing it.

    Notes
    -----
    The state of each parameter has PyTorch's keys: ``step``, ``eta``, ``mu`` (0-d float
    tensors) and ``ax``; it is made at the parameter's first step.
    """

    def __init__(self, params: Params, lr: float | Tensor = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("nbgrad's optimizers do not support differentiable=True")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, group: dict) -> dict:
        state = self.state[p]
        if not state:
            # float32 (float64 if that is the default): eta and mu round as PyTorch's do
            state["step"] = creation.tensor(0.0)
            state["eta"] = creation.tensor(float(group["lr"]))
            state["mu"] = creation.tensor(1.0)
            state["ax"] = creation.zeros_like(p)
        return state

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params, grads, axs, mus, etas, steps = self._gather(
                group, ("ax", "mu", "eta", "step"), self._init_state, group)
            asgd(params, grads, axs, mus, etas, steps, lambd=group["lambd"],
                 lr=hyperparameter(group["lr"]), t0=group["t0"], alpha=group["alpha"],
                 weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss


def asgd(params: list[Tensor], grads: list[Tensor], axs: list[Tensor], mus: list[Tensor],
         etas: list[Tensor], state_steps: list[Tensor], *, lambd: float, lr: float,
         t0: float, alpha: float, weight_decay: float, maximize: bool) -> None:
    """The ASGD update itself, on the arrays (in place; version counters bumped).

    Parameters
    ----------
    params, grads, axs, mus, etas, state_steps : list of Tensor
        One entry per parameter that has a gradient.
    lambd, lr, t0, alpha, weight_decay, maximize
        The group's options, as in ``ASGD``.
    """
    for param, grad, ax, mu, eta, step_t in zip(params, grads, axs, mus, etas, state_steps,
                                                strict=True):
        p = param._data
        g = grad._data
        if maximize:
            g = -g
        step_t._data += 1
        step_t._bump_version()
        if weight_decay != 0:
            g = g + weight_decay * p
        eta_value = float(eta._data)
        p *= 1 - lambd * eta_value
        p += -eta_value * g
        param._bump_version()

        if float(mu._data) != 1:
            difference = p - ax._data
            difference *= mu._data
            ax._data += difference
        else:
            ax._data[...] = p
        ax._bump_version()

        step = float(step_t._data)
        # rounded to the default dtype (PyTorch's as_tensor of a float), then to the
        # state's own (float64 once load_state_dict has cast it to the parameter's)
        eta._data[...] = creation.tensor(lr / ((1 + lambd * lr * step) ** alpha))._data
        mu._data[...] = creation.tensor(1 / max(1, step - t0))._data
        eta._bump_version()
        mu._bump_version()
