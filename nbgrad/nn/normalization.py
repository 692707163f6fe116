"""Normalisation layers: ``BatchNorm1d/2d/3d``, ``LayerNorm`` and ``GroupNorm``.

Their parameters and buffers have PyTorch's names, shapes and dtypes, so state_dicts are
interchangeable: ``weight`` and ``bias`` (the affine map), and for batch norm the buffers
``running_mean``, ``running_var`` and ``num_batches_tracked`` (int64). The computations are
the operations of :mod:`nbgrad.ops.normalization` (``F.batch_norm`` ...).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

from .. import creation, int64
from ..core.grad_mode import no_grad
from . import functional as F
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from ..backend import device
    from ..dtypes import dtype
    from ..tensor import Tensor
    from ..types import Shape

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "LayerNorm"]


def _affine(module, shape, affine, bias, factory):
    """Register ``weight`` (ones) and ``bias`` (zeros), or ``None`` for the absent ones."""
    if affine:
        module.weight = Parameter(creation.empty(shape, **factory))
        if bias:
            module.bias = Parameter(creation.empty(shape, **factory))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module):
    with no_grad():
        if module.weight is not None:
            module.weight.fill_(1)
        if module.bias is not None:
            module.bias.zero_()


class _BatchNorm(Module):
    """Batch normalisation over dim 1; subclasses say which input dimensions they accept."""

    _dims: tuple[int, ...] = ()  # the input dimensions accepted

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 device: device | str | None = None, dtype: dtype | None = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        factory: dict[str, Any] = {"device": device, "dtype": dtype}
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine(self, (num_features,), affine, bias, factory)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, **factory))
            self.register_buffer("running_var", creation.ones(num_features, **factory))
            self.register_buffer("num_batches_tracked",
                                 creation.tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches tracked."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Reset the running statistics, and the affine map to the identity."""
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in self._dims:
            wanted = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {wanted} input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        """Normalise ``input`` per channel, by PyTorch's rules.

        In training the batch's statistics are used and the running ones updated
        (``momentum=None``: their cumulative average); in evaluation the running ones,
        unless the layer tracks none.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor

        Raises
        ------
        ValueError
            When ``input`` has a number of dimensions the layer does not accept.
        """
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None,
                            self.running_var if keep else None, self.weight, self.bias,
                            use_batch_stats, factor, self.eps)

    def extra_repr(self) -> str:
        """The settings, as PyTorch shows them.

        Returns
        -------
        str
        """
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


# (the three batch norms take the same parameters: one text, in each class's docstring)
_BATCH_NORM_PARAMETERS = """
    Parameters
    ----------
    num_features : int
        ``C``, the number of channels.
    eps : float
        Added to the variance before its square root.
    momentum : float or None
        The running statistics' update factor, ``(1 - momentum) * running + momentum *
        batch`` (the batch's variance being the unbiased one); ``None``: their cumulative
        average.
    affine : bool
        Learn ``weight`` (ones) and, with ``bias=True``, ``bias`` (zeros), one per channel.
    track_running_stats : bool
        Keep running statistics (the buffers ``running_mean``, ``running_var`` and
        ``num_batches_tracked``) and use them in evaluation; without them, evaluation uses
        the batch's statistics too.
    device : nbgrad.device or str, optional
    dtype : nbgrad.dtype, optional
        Of the parameters and running statistics (``num_batches_tracked`` is int64).
    bias : bool
        With ``affine``, whether to learn ``bias``.
    """


class BatchNorm1d(_BatchNorm):
    __doc__ = f"""Batch normalisation of ``(N, C)`` or ``(N, C, L)`` input, per channel ``C``.
    {_BATCH_NORM_PARAMETERS}"""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    __doc__ = f"""Batch normalisation of ``(N, C, H, W)`` input, per channel ``C``.
    {_BATCH_NORM_PARAMETERS}"""

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    __doc__ = f"""Batch normalisation of ``(N, C, D, H, W)`` input, per channel ``C``.
    {_BATCH_NORM_PARAMETERS}"""

    _dims = (5,)


class LayerNorm(Module):
    """Normalise each sample over its trailing ``normalized_shape`` dims.

    Parameters
    ----------
    normalized_shape : int or sequence of int
        The trailing shape each sample is normalised over (kept as a tuple).
    eps : float
        Added to the variance before its square root.
    elementwise_affine : bool
        Learn ``weight`` (ones) and, with ``bias=True``, ``bias`` (zeros) of that shape.
    bias : bool
    device : nbgrad.device or str, optional
    dtype : nbgrad.dtype, optional
        Of ``weight`` and ``bias``.
    """

    def __init__(self, normalized_shape: int | Shape, eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True,
                 device: device | str | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        # (``int`` spelled out for the type checker; NumPy's integers are Integral too)
        if isinstance(normalized_shape, (int, numbers.Integral)):
            self.normalized_shape: tuple[int, ...] = (normalized_shape,)
        else:
            self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine(self, self.normalized_shape, elementwise_affine, bias,
                {"device": device, "dtype": dtype})
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """``weight`` ones, ``bias`` zeros."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        """``F.layer_norm`` of ``input`` with this layer's shape, ``weight``, ``bias`` and ``eps``.

        Parameters
        ----------
        input : Tensor
            ``(*, *normalized_shape)``.

        Returns
        -------
        Tensor
        """
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """The settings, as PyTorch shows them.

        Returns
        -------
        str
        """
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalise each sample over groups of channels.

    The ``num_channels`` channels are split into ``num_groups`` groups of consecutive
    channels; each group is normalised over its channels and all their positions.

    Parameters
    ----------
    num_groups : int
        Must divide ``num_channels``.
    num_channels : int
    eps : float
        Added to the variance before its square root.
    affine : bool
        Learn a ``weight`` (ones) and, with ``bias=True``, a ``bias`` (zeros) per channel.
    device : nbgrad.device or str, optional
    dtype : nbgrad.dtype, optional
        Of ``weight`` and ``bias``.
    bias : bool
        With ``affine``, whether to learn ``bias``.

    Raises
    ------
    ValueError
        When ``num_groups`` does not divide ``num_channels``.
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: device | str | None = None,
                 dtype: dtype | None = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine(self, (num_channels,), affine, bias, {"device": device, "dtype": dtype})
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """``weight`` ones, ``bias`` zeros."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        """``F.group_norm`` of ``input`` with this layer's groups, ``weight``, ``bias`` and
        ``eps``.

        Parameters
        ----------
        input : Tensor
            ``(N, num_channels, *)``.

        Returns
        -------
        Tensor
        """
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """The settings, as PyTorch shows them.

        Returns
        -------
        str
        """
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")
