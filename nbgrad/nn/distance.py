"""``CosineSimilarity`` and ``PairwiseDistance``: the layers of ``F.cosine_similarity`` and
``F.pairwise_distance``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import functional as F
from .module import Module

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """The cosine of the angle between two inputs along ``dim`` (``F.cosine_similarity``).

    Parameters
    ----------
    dim : int
        The dimension of the vectors compared.
    eps : float
        The smallest norm each input is divided by.
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """``F.cosine_similarity(x1, x2, dim, eps)``.

        Parameters
        ----------
        x1, x2 : Tensor
            Broadcast together.

        Returns
        -------
        Tensor
            ``dim`` reduced away.
        """
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` along the last dimension (``F.pairwise_distance``).

    Parameters
    ----------
    p : float
        The order of the norm (stored as ``norm``, as in PyTorch).
    eps : float
        Added to the difference (a zero difference would give an undefined gradient).
    keepdim : bool
        Keep the last dimension with size 1.
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """``F.pairwise_distance(x1, x2, p, eps, keepdim)``.

        Parameters
        ----------
        x1, x2 : Tensor
            Broadcast together.

        Returns
        -------
        Tensor
        """
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
