"""Learning-rate schedulers with PyTorch's API, formulas and order of calls.

A scheduler changes ``group["lr"]`` of each of an optimizer's parameter groups, once per
``scheduler.step()``, called after ``optimizer.step()``::

    for epoch in range(epochs):
        train(...)            # optimizer.step() inside
        scheduler.step()

Most schedulers here are *chainable*, as in PyTorch: each step multiplies or moves the
learning rate the group has now (so two schedulers of one optimizer compose), with
PyTorch's recursive formulas (``CosineAnnealingLR`` included), so the numbers are
PyTorch's to the last bit. ``step(epoch)`` (deprecated in PyTorch) uses the closed form
where the scheduler has one. Creating a scheduler takes its first step (``last_epoch``
becomes 0) and stores ``initial_lr`` in each group.
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial, wraps
from typing import Any
from weakref import ref

from .. import missing as _missing
from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = [
    "LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
    "LinearLR", "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
    "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
    "PolynomialLR",
]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)
_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
    "will result in PyTorch skipping the first value of the learning rate schedule. "
    "See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)
_OVERRIDDEN_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
    "initialization. Please, make sure to call `optimizer.step()` before "
    "`lr_scheduler.step()`. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)


# -- what the schedulers share ------------------------------------------------------------
def _copy(value: Any) -> Any:
    return value.clone() if isinstance(value, Tensor) else value


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """One value per parameter group: ``param`` itself if it is a list, else repeated."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(param)} values, param_groups has "
                f"{len(optimizer.param_groups)}.")
    else:
        param = [param] * len(optimizer.param_groups)
    return [_copy(p) for p in param]


def _group_values(optimizer: Optimizer, key: str) -> list[Any]:
    return [_copy(group[key]) for group in optimizer.param_groups]


def _set_group_value(group: dict, key: str, value: Any) -> None:
    """``group[key] = value``; a tensor learning rate is filled in place, as in PyTorch."""
    if isinstance(group[key], Tensor):
        group[key].fill_(float(value))
    else:
        group[key] = value


