"""The functions behind the layers and losses: ``import nbgrad.nn.functional as F``.

Activations are the operations of :mod:`nbgrad.ops.activations`. Two operations are
defined here, each recording one node as PyTorch does, with its derivative beside it:

* ``linear`` (for a batch): ``addmm(b, x, W^T)``, node ``AddmmBackward0``;
* ``nll_loss``: ``-mean_n input[n, target[n]]``, node ``NllLossBackward0``: the loss is
  linear in ``input``, so its gradient is a constant put back at the target entries.

The other losses are *compositions* of differentiable operations, so autograd derives
their backward on its own, and reading them is reading the formula:

* ``cross_entropy``: ``nll_loss(log_softmax(input, 1), target)``;
* ``mse_loss``: ``mean((input - target)^2)``;
* ``binary_cross_entropy_with_logits``: ``(1 - t) x - log(sigmoid(x))``, with
  ``-log(sigmoid(x)) = log(1 + exp(-x))`` computed as a ``logsumexp`` (no overflow).

Inputs are checked as PyTorch checks them, with PyTorch's messages.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np

from .. import missing as _missing
from .. import creation, dtypes
from ..autograd.graph import record, should_record
from ..core.grad_mode import no_grad
from ..core.node import Node
from ..backend import array_module
from ..ops import activations, indexing, reductions, selection, shape
from ..ops import embedding as _embedding, normalization as _normalization, padding as _padding  # noqa: F401 (their ops)
from ..ops.declare import OPS
from ..ops.elementwise import check_dtype, to_input
from ..ops.linalg import is_transposed, mat2_grad
from ..ops.operands import same_device, tensor_operand
from ..tensor import Tensor

if TYPE_CHECKING:
    from ..dtypes import dtype
from ._reduction import legacy_reduction
from .dropout import (alpha_dropout, dropout, dropout1d, dropout2d, dropout3d,
                      feature_alpha_dropout)

# The operations that are functions here as they are (``@op(..., functional=True)``).
_OPS = {o.name: o.function for o in OPS if o.functional}
globals().update(_OPS)

__all__ = ["linear", "relu", "softmax", "log_softmax", "softmin", "softsign", "tanhshrink",
           "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "kl_div",
           "one_hot", "normalize", "cosine_similarity", "pairwise_distance", "margin_ranking_loss",
           "cosine_embedding_loss", "nll_loss", "cross_entropy",
           "binary_cross_entropy_with_logits", "dropout", "dropout1d", "dropout2d", "dropout3d",
           "alpha_dropout", "feature_alpha_dropout", *_OPS]


# -- activations --------------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)`` of each element.

    Parameters
    ----------
    input : Tensor
    inplace : bool
        Overwrite ``input`` (``relu_``).

    Returns
    -------
    Tensor
    """
    return input.relu_() if inplace else activations.relu(input)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: dtype | None = None) -> Tensor:
    """``exp(x) / exp(x).sum(dim)`` along ``dim``: each slice becomes a probability
    distribution.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        Without it, PyTorch's implicit choice (0 for 0-, 1- and 3-D inputs, else 1), with
        its deprecation warning.
    _stacklevel : int
        Where the implicit-dimension warning points (PyTorch's private argument: the layers
        pass theirs).
    dtype : nbgrad.dtype, optional
        Casts the input first.

    Returns
    -------
    Tensor
    """
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return activations.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: dtype | None = None) -> Tensor:
    """``log(softmax(x, dim))``, computed stably as ``x - logsumexp(x, dim)``.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        Without it, PyTorch's implicit choice (0 for 0-, 1- and 3-D inputs, else 1), with
        its deprecation warning.
    _stacklevel : int
        Where the implicit-dimension warning points (PyTorch's private argument: the layers
        pass theirs).
    dtype : nbgrad.dtype, optional
        Casts the input first.

    Returns
    -------
    Tensor
    """
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return activations.log_softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: dtype | None = None) -> Tensor:
    """``softmax(-x, dim)``: each slice becomes a distribution that favours small values.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        Without it, PyTorch's implicit choice (0 for 0-, 1- and 3-D inputs, else 1), with
        its deprecation warning.
    _stacklevel : int
        Where the implicit-dimension warning points (PyTorch's private argument: the layers
        pass theirs).
    dtype : nbgrad.dtype, optional
        Casts the input first.

    Returns
    -------
    Tensor
        Recorded as ``SoftmaxBackward0`` of ``NegBackward0``, as in PyTorch.
    """
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return activations.softmax(-input, dim)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``, composed of differentiable operations as in PyTorch.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``, composed of differentiable operations as in PyTorch.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return input - input.tanh()


