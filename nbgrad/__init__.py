"""nbgrad: PyTorch's autograd, explained and re-implemented on NumPy (and CuPy).

    >>> import nbgrad as ng
    >>> x = ng.tensor([1., 2.], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])

Where to read: ``tensor.py`` (what a tensor holds), ``autograd/`` (the graph and the
engine), ``ops/`` (each operation, one block with its derivative), ``nn/`` and ``optim/``.
"""

from . import warn
from .warn import is_warn_always_enabled, set_warn_always

# NumPy's RuntimeWarnings from nbgrad's own modules are ignored, as PyTorch is silent
# about the inf and nan it computes (warn.py says why this costs nothing per operation).
warn.silence_numpy_warnings()

from . import autograd, cuda  # noqa: E402
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .backend import device
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                       linspace, ones, ones_like, tensor, zeros, zeros_like)
from .dtypes import (bool, double, dtype, float, float16, float32, float64, get_default_dtype,
                     half, int, int8, int16, int32, int64, long, set_default_dtype, short, uint8)
from .ops import (activations, adaptive, arithmetic, assignment, conv, conversion, indexing,
                  linalg, nondifferentiable, pointwise, pooling, reductions, selection, shape)
from .ops.declare import exported
from .printing import set_printoptions
from .random import manual_seed, rand, rand_like, randint, randn, randn_like, randperm
from .tensor import Parameter, Size, Tensor

# Each operation declares its names where it is defined (``@op``); these are its exports.
globals().update(exported())
del activations, adaptive, arithmetic, assignment, conv, conversion, indexing, linalg
del nondifferentiable, pointwise, pooling, reductions, selection, shape, exported

from . import nn, optim  # noqa: E402

__version__ = "0.1.0"


def is_tensor(obj):
    """Whether ``obj`` is an nbgrad tensor (or a ``Parameter``)."""
    return isinstance(obj, Tensor)


def numel(input):
    """The number of elements of ``input``."""
    return input.numel()
