"""Dropout: zero random elements (or whole channels) while training, scale the rest by
``1 / (1 - p)`` so that the expected value is unchanged, and do nothing in ``eval()`` mode.

The functions follow PyTorch's ``_dropout_impl``: the noise is a tensor of Bernoulli(1 - p)
draws divided by ``1 - p`` (channel-wise: one draw per sample and channel, broadcast over
the rest), and the result is ``input * noise``, so the graph records ``MulBackward0`` and the
gradient is the same noise. ``p == 0``, ``training=False`` or an empty input return the input
itself. Numbers come from ``nbgrad.default_generator`` (``manual_seed``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..backend import to_device
from ..random.generator import numpy_generator
from ..tensor import Tensor
from .module import Module

__all__ = [
    "AlphaDropout",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "FeatureAlphaDropout",
    "alpha_dropout",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
]

_SELU_ALPHA = 1.7580993408473766  # -scale * alpha of SELU: where alpha dropout puts a dropped unit


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _check_input(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _noise(input, p, feature):
    """Bernoulli(1 - p) draws of ``input``'s dtype: one per element, or (``feature``) one per
    sample and channel, shaped to broadcast over the other dimensions."""
    dtype = input._data.dtype
    if dtype.kind != "f":
        name = {"b": "Bool", "u": "Byte"}.get(dtype.kind, {1: "Char", 2: "Short", 4: "Int",
                                                          8: "Long"}[dtype.itemsize])
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")
    shape = tuple(input.shape)
    if feature:
        if len(shape) < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (len(shape) - 2)
    keep = np.asarray(numpy_generator(None, input.device).random(shape) < 1 - p)
    return keep.astype(dtype)


def _dropout(input, p, training, inplace, feature=False, alpha=False):
    """PyTorch's ``_dropout_impl``: ``input * noise`` (``+ b`` for alpha dropout)."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(input.new_zeros(())) if inplace else input * input.new_zeros(())
    noise = _noise(input, p, feature)
    dtype = noise.dtype.type
    if alpha:
        a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
        b = ((noise - 1) * dtype(_SELU_ALPHA * a) + dtype(_SELU_ALPHA * a * p)).astype(noise.dtype)
        noise = noise * dtype(a)
    else:
        noise = noise / dtype(1 - p)  # computed in the input's dtype, as PyTorch's div_
    noise = Tensor._make(to_device(np.asarray(noise), input.device))  # 0-d: NumPy gives a scalar
    result = input.mul_(noise) if inplace else input * noise
    if alpha:
        result = result.add_(Tensor._make(to_device(np.asarray(b), input.device)))
    return result


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``.

    Parameters
    ----------
    input : Tensor
        A floating tensor of any shape.
    p : float
        The probability of an element to be zeroed, in [0, 1].
    training : bool
        Apply dropout; with ``False`` the input itself is returned (``eval()`` mode).
    inplace : bool
        Overwrite ``input`` (the in-place rules apply: not a leaf that requires grad).

    Returns
    -------
    Tensor
        ``input * noise`` (``MulBackward0``), or ``input`` itself when there is nothing to do.
    """
    _check_input(input, "dropout")
    _check_p(p)
    return _dropout(input, p, training, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements become SELU's negative saturation value
    and the result is scaled and shifted so that its mean and variance are kept.

    Parameters
    ----------
    input : Tensor
        A floating tensor of any shape.
    p : float
        The probability of an element to be dropped, in [0, 1].
    training : bool
        Apply dropout. PyTorch's default is ``False`` here (unlike ``dropout``): without
        ``training=True`` the input itself is returned.
    inplace : bool
        Overwrite ``input``.

    Returns
    -------
    Tensor
        ``input * a + b`` (the graph records ``AddBackward0``), or ``input`` itself when
        there is nothing to do.
    """
    _check_input(input, "alpha_dropout")
    _check_p(p)
    return _dropout(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """``alpha_dropout`` of whole channels: one draw per sample and channel, broadcast over
    the other dimensions.

    Parameters
    ----------
    input : Tensor
        At least 2-D: ``(N, C, *)``.
    p, training, inplace
        As for ``alpha_dropout`` (``training=False`` by default, as in PyTorch).

    Returns
    -------
    Tensor
    """
    _check_input(input, "feature_alpha_dropout")
    _check_p(p)
    return _dropout(input, p, training, inplace, feature=True, alpha=True)


def _channel_dropout(input, p, training, inplace, spatial):
    """Dropout of whole channels of an input with ``spatial`` dimensions after the channel
    one, batched or not (an unbatched input gets a batch dimension for the draw)."""
    batched = input.dim() == spatial + 2
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout(input, p, training, inplace, feature=True)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, L)`` or ``(C, L)`` input, each with probability
    ``p``, and scale the others by ``1 / (1 - p)``.

    Parameters
    ----------
    input : Tensor
        2-D or 3-D (other numbers of dimensions are an error).
    p, training, inplace
        As for ``dropout``.

    Returns
    -------
    Tensor
    """
    _check_input(input, "dropout1d")
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _channel_dropout(input, p, training, inplace, spatial=1)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, H, W)`` input, each with probability ``p``, and
    scale the others by ``1 / (1 - p)``.

    As PyTorch does, a 3-D input is read as ``(N, C, L)`` (with a warning), and other numbers
    of dimensions are accepted with a deprecation warning.

    Parameters
    ----------
    input : Tensor
    p, training, inplace
        As for ``dropout``.

    Returns
    -------
    Tensor
    """
    _check_input(input, "dropout2d")
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _dropout(input, p, training, inplace, feature=True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input, each with
    probability ``p``, and scale the others by ``1 / (1 - p)``.

    Parameters
    ----------
    input : Tensor
        4-D or 5-D (other numbers of dimensions warn, as in PyTorch).
    p, training, inplace
        As for ``dropout``.

    Returns
    -------
    Tensor
    """
    _check_input(input, "dropout3d")
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {ndim}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _channel_dropout(input, p, training, inplace, spatial=3)


class _DropoutNd(Module):
    """What the dropout layers share: ``p`` checked, ``inplace``, and their repr."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        _check_p(p)
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """The layer form of ``F.dropout``: active in ``train()`` mode (the default), the
    identity in ``eval()`` mode.

    Parameters
    ----------
    p : float
        The probability of an element to be zeroed (0.5 by default), in [0, 1].
    inplace : bool
        Overwrite the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        """``F.dropout(input, p, training=self.training, inplace)``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """The layer form of ``F.dropout1d``: zeroes whole channels of ``(N, C, L)`` or ``(C, L)``
    inputs in ``train()`` mode; the identity in ``eval()`` mode.

    Parameters
    ----------
    p : float
        The probability of a channel to be zeroed (0.5 by default), in [0, 1].
    inplace : bool
        Overwrite the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        """``F.dropout1d(input, p, training=self.training, inplace)``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """The layer form of ``F.dropout2d``: zeroes whole channels of ``(N, C, H, W)``
    inputs in ``train()`` mode; the identity in ``eval()`` mode.

    Parameters
    ----------
    p : float
        The probability of a channel to be zeroed (0.5 by default), in [0, 1].
    inplace : bool
        Overwrite the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        """``F.dropout2d(input, p, training=self.training, inplace)``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """The layer form of ``F.dropout3d``: zeroes whole channels of ``(N, C, D, H, W)`` or
    ``(C, D, H, W)`` inputs in ``train()`` mode; the identity in ``eval()`` mode.

    Parameters
    ----------
    p : float
        The probability of a channel to be zeroed (0.5 by default), in [0, 1].
    inplace : bool
        Overwrite the input.
    """

    def forward(self, input: Tensor) -> Tensor:
        """``F.dropout3d(input, p, training=self.training, inplace)``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """The layer form of ``F.alpha_dropout``: active in ``train()`` mode (the
    default, unlike the function's), the identity in ``eval()`` mode.

    Parameters
    ----------
    p : float
        The probability of an element to be dropped (0.5 by default), in [0, 1].
    inplace : bool
        Kept for PyTorch's signature; as in PyTorch, ``forward`` does not use it.
    """

    def forward(self, input: Tensor) -> Tensor:
        """``F.alpha_dropout(input, p, training=self.training)``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """The layer form of ``F.feature_alpha_dropout``: drops whole channels in
    ``train()`` mode (the default), the identity in ``eval()`` mode.

    Parameters
    ----------
    p : float
        The probability of a channel to be dropped (0.5 by default), in [0, 1].
    inplace : bool
        Kept for PyTorch's signature; as in PyTorch, ``forward`` does not use it.
    """

    def forward(self, input: Tensor) -> Tensor:
        """``F.feature_alpha_dropout(input, p, training=self.training)``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return feature_alpha_dropout(input, self.p, self.training)
