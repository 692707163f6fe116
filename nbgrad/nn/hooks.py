"""Module backward hooks (``register_full_backward_hook``, ``..._pre_hook``), as PyTorch
makes them (``torch/utils/hooks.py``'s ``BackwardHook``).

A module call with such hooks passes its tensor arguments, and then its tensor outputs,
through an identity node (``BackwardHookFunctionBackward``). In backward, the node of the
outputs sees the gradients with respect to the outputs (``grad_output``; the pre-hooks may
replace them), and the node of the inputs those with respect to the inputs (``grad_input``);
there the hooks run, ``hook(module, grad_input, grad_output)``, and may return a
replacement for ``grad_input``. Each tuple has one entry per positional argument (or
output): ``None`` where that is not a tensor, zeros where it is one without a gradient.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from ..autograd.graph import record
from ..core.grad_mode import grad_mode
from ..core.node import Node
from ..ops.operands import zeros_like
from ..tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from .module import Module

    # the gradients a node hands on: one per tensor, None where there is none
    Grads = tuple[Tensor | None, ...]


class BackwardHookFunctionBackward(Node):
    """The identity, whose backward hands the gradients to ``callback`` (which may return
    replacements)."""

    __slots__ = ("callback", "num_outputs")
    callback: Callable[[Grads], Any]

    def apply(self, *grads: Tensor | None) -> tuple[Tensor | None, ...]:
        result = self.callback(grads)
        return grads if result is None else tuple(result)


def _through_identity(values: Sequence[Any], callback: Callable[[Grads], Any]
                      ) -> tuple[Sequence[Any], list[int] | None]:
    """``values`` with each tensor that requires grad replaced by an alias (sharing data and
    version counter) recorded behind one identity node; ``(new values, positions of those
    tensors)``, or ``(values, None)`` when none requires grad."""
    positions = [i for i, v in enumerate(values)
                 if isinstance(v, Tensor) and v._requires_grad]
    if not (grad_mode.enabled and positions):
        return values, None
    tensors = tuple(values[i] for i in positions)
    aliases = tuple(Tensor._make(t._data, t._counter()) for t in tensors)
    record(BackwardHookFunctionBackward, aliases, tensors, callback=callback)
    values = list(values)
    for i, alias in zip(positions, aliases):
        values[i] = alias
    return values, positions


def _pack(values: Sequence[Any], positions: list[int], grads: Grads) -> Grads:
    """One entry per value: the gradient of each tensor that requires grad, zeros for the
    other tensors and for a gradient that did not arrive (PyTorch's Function materialises
    them), ``None`` for what is not a tensor."""
    packed = [zeros_like(v) if isinstance(v, Tensor) else None for v in values]
    for i, g in zip(positions, grads):
        if g is not None:
            packed[i] = g
    return tuple(packed)


class BackwardHook:
    """The state of one module call's backward hooks: what ``grad_output`` was."""

    def __init__(self, module: Module, hooks: Mapping[int, Callable[..., Any]],
                 pre_hooks: Mapping[int, Callable[..., Any]]) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: Grads | None = None
        self.inputs: Sequence[Any] = ()
        self.outputs: Sequence[Any] = ()
        # the positions of the inputs (outputs) behind the identity node; None: no node
        self.input_positions: list[int] | None = None
        self.output_positions: list[int] | None = None

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The call's positional arguments, those that require grad behind the inputs'
        identity node."""
        self.inputs = args
        passed, self.input_positions = _through_identity(args, self._on_grad_input)
        return tuple(passed)

    def setup_output_hook(self, output: Any) -> Any:
        """The call's output (a tensor, or a tuple whose tensors pass), those that require
        grad behind the outputs' identity node; any other output unchanged."""
        single = isinstance(output, Tensor)
        values = (output,) if single else tuple(output) if isinstance(output, tuple) else None
        if values is None:
            return output
        self.outputs = values
        passed, self.output_positions = _through_identity(values, self._on_grad_output)
        return passed[0] if single else tuple(passed)

    def _on_grad_output(self, grads: Grads) -> list[Tensor | None]:
        positions = self.output_positions
        assert positions is not None  # (the outputs' node exists only when there are some)
        grad_outputs = _pack(self.outputs, positions, grads)
        for hook in tuple(self.pre_hooks.values()):
            result = hook(self.module, grad_outputs)
            if result is None:
                continue
            if len(result) != len(grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(result)}, but expected {len(grad_outputs)}")
            grad_outputs = tuple(result)
        self.grad_outputs = grad_outputs
        if self.input_positions is None:  # no input requires grad: the hooks run now
            if self.hooks:
                warnings.warn(
                    "Full backward hook is firing when gradients are computed with respect to "
                    "module outputs since no inputs require gradients. See https://docs.pytorch"
                    ".org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.register_full"
                    "_backward_hook for more details.", stacklevel=2)
            grad_inputs = (None,) * len(self.inputs)  # (as PyTorch: None, not zeros)
            for hook in tuple(self.hooks.values()):
                result = hook(self.module, grad_inputs, grad_outputs)
                if result is not None and not (isinstance(result, tuple)
                                               and all(r is None for r in result)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return [grad_outputs[i] for i in positions]

    def _on_grad_input(self, grads: Grads) -> list[Tensor | None] | None:
        if self.grad_outputs is None:  # (the outputs' node did not run: nothing to report)
            return None
        positions = self.input_positions
        assert positions is not None  # (the inputs' node exists only when there are some)
        grad_inputs = _pack(self.inputs, positions, grads)
        for hook in tuple(self.hooks.values()):
            result = hook(self.module, grad_inputs, self.grad_outputs)
            if result is None:
                continue
            if len(result) != len(grad_inputs):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(result)}, but expected {len(grad_inputs)}")
            grad_inputs = tuple(result)
        self.grad_outputs = None
        return [grad_inputs[i] for i in positions]
