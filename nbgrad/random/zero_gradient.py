"""The derivative of a sample with respect to its distribution's parameters, which PyTorch
takes as zero: sampling is not reparameterised (``derivatives.yaml``: ``zeros_like(grad)``).
"""

from __future__ import annotations

from ..autograd.graph import record, should_record
from ..core.node import Node
from ..tensor import Tensor


class NoReparameterisation(Node):
    """A sample's derivative with respect to the distribution's parameters, which PyTorch
    takes as zero (it does not reparameterise): zeros shaped like each input."""

    __slots__ = ("metas",)

    def apply(self, grad):
        return tuple(None if meta is None else grad.new_zeros(meta[0], dtype=meta[1])
                     for meta in self.metas)


def record_sample(node_cls, out, parameters):
    """Join ``out`` to the graph as a sample drawn with the tensors among ``parameters``."""
    if should_record(*parameters):
        record(node_cls, out, parameters,
               metas=tuple((p.shape, p.dtype) if isinstance(p, Tensor) else None
                           for p in parameters))
    return out
