"""Activation layers: each wraps the function of the same name in ``functional``.

An elementwise operation that needs nothing but its input declares its layer where it is
defined (``@op(..., layer="Tanh")``); those layers are made here, one class each.
"""

from ..ops.declare import OPS
from . import functional as F
from .module import Module


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

__all__ = ["ReLU", "Softmax", "LogSoftmax", *_LAYERS]


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