# -- linear -------------------------------------------------------------------------------
class AddmmBackward0(Node):
    """``out = bias + mat1 @ mat2``: what ``Linear`` records for a batch (``mat2 = W^T``).

    The bias gets the gradient summed over the batch; ``mat1`` gets ``grad @ mat2^T``;
    ``mat2`` gets ``mat1^T @ grad`` (and ``TBackward0`` turns that back into ``W``'s shape),
    laid out like ``mat2`` (see ``linalg.mat2_grad``).
    """

    __slots__ = ("bias_meta", "mat2_transposed")

    def apply(self, grad):
        mat1, mat2 = self.saved_values
        bias_fn, mat1_fn, mat2_fn = self._next_nodes
        return (to_input(grad, self.bias_meta) if bias_fn is not None else None,
                grad.mm(mat2.t()) if mat1_fn is not None else None,
                mat2_grad(mat1, grad, self.mat2_transposed) if mat2_fn is not None else None)

    def fast_apply(self, grad):
        # The same formulas on the arrays: every linear layer runs this once per step.
        mat1, mat2 = self.saved_values
        bias_fn, mat1_fn, mat2_fn = self._next_nodes
        g = grad._data
        grad_bias = None
        if bias_fn is not None:
            bias_shape = self.bias_meta[0]
            grad_bias = (Tensor._make(g.sum(0)) if bias_shape == g.shape[1:]
                         else to_input(grad, self.bias_meta))
        return (grad_bias,
                Tensor._make(g @ mat2._data.T) if mat1_fn is not None else None,
                Tensor._make(mat2_grad(mat1._data, g, self.mat2_transposed))
                if mat2_fn is not None else None)


def addmm(bias, mat1, mat2):
    """``bias + mat1 @ mat2`` in one operation (one node, no intermediate tensor)."""
    a, b, c = mat1._data, mat2._data, bias._data
    if type(a) is not type(b) or type(c) is not type(a):
        same_device(bias, mat1, mat2)
    if a.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {a.ndim}-D tensor")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {b.ndim}-D tensor")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(
            "mat1 and mat2 shapes cannot be multiplied "
            f"({a.shape[0]}x{a.shape[1]} and {b.shape[0]}x{b.shape[1]})"
        )
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {dtypes.scalar_type_name(a.dtype)} "
            f"and {dtypes.scalar_type_name(b.dtype)}"
        )
    if c.dtype != a.dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {dtypes.scalar_type_name(bias._data.dtype)} and "
            f"{dtypes.scalar_type_name(mat2._data.dtype)}"
        )
    check_dtype("mm", a.dtype)
    out_shape = (a.shape[0], b.shape[1])
    if c.shape != out_shape[1:] and (
            c.ndim > 2 or any(s not in (1, t) for s, t in zip(c.shape[::-1], out_shape[::-1]))):
        raise RuntimeError(
            f"The expanded size of the tensor ({out_shape[-1]}) must match the existing size "
            f"({c.shape[-1]}) at non-singleton dimension 1.  Target sizes: {list(out_shape)}.  "
            f"Tensor sizes: {list(c.shape)}"
        )
    data = a @ b
    data += c  # the product is a fresh array: add the bias into it
    out = Tensor._make(data)
    if should_record(bias, mat1, mat2):
        record(AddmmBackward0, out, (bias, mat1, mat2),
               saved=(mat1 if mat2._requires_grad else None,
                      mat2 if mat1._requires_grad else None),
               bias_meta=(c.shape, c.dtype), mat2_transposed=is_transposed(b))
    return out


