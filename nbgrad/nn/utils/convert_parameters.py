"""Between a model's parameters and one flat vector (e.g. for second-order optimisers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ops import shape
from ...tensor import Tensor
from ..module import typename

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ...backend import device

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _same_device(param: Tensor, device: device | None) -> device:
    if device is not None and param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return param.device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All ``parameters`` flattened and concatenated, in order, into one 1-D tensor.

    Parameters
    ----------
    parameters : iterable of Tensor

    Returns
    -------
    Tensor
        Differentiable: it is a ``cat`` of views of the parameters.
    """
    device = None
    flat = []
    for param in parameters:
        device = _same_device(param, device)
        flat.append(param.view(-1))
    return shape.cat(flat)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into ``parameters`` (their ``.data``), in order.

    Parameters
    ----------
    vec : Tensor
        1-D, with as many elements as the parameters together.
    parameters : iterable of Tensor
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected nbgrad.Tensor, but got: {typename(vec)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _same_device(param, device)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