def _check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _mark_optimizer_steps(scheduler: "LRScheduler") -> None:
    """Wrap ``optimizer.step`` (once) so that it records that it was called: the first
    ``scheduler.step()`` warns when it comes before any ``optimizer.step()``."""
    optimizer = scheduler.optimizer
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    optimizer_ref = ref(optimizer)  # a strong reference would make a cycle
    # (below, mypy sees neither that step is a bound method, that the optimizer outlives
    # the call, nor that a function can carry an attribute or replace a method)
    func = optimizer.step.__func__  # type: ignore[attr-defined]

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opt = optimizer_ref()
        opt._opt_called = True  # type: ignore[union-attr]
        return func.__get__(opt, opt.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = wrapper  # type: ignore[method-assign]


class LRScheduler:
    """The base class: ``step()`` sets each group's learning rate to ``get_lr()``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose learning rates change.
    last_epoch : int, default -1
        The index of the last epoch; ``-1`` starts afresh (and stores ``initial_lr`` in
        each group), a larger value resumes (each group must have ``initial_lr``).

    Attributes
    ----------
    base_lrs : list
        Each group's ``initial_lr``.
    last_epoch : int
        How many times ``step()`` ran after the first, implicit, one.
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)")
        self.base_lrs: list[Any] = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _mark_optimizer_steps(self)
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """Everything the scheduler holds except the optimizer.

        Returns
        -------
        dict
            Its attributes (``last_epoch``, ``base_lrs``, ``_last_lr``, ...), as in PyTorch.
        """
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned.

        Parameters
        ----------
        state_dict : dict
            A scheduler's ``state_dict()``.
        """
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[float | Tensor]:
        """The learning rate of each group, as the last ``step()`` set it.

        Returns
        -------
        list
            One learning rate per parameter group.
        """
        return self._last_lr

    def get_lr(self) -> list[float | Tensor]:
        """The learning rates of the step being taken (each scheduler defines it).

        Returns
        -------
        list
            One learning rate per parameter group.
        """
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Move to the next epoch and set each group's learning rate.

        Parameters
        ----------
        epoch : int, optional
            Deprecated (it warns, as in PyTorch): jump to this epoch, with the closed form
            where the scheduler has one.
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(_OVERRIDDEN_WARNING, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr: list[Any] = _group_values(self.optimizer, "lr")

    def _warn_if_called_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=3)

    def _current_lrs(self) -> list[Any]:
        return _group_values(self.optimizer, "lr")

    def _scaled(self, factor: float) -> list[Any]:
        """Each group's current learning rate times ``factor`` (the chainable step)."""
        return [group["lr"] * factor for group in self.optimizer.param_groups]


# -- multiplicative schedules ---------------------------------------------------------------
class _LambdaScheduler(LRScheduler):
    """What ``LambdaLR`` and ``MultiplicativeLR`` share: one function per group."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but "
                                 f"got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's attributes; of each function only the ``__dict__`` of a callable
        object (a plain function or lambda is stored as ``None``), as in PyTorch.

        Returns
        -------
        dict
        """
        state = {key: value for key, value in self.__dict__.items()
                 if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType)
                               else fn.__dict__.copy() for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned (callable objects' ``__dict__`` too).

        Parameters
        ----------
        state_dict : dict
        """
        state = dict(state_dict)
        lr_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """Learning rate ``initial_lr * lr_lambda(epoch)``.

    Parameters
    ----------
    optimizer : Optimizer
    lr_lambda : callable or list of callable
        ``epoch -> factor``, one for all groups or one per group.
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        super().__init__(optimizer, lr_lambda, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        """``base_lr * lr_lambda(last_epoch)`` per group.

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        return [base_lr * fn(self.last_epoch)
                for fn, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class MultiplicativeLR(_LambdaScheduler):
    """Each step multiplies the learning rate by ``lr_lambda(epoch)``.

    Parameters
    ----------
    optimizer : Optimizer
    lr_lambda : callable or list of callable
        ``epoch -> factor``, one for all groups or one per group.
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        functions = lr_lambda if isinstance(lr_lambda, (list, tuple)) else [lr_lambda]
        for fn in functions:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, lr_lambda, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        """The current learning rate times ``lr_lambda(last_epoch)`` per group.

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        if self._is_initial:
            return self._current_lrs()
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs.

    Parameters
    ----------
    optimizer : Optimizer
    step_size : int
        The period of the decay, in epochs.
    gamma : float, default 0.1
        The factor.
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        """The current learning rates, times ``gamma`` at each multiple of ``step_size``.

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return self._scaled(self.gamma)

    def _get_closed_form_lr(self) -> list[Any]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` at each milestone epoch.

    Parameters
    ----------
    optimizer : Optimizer
    milestones : iterable of int
        The epochs; one given twice multiplies by ``gamma ** 2`` there.
    gamma : float, default 0.1
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        """The current learning rates, times ``gamma`` (per occurrence) at a milestone.

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        if self.last_epoch not in self.milestones:
            return self._current_lrs()
        return self._scaled(self.gamma ** self.milestones[self.last_epoch])

    def _get_closed_form_lr(self) -> list[Any]:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """The learning rate times ``factor`` until epoch ``total_iters``, then unchanged.

    Parameters
    ----------
    optimizer : Optimizer
    factor : float, default 1/3
        Between 0 and 1.
    total_iters : int, default 5
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        """``factor`` applied at epoch 0 and undone at ``total_iters``.

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        if self.last_epoch == 0:
            return self._scaled(self.factor)
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return self._scaled(1.0 / self.factor)

    def _get_closed_form_lr(self) -> list[Any]:
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters)
                           * (1 - self.factor)) for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """The factor moves linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs.

    Parameters
    ----------
    optimizer : Optimizer
    start_factor : float, default 1/3
        In (0, 1].
    end_factor : float, default 1.0
        In [0, 1].
    total_iters : int, default 5
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 "
                             "and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        """The current learning rates times the ratio of this epoch's factor to the last.

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        if self.last_epoch == 0:
            return self._scaled(self.start_factor)
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        change = self.end_factor - self.start_factor
        return self._scaled(1.0 + change / (self.total_iters * self.start_factor
                                            + (self.last_epoch - 1) * change))

    def _get_closed_form_lr(self) -> list[Any]:
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every epoch.

    Parameters
    ----------
    optimizer : Optimizer
    gamma : float
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        """The current learning rates times ``gamma``.

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        if self._is_initial:
            return self._current_lrs()
        return self._scaled(self.gamma)

    def _get_closed_form_lr(self) -> list[Any]:
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay to zero over ``total_iters`` epochs as ``(1 - t / total_iters) ** power``.

    Parameters
    ----------
    optimizer : Optimizer
    total_iters : int, default 5
    power : float, default 1.0
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        """The current learning rates times the ratio of this epoch's decay to the last.

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        decay = ((1.0 - self.last_epoch / self.total_iters)
                 / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return self._scaled(decay)

    def _get_closed_form_lr(self) -> list[Any]:
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial learning rate to ``eta_min`` over ``T_max``
    epochs (and back up over the next ``T_max``: PyTorch's schedule is periodic).

    Parameters
    ----------
    optimizer : Optimizer
    T_max : int
        Half the period, in epochs.
    eta_min : float, default 0.0
        The smallest learning rate.
    last_epoch : int, default -1

    Notes
    -----
    Each step uses PyTorch's recursive form, which follows changes other schedulers make
    to the learning rate; alone, it equals
    ``eta_min + (base_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2`` up to rounding.
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        """The next learning rates by PyTorch's recursive formula.

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min)
                    * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base_lr - self.eta_min)
                    * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups, strict=True)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_i`` epochs (SGDR), ``T_i`` growing by
    ``T_mult`` at each restart.

    Parameters
    ----------
    optimizer : Optimizer
    T_0 : int
        The length of the first cycle.
    T_mult : int, default 1
        The factor by which each cycle is longer than the last.
    eta_min : float, default 0.0
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        """``eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2``.

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Move to the next epoch, or to ``epoch`` (it may be fractional: an epoch's
        batches, as in PyTorch).

        Parameters
        ----------
        epoch : float, optional
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")


# -- schedulers of schedulers -----------------------------------------------------------
def _check_schedulers(owner: str, schedulers: Sequence[Any], optimizer: Any) -> None:
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {index} should have `optimizer` as its "
                            "attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at "
                f"index {index} in the given schedulers sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {scheduler.__class__.__name__} at index {index} has "
                f"{scheduler.optimizer}, which is different from "
                f"{optimizer.__class__.__name__}.")


class _SchedulerOfSchedulers(LRScheduler):
    """``state_dict`` of ``SequentialLR`` and ``ChainedScheduler``: their schedulers'."""

    _schedulers: Sequence[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        """The attributes, with each inner scheduler's ``state_dict()``.

        Returns
        -------
        dict
        """
        state = {key: value for key, value in self.__dict__.items()
                 if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned, inner schedulers included.

        Parameters
        ----------
        state_dict : dict
        """
        state = dict(state_dict)
        saved = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, scheduler_state in zip(self._schedulers, saved):
            scheduler.load_state_dict(scheduler_state)


class SequentialLR(_SchedulerOfSchedulers):
    """One scheduler after another: ``schedulers[i]`` runs from ``milestones[i - 1]``.

    Parameters
    ----------
    optimizer : Optimizer
    schedulers : list of LRScheduler
        Schedulers of ``optimizer``.
    milestones : list of int
        One fewer than the schedulers: the epochs at which the next one takes over.
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler],
                 milestones: list[int], last_epoch: int = -1) -> None:
        owner = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(owner, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # undo the initial steps the schedulers took when they were made
        for group in self.optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self._undo_initial_steps(self)
        index = bisect_right(self._milestones, 0)
        self._schedulers[index]._initial_step()
        self._last_lr = schedulers[index].get_last_lr()

    def _undo_initial_steps(self, scheduler: Any) -> None:
        if hasattr(scheduler, "_schedulers"):
            for inner in scheduler._schedulers:
                self._undo_initial_steps(inner)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    # PyTorch's signature (no epoch): not the base class's step(epoch)
    def step(self) -> None:  # type: ignore[override]
        """Step the scheduler whose turn it is (a new one starts at its epoch 0)."""
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_SchedulerOfSchedulers):
    """Step several schedulers together: their (chainable) changes compose.

    Parameters
    ----------
    schedulers : sequence of LRScheduler
        Schedulers of one optimizer.
    optimizer : Optimizer, optional
        That optimizer (by default the first scheduler's).
    """

    def __init__(self, schedulers: Sequence[LRScheduler],
                 optimizer: Optimizer | None = None) -> None:
        owner = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler to be chained, but got "
                             "no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(owner, schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    # PyTorch's signature (no epoch): not the base class's step(epoch)
    def step(self) -> None:  # type: ignore[override]
        """Step every scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


# -- schedules driven by a metric or a cycle ----------------------------------------------
class ReduceLROnPlateau(LRScheduler):
    """Multiply the learning rate by ``factor`` when a metric stops improving.

    Parameters
    ----------
    optimizer : Optimizer
    mode : {"min", "max"}, default "min"
        Whether the metric should go down or up.
    factor : float, default 0.1
        Less than 1.
    patience : int, default 10
        The epochs without improvement tolerated before the learning rate drops.
    threshold : float, default 1e-4
        What counts as an improvement, relative or absolute (``threshold_mode``).
    threshold_mode : {"rel", "abs"}, default "rel"
        ``"rel"``: better than ``best * (1 -+ threshold)``; ``"abs"``: than
        ``best -+ threshold``.
    cooldown : int, default 0
        Epochs after a drop during which bad epochs are not counted.
    min_lr : float or list of float, default 0
        The lower bound of each group's learning rate.
    eps : float, default 1e-8
        A drop smaller than this is not made.
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: list[float] | float = 0,
                 eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.default_min_lr: float | None
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(self.optimizer, "lr")
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    # PyTorch's signature, which takes the metric first: not the base class's step(epoch)
    def step(self, metrics: float | Tensor,  # type: ignore[override]
             epoch: int | None = None) -> None:
        """Record this epoch's metric; drop the learning rate after ``patience`` bad ones.

        Parameters
        ----------
        metrics : float or Tensor
            The metric (a number or a one-element tensor).
        epoch : int, optional
            Deprecated (it warns).
        """
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown are not counted
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self) -> None:
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    "The number of param groups in the `optimizer` "
                    f"({len(self.optimizer.param_groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due "
                    "to a new param group being added to the optimizer. Please modify the "
                    "`min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                _set_group_value(group, "lr", new_lr)

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is in its cooldown after a drop.

        Returns
        -------
        bool
            True while ``cooldown`` epochs have not yet passed since the last reduction:
            bad epochs are not counted then.
        """
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned.

        Parameters
        ----------
        state_dict : dict
        """
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold,
                             threshold_mode=self.threshold_mode)


def _set_momentums(optimizer: Optimizer, momentums: list[Any], use_beta1: bool) -> None:
    """Each group's ``momentum``, or the first of its ``betas`` (Adam's)."""
    for group, momentum in zip(optimizer.param_groups, momentums, strict=True):
        if use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum


def _init_cycle_momentum(optimizer: Optimizer, base_momentum: Any, max_momentum: Any,
                         last_epoch: int) -> tuple[bool, list[Any], list[Any]]:
    """What ``CyclicLR`` and ``OneCycleLR`` do with ``cycle_momentum=True``."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled")
    use_beta1 = "betas" in optimizer.defaults
    max_momentums = _format_param("max_momentum", optimizer, max_momentum)
    base_momentums = _format_param("base_momentum", optimizer, base_momentum)
    if last_epoch == -1:
        _set_momentums(optimizer, max_momentums, use_beta1)
        for maximum, base, group in zip(max_momentums, base_momentums,
                                        optimizer.param_groups, strict=True):
            group["max_momentum"] = maximum
            group["base_momentum"] = base
    return use_beta1, base_momentums, max_momentums


class CyclicLR(LRScheduler):
    """The learning rate cycles between ``base_lr`` and ``max_lr`` (Smith's cyclical
    learning rates), stepped every *batch*; the momentum cycles the other way.

    Parameters
    ----------
    optimizer : Optimizer
    base_lr, max_lr : float or list of float
        The bounds of the cycle, per group.
    step_size_up : int, default 2000
        Steps from ``base_lr`` up to ``max_lr``.
    step_size_down : int, optional
        Steps back down (``step_size_up`` by default).
    mode : {"triangular", "triangular2", "exp_range"}, default "triangular"
        The amplitude: constant, halved each cycle, or times ``gamma ** step``.
    gamma : float, default 1.0
        The factor of ``"exp_range"``.
    scale_fn : callable, optional
        A custom amplitude (instead of ``mode``), of the cycle or the step (``scale_mode``).
    scale_mode : {"cycle", "iterations"}, default "cycle"
        What ``scale_fn`` is given: the cycle number or the step.
    cycle_momentum : bool, default True
        Cycle the optimizer's ``momentum`` (Adam's ``beta1``) too, from ``max_momentum``
        down to ``base_momentum`` while the learning rate rises.
    base_momentum, max_momentum : float or list of float, default 0.8, 0.9
        The bounds of the momentum's cycle, per group.
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer, base_lr: float | list[float],
                 max_lr: float | list[float], step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None,
                 scale_mode: str = "cycle", cycle_momentum: bool = True,
                 base_momentum: float | list[float] = 0.8,
                 max_momentum: float | list[float] = 0.9, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_ref: Callable[[float], float]
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1, self.base_momentums, self.max_momentums = _init_cycle_momentum(
                optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The amplitude factor of cycle (or step) ``x``.

        Parameters
        ----------
        x : float

        Returns
        -------
        float
        """
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma ** x

    def get_lr(self) -> list[float | Tensor]:
        """This step's learning rates (and, with ``cycle_momentum``, it sets momentums).

        Returns
        -------
        list
        """
        self._warn_if_called_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            momentums = [max_m - (max_m - base_m) * scale_factor * scale
                         for base_m, max_m in zip(self.base_momentums, self.max_momentums,
                                                  strict=True)]
            _set_momentums(self.optimizer, momentums, self.use_beta1)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """The attributes; a custom ``scale_fn`` only by its ``__dict__`` (as in PyTorch).

        Returns
        -------
        dict
        """
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned.

        Parameters
        ----------
        state_dict : dict
        """
        state = dict(state_dict)
        fn = state.pop("_scale_fn_custom")
        super().load_state_dict(state)
        if fn is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the learning rate rises from ``max_lr / div_factor`` to
    ``max_lr``, then anneals far below the start; stepped every *batch*.

    Parameters
    ----------
    optimizer : Optimizer
    max_lr : float or list of float
        The peak learning rate, per group.
    total_steps : int, optional
        The length of the cycle; or give ``epochs`` and ``steps_per_epoch``.
    epochs, steps_per_epoch : int, optional
        ``total_steps = epochs * steps_per_epoch``.
    pct_start : float, default 0.3
        The fraction of the steps spent rising.
    anneal_strategy : {"cos", "linear"}, default "cos"
        The shape of each phase.
    cycle_momentum : bool, default True
        Cycle the optimizer's ``momentum`` (Adam's ``beta1``) the other way, between
        ``max_momentum`` and ``base_momentum``.
    base_momentum, max_momentum : float or list of float, default 0.85, 0.95
        The bounds of the momentum's cycle, per group.
    div_factor : float, default 25.0
        ``initial_lr = max_lr / div_factor``.
    final_div_factor : float, default 1e4
        ``min_lr = initial_lr / final_div_factor``.
    three_phase : bool, default False
        Come back down to ``initial_lr`` before annealing to ``min_lr``.
    last_epoch : int, default -1
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float],
                 total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | list[float] = 0.85,
                 max_momentum: float | list[float] = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError("Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND "
                             "steps_per_epoch)")
        rise_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                _phase(rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                       "base_momentum", "max_momentum"),
                _phase(self.total_steps - 1, "initial_lr", "min_lr", "max_momentum",
                       "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                _phase(rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(self.total_steps - 1, "max_lr", "min_lr", "base_momentum",
                       "max_momentum"),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for maximum, group in zip(max_lrs, self.optimizer.param_groups, strict=True):
                group["initial_lr"] = maximum / div_factor
                group["max_lr"] = maximum
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _init_cycle_momentum(optimizer, base_momentum, max_momentum,
                                                  last_epoch)[0]
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float | Tensor]:
        """This step's learning rates (and, with ``cycle_momentum``, it sets momentums).

        Returns
        -------
        list

        Raises
        ------
        ValueError
            Stepped more than ``total_steps`` times.
        """
        self._warn_if_called_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs: list[float | Tensor] = []
        momentums: list[float] = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == last:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(self._anneal_func(group[phase["start_lr"]],
                                                 group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        momentums.append(self._anneal_func(group[phase["start_momentum"]],
                                                           group[phase["end_momentum"]], pct))
                    break
                start_step = phase["end_step"]
        if self.cycle_momentum:
            _set_momentums(self.optimizer, momentums, self.use_beta1)
        return lrs


def _phase(end_step: float, start_lr: str, end_lr: str, start_momentum: str,
           end_momentum: str) -> dict[str, Any]:
    """One phase of ``OneCycleLR``: its last step and the group keys it moves between."""
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
            "start_momentum": start_momentum, "end_momentum": end_momentum}


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
