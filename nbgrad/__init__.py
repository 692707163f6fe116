"""nbgrad: PyTorch's autograd, explained and re-implemented on NumPy (and CuPy).

    >>> import nbgrad as ng
    >>> x = ng.tensor([1., 2.], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])

Where to read: ``tensor.py`` (what a tensor holds), ``autograd/`` (the graph and the
engine), ``ops/`` (each operation, one block with its derivative), ``nn/`` and ``optim/``.
"""

from __future__ import annotations

from types import ModuleType as _ModuleType

from . import warn
from .warn import is_warn_always_enabled, set_warn_always

# NumPy's RuntimeWarnings from nbgrad's own modules are ignored, as PyTorch is silent
# about the inf and nan it computes (warn.py says why this costs nothing per operation).
warn.silence_numpy_warnings()

from . import missing as _missing  # noqa: E402
from . import autograd, backends, cuda  # noqa: E402
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .core.grad_mode import is_inference_mode_enabled
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .backend import device, get_default_device, set_default_device
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                       linspace, ones, ones_like, tensor, zeros, zeros_like)
from .dtypes import (bool, double, dtype, float, float16, float32, float64, get_default_dtype,
                     half, int, int8, int16, int32, int64, long, set_default_dtype, short, uint8)
from .interop import from_dlpack
from .legacy import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,
                     IntTensor, LongTensor, ShortTensor)
from .ops import (activations, adaptive, arithmetic, assignment, conv, conversion, gather_scatter,
                  indexing, linalg, nondifferentiable, pairwise, pieces, pointwise, pooling,
                  products, rearrange, reductions, scans, selection, shape, sorting, special,
                  statistics)
from .ops.declare import exported
from .ops.out import OUT, with_out
from .ops.reductions import return_types
from .printing import set_printoptions
from .random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,
                     seed, set_rng_state)
from .random import fills as _fills  # noqa: F401  (binds Tensor.normal_, uniform_, ...)
from .random.sampling import (bernoulli, multinomial, normal, poisson, rand, rand_like, randint,
                              randint_like, randn, randn_like, randperm)
from .serialization import load, save
from .tensor import Parameter, Size, Tensor

# Each operation declares its names where it is defined (``@op``); these are its exports.
globals().update(_ops := exported())
# out= for the other functions whose PyTorch function takes it: creation, random (ops/out.py)
globals().update({name: with_out(value, name) for name, value in globals().items()
                  if name in OUT and name not in _ops})
del activations, adaptive, arithmetic, assignment, conv, conversion, gather_scatter, indexing
del linalg, nondifferentiable, pairwise, pieces, pointwise, pooling, products, rearrange
del reductions, scans, selection, shape, sorting, special, statistics, exported
del OUT, with_out, _ops

from math import e, inf, nan, pi  # noqa: E402, F401 - PyTorch's nbgrad.inf, nan, pi, e

from . import linalg, nn, optim, utils  # noqa: E402

__version__ = "0.1.0"


def is_tensor(obj: object) -> bool:
    """Whether ``obj`` is an nbgrad tensor (or a ``Parameter``).

    Parameters
    ----------
    obj : object

    Returns
    -------
    bool
    """
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    """The number of elements of ``input``.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    int
    """
    return input.numel()


# The functions, classes, dtypes and constants; submodules are imported by name, as in
# PyTorch, and the modules nbgrad is built of (``ops``, ``creation``, ...) are not exports.
__all__ = sorted(name for name, value in globals().items()
                 if not name.startswith("_") and name != "annotations"  # the __future__ import
                 and not isinstance(value, _ModuleType))

# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