def _transposed_weight(input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """``weight.t()`` for ``addmm``; where nothing is recorded (``no_grad``, inference) and
    the weight is a matrix, a plain tensor over the transposed array: no view to track,
    and no one sees it but ``addmm`` (the batch-1 MLP inference of ``benchmarks/inference.py``
    spends a sixth of its time on these views otherwise)."""
    if weight._data.ndim == 2 and not should_record(input, weight, bias):
        return Tensor._make(weight._data.T)
    return weight.t()


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight^T + bias``: the affine map of ``nn.Linear``.

    Parameters
    ----------
    input : Tensor
        ``(*, in_features)``.
    weight : Tensor
        ``(out_features, in_features)``.
    bias : Tensor, optional
        ``(out_features,)`` (or broadcastable to the output).

    Returns
    -------
    Tensor
        ``(*, out_features)``. With a bias, a 2-D input records one ``AddmmBackward0``
        node, as in PyTorch, and a contiguous N-D one (with a 1-D bias) the view of one, its
        leading dimensions folded into the batch.
    """
    tensor_operand(input, "linear")
    tensor_operand(weight, "linear", 2, "weight")
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if bias is None:
        return input.matmul(weight.t())
    tensor_operand(bias, "linear", 3, "bias")
    if input.dim() == 2:
        return addmm(bias, input, _transposed_weight(input, weight, bias))
    if input.is_contiguous() and bias.dim() == 1:
        # PyTorch's _flatten_nd_linear: the leading dimensions folded into one batch
        flat = input.reshape(math.prod(input.shape[:-1]), input.shape[-1])
        out = addmm(bias, flat, _transposed_weight(flat, weight, bias))
        return out.view(*input.shape[:-1], out.shape[-1])
    return input.matmul(weight.t()) + bias


# -- reductions of a loss -----------------------------------------------------------------
def _reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, stacklevel=5)  # the loss's caller
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _divide(total, count):
    """``total / count``; a count of zero gives NaN (as PyTorch), without a NumPy warning."""
    return total / count if count else total * float("nan")


# -- losses -------------------------------------------------------------------------------
# A loss saves its target (and weights) for backward, as PyTorch's loss nodes do: changing
# one in place before backward raises the version-counter error instead of silently giving
# the gradient of another loss. Each loss below is computed without recording, then
# recorded as PyTorch records it, as one node.
class MseLossBackward0(Node):
    """``loss = reduce((input - target)^2)``: the input's gradient is ``2 (input - target)``
    times the incoming gradient (over the element count for ``mean``); the target's is minus
    that."""

    __slots__ = ("divisor",)

    def apply(self, grad):
        input, target = self.saved_values
        grad_input = grad * 2 * (input - target)
        if self.divisor is not None:
            grad_input = grad_input / self.divisor
        input_fn, target_fn = self._next_nodes
        return (grad_input.sum_to_size(input.shape) if input_fn is not None else None,
                (-grad_input).sum_to_size(target.shape) if target_fn is not None else None)


def _record_loss(node_cls, loss, inputs, saved, reduction, count):
    """Record ``loss`` (computed without recording) as one ``node_cls`` node."""
    if should_record(*inputs):
        record(node_cls, loss, inputs, saved=saved,
               divisor=count if reduction == "mean" else None)
    return loss


def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
             reduce: bool | None = None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Mean squared error: ``mean((input - target)^2)``.

    Parameters
    ----------
    input, target : Tensor
        Broadcast together (with PyTorch's warning when their sizes differ); at least one
        floating.
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given overrides it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'``.
    weight : Tensor, optional
        Per-element weights (``input``'s size); ``mean`` then divides by their sum.

    Returns
    -------
    Tensor
        One ``MseLossBackward0`` node; with ``weight``, composed of recorded operations, as
        in PyTorch.
    """
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=2,
        )
    reduction = _reduction(size_average, reduce, reduction)
    if not (input.is_floating_point() or target.is_floating_point()):
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{dtypes.scalar_type_name(input._data.dtype)}'")
    if weight is None:
        with no_grad():
            squared = (input - target).square()
            loss = _reduce(squared, reduction)
        return _record_loss(MseLossBackward0, loss, (input, target), (input, target),
                            reduction, squared.numel())
    squared = (input - target).square()  # weighted: composed of recorded operations, as in PyTorch
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = squared * weight
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    return _reduce(weighted, reduction)


_TARGET_DTYPES = (np.dtype(np.int64), np.dtype(np.uint8))


def _check_nll(input, target, weight):
    """PyTorch's checks of ``nll_loss``'s arguments, in PyTorch's order."""
    same_device(input, target, weight)
    shape, target_shape = input._data.shape, target._data.shape
    ndim = len(shape)
    if ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {ndim})")
    if ndim == 1 and len(target_shape) == 1 and target_shape[0] != 1:
        raise ValueError(
            f"For 1D input, 1D target must have size 1, but got target size: {target_shape[0]}"
        )
    if ndim != 1:
        batch = target_shape[0] if target_shape else 0
        if shape[0] != batch:
            raise ValueError(
                f"Expected input batch_size ({shape[0]}) to match target batch_size ({batch})."
            )
    if ndim <= 2:
        if len(target_shape) > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif target_shape != shape[:1] + shape[2:]:
        raise RuntimeError(f"Expected target size {[shape[0]] + list(shape[2:])}, got "
                           f"{list(target_shape)}")
    if target._data.dtype not in _TARGET_DTYPES:
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {dtypes.scalar_type_name(target._data.dtype)}"
        )
    if weight is not None:
        n_classes = shape[1] if ndim >= 2 else shape[0]
        if weight._data.shape != (n_classes,):
            if ndim > 2:
                raise RuntimeError("weight tensor should be defined either for all or no classes")
            raise RuntimeError(
                f"weight tensor should be defined either for all {n_classes} classes or no "
                f"classes but got weight tensor of shape: {list(weight.shape)}"
            )
        if weight._data.dtype != input._data.dtype:
            raise RuntimeError(
                f"expected scalar type {dtypes.scalar_type_name(input._data.dtype)} but found {dtypes.scalar_type_name(weight._data.dtype)}"
            )


