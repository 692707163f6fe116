"""Initialising parameters in place: ``uniform_``, ``normal_``, Xavier and Kaiming schemes.

Every function overwrites the tensor it is given, under ``no_grad`` (a parameter is a
leaf that requires grad: changing it in place while recording would raise), bumps its
version counter, and returns it. Random numbers come from nbgrad's generator
(``nbgrad.manual_seed``), so they are reproducible within nbgrad but not equal to
PyTorch's for the same seed.

The scales follow PyTorch exactly. For a weight of shape ``(fan_out, fan_in)``:

* Xavier (Glorot): ``std = gain * sqrt(2 / (fan_in + fan_out))``;
* Kaiming (He): ``std = gain / sqrt(fan)``, ``fan`` being ``fan_in`` (default) or ``fan_out``;
* a uniform distribution on ``[-bound, bound]`` has ``std = bound / sqrt(3)``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import missing as _missing
from ..random.generator import Generator, numpy_generator
from ..core.grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "orthogonal_", "sparse_",
           "constant_", "eye_", "dirac_", "ones_", "zeros_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity: the scale that keeps a signal's variance
    through it (what ``xavier_*`` and ``kaiming_*`` multiply their standard deviation by).

    Parameters
    ----------
    nonlinearity : str
        ``'linear'``, a convolution (``'conv1d'``, ..., ``'conv_transpose3d'``) or
        ``'sigmoid'``: 1; ``'tanh'``: 5/3; ``'relu'``: ``sqrt(2)``; ``'leaky_relu'``:
        ``sqrt(2 / (1 + negative_slope^2))``; ``'selu'``: 3/4. Any other name is a
        ``ValueError``.
    param : float, optional
        The negative slope of ``'leaky_relu'`` (0.01 when omitted); ignored by the others.

    Returns
    -------
    float
        The int 1 for the linear ones and ``'sigmoid'``, as in PyTorch.
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)``: inputs and outputs per unit (``size(1)`` and ``size(0)``,
    times the receptive field for convolution weights)."""
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor, draw, generator):
    """Overwrite ``tensor`` with ``draw(numpy_generator, shape)``, in place, under no_grad."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"expected a Tensor, got {type(tensor).__name__}")
    values = np.asarray(draw(numpy_generator(generator, tensor.device), tuple(tensor.shape)))
    with no_grad():
        tensor.copy_(Tensor._make(values))  # cast to the tensor's dtype, moved to its device
    return tensor


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: Generator | None = None) -> Tensor:
    """Fill with values drawn uniformly from ``[a, b)``.

    Parameters
    ----------
    tensor : Tensor
        The tensor to overwrite (in place, under ``no_grad``; its version is bumped).
    a, b : float
        The bounds.
    generator : Generator, optional
        Where the numbers come from (``nbgrad.default_generator`` when not given).

    Returns
    -------
    Tensor
        ``tensor``.
    """
    return _fill(tensor, lambda g, shape: g.uniform(a, b, shape), generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Generator | None = None) -> Tensor:
    """Fill with values drawn from ``N(mean, std^2)``.

    Parameters
    ----------
    tensor : Tensor
        The tensor to overwrite (in place, under ``no_grad``; its version is bumped).
    mean, std : float
        The normal distribution.
    generator : Generator, optional
        Where the numbers come from (``nbgrad.default_generator`` when not given).

    Returns
    -------
    Tensor
        ``tensor``.
    """
    return _fill(tensor, lambda g, shape: g.normal(mean, std, shape), generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Generator | None = None) -> Tensor:
    """Fill with values drawn from ``N(mean, std^2)`` truncated to ``[a, b]``.

    Parameters
    ----------
    tensor : Tensor
        The tensor to overwrite.
    mean, std : float
        The normal distribution before truncation.
    a, b : float
        The bounds (absolute values, not in units of ``std``, as in PyTorch).
    generator : Generator, optional
        Where the numbers come from (``nbgrad.default_generator`` when not given).

    Returns
    -------
    Tensor
        ``tensor``. Values are drawn by rejection; PyTorch warns, as nbgrad does, when ``mean``
        is more than two ``std`` outside ``[a, b]``.
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)

    def draw(g, shape):
        wanted, kept = math.prod(shape), np.empty(0)
        while kept.size < wanted:
            values = g.normal(mean, std, 2 * (wanted - kept.size) + 16)
            kept = np.concatenate([kept, values[(values >= a) & (values <= b)]])
        return kept[:wanted].reshape(shape)

    return _fill(tensor, draw, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain``: the Q of a QR decomposition of a
    standard normal matrix, its signs fixed by R's diagonal (Saxe et al., 2013).

    Parameters
    ----------
    tensor : Tensor
        At least 2-D; dimensions after the first are flattened into the columns.
    gain : float
        The scale.
    generator : Generator, optional
        Where the numbers come from (``nbgrad.default_generator`` when not given).

    Returns
    -------
    Tensor
        ``tensor`` (unchanged when it has no elements, as in PyTorch).
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows

    def draw(g, shape):
        flattened = g.normal(0.0, 1.0, (rows, cols))
        if rows < cols:
            flattened = flattened.T
        q, r = np.linalg.qr(flattened)
        q = q * np.sign(np.diag(r))
        return (q.T if rows < cols else q).reshape(shape) * gain

    return _fill(tensor, draw, generator)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01,
            generator: Generator | None = None) -> Tensor:
    """Fill a 2-D tensor with values from ``N(0, std^2)`` and zero ``ceil(sparsity * rows)``
    random rows of each column (Martens, 2010).

    Parameters
    ----------
    tensor : Tensor
        A 2-D tensor.
    sparsity : float
        The fraction of each column set to zero.
    std : float
        The standard deviation of the non-zero values.
    generator : Generator, optional
        Where the numbers come from; nbgrad draws the zeroed rows from it too (PyTorch draws
        them from its default generator whatever ``generator`` is).

    Returns
    -------
    Tensor
        ``tensor``.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)

    def draw(g, shape):
        values = g.normal(0.0, std, shape)
        for col in range(cols):
            values[g.permutation(rows)[:num_zeros], col] = 0
        return values

    return _fill(tensor, draw, generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``, in place, under ``no_grad``.

    Parameters
    ----------
    tensor : Tensor
    val : float

    Returns
    -------
    Tensor
        ``tensor``.
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones, in place, under ``no_grad``.

    Parameters
    ----------
    tensor : Tensor

    Returns
    -------
    Tensor
        ``tensor``.
    """
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros, in place, under ``no_grad``.

    Parameters
    ----------
    tensor : Tensor

    Returns
    -------
    Tensor
        ``tensor``.
    """
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal), in place, under
    ``no_grad``: a linear layer that keeps as many of its inputs as it can.

    Parameters
    ----------
    tensor : Tensor
        2-D (any other number of dimensions is a ``ValueError``).

    Returns
    -------
    Tensor
        ``tensor``.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(Tensor._make(np.eye(*tensor.shape)))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: a convolution that
    keeps its input channels (one ``1`` per output channel, at the kernel's centre).

    Parameters
    ----------
    tensor : Tensor
        ``(out_channels, in_channels, *kernel)``, filled in place under ``no_grad``.
    groups : int
        The convolution's groups: each group keeps its own channels.

    Returns
    -------
    Tensor
        ``tensor``.
    """
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    kept = min(out_per_group, sizes[1])
    values = np.zeros(sizes)
    centre = tuple(k // 2 for k in sizes[2:])
    for g in range(groups):
        for d in range(kept):
            values[(g * out_per_group + d, d, *centre)] = 1
    with no_grad():
        return tensor.copy_(Tensor._make(values))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0,
                    generator: Generator | None = None) -> Tensor:
    """Fill with values drawn uniformly from ``[-a, a]``, ``a = gain * sqrt(6 / (fan_in +
    fan_out))`` (Glorot and Bengio, 2010).

    Parameters
    ----------
    tensor : Tensor
        At least 2-D: ``(fan_out, fan_in, *receptive_field)``.
    gain : float
        The scale (``calculate_gain`` of the nonlinearity).
    generator : Generator, optional
        Where the numbers come from (``nbgrad.default_generator`` when not given).

    Returns
    -------
    Tensor
        ``tensor``.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std  # the uniform bound with that standard deviation
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0,
                   generator: Generator | None = None) -> Tensor:
    """Fill with values drawn from ``N(0, std^2)``, ``std = gain * sqrt(2 / (fan_in +
    fan_out))`` (Glorot and Bengio, 2010).

    Parameters
    ----------
    tensor : Tensor
        At least 2-D: ``(fan_out, fan_in, *receptive_field)``.
    gain : float
        The scale (``calculate_gain`` of the nonlinearity).
    generator : Generator, optional
        Where the numbers come from (``nbgrad.default_generator`` when not given).

    Returns
    -------
    Tensor
        ``tensor``.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    """Fill with values drawn uniformly from ``[-bound, bound]``, ``bound = gain *
    sqrt(3 / fan)`` (He et al., 2015).

    Parameters
    ----------
    tensor : Tensor
        At least 2-D: ``(fan_out, fan_in, *receptive_field)``.
    a : float
        The negative slope of the rectifier after this layer (for ``leaky_relu``).
    mode : {"fan_in", "fan_out"}
        Keep the variance of the forward signal (``fan_in``) or of the gradients.
    nonlinearity : str
        The name ``calculate_gain`` takes.
    generator : Generator, optional
        Where the numbers come from (``nbgrad.default_generator`` when not given).

    Returns
    -------
    Tensor
        ``tensor``; one with no elements is left as it is, with PyTorch's warning.
        ``Linear`` uses ``a=sqrt(5)``: gain ``sqrt(1/3)``, so the bound is ``1/sqrt(fan_in)``.
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu",
                    generator: Generator | None = None) -> Tensor:
    """Fill with values drawn from ``N(0, std^2)``, ``std = gain / sqrt(fan)`` (He et al.,
    2015).

    Parameters
    ----------
    tensor : Tensor
        At least 2-D: ``(fan_out, fan_in, *receptive_field)``.
    a : float
        The negative slope of the rectifier after this layer (for ``leaky_relu``).
    mode : {"fan_in", "fan_out"}
        Keep the variance of the forward signal (``fan_in``) or of the gradients.
    nonlinearity : str
        The name ``calculate_gain`` takes.
    generator : Generator, optional
        Where the numbers come from (``nbgrad.default_generator`` when not given).

    Returns
    -------
    Tensor
        ``tensor``; one with no elements is left as it is, with PyTorch's warning.
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
