"""nbgrad: PyTorch's autograd, explained and re-implemented on NumPy (and CuPy).

    >>> import nbgrad as ng
    >>> x = ng.tensor([1., 2.], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])

Where to read: ``tensor.py`` (what a tensor holds), ``autograd/`` (the graph and the
engine), ``ops/`` (each operation with its derivative), ``nn/`` and ``optim/``.
"""

from . import autograd  # first: the tensor module needs autograd's node definitions
from . import cuda
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .backend import device
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                       linspace, ones, ones_like, tensor, zeros, zeros_like)
from .dtypes import (bool, double, dtype, float, float16, float32, float64, get_default_dtype,
                     half, int, int8, int16, int32, int64, long, set_default_dtype, short, uint8)
from .ops import methods as _methods
from .ops.activations import log_softmax, relu, sigmoid, softmax, tanh
from .ops.arithmetic import (abs, add, clamp, clip, cos, div, exp, floor_divide, log, masked_fill,
                             maximum, minimum, mul, neg, pow, reciprocal, rsub, sin, sqrt, square,
                             sub, true_divide, where)
from .ops.linalg import dot, matmul, mm, mv
from .ops.nondifferentiable import (all, allclose, any, argmax, argmin, ceil, eq, equal, floor,
                                    ge, gt, isclose, isfinite, isinf, isnan, le, logical_not, lt,
                                    ne, round, sign, trunc)
from .ops.reductions import amax, amin, logsumexp, max, mean, min, norm, std, sum, var
from .ops.shape import (cat, clone, concat, expand, flatten, permute, reshape, squeeze, stack, t,
                        transpose, unsqueeze)
from .printing import set_printoptions
from .random import manual_seed, rand, rand_like, randint, randn, randn_like, randperm
from .tensor import Parameter, Size, Tensor

_methods.bind()

from . import nn, optim  # noqa: E402  (they use the bound tensor methods)

__version__ = "0.1.0"


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()
