"""Activation layers: each wraps the function of the same name in ``functional``.

An elementwise operation that needs nothing but its input declares its layer where it is
defined (``@op(..., layer="Tanh")``); those layers are made here, one class each.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import creation
from ..ops.declare import OPS
from ..tensor import Tensor
from . import functional as F
from .module import Module
from .parameter import Parameter


def _layer(declared):
    """The layer ``nn.<declared.layer>``: ``forward`` applies the operation."""
    function = declared.function

    def forward(self, input):
        return function(input)

    forward.__doc__ = function.__doc__
    summary = (function.__doc__ or "").strip().splitlines()[0]
    return type(declared.layer, (Module,), {
        "__doc__": f"The layer of ``{declared.name}``: {summary}",
        "__module__": __name__,
        "__qualname__": declared.layer,
        "forward": forward,
    })


_LAYERS = {o.layer: _layer(o) for o in OPS if o.layer}
globals().update(_LAYERS)

__all__ = ["ReLU", "Softmax", "LogSoftmax", "Softmin", "LeakyReLU", "GELU", "ELU", "SELU", "CELU",
           "SiLU", "Mish", "Softplus", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish",
           "Softsign", "Tanhshrink", "LogSigmoid", "Hardshrink", "Softshrink", "Threshold",
           "PReLU", *_LAYERS]


class ReLU(Module):
    """``max(x, 0)``; ``inplace=True`` overwrites the input (``relu_``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Softmax(Module):
    """``exp(x) / sum(exp(x))`` along ``dim``: each slice becomes a probability distribution."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """``log(softmax(x))`` along ``dim``, computed without forming the softmax."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(Module):
    """``softmax(-x)`` along ``dim``: a distribution that favours small values."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class _Activation(Module):
    """A layer that applies ``_function(input, *options)``; ``_options`` names the
    attributes passed, in order, and ``extra_repr`` shows them as PyTorch does."""

    _function: Callable[..., Tensor] | None = None
    _options: tuple[str, ...] = ()

    def forward(self, input):
        return type(self)._function(input, *[getattr(self, name) for name in self._options])

    def extra_repr(self):
        shown = [f"{name}={getattr(self, name)!r}" for name in self._options if name != "inplace"]
        if getattr(self, "inplace", False):
            shown.append("inplace=True")
        return ", ".join(shown)


class LeakyReLU(_Activation):
    """``x`` where positive, else ``negative_slope * x`` (``F.leaky_relu``)."""

    _function = F.leaky_relu
    _options = ("negative_slope", "inplace")

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace


class GELU(_Activation):
    """``x * Phi(x)``, exact or (``approximate='tanh'``) approximated (``F.gelu``)."""

    _function = F.gelu
    _options = ("approximate",)

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate


class ELU(_Activation):
    """``x`` where positive, else ``alpha * (exp(x) - 1)`` (``F.elu``)."""

    _function = F.elu
    _options = ("alpha", "inplace")

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace


class CELU(ELU):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (``F.celu``)."""

    _function = F.celu


class _InplaceOnly(_Activation):
    _options = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class SELU(_InplaceOnly):
    """``scale * elu(x, alpha)`` with the self-normalising constants (``F.selu``)."""

    _function = F.selu


class SiLU(_InplaceOnly):
    """``x * sigmoid(x)`` (``F.silu``)."""

    _function = F.silu


class Mish(_InplaceOnly):
    """``x * tanh(softplus(x))`` (``F.mish``)."""

    _function = F.mish


class ReLU6(_InplaceOnly):
    """``min(max(x, 0), 6)`` (``F.relu6``)."""

    _function = F.relu6


class Hardsigmoid(_InplaceOnly):
    """``x / 6 + 1/2`` clamped to ``[0, 1]`` (``F.hardsigmoid``); PyTorch shows no options."""

    _function = F.hardsigmoid

    def extra_repr(self):
        return ""


class Hardswish(Hardsigmoid):
    """``x * relu6(x + 3) / 6`` (``F.hardswish``)."""

    _function = F.hardswish


class Softplus(_Activation):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold`` (``F.softplus``)."""

    _function = F.softplus
    _options = ("beta", "threshold")

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold


class Hardtanh(_Activation):
    """``x`` clamped to ``[min_val, max_val]`` (``F.hardtanh``)."""

    _function = F.hardtanh
    _options = ("min_val", "max_val", "inplace")

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")


class Softsign(_Activation):
    """``x / (1 + |x|)`` (``F.softsign``)."""

    _function = F.softsign


class Tanhshrink(_Activation):
    """``x - tanh(x)`` (``F.tanhshrink``)."""

    _function = F.tanhshrink


class LogSigmoid(_Activation):
    """``log(sigmoid(x))`` (``F.logsigmoid``)."""

    _function = F.logsigmoid


class Hardshrink(_Activation):
    """``x`` where ``|x| > lambd``, else 0 (``F.hardshrink``)."""

    _function = F.hardshrink
    _options = ("lambd",)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x`` moved ``lambd`` towards 0, and 0 within ``lambd`` of it (``F.softshrink``)."""

    _function = F.softshrink


class Threshold(_Activation):
    """``x`` where ``x > threshold``, else ``value`` (``F.threshold``)."""

    _function = F.threshold
    _options = ("threshold", "value", "inplace")

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace


class PReLU(Module):
    """``x`` where positive, else ``weight * x`` with a learnt slope (one, or one per channel).

    Parameters
    ----------
    num_parameters : int
        1, or the number of channels (dim 1 of the input).
    init : float
        The slopes' initial value (0.25).
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(creation.full((num_parameters,), init, device=device,
                                              dtype=dtype))

    def reset_parameters(self) -> None:
        """Set every slope back to ``init``."""
        self.weight.data.fill_(self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"
