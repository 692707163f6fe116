"""``Optimizer``: parameter groups, per-parameter state, and what every optimizer shares.

An optimizer holds

* ``param_groups``: a list of dicts, each with its ``"params"`` (a list of leaf tensors)
  and its options (``lr``, ``momentum``, ...), the constructor's ``defaults`` filling in
  what a group does not set;
* ``state``: per parameter (the tensor itself is the key), what the update rule
  remembers between steps (SGD's ``momentum_buffer``, Adam's ``exp_avg``, ...);
* ``defaults``: the options given to the constructor.

``step()`` changes the parameters *in place* and outside the graph: parameters are
leaves that require grad, so the update happens under ``no_grad`` (chapter 05). Updates
work on the arrays directly and bump each parameter's version counter, exactly what
``param.add_(...)`` under ``no_grad`` would do, without building intermediate tensors.
A parameter whose ``.grad`` is ``None`` is skipped.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain
from typing import TYPE_CHECKING, Any

from .. import backend
from ..core.grad_mode import enable_grad
from ..nn.module import clear_grad, typename
from ..tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    # What an optimizer is given: the tensors, (name, tensor) pairs from
    # ``named_parameters()``, or parameter groups (dicts with "params" and options)
    Params = Iterable[Tensor] | Iterable[tuple[str, Tensor]] | Iterable[dict[str, Any]]
    # ``step(closure)``: a closure recomputes the loss and returns it
    Closure = Callable[[], Tensor | float]

__all__ = ["Optimizer", "required", "hyperparameter"]


class _RequiredParameter:
    """Marks a default that every parameter group must set (no default value)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def hyperparameter(value: float | Tensor) -> Any:
    """An option as an update rule computes with it: a number as it is; a one-element
    tensor (``lr=torch.tensor(0.01)``) as a NumPy scalar of its dtype, so that arithmetic
    on it rounds as PyTorch's on the 0-d tensor does (float32, for the default dtype).

    Parameters
    ----------
    value : float or Tensor
        The group's option.

    Returns
    -------
    float or numpy scalar
        The value to compute with.
    """
    if isinstance(value, Tensor):
        return value._data.reshape(())[()]
    return value


class Optimizer:
    """Base class of the optimizers: subclasses implement ``step()``.

    Parameters
    ----------
    params : iterable
        The tensors to optimize (leaves), ``(name, tensor)`` pairs as
        ``named_parameters()`` gives them, or parameter groups: dicts with their
        ``"params"`` and the options they set for themselves. Not a tensor itself, nor
        empty.
    defaults : dict
        The options, for the groups that do not set them; ``required`` marks one that
        every group must set.
    """

    def __init__(self, params: Params, defaults: dict[str, Any]):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + typename(params)
            )
        self.state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups: list[Any] = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with options of its own (e.g. a smaller ``lr``).

        Useful when fine-tuning, to start training layers that were frozen.

        Parameters
        ----------
        param_group : dict
            Its ``"params"`` (a tensor, or an ordered collection of tensors or of
            ``(name, tensor)`` pairs) and its options; the optimizer's defaults fill in the
            others.

        Raises
        ------
        ValueError
            When a parameter is not a leaf, is already in another group, or a required
            option is missing.
        TypeError
            When the parameters come in a set, or one is not a tensor.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        tensors: list[Tensor] = []
        names: list[str] = []
        for param in param_group["params"]:
            if isinstance(param, tuple):  # (name, tensor) from named_parameters()
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(param))
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
            if backend.is_read_only(param._data):
                raise ValueError(
                    "can't optimize a Tensor whose memory is a NumPy array that is not writable "
                    "(from_numpy or as_tensor of a read-only array): every step changes it in "
                    "place.\nnbgrad hint: copy the array, or clone() the tensor, first."
                )

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)

        ids = [id(p) for p in tensors]
        if len(ids) != len(set(ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        existing: set[int] = set()
        for group in self.param_groups:
            existing.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not existing.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of every parameter.

        Parameters
        ----------
        set_to_none : bool
            Set ``.grad`` to None (the default), rather than fill it with zeros. A
            parameter whose ``.grad`` is None is then skipped by ``step()``, while one of
            zeros is still updated (weight decay, momentum).
        """
        for group in self.param_groups:
            for p in group["params"]:
                clear_grad(p, set_to_none)

    def step(self, closure: Closure | None = None) -> Tensor | float | None:
        """Update every parameter that has a ``.grad``, once, by this optimizer's rule.

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss; it is called with grad mode on.

        Returns
        -------
        Tensor or float or None
            The closure's loss, or None without a closure.
        """
        raise NotImplementedError

    @staticmethod
    def _gather(group: dict, keys: tuple[str | None, ...], init_state: Callable[..., dict],
                *args: Any) -> list[list]:
        """What a functional step takes for ``group``, list by list: the parameters that
        have a gradient, their gradients, then each of ``keys``' entry of their state
        (``init_state(p, *args)`` makes it at a parameter's first step). A key given as None (an
        option that is off) is an empty list, as PyTorch's functional optimizers take it."""
        params, grads, states = [], [], []
        for p in group["params"]:
            grad = p._grad  # .grad without the property's checks: p is a leaf
            if grad is not None:
                params.append(p)
                grads.append(grad)
                states.append(init_state(p, *args))
        return [params, grads] + [[] if key is None else [state[key] for state in states]
                                  for key in keys]

    @staticmethod
    def _evaluate(closure):
        """``closure()`` with grad mode on (it recomputes the loss), or None without one."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # -- saving and restoring ---------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state, to save: ``{"state": ..., "param_groups": ...}``.

        Returns
        -------
        dict
            ``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``:
            parameters are replaced by their position across all groups; the state
            tensors are the optimizer's own (not copies), as in PyTorch.
        """
        mapping: dict[int, int] = {}
        start = 0

        def pack_group(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start)
                            if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    @staticmethod
    def _cast(param, value, key=None):
        """State loaded for ``param``: tensors moved to its device (and floating dtype),
        except the ``step`` counter."""
        if isinstance(value, Tensor):
            if key == "step":
                return value
            if param.is_floating_point():
                return value.to(dtype=param.dtype, device=param.device)
            return value.to(device=param.device)
        if isinstance(value, dict):
            return {k: Optimizer._cast(param, v, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast(param, v) for v in value)
        return value

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned: the groups' settings and each parameter's
        state, matched to this optimizer's parameters by position, as in PyTorch.

        Parameters
        ----------
        state_dict : dict
            ``{"state": ..., "param_groups": ...}`` from ``state_dict()`` of an optimizer
            of the same parameters (the same number of groups, of the same sizes).

        Raises
        ------
        ValueError
            The number of groups, or the size of one, differs.
        """
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state: defaultdict[Any, Any] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = self._cast(param, v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
