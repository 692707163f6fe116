"""Loss layers: each stores its options and calls the function of the same name in
``functional``. ``reduction`` is ``'mean'`` (default), ``'sum'`` or ``'none'``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import functional as F
from ._reduction import legacy_reduction
from .module import Module

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CosineEmbeddingLoss",
    "CrossEntropyLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MSELoss",
    "MarginRankingLoss",
    "NLLLoss",
    "SmoothL1Loss",
]


class _Loss(Module):
    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = legacy_reduction(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error between ``input`` and ``target`` (``F.mse_loss``).

    Parameters
    ----------
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given sets it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each element).
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.mse_loss(input, target, reduction=reduction)``.

        Parameters
        ----------
        input, target : Tensor
            Broadcast together (with PyTorch's warning when their sizes differ).

        Returns
        -------
        Tensor
        """
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of the target classes (``F.nll_loss``); ``input`` holds
    log-probabilities (e.g. from ``LogSoftmax``).

    Parameters
    ----------
    weight : Tensor, optional
        One weight per class (a buffer of the layer); ``'mean'`` then divides by the total
        weight of the targets.
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given sets it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    ignore_index : int
        Targets equal to it count for nothing (neither loss nor gradient).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each sample).
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.nll_loss(input, target, weight, ignore_index=ignore_index, reduction=reduction)``.

        Parameters
        ----------
        input : Tensor
            Log-probabilities: ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target : Tensor
            Class indices (int64 or uint8): ``(N,)``, ``()`` or ``(N, d1, ...)``.

        Returns
        -------
        Tensor
        """
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """``LogSoftmax`` followed by ``NLLLoss`` (``F.cross_entropy``): takes raw scores
    (logits), not probabilities.

    Parameters
    ----------
    weight : Tensor, optional
        One weight per class (a buffer of the layer).
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given sets it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    ignore_index : int
        Targets equal to it count for nothing (class-index targets only).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each sample).
    label_smoothing : float
        In [0, 1]: how much of the uniform distribution is mixed into the target.
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.cross_entropy(input, target, weight, ...)`` with the layer's options.

        Parameters
        ----------
        input : Tensor
            Logits: ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target : Tensor
            Class indices (int64), or class probabilities of ``input``'s shape.

        Returns
        -------
        Tensor
        """
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy on logits (``F.binary_cross_entropy_with_logits``): ``Sigmoid``
    and ``BCELoss`` in one stable step.

    Parameters
    ----------
    weight : Tensor, optional
        Each element's weight, broadcast to the input (a buffer of the layer).
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given sets it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each element).
    pos_weight : Tensor, optional
        The weight of the positive targets, broadcast against the target (e.g. one per
        class); a buffer of the layer.
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.binary_cross_entropy_with_logits(input, target, weight, ...)`` with the
        layer's options.

        Parameters
        ----------
        input : Tensor
            Logits.
        target : Tensor
            Floating, in [0, 1], of ``input``'s size.

        Returns
        -------
        Tensor
        """
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error between ``input`` and ``target`` (``F.l1_loss``).

    Parameters
    ----------
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given sets it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each element).
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.l1_loss(input, target, reduction=reduction)``.

        Parameters
        ----------
        input, target : Tensor
            Broadcast together (with PyTorch's warning when their sizes differ).

        Returns
        -------
        Tensor
        """
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above (``F.smooth_l1_loss``).

    Parameters
    ----------
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given sets it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each element).
    beta : float
        Where the loss turns from squared to absolute; not negative (0 is ``L1Loss``).
    """

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.smooth_l1_loss(input, target, reduction=reduction, beta=beta)``.

        Parameters
        ----------
        input, target : Tensor
            Broadcast together (with PyTorch's warning when their sizes differ).

        Returns
        -------
        Tensor
        """
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error within ``delta``, ``delta`` times the absolute error beyond
    (``F.huber_loss``).

    Parameters
    ----------
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each element).
    delta : float
        Where the loss turns from squared to linear; positive.
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.huber_loss(input, target, reduction=reduction, delta=delta)``.

        Parameters
        ----------
        input, target : Tensor
            Broadcast together (with PyTorch's warning when their sizes differ).

        Returns
        -------
        Tensor
        """
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (``F.binary_cross_entropy``); on logits use
    ``BCEWithLogitsLoss``.

    Parameters
    ----------
    weight : Tensor, optional
        Each element's weight, broadcast to the input (a buffer of the layer).
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given sets it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each element).
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.binary_cross_entropy(input, target, weight, reduction=reduction)``.

        Parameters
        ----------
        input : Tensor
            Probabilities in [0, 1] (outside is an error).
        target : Tensor
            Of ``input``'s size.

        Returns
        -------
        Tensor
        """
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of ``target`` from log-probabilities ``input``
    (``F.kl_div``); ``reduction='batchmean'`` is the mathematical definition.

    Parameters
    ----------
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given sets it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'batchmean'`` (the sum over the batch size), ``'mean'`` (over every element, with
        PyTorch's warning), ``'sum'`` or ``'none'``.
    log_target : bool
        ``target`` holds log-probabilities too.
    """

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``F.kl_div(input, target, reduction=reduction, log_target=log_target)``.

        Parameters
        ----------
        input : Tensor
            Log-probabilities.
        target : Tensor
            Probabilities, or log-probabilities with ``log_target=True``.

        Returns
        -------
        Tensor
        """
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(_Loss):
    """``max(0, -y (x1 - x2) + margin)`` (``F.margin_ranking_loss``): ``y`` (1 or -1) says
    which input should rank higher.

    Parameters
    ----------
    margin : float
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given sets it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each element).
    """

    def __init__(self, margin: float = 0.0, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """``F.margin_ranking_loss(input1, input2, target, margin=margin, reduction=reduction)``.

        Parameters
        ----------
        input1, input2, target : Tensor
            Of the same number of dimensions (broadcast together).

        Returns
        -------
        Tensor
        """
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class CosineEmbeddingLoss(MarginRankingLoss):
    """``1 - cos`` for similar pairs, ``max(0, cos - margin)`` for dissimilar ones
    (``F.cosine_embedding_loss``).

    Parameters
    ----------
    margin : float
        Dissimilar pairs with a cosine below it cost nothing.
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given sets it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each pair).
    """

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """``F.cosine_embedding_loss(input1, input2, target, margin=margin,
        reduction=reduction)``.

        Parameters
        ----------
        input1, input2 : Tensor
            ``(N, D)`` or ``(D,)``.
        target : Tensor
            ``(N,)`` or ``()``: 1 for a similar pair, -1 for a dissimilar one.

        Returns
        -------
        Tensor
        """
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)