def _target_index(input, target, weight, ignore_index):
    """Where each target's entry sits in ``input``, and its weight.

    Returns ``(key, scale, ignored)``. ``input[key]`` has the target's shape and holds
    ``input[n, target[n], d1, ...]`` (one index array per dimension of ``input``).
    ``scale`` is the weight of each target (zero where the target is ``ignore_index``),
    or ``None`` when every weight is one; ``ignored`` marks the ignored targets (or is
    ``None`` when there are none).
    """
    _check_nll(input, target, weight)
    x = input._data
    xp = array_module(x)
    n_classes = x.shape[1] if x.ndim >= 2 else x.shape[0]
    t = target._data.astype(xp.int64)  # a copy: later changes to target cannot reach backward
    ignored = None
    # The common case is decided in one pass: ``ignore_index`` is no class and every target
    # is one. (Seen as unsigned, a negative target is huge: the largest value alone decides.)
    if 0 <= ignore_index < n_classes or (t.size and t.view(xp.uint64).max() >= n_classes):
        ignored = t == ignore_index
        if ignored.any():
            t[ignored] = 0  # any valid class; its weight is zeroed below
        else:
            ignored = None
        if t.size and (t.min() < 0 or t.max() >= n_classes):
            bad = (t < 0) | (t >= n_classes)
            raise IndexError(f"Target {int(t[bad].ravel()[0])} is out of bounds.")
    if x.ndim == 1:
        key = (t,)
    else:
        # (N, C, d1, ..., dk) picked at [n, t[n, i1, ...], i1, ..., ik]: index arrays
        # that broadcast to the target's shape.
        ndim = t.ndim
        batch = xp.arange(x.shape[0]).reshape((-1,) + (1,) * (ndim - 1))
        spatial = [xp.arange(s).reshape((1,) * (i + 1) + (-1,) + (1,) * (ndim - i - 2))
                   for i, s in enumerate(x.shape[2:])]
        key = (batch, t, *spatial)
    if weight is None and ignored is None:
        return key, None, None
    scale = xp.ones(t.shape, x.dtype) if weight is None else weight._data[t]
    if ignored is not None:
        scale[ignored] = 0
    return key, scale, ignored


