"""``Linear``: ``y = x W^T + b``, initialised as PyTorch initialises it.

``W`` has shape ``(out_features, in_features)``. Both ``W`` and ``b`` start uniform on
``[-1/sqrt(in_features), 1/sqrt(in_features)]``: for ``W`` that is
``kaiming_uniform_(a=sqrt(5))`` (gain ``sqrt(2 / (1 + 5))``, times ``sqrt(3)`` for a
uniform distribution, divided by ``sqrt(fan_in)``), kept for compatibility with old
Torch; for ``b`` it is written out. Random numbers come from ``nbgrad.manual_seed``'s
generator, so a model is reproducible but its numbers differ from PyTorch's.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .. import creation
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from ..backend import device
    from ..dtypes import dtype
    from ..tensor import Tensor

__all__ = ["Identity", "Linear"]


class Identity(Module):
    """Returns its input unchanged (a placeholder layer).

    Parameters
    ----------
    *args, **kwargs
        Ignored, so that ``Identity`` can stand in for a layer of any signature.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        """``input`` itself (not a copy; no node is recorded).

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return input


class Linear(Module):
    """An affine map from ``in_features`` to ``out_features``: ``y = x W^T + b``.

    Parameters
    ----------
    in_features, out_features : int
        The size of the input's and of the output's last dimension.
    bias : bool
        Learn the bias ``b``; without it ``bias`` is ``None``.
    device : nbgrad.device or str, optional
    dtype : nbgrad.dtype, optional
        Of ``weight`` and ``bias``.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: device | str | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty((out_features, in_features), dtype=dtype,
                                               device=device))
        if bias:
            self.bias = Parameter(creation.empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Initialise ``weight`` and ``bias`` as PyTorch does: uniform on
        ``[-1/sqrt(in_features), 1/sqrt(in_features)]`` (for ``weight``,
        ``kaiming_uniform_`` with ``a=sqrt(5)``)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        """``F.linear(input, weight, bias)``.

        Parameters
        ----------
        input : Tensor
            ``(*, in_features)``.

        Returns
        -------
        Tensor
            ``(*, out_features)``.
        """
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        """The settings, as PyTorch shows them.

        Returns
        -------
        str
        """
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
