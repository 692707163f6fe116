"""Normalisation: ``batch_norm``, ``layer_norm`` and ``group_norm``, each one node as in PyTorch.

Each standardises ``x`` over some axes, ``x_hat = (x - mean) / sqrt(var + eps)`` (the
biased variance), then scales and shifts it, ``y = weight * x_hat + bias``. The three differ
only in the axes and in where ``weight`` and ``bias`` broadcast:

* ``batch_norm``: per channel (dim 1), over the batch and every spatial position; in
  evaluation mode with the running statistics instead of the batch's;
* ``layer_norm``: per sample, over the trailing ``normalized_shape`` dims;
* ``group_norm``: per sample and group of channels.

The gradient with respect to ``x`` (statistics of the batch) is, with ``g = grad * weight``
and means over the normalised axes,
``invstd * (g - mean(g) - x_hat * mean(g * x_hat))``; the weight's is ``sum(grad * x_hat)``,
the bias's ``sum(grad)``. Backward recomputes ``x_hat`` with differentiable operations, so
the gradient can itself be differentiated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .operands import same_device, tensor_operand

if TYPE_CHECKING:
    from ..types import Shape


def _standardised(x, axes, eps):
    """``(x_hat, invstd)`` as tensors built from ``x`` (differentiable in it)."""
    centered = x - x.mean(axes, keepdim=True)
    invstd = ((centered * centered).mean(axes, keepdim=True) + eps) ** -0.5
    return centered * invstd, invstd


def _normalised_grad(g, x_hat, invstd, axes):
    """The gradient of ``x`` through ``x_hat`` when the statistics are ``x``'s own."""
    mean_g = g.mean(axes, keepdim=True)
    mean_gx = (g * x_hat).mean(axes, keepdim=True)
    return invstd * (g - mean_g - x_hat * mean_gx)


def _affine_grads(grad, x_hat, weight_fn, bias_fn, affine_axes, shape):
    """The weight's and bias's gradients: ``grad * x_hat`` and ``grad`` summed over the axes
    along which they broadcast, in their ``shape``."""
    def summed(t):  # (over no axes, ``sum`` would sum everything)
        return t.sum(affine_axes).reshape(shape) if affine_axes else t

    return (summed(grad * x_hat) if weight_fn is not None else None,
            summed(grad) if bias_fn is not None else None)


def _array_standardised(data, axes, eps):
    """``(x_hat, mean, biased var)`` of an array over ``axes`` (kept)."""
    xp = array_module(data)
    with np.errstate(invalid="ignore", divide="ignore"):  # over no elements: nan, quietly
        mean = data.mean(axis=axes, keepdims=True)
        centered = data - mean
        var = (centered * centered).mean(axis=axes, keepdims=True)
        return centered / xp.sqrt(var + eps), mean, var


def _apply_affine(data, weight, bias, shape):
    if weight is not None:
        data = data * weight._data.reshape(shape)
    if bias is not None:
        data = data + bias._data.reshape(shape)
    return data


def _check_float(kernel, data):
    if data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(data.dtype)}'")


# -- batch_norm -----------------------------------------------------------------------------
class NativeBatchNormBackward0(Node):
    """Batch statistics (training): the full formula; running statistics (evaluation):
    the statistics are constants, so ``x``'s gradient is ``grad * weight * invstd``."""

    __slots__ = ("eps", "training")

    def apply(self, grad):
        x, weight, running_mean, running_var = self.saved_values
        input_fn, weight_fn, bias_fn = self._next_nodes
        ndim = x.dim()
        axes = (0, *range(2, ndim))
        channel = [x.shape[1] if d == 1 else 1 for d in range(ndim)]
        if self.training:
            x_hat, invstd = _standardised(x, axes, self.eps)
        else:
            invstd = ((running_var + self.eps) ** -0.5).reshape(channel)
            x_hat = (x - running_mean.reshape(channel)) * invstd
        g = grad * weight.reshape(channel) if weight is not None else grad
        grad_input = None
        if input_fn is not None:
            grad_input = _normalised_grad(g, x_hat, invstd, axes) if self.training else g * invstd
        return (grad_input, *_affine_grads(grad, x_hat, weight_fn, bias_fn, axes, (x.shape[1],)))


