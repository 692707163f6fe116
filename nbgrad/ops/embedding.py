"""``embedding``: rows of a weight matrix picked by integer indices, one node as in PyTorch.

The gradient is the adjoint of the lookup: each index's gradient row is added into the row
it picked (an index used twice gets both), except at ``padding_idx``, whose row never
learns; ``scale_grad_by_freq`` divides each row's gradient by how often it was picked.
"""

from __future__ import annotations

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.grad_mode import no_grad
from ..core.node import Node
from ..tensor import Tensor
from . import indexing, selection
from .declare import op
from .operands import same_device, tensor_operand

_INDEX_KINDS = {"int64": "Long", "int32": "Int"}


class EmbeddingBackward0(Node):
    __slots__ = ("num_weights", "padding_idx", "scale")

    def apply(self, grad):
        (indices,) = self.saved_values
        flat = indices._data.reshape(-1)
        rows = grad.reshape(flat.size, grad.shape[-1]) if flat.size else grad.reshape(0, grad.shape[-1])
        if self.padding_idx is not None:
            padded = Tensor._make((flat == self.padding_idx).reshape(-1, 1))
            rows = selection.where(padded, 0.0, rows)
        if self.scale is not None:
            rows = rows * Tensor._make(self.scale.reshape(-1, 1).astype(rows._data.dtype))
        return (indexing.embed(rows, (self.num_weights, grad.shape[-1]), (flat,)),)


@op(EmbeddingBackward0, export=False, method=False, functional=True)
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """``weight[input]``: for each index in ``input``, that row of ``weight``.

    Parameters
    ----------
    input : Tensor
        Indices (int64 or int32), any shape.
    weight : Tensor
        ``(num_embeddings, embedding_dim)``.
    padding_idx : int, optional
        The row that gets no gradient (negative counts from the end).
    max_norm : float, optional
        Rows picked whose ``norm_type``-norm exceeds it are first rescaled to it, *in place*
        in ``weight`` (as in PyTorch).
    norm_type : float
    scale_grad_by_freq : bool
        Divide each row's gradient by how often the batch picked it.
    sparse : bool
        Accepted for PyTorch's signature; the gradient is always dense in nbgrad.

    Returns
    -------
    Tensor
        ``input.shape + (embedding_dim,)``.
    """
    indices = tensor_operand(input, "embedding")
    w = tensor_operand(weight, "embedding", 2, "weight")
    same_device(indices, w)
    kind = dtypes.scalar_type_name(indices._data.dtype)
    if indices._data.dtype.kind not in "iu" or indices._data.dtype.name not in _INDEX_KINDS:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got nbgrad.{kind}Tensor instead (while "
                           "checking arguments for embedding)")
    if w.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    num = w.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num
    idx = indices._data
    if idx.size and (idx.min() < 0 or idx.max() >= num):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(w, idx, max_norm, norm_type)
    out = Tensor._make(array_module(w._data).take(w._data, idx, axis=0))
    if should_record(w):
        scale = None
        if scale_grad_by_freq:
            xp = array_module(idx)
            counts = xp.bincount(idx.reshape(-1), minlength=num)
            scale = 1.0 / counts[idx.reshape(-1)]
        record(EmbeddingBackward0, out, (w,), saved=(indices,), num_weights=num,
               padding_idx=padding_idx, scale=scale)
    return out


def _renorm_rows(weight, idx, max_norm, norm_type):
    """PyTorch's embedding_renorm_: rows of ``weight`` picked by ``idx`` with a norm above
    ``max_norm`` are scaled down to it (``max_norm / (norm + 1e-7)``), in place."""
    xp = array_module(weight._data)
    rows = xp.unique(idx.reshape(-1))
    with no_grad():
        picked = weight._data[rows]
        norms = (xp.abs(picked) ** norm_type).sum(axis=1) ** (1 / norm_type)
        over = norms > max_norm
        if over.any():
            scale = max_norm / (norms[over] + 1e-7)
            new = weight._data.copy()
            new[rows[over]] = picked[over] * scale[:, None].astype(picked.dtype)
            weight.copy_(Tensor._make(new))
