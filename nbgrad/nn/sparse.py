"""``Embedding``: a lookup table of learnt vectors, one row per index (``F.embedding``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import creation
from ..core.grad_mode import no_grad
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from ..backend import device
    from ..dtypes import dtype
    from ..tensor import Tensor

__all__ = ["Embedding"]


class Embedding(Module):
    """A table of ``num_embeddings`` vectors of size ``embedding_dim``; ``Embedding(x)`` is
    ``weight[x]``.

    Parameters
    ----------
    num_embeddings, embedding_dim : int
    padding_idx : int, optional
        Its row starts at zero and gets no gradient (negative counts from the end).
    max_norm : float, optional
        Rows looked up are first rescaled, in place, to at most this ``norm_type``-norm.
    norm_type : float
        The ``p`` of the ``max_norm`` norm.
    scale_grad_by_freq : bool
        Divide each row's gradient by how often its index occurs in the batch.
    sparse : bool
        Accepted for PyTorch's signature; gradients are dense in nbgrad.
    _weight : Tensor, optional
        The initial table (``from_pretrained``); else drawn from N(0, 1).
    _freeze : bool
        Whether the table is frozen (``requires_grad=False``).
    device : nbgrad.device or str, optional
    dtype : nbgrad.dtype, optional
        Of the table drawn (a given ``_weight`` keeps its own).

    Raises
    ------
    AssertionError
        As PyTorch: for a ``padding_idx`` out of range, or a ``_weight`` of another shape.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False,
                 device: device | str | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(creation.empty((num_embeddings, embedding_dim), device=device,
                                                   dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """Draw the table from N(0, 1); the padding row is zero."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        """The rows of ``weight`` that ``input``'s indices name (``F.embedding``).

        Parameters
        ----------
        input : Tensor
            Integer indices, of any shape ``(*)``.

        Returns
        -------
        Tensor
            ``(*, embedding_dim)``.
        """
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        """The settings that differ from the defaults, as PyTorch shows them.

        Returns
        -------
        str
        """
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=True"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Embedding:
        """An ``Embedding`` whose table is ``embeddings``, frozen unless ``freeze=False``.

        As in PyTorch, the padding row is not zeroed: the table is used as given.

        Parameters
        ----------
        embeddings : Tensor
            The table, ``(num_embeddings, embedding_dim)``; the layer's ``weight`` is a
            ``Parameter`` sharing its data.
        freeze : bool
            Make the table not require grad.
        padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse
            As for ``Embedding``.

        Returns
        -------
        Embedding

        Raises
        ------
        AssertionError
            When ``embeddings`` is not 2-D (as PyTorch).
        """
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
