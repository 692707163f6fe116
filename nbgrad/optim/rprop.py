"""Rprop: each coordinate moves by a step size of its own, in the direction opposite to its
gradient's sign; the gradient's magnitude is not used at all.

For each parameter ``p`` with gradient ``g`` (PyTorch's order of operations)::

    g = -g                                    if maximize
    s = g * prev
    f = etaplus where s > 0, etaminus where s < 0, 1 where s == 0
    step_size = clamp(step_size * f, step_size_min, step_size_max)
    g = 0 where s < 0                         (the sign flipped: overshot, stand still)
    p = p - sign(g) * step_size
    prev = g

``prev`` starts at zero and ``step_size`` at ``lr``: a coordinate whose sign stays the
same speeds up, one whose sign flips slows down and waits a step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import creation
from ..backend import array_module
from ..tensor import Tensor
from .optimizer import Optimizer

if TYPE_CHECKING:
    from .optimizer import Closure, Params

__all__ = ["Rprop", "rprop"]


class Rprop(Optimizer):
    """Resilient backpropagation (Riedmiller and Braun), with PyTorch's options and update
    rule. Meant for full-batch training: mini-batch gradients' signs are too noisy.

    Parameters
    ----------
    params : iterable
        The parameters to optimize, or parameter groups (dicts with ``"params"``): see
        ``Optimizer``.
    lr : float or Tensor, default 1e-2
        The initial step size of every coordinate.
    etas : tuple of (float, float), default (0.5, 1.2)
        ``(etaminus, etaplus)``: the factors by which a step size shrinks (the gradient's
        sign flipped) or grows (it stayed); ``0 < etaminus < 1 < etaplus``.
    step_sizes : tuple of (float, float), default (1e-6, 50)
        The smallest and largest step sizes.
    capturable, foreach, differentiable : bool
        PyTorch's kernel choices; nbgrad has one implementation and keeps them so that
        ``param_groups`` look like PyTorch's (``differentiable=True`` is refused).
    maximize : bool, default False
        Maximize the objective instead of minimizing it.

    Notes
    -----
    The state of each parameter has PyTorch's keys: ``step``, ``prev`` and
    ``step_size``; it is made at the parameter's first step, ``step_size`` from the
    group's ``lr`` at that time.
    """

    def __init__(self, params: Params, lr: float | Tensor = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        if differentiable:
            raise NotImplementedError("nbgrad's optimizers do not support differentiable=True")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, group: dict) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = creation.tensor(0.0)  # float32 (float64 if that is the default)
            state["prev"] = creation.zeros_like(p)
            state["step_size"] = creation.full_like(p, float(group["lr"]))
        return state

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params, grads, prevs, step_sizes, steps = self._gather(
                group, ("prev", "step_size", "step"), self._init_state, group)
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            rprop(params, grads, prevs, step_sizes, steps, step_size_min=step_size_min,
                  step_size_max=step_size_max, etaminus=etaminus, etaplus=etaplus,
                  maximize=group["maximize"])
        return loss


def rprop(params: list[Tensor], grads: list[Tensor], prevs: list[Tensor],
          step_sizes: list[Tensor], state_steps: list[Tensor], *, step_size_min: float,
          step_size_max: float, etaminus: float, etaplus: float, maximize: bool) -> None:
    """The Rprop update itself, on the arrays (in place; version counters bumped).

    Parameters
    ----------
    params, grads, prevs, step_sizes, state_steps : list of Tensor
        One entry per parameter that has a gradient.
    step_size_min, step_size_max, etaminus, etaplus, maximize
        The group's options, as in ``Rprop`` (``step_sizes`` and ``etas``).
    """
    for param, grad, prev, step_size, step_t in zip(params, grads, prevs, step_sizes,
                                                    state_steps, strict=True):
        p = param._data
        g = grad._data
        xp = array_module(p)
        if maximize:
            g = -g
        step_t._data += 1
        step_t._bump_version()
        product_sign = sign(g * prev._data)
        flipped = product_sign < 0
        # torch's sign_ writes etaplus / etaminus / 1 into the sign, rounding them to p's dtype
        factor = xp.where(product_sign > 0, etaplus,
                          xp.where(flipped, etaminus, 1.0)).astype(p.dtype)
        size = step_size._data
        size *= factor
        xp.clip(size, step_size_min, step_size_max, out=size)
        g = xp.where(flipped, xp.zeros_like(g), g)
        # p.addcmul_(g.sign(), step_size, value=-1)
        p -= sign(g) * size
        prev._data[...] = g
        step_size._bump_version()
        prev._bump_version()
        param._bump_version()


def sign(x):
    """PyTorch's ``sign``: -1, 0 or 1, and 0 for NaN (NumPy's gives NaN)."""
    return (x > 0).astype(x.dtype) - (x < 0)