@op(NativeBatchNormBackward0, export=False, method=False, functional=True)
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) of ``input``, then scale by ``weight`` and shift by
    ``bias``.

    Parameters
    ----------
    input : Tensor
        ``(N, C)`` or ``(N, C, *)``.
    running_mean, running_var : Tensor or None
        The channels' running statistics: used in evaluation (``training=False``), and
        updated in place in training as ``(1 - momentum) * running + momentum * batch``,
        the variance being the batch's *unbiased* one (as in PyTorch).
    weight, bias : Tensor, optional
        One per channel.
    training : bool
        Normalise with the batch's statistics (else the running ones).
    momentum : float
    eps : float
        Added to the variance before its square root.

    Returns
    -------
    Tensor
        ``input``'s shape; recorded as one ``NativeBatchNormBackward0`` node.
    """
    x = tensor_operand(input, "batch_norm")
    if x.dim() < 2:
        raise ValueError(f"Expected 2D or higher input (got {x.dim()}D input)")  # (nbgrad's words)
    channels = x.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    same_device(x, running_mean, running_var, weight, bias)
    if training:
        size = x.numel() // channels if channels else 0
        if size == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {x.shape}")
    elif running_mean is None or running_var is None:
        raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be "
                           "defined in evaluation mode")
    data = x._data
    _check_float("batch_norm", data)
    if any(t is not None and t._data.dtype != data.dtype
           for t in (weight, bias, running_mean, running_var)):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    ndim = data.ndim
    axes = (0, *range(2, ndim))
    channel = tuple(channels if d == 1 else 1 for d in range(ndim))
    if training:
        x_hat, mean, var = _array_standardised(data, axes, eps)
        if size and (running_mean is not None or running_var is not None):  # (not when empty)
            _update_running(running_mean, running_var, mean, var, momentum, size)
    else:
        assert running_mean is not None and running_var is not None  # refused above if not
        xp = array_module(data)
        mean = running_mean._data.reshape(channel)
        x_hat = (data - mean) / xp.sqrt(running_var._data.reshape(channel) + eps)
    out = Tensor._make(_apply_affine(x_hat, weight, bias, channel).astype(data.dtype, copy=False))
    if should_record(x, weight, bias):
        # (in training, backward needs no running statistics: later steps may update them)
        saved = (x, weight, None, None) if training else (x, weight, running_mean, running_var)
        record(NativeBatchNormBackward0, out, (x, weight, bias), saved=saved, eps=eps,
               training=training)
    return out


def _update_running(running_mean, running_var, mean, var, momentum, size):
    """The running statistics move towards the batch's, in place."""
    if running_mean is not None:
        _blend(running_mean, mean.reshape(-1), momentum)
    if running_var is not None:
        _blend(running_var, var.reshape(-1) * (size / (size - 1)), momentum)


def _blend(running, batch, momentum):
    # Written into the buffer without a version bump, as PyTorch's kernel does: the update
    # is not an operation of the user's graph.
    new = running._data * (1 - momentum) + batch * momentum
    running._data[...] = new.astype(running._data.dtype, copy=False)


# -- layer_norm -----------------------------------------------------------------------------
class NativeLayerNormBackward0(Node):
    __slots__ = ("eps", "n_normalized")

    def apply(self, grad):
        x, weight, _bias = self.saved_values  # (bias: saved, as PyTorch saves it, for its version)
        input_fn, weight_fn, bias_fn = self._next_nodes
        ndim = x.dim()
        axes = tuple(range(ndim - self.n_normalized, ndim))
        x_hat, invstd = _standardised(x, axes, self.eps)
        g = grad * weight if weight is not None else grad
        grad_input = _normalised_grad(g, x_hat, invstd, axes) if input_fn is not None else None
        leading = tuple(range(ndim - self.n_normalized))
        shape = tuple(x.shape[ndim - self.n_normalized:])
        return (grad_input, *_affine_grads(grad, x_hat, weight_fn, bias_fn, leading, shape))


