"""``Flatten``: merge dimensions ``start_dim..end_dim`` into one (a view when possible);
``Unflatten``: split one dimension into several (a view)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .module import Module

if TYPE_CHECKING:
    from ..tensor import Tensor
    from ..types import Shape

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """The layer form of ``Tensor.flatten(start_dim, end_dim)``; by default it keeps the batch
    dimension and merges the rest.

    Parameters
    ----------
    start_dim, end_dim : int
        The first and last dimensions merged (negative ones count from the end).
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        """``input.flatten(start_dim, end_dim)``: a view when the strides allow it.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        """The settings, as PyTorch shows them.

        Returns
        -------
        str
        """
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size`` (one entry may be -1): a view.

    Parameters
    ----------
    dim : int
        Negative counts from the end.
    unflattened_size : sequence of int
        The sizes ``dim`` becomes; their product must be its size.
    """

    def __init__(self, dim: int, unflattened_size: Shape) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        """``input`` viewed with dimension ``dim`` split into ``unflattened_size``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor

        Raises
        ------
        RuntimeError
            When the sizes do not multiply up to the size of ``dim``.
        """
        shape = list(input.shape)
        dim = self.dim % len(shape) if shape else self.dim
        sizes = list(self.unflattened_size)
        known = math.prod(s for s in sizes if s != -1)
        if (-1 not in sizes and known != shape[dim]) or (known == 0 or shape[dim] % known):
            raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size "
                               f"of dim {self.dim} ({shape[dim]}) in the input tensor")
        return input.view(*shape[:dim], *sizes, *shape[dim + 1:])

    def extra_repr(self) -> str:
        """The settings, as PyTorch shows them.

        Returns
        -------
        str
        """
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
