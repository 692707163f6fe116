"""Gradient clipping, as ``torch.nn.utils``: by the total norm of all gradients, or by value.

All of it runs without recording (PyTorch decorates these with ``no_grad``) and changes
the gradients in place.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ... import creation
from ...core.grad_mode import no_grad
from ...ops import shape
from ...tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [p.grad for p in _as_list(parameters) if p.grad is not None]


@no_grad()
def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` together, as if concatenated.

    Parameters
    ----------
    tensors : Tensor or iterable of Tensor
    norm_type : float
        ``inf`` for the largest magnitude.
    error_if_nonfinite : bool
        Raise when the norm is ``nan`` or ``inf``.
    foreach : bool, optional
        Accepted for PyTorch's signature.

    Returns
    -------
    Tensor
        A 0-d tensor; ``tensor(0.)`` when there are none.
    """
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return creation.tensor(0.0)
    norms = [t.norm(norm_type) for t in tensors]
    total = shape.stack(norms).norm(norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                          total_norm: Tensor, foreach: bool | None = None) -> None:
    """Scale the gradients by ``max_norm / (total_norm + 1e-6)`` where that is below 1.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
    max_norm : float
    total_norm : Tensor
        From ``get_total_norm``.
    foreach : bool, optional
        Accepted for PyTorch's signature.
    """
    grads = _grads(parameters)
    if not grads:
        return
    coefficient = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coefficient.to(g.dtype))


@no_grad()
def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Rescale the gradients of ``parameters`` so that their total norm is at most
    ``max_norm``, in place.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        Those without a gradient are skipped.
    max_norm : float
    norm_type : float
        ``inf`` for the largest magnitude.
    error_if_nonfinite : bool
        Raise (PyTorch's error) when the total norm is ``nan`` or ``inf``; else the gradients
        are scaled by it anyway.
    foreach : bool, optional
        Accepted for PyTorch's signature.

    Returns
    -------
    Tensor
        The total norm *before* clipping (0-d).
    """
    parameters = _as_list(parameters)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


@no_grad()
def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient of ``parameters`` to ``[-clip_value, clip_value]``, in place.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
    clip_value : float
    foreach : bool, optional
        Accepted for PyTorch's signature.
    """
    clip_value = float(clip_value)
    for g in _grads(parameters):
        g.clamp_(min=-clip_value, max=clip_value)