class NllLossBackward0(Node):
    """``loss = -sum_n w_n input[n, t_n]`` (divided by ``sum_n w_n`` for ``mean``).

    The loss is linear in ``input``: its gradient is ``-w_n`` (over the total weight)
    times the incoming gradient at each target's entry, and zero everywhere else.
    """

    __slots__ = ("shape", "key", "target_shape", "scale", "divisor", "ignored")

    def apply(self, grad):
        _target, _weight = self.saved_values  # unpacked: checks neither changed in place
        scale, divisor = self.scale, self.divisor
        values = -(grad / divisor) if divisor is not None else -grad
        if scale is not None:
            values = values * Tensor._make(scale)
        values = values.expand(self.target_shape)
        return (indexing.embed(values, self.shape, self.key),)

    def fast_apply(self, grad):
        # The same formula on the arrays: the loss runs once per step.
        _target, _weight = self.saved_values  # unpacked: checks neither changed in place
        scale, divisor, ignored = self.scale, self.divisor, self.ignored
        target_shape = self.target_shape
        g = grad._data
        xp = array_module(g)
        values = -(g / divisor) if divisor is not None else -g  # 0/0: the engine is quiet
        if scale is not None:
            values = values * scale
        if ignored is not None:
            values = xp.broadcast_to(values, target_shape).copy()
            values[ignored] = 0  # ignored targets get no gradient, even when NaN is around
        data = xp.zeros(self.shape, g.dtype)
        data[self.key] = values  # each sample's target entry appears once: plain assignment
        return (Tensor._make(data),)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: bool | None = None, ignore_index: int = -100,
             reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of the target classes, given log-probabilities ``input``:
    ``-input[n, target[n]]``, averaged over the batch.

    With ``weight``, each sample counts ``weight[target[n]]`` times and ``mean`` divides
    by the total weight; targets equal to ``ignore_index`` count zero times (with
    ``mean``, a batch whose targets are all ignored gives NaN, as in PyTorch).

    Written as one operation (``NllLossBackward0``, as PyTorch records it) rather than as
    ``-input[arange(N), target].mean()``, which computes the same numbers through three
    nodes.

    Parameters
    ----------
    input : Tensor
        Log-probabilities: ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
    target : Tensor
        Class indices (int64 or uint8): ``(N,)``, ``()`` or ``(N, d1, ...)``.
    weight : Tensor, optional
        One weight per class, ``(C,)``, of ``input``'s dtype.
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given overrides it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    ignore_index : int
        A target value that counts for nothing (neither loss nor gradient).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each sample).

    Returns
    -------
    Tensor
    """
    reduction = _reduction(size_average, reduce, reduction)
    key, scale, ignored = _target_index(input, target, weight, ignore_index)
    picked = input._data[key]  # advanced indexing: a copy with the target's shape
    if scale is not None:
        picked = picked * scale
    divisor = None
    if reduction == "none":
        value = -picked
    else:
        value = -picked.sum()
        if reduction == "mean":
            divisor = float(scale.sum()) if scale is not None else picked.size
            # An all-ignored batch gives NaN, silently, as in PyTorch.
            value = value / divisor if divisor else value * float("nan")
    out = Tensor._make(value)
    if should_record(input):
        record(NllLossBackward0, out, (input,), saved=(target, weight), shape=input._data.shape,
               key=key, target_shape=target._data.shape, scale=scale, divisor=divisor,
               ignored=ignored)
    return out


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: bool | None = None, ignore_index: int = -100,
                  reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """``nll_loss(log_softmax(input, dim=1), target)``: the classifier's loss.

    Parameters
    ----------
    input : Tensor
        Logits: ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
    target : Tensor
        Class indices (``int64``), or class probabilities (floating) of ``input``'s shape.
    weight : Tensor, optional
        One weight per class, ``(C,)``.
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given overrides it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    ignore_index : int
        A target value that counts for nothing; with class probabilities it must stay
        negative (PyTorch's error).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'`` (the loss of each sample).
    label_smoothing : float
        In [0, 1]: how much of the uniform distribution is mixed into the target.

    Returns
    -------
    Tensor
        Recorded as ``NllLossBackward0`` of ``LogSoftmaxBackward0`` for class indices
        without smoothing, as in PyTorch; otherwise composed of recorded operations.
    """
    reduction = _reduction(size_average, reduce, reduction)
    class_dim = 0 if input.dim() == 1 else 1
    if target.shape == input.shape:  # same shape: class probabilities ("soft" targets)
        if not target.is_floating_point():
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{dtypes.scalar_type_name(target._data.dtype)}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing,
                                            class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        return _cross_entropy_smoothed(input, target, weight, ignore_index, reduction,
                                       label_smoothing, class_dim)
    return nll_loss(activations.log_softmax(input, class_dim), target, weight,
                    ignore_index=ignore_index, reduction=reduction)


def _class_weight(weight, input, class_dim):
    """``weight`` shaped to broadcast along the class dimension of ``input``."""
    if input.dim() <= 1:
        return weight
    return weight.view(*[weight.shape[0] if d == class_dim else 1 for d in range(input.dim())])


def _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim):
    n_classes = input.shape[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n_classes} classes "
            f"or no classes but got weight tensor of shape: {list(weight.shape)}"
        )
    log_probs = activations.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    products = log_probs * target
    if weight is not None:
        products = products * _class_weight(weight, input, class_dim)
    if reduction == "none":
        return -products.sum(class_dim)
    total = -products.sum()
    if reduction == "sum":
        return total
    return _divide(total, input.numel() // n_classes)


def _cross_entropy_smoothed(input, target, weight, ignore_index, reduction, label_smoothing,
                            class_dim):
    """``(1 - eps) * nll + eps * (mean over classes of -log p)``, PyTorch's formula."""
    log_probs = activations.log_softmax(input, class_dim)
    nll = nll_loss(log_probs, target, weight, ignore_index=ignore_index, reduction=reduction)
    n_classes = input.shape[class_dim]
    if weight is not None:
        smooth = -(log_probs * _class_weight(weight, input, class_dim)).sum(class_dim)
    else:
        smooth = -log_probs.sum(class_dim)
    ignored = target._data == ignore_index
    if ignored.any():
        smooth = smooth.masked_fill(Tensor._make(ignored), 0.0)
    if reduction == "mean":
        kept = ~ignored
        if weight is not None:
            count = float(weight._data[target._data[kept]].sum())
        else:
            count = int(kept.sum())
        smooth = _divide(smooth.sum(), count)
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / n_classes)


def _softplus(x):
    """``log(1 + exp(x))`` as ``logsumexp([0, x])``: never overflows, and its gradient
    is exactly ``sigmoid(x)``, also at ``x = 0``."""
    return reductions.logsumexp(shape.stack([creation.zeros_like(x), x]), 0)


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """``loss = w ((1 - t) x + (1 + (p - 1) t) softplus(-x))`` (pos_weight ``p``), reduced.
    Gradients (PyTorch's formulas): ``x``: ``w ((p t + 1 - t) sigmoid(x) - p t)``, or
    ``w (sigmoid(x) - t)`` without ``p``; ``t``: ``w (p softplus(-x) - softplus(x))``, or
    ``-w x``; both times the incoming gradient, over the element count for ``mean``."""

    __slots__ = ("divisor",)

    def apply(self, grad):
        input, target, weight, pos_weight = self.saved_values
        input_fn, target_fn = self._next_nodes
        scale = grad if weight is None else grad * weight
        if self.divisor is not None:
            scale = scale / self.divisor
        grad_input = grad_target = None
        if input_fn is not None:
            if pos_weight is None:
                grad_input = scale * (input.sigmoid() - target)
            else:
                weighted_target = pos_weight * target
                grad_input = scale * ((weighted_target + 1 - target) * input.sigmoid()
                                      - weighted_target)
        if target_fn is not None:
            if pos_weight is None:
                grad_target = -scale * input
            else:
                grad_target = scale * (pos_weight * _softplus(-input) - _softplus(input))
        return grad_input, grad_target