@op(NativeLayerNormBackward0, export=False, method=False, functional=True)
def layer_norm(input: Tensor, normalized_shape: int | Shape, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise each sample over its trailing ``normalized_shape`` dims, then scale by
    ``weight`` and shift by ``bias`` (both of shape ``normalized_shape``).

    Parameters
    ----------
    input : Tensor
        ``(*, *normalized_shape)``.
    normalized_shape : int or tuple of int
        The trailing dimensions normalised over, as sizes.
    weight, bias : Tensor, optional
        The elementwise scale and shift, of shape ``normalized_shape``.
    eps : float
        Added to the variance (the biased one) before its square root.

    Returns
    -------
    Tensor
        ``input``'s shape; recorded as one ``NativeLayerNormBackward0`` node.
    """
    x = tensor_operand(input, "layer_norm")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    data = x._data
    n = len(shape)
    if n == 0 or data.shape[data.ndim - n:] != shape or data.ndim < n:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(data.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")
    same_device(x, weight, bias)
    _check_float("LayerNormKernelImpl", data)
    axes = tuple(range(data.ndim - n, data.ndim))
    x_hat = _array_standardised(data, axes, eps)[0] if data.size else data.copy()
    out = Tensor._make(_apply_affine(x_hat, weight, bias, shape).astype(data.dtype, copy=False))
    if should_record(x, weight, bias):
        record(NativeLayerNormBackward0, out, (x, weight, bias), saved=(x, weight, bias), eps=eps,
               n_normalized=n)
    return out


# -- group_norm -----------------------------------------------------------------------------
class NativeGroupNormBackward0(Node):
    __slots__ = ("eps", "num_groups")

    def apply(self, grad):
        x, weight = self.saved_values
        input_fn, weight_fn, bias_fn = self._next_nodes
        shape = tuple(x.shape)
        grouped = (shape[0], self.num_groups, -1)
        axes = (2,)
        x_hat, invstd = _standardised(x.reshape(grouped), axes, self.eps)
        channel = [shape[1] if d == 1 else 1 for d in range(len(shape))]
        g = grad * weight.reshape(channel) if weight is not None else grad
        grad_input = None
        if input_fn is not None:
            grad_input = _normalised_grad(g.reshape(grouped), x_hat, invstd, axes).reshape(shape)
        affine_axes = (0, *range(2, len(shape)))
        return (grad_input, *_affine_grads(grad, x_hat.reshape(shape), weight_fn, bias_fn,
                                           affine_axes, (shape[1],)))


@op(NativeGroupNormBackward0, export=False, method=False, functional=True)
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise each sample over groups of ``num_groups`` consecutive channels (and all
    their positions), then scale and shift each channel.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``, ``C`` divisible by ``num_groups``.
    num_groups : int
    weight, bias : Tensor, optional
        One per channel.
    eps : float

    Returns
    -------
    Tensor
        ``input``'s shape; recorded as one ``NativeGroupNormBackward0`` node.
    """
    x = tensor_operand(input, "group_norm")
    if x.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {x.dim()}")
    shape = tuple(x.shape)
    if shape[1] % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != shape[1]):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(t.shape)} and "
                               f"input of shape {list(shape)}")
    same_device(x, weight, bias)
    data = x._data
    _check_float("GroupNormKernelImpl", data)
    grouped = data.reshape(shape[0], num_groups, -1) if data.size else data
    x_hat = (_array_standardised(grouped, (2,), eps)[0].reshape(shape) if data.size
             else data.copy())
    channel = tuple(shape[1] if d == 1 else 1 for d in range(len(shape)))
    out = Tensor._make(_apply_affine(x_hat, weight, bias, channel).astype(data.dtype, copy=False))
    if should_record(x, weight, bias):
        record(NativeGroupNormBackward0, out, (x, weight, bias), saved=(x, weight), eps=eps,
               num_groups=num_groups)
    return out


