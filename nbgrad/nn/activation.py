"""Activation layers: each wraps the function of the same name in ``functional``.

An elementwise operation that needs nothing but its input declares its layer where it is
defined (``@op(..., layer="Tanh")``); those layers are made here, one class each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import creation
from ..ops.declare import OPS, Op
from ..tensor import Tensor
from . import functional as F
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from ..dtypes import dtype
    from ..types import DeviceLike

# The docstring sections of a layer that takes no options (``Module.__init__`` rejects any
# argument) and of a ``forward`` that maps one tensor to one tensor.
_NO_OPTIONS = """
Parameters
----------
*args, **kwargs
    None are accepted: the layer has no options (an argument is a ``TypeError``, as in
    PyTorch).
"""
_TENSOR_TO_TENSOR = """
Parameters
----------
input : Tensor

Returns
-------
Tensor
"""


def _layer(declared: Op) -> type[Module]:
    """The layer ``nn.<declared.layer>``: ``forward`` applies the operation."""
    function = declared.function
    called = f"F.{declared.name}" if declared.functional else f"nbgrad.{declared.name}"

    def forward(self, input: Tensor) -> Tensor:
        return function(input)

    # the op's summary: its docstring's first paragraph, on one line
    summary = " ".join((function.__doc__ or "").strip().split("\n\n")[0].split()).rstrip(".")
    # "The hyperbolic tangent ..." continues a sentence here ("Tanh" or "NumPy" would stay)
    continued = summary[:1].lower() + summary[1:] if summary[1:2].islower() else summary
    forward.__doc__ = f"``{called}(input)``: {continued}.\n{_TENSOR_TO_TENSOR}"
    return type(declared.layer, (Module,), {
        "__doc__": f"{summary} (``{called}``).\n{_NO_OPTIONS}",
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
    """``max(x, 0)`` of each element (``F.relu``).

    Parameters
    ----------
    inplace : bool
        Overwrite the input (``relu_``).
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """``F.relu(input, inplace)``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Softmax(Module):
    """``exp(x) / sum(exp(x))`` along ``dim`` (``F.softmax``): each slice becomes a
    probability distribution.

    Parameters
    ----------
    dim : int, optional
        The dimension of the slices; without it, PyTorch's implicit choice (with its
        deprecation warning, at the first ``forward``).
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """``F.softmax(input, dim)``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """``log(softmax(x))`` along ``dim``, computed without forming the softmax
    (``F.log_softmax``).

    Parameters
    ----------
    dim : int, optional
        The dimension of the slices; without it, PyTorch's implicit choice (with its
        deprecation warning, at the first ``forward``).
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """``F.log_softmax(input, dim)``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Module):
    """``softmax(-x)`` along ``dim`` (``F.softmin``): a distribution that favours small
    values.

    Parameters
    ----------
    dim : int, optional
        The dimension of the slices; without it, PyTorch's implicit choice (with its
        deprecation warning, at the first ``forward``).
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """``F.softmin(input, dim)``.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class _Activation(Module):
    """A layer that applies ``_function(input, *options)``; ``_options`` names the
    attributes passed, in order, and ``extra_repr`` shows them as PyTorch does."""

    _function: Callable[..., Tensor] | None = None
    _options: tuple[str, ...] = ()

    def forward(self, input: Tensor) -> Tensor:
        """The layer's function of ``input``, with the layer's options.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        return type(self)._function(input, *[getattr(self, name) for name in self._options])

    def extra_repr(self) -> str:
        shown = [f"{name}={getattr(self, name)!r}" for name in self._options if name != "inplace"]
        if getattr(self, "inplace", False):
            shown.append("inplace=True")
        return ", ".join(shown)


class LeakyReLU(_Activation):
    """``x`` where positive, else ``negative_slope * x`` (``F.leaky_relu``).

    Parameters
    ----------
    negative_slope : float
        The slope for negative inputs.
    inplace : bool
        Overwrite the input.
    """

    _function = F.leaky_relu
    _options = ("negative_slope", "inplace")

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace


class GELU(_Activation):
    """``x * Phi(x)``, ``Phi`` the standard normal CDF, exact or approximated (``F.gelu``).

    Parameters
    ----------
    approximate : str
        ``'none'`` (exact, with ``erf``) or ``'tanh'``.
    """

    _function = F.gelu
    _options = ("approximate",)

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate


class ELU(_Activation):
    """``x`` where positive, else ``alpha * (exp(x) - 1)`` (``F.elu``).

    Parameters
    ----------
    alpha : float
        The value approached for large negative ``x`` is ``-alpha``.
    inplace : bool
        Overwrite the input.
    """

    _function = F.elu
    _options = ("alpha", "inplace")

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace


class CELU(ELU):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (``F.celu``).

    Parameters
    ----------
    alpha : float
        Must not be 0 (PyTorch's error, at the first ``forward``).
    inplace : bool
        Overwrite the input.
    """

    _function = F.celu


class _InplaceOnly(_Activation):
    _options = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class SELU(_InplaceOnly):
    """``scale * elu(x, alpha)`` with the self-normalising constants (``F.selu``).

    Parameters
    ----------
    inplace : bool
        Overwrite the input.
    """

    _function = F.selu


class SiLU(_InplaceOnly):
    """``x * sigmoid(x)`` (``F.silu``).

    Parameters
    ----------
    inplace : bool
        Overwrite the input.
    """

    _function = F.silu


class Mish(_InplaceOnly):
    """``x * tanh(softplus(x))`` (``F.mish``).

    Parameters
    ----------
    inplace : bool
        Overwrite the input.
    """

    _function = F.mish


class ReLU6(_InplaceOnly):
    """``min(max(x, 0), 6)`` (``F.relu6``).

    Parameters
    ----------
    inplace : bool
        Overwrite the input.
    """

    _function = F.relu6


class Hardsigmoid(_InplaceOnly):
    """``x / 6 + 1/2`` clamped to ``[0, 1]`` (``F.hardsigmoid``); its repr shows no
    options, as PyTorch's.

    Parameters
    ----------
    inplace : bool
        Overwrite the input.
    """

    _function = F.hardsigmoid

    def extra_repr(self) -> str:
        return ""


class Hardswish(Hardsigmoid):
    """``x * relu6(x + 3) / 6`` (``F.hardswish``).

    Parameters
    ----------
    inplace : bool
        Overwrite the input.
    """

    _function = F.hardswish


class Softplus(_Activation):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold`` (``F.softplus``).

    Parameters
    ----------
    beta : float
    threshold : float
        Where ``beta * x > threshold`` the result is ``x`` itself (for numerical
        stability, as in PyTorch).
    """

    _function = F.softplus
    _options = ("beta", "threshold")

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold


class Hardtanh(_Activation):
    """``x`` clamped to ``[min_val, max_val]`` (``F.hardtanh``).

    Parameters
    ----------
    min_val, max_val : float
        ``max_val`` must be greater (else an ``AssertionError``, as in PyTorch).
    inplace : bool
        Overwrite the input.
    """

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
    """``x / (1 + |x|)`` (``F.softsign``).

    Parameters
    ----------
    *args, **kwargs
        None are accepted: the layer has no options (an argument is a ``TypeError``, as in
        PyTorch).
    """

    _function = F.softsign


class Tanhshrink(_Activation):
    """``x - tanh(x)`` (``F.tanhshrink``).

    Parameters
    ----------
    *args, **kwargs
        None are accepted: the layer has no options (an argument is a ``TypeError``, as in
        PyTorch).
    """

    _function = F.tanhshrink


class LogSigmoid(_Activation):
    """``log(sigmoid(x))`` (``F.logsigmoid``).

    Parameters
    ----------
    *args, **kwargs
        None are accepted: the layer has no options (an argument is a ``TypeError``, as in
        PyTorch).
    """

    _function = F.logsigmoid


class Hardshrink(_Activation):
    """``x`` where ``|x| > lambd``, else 0 (``F.hardshrink``).

    Parameters
    ----------
    lambd : float
    """

    _function = F.hardshrink
    _options = ("lambd",)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x`` moved ``lambd`` towards 0, and 0 within ``lambd`` of it (``F.softshrink``).

    Parameters
    ----------
    lambd : float
        Must be at least 0 (PyTorch's error, at the first ``forward``).
    """

    _function = F.softshrink


class Threshold(_Activation):
    """``x`` where ``x > threshold``, else ``value`` (``F.threshold``).

    Parameters
    ----------
    threshold, value : float
    inplace : bool
        Overwrite the input.
    """

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
    device : nbgrad.device or str, optional
        Where the slopes live (the default device when omitted).
    dtype : nbgrad.dtype, optional
        The slopes' dtype (the default dtype when omitted).
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25,
                 device: DeviceLike | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(creation.full((num_parameters,), init, device=device,
                                              dtype=dtype))

    def reset_parameters(self) -> None:
        """Set every slope back to ``init``."""
        self.weight.data.fill_(self.init)

    def forward(self, input: Tensor) -> Tensor:
        """``F.prelu(input, weight)``.

        Parameters
        ----------
        input : Tensor
            Its dim 1 holds the channels when there is one slope per channel.

        Returns
        -------
        Tensor
        """
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