def _not_differentiable(function, **arguments):
    for name, value in arguments.items():
        if value is not None and value._requires_grad:
            raise RuntimeError(
                f"The function '{function}' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True."
            )


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None,
                                     size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross-entropy of ``sigmoid(input)`` against ``target`` in ``[0, 1]``,
    computed from the logits directly: ``(1 - t) x + log(1 + exp(-x))``, which never
    overflows.

    Parameters
    ----------
    input : Tensor
        Logits.
    target : Tensor
        Floating, of ``input``'s size.
    weight : Tensor, optional
        Each element's weight, broadcast to ``input``; it must not require grad.
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given overrides it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'``.
    pos_weight : Tensor, optional
        The weight of the positive targets, broadcast against ``target`` (e.g. one per
        class); it must not require grad.

    Returns
    -------
    Tensor
        One ``BinaryCrossEntropyWithLogitsBackward0`` node.
    """
    reduction = _reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    if not target.is_floating_point():
        raise RuntimeError(
            f"result type {dtypes.scalar_type_name(input._data.dtype)} can't be cast to the desired output type "
            f"{dtypes.scalar_type_name(target._data.dtype)}"
        )
    _not_differentiable("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    with no_grad():
        neg_log_sigmoid = _softplus(-input)  # -log(sigmoid(x))
        if pos_weight is not None:
            neg_log_sigmoid = neg_log_sigmoid * ((pos_weight - 1) * target + 1)
        elementwise = (1 - target) * input + neg_log_sigmoid
        if weight is not None:
            elementwise = elementwise * weight
        loss = _reduce(elementwise, reduction)
    return _record_loss(BinaryCrossEntropyWithLogitsBackward0, loss, (input, target),
                        (input, target, weight, pos_weight), reduction, elementwise.numel())


# -- more losses ----------------------------------------------------------------------------
def _warn_size(input, target, stacklevel=3):
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=stacklevel,
        )


def _broadcast_pair(input, target):
    """``torch.broadcast_tensors(input, target)``: expanded only where the shapes differ."""
    if input.shape == target.shape:
        return input, target
    size = tuple(np.broadcast_shapes(tuple(input.shape), tuple(target.shape)))
    return input.expand(*size), target.expand(*size)


def _weighted(loss, weight, input, reduction, mean_by_weight):
    """``loss * weight`` reduced; ``mean`` divides by the weights' sum (``l1_loss``) or by
    the element count (``huber_loss``), as PyTorch's Python code does for each."""
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "mean":
        return weighted.sum() / weight.sum() if mean_by_weight else weighted.mean()
    return _reduce(weighted, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
            reduce: bool | None = None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Mean absolute error: ``mean(|input - target|)``, composed as in PyTorch
    (``AbsBackward0``, then ``MeanBackward0``/``SumBackward0``).

    Parameters
    ----------
    input, target : Tensor
        Broadcast together (with PyTorch's warning when their sizes differ).
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given overrides it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'mean'``, ``'sum'`` or ``'none'``.
    weight : Tensor, optional
        Per-element weights (``input``'s size); ``mean`` then divides by their sum.

    Returns
    -------
    Tensor
    """
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    if not (input.is_floating_point() or target.is_floating_point()):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           "floating point or complex dtype. Got: "
                           f"{dtypes.scalar_type_name(input._data.dtype)}")
    errors = (input - target).abs()
    if weight is not None:
        return _weighted(errors, weight, input, reduction, mean_by_weight=True)
    return _reduce(errors, reduction)


class SmoothL1LossBackward0(Node):
    """``d = input - target``: the gradient is ``d / beta`` where ``|d| < beta``, else
    ``sign(d)`` (``delta * sign(d)`` and ``d`` within ``delta`` for ``HuberLossBackward0``)."""

    __slots__ = ("beta", "divisor")
    huber = False  # HuberLossBackward0's formula instead

    def apply(self, grad):
        input, target = self.saved_values
        input_fn, target_fn = self._next_nodes
        d = input - target
        inside = d.abs() <= self.beta if self.huber else d.abs() < self.beta
        outside = d.sign() * self.beta if self.huber else d.sign()
        slope = selection.where(inside, d if self.huber else d / self.beta, outside)
        grad_input = grad * slope
        if self.divisor is not None:
            grad_input = grad_input / self.divisor
        return (grad_input if input_fn is not None else None,
                -grad_input if target_fn is not None else None)


class HuberLossBackward0(SmoothL1LossBackward0):
    __slots__ = ()
    huber = True


def _smooth_loss(name, node_cls, input, target, reduction, beta, huber):
    input, target = _broadcast_pair(input, target)
    if not (input.is_floating_point() or target.is_floating_point()):
        raise NotImplementedError(f"\"{name}\" not implemented for "
                                  f"'{dtypes.scalar_type_name(input._data.dtype)}'")
    with no_grad():
        d = (input - target).abs()
        if huber:
            elementwise = selection.where(d <= beta, 0.5 * d * d, beta * (d - 0.5 * beta))
        else:
            elementwise = selection.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
        loss = _reduce(elementwise, reduction)
    if should_record(input, target):
        record(node_cls, loss, (input, target), saved=(input, target), beta=beta,
               divisor=elementwise.numel() if reduction == "mean" else None)
    return loss


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                   reduce: bool | None = None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input -
    target``), reduced; one ``SmoothL1LossBackward0`` node. ``beta=0`` is ``l1_loss``.

    Parameters
    ----------
    input, target : Tensor
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given overrides it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
    beta : float
        Must not be negative.

    Returns
    -------
    Tensor
    """
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _smooth_loss("smooth_l1_cpu", SmoothL1LossBackward0, input, target, reduction, beta,
                        huber=False)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``0.5 d^2`` where ``|d| <= delta``, else ``delta (|d| - 0.5 delta)``, reduced; one
    ``HuberLossBackward0`` node (``smooth_l1_loss`` times ``delta``).

    Parameters
    ----------
    input, target : Tensor
    reduction : str
    delta : float
        Must be positive.
    weight : Tensor, optional
        Per-element weights (``input``'s size); ``mean`` then averages the weighted losses.

    Returns
    -------
    Tensor
    """
    _warn_size(input, target)
    reduction = _reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        loss = _smooth_loss("huber_cpu", HuberLossBackward0, input, target, "none", delta, True)
        return _weighted(loss, weight, input, reduction, mean_by_weight=False)
    return _smooth_loss("huber_cpu", HuberLossBackward0, input, target, reduction, delta, True)


class BinaryCrossEntropyBackward0(Node):
    """``loss = -w (t log x + (1 - t) log(1 - x))`` (logs clamped at -100): the input's
    gradient is ``w (x - t) / max(x (1 - x), 1e-12)``, the target's
    ``w (log(1 - x) - log x)``, times the incoming gradient (over the count for ``mean``)."""

    __slots__ = ("divisor",)

    def apply(self, grad):
        input, target, weight = self.saved_values
        input_fn, target_fn = self._next_nodes
        scale = grad if weight is None else grad * weight
        if self.divisor is not None:
            scale = scale / self.divisor
        grad_input = grad_target = None
        if input_fn is not None:
            grad_input = scale * (input - target) / (input * (1 - input)).clamp(min=1e-12)
        if target_fn is not None:
            grad_target = scale * ((1 - input).log().clamp(min=-100) - input.log().clamp(min=-100))
        return grad_input, grad_target


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of probabilities ``input`` (in ``[0, 1]``) against ``target``:
    ``-w (t log x + (1 - t) log(1 - x))``, each log clamped at -100 as in PyTorch.

    Parameters
    ----------
    input : Tensor
        Probabilities (e.g. from ``sigmoid``); outside ``[0, 1]`` is an error.
    target : Tensor
        ``input``'s size.
    weight : Tensor, optional
        Broadcast to ``input``'s shape.
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given overrides it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str

    Returns
    -------
    Tensor
        One ``BinaryCrossEntropyBackward0`` node.
    """
    reduction = _reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        try:
            np.broadcast_shapes(tuple(weight.shape), tuple(input.shape))
        except ValueError:
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {weight.shape[-1]} at -1! "
                f"Mismatching argument at index 1 had {weight.size()}; but expected shape should "
                f"be broadcastable to {list(input.shape)}") from None
    x = input._data
    if x.size and ((x < 0) | (x > 1) | (x != x)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    with no_grad():
        log_x = input.log().clamp(min=-100)  # log(0) = -inf, clamped: quiet (log is quiet)
        log_1mx = (1 - input).log().clamp(min=-100)
        elementwise = -(target * log_x + (1 - target) * log_1mx)
        if weight is not None:
            elementwise = elementwise * weight
        loss = _reduce(elementwise, reduction)
    return _record_loss(BinaryCrossEntropyBackward0, loss, (input, target),
                        (input, target, weight), reduction, elementwise.numel())


def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None,
           reduce: bool | None = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence ``target * (log(target) - input)``, ``input`` holding
    log-probabilities (and ``target`` too with ``log_target=True``).

    Parameters
    ----------
    input : Tensor
        Log-probabilities.
    target : Tensor
        Probabilities (``0 log 0 = 0``), or log-probabilities.
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given overrides it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str
        ``'batchmean'`` (the sum over the batch size: the mathematical KL divergence),
        ``'mean'`` (over every element, with PyTorch's warning), ``'sum'`` or ``'none'``.
    log_target : bool

    Returns
    -------
    Tensor
        Composed of differentiable operations.
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.", stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        elementwise = target.exp() * (target - input)
    else:
        # xlogy(t, t) - t * x: 0 where t = 0 (log of 1 there, so no -inf enters the graph)
        safe = selection.where(target == 0, 1.0, target)
        elementwise = target * safe.log() - target * input
    if reduction == "batchmean":
        total = elementwise.sum()
        return total / input.shape[0] if input.dim() else total
    return _reduce(elementwise, reduction)


# -- vectors and classes --------------------------------------------------------------------
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``int64`` rows with a 1 at each class index: shape ``tensor.shape + (num_classes,)``.

    Parameters
    ----------
    tensor : Tensor
        Class indices (int64).
    num_classes : int
        ``-1``: one more than the largest index.

    Returns
    -------
    Tensor
        Not differentiable (an integer tensor).
    """
    data = tensor._data
    if data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    xp = array_module(data)
    if num_classes == -1:
        if not data.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size:
        if data.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if data.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make((data[..., None] == xp.arange(num_classes)).astype(np.int64))


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``, composed as in PyTorch.

    Parameters
    ----------
    input : Tensor
    p : float
    dim : int or tuple of int
    eps : float
        Keeps zero vectors zero instead of dividing by 0.
    out : Tensor, optional
        Written in place when given.

    Returns
    -------
    Tensor
    """
    denom = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    if out is None:
        return input / denom
    return out.copy_(input / denom)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast together).

    PyTorch's formula: each is divided by its norm first (clamped at ``eps``, outside the
    graph, so the gradient is that of the unclamped norm), then the products are summed;
    the result stays within ``[-1, 1]``.

    Parameters
    ----------
    x1, x2 : Tensor
    dim : int
    eps : float

    Returns
    -------
    Tensor
    """
    if not (x1.is_floating_point() or x2.is_floating_point()):
        common = dtypes.scalar_type_name(np.result_type(x1._data.dtype, x2._data.dtype))
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {common}")
    x1, x2 = _broadcast_pair(x1 if x1.is_floating_point() else x1.to(x2.dtype),
                             x2 if x2.is_floating_point() else x2.to(x1.dtype))
    norms = []
    for x in (x1, x2):
        norm = x.norm(2, dim, keepdim=True).clone()
        with no_grad():
            norm.clamp_(min=eps)
        norms.append(norm)
    return ((x1 / norms[0]) * (x2 / norms[1])).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last dimension, as PyTorch computes it.

    Parameters
    ----------
    x1, x2 : Tensor
    p : float
    eps : float
        Added to the difference (a zero difference would give an undefined gradient).
    keepdim : bool

    Returns
    -------
    Tensor
    """
    ndim = max(x1.dim(), x2.dim())
    return (x1 - x2 + eps).norm(p, ndim - 1 if ndim else None, keepdim=keepdim)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``, reduced: ``target`` (1 or -1) says
    which input should rank higher.

    Parameters
    ----------
    input1, input2, target : Tensor
        Of the same number of dimensions (broadcast together).
    margin : float
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given overrides it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str

    Returns
    -------
    Tensor
    """
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it
    is -1 (PyTorch's formula, with 1e-12 added to each squared norm), reduced.

    Parameters
    ----------
    input1, input2 : Tensor
        ``(N, D)`` or ``(D,)``.
    target : Tensor
        ``(N,)`` or ``()``: 1 or -1.
    margin : float
    size_average, reduce : bool, optional
        PyTorch's deprecated spelling of ``reduction``: either one given overrides it, with
        PyTorch's warning (``reduce=False``: ``'none'``; else ``size_average=False``:
        ``'sum'``; else ``'mean'``).
    reduction : str

    Returns
    -------
    Tensor
    """
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim():
        raise RuntimeError(f"cosine_embedding_loss : input1 and input2 should have the same "
                           f"number of dimensions, but got {input1.dim()} and {input2.dim()}")
    dim = 1 if input1.dim() == 2 else 0
    prod_sum = (input1 * input2).sum(dim)
    denom = (((input1 * input1).sum(dim) + 1e-12) * ((input2 * input2).sum(dim) + 1e-12)).sqrt()
    cos = prod_sum / denom
    zeros = creation.zeros_like(cos)
    output = (selection.where(target == 1, 1 - cos, zeros)
              + selection.where(target == -1, (cos - margin).clamp(min=0), zeros))
    return _reduce(output, reduction)


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
