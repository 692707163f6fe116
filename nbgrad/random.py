"""Random tensors from one seeded generator (``manual_seed``).

The numbers come from NumPy's PCG64 generator, so they are reproducible within nbgrad
but differ from PyTorch's for the same seed.
"""

import numpy as np

from . import dtypes
from .creation import _default, _finish, _like, _size

_generator = np.random.default_rng(0)


def manual_seed(seed):
    """Reseed the generator behind ``rand``, ``randn``, ``randint`` and ``nn.init``."""
    global _generator
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"manual_seed expected an int, got {type(seed).__name__}")
    _generator = np.random.default_rng(int(seed))
    return _generator


def generator():
    return _generator


def _float(dtype, name):
    dtype = _default(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f'"{name}" not implemented for \'{dtype._tensor_type[:-6]}\'')
    return dtypes.to_numpy_dtype(dtype)


def rand(*size, dtype=None, device=None, requires_grad=False):
    """Uniform on [0, 1)."""
    data = _generator.random(_size(size)).astype(_float(dtype, "check_uniform_bounds"))
    return _finish(data, None, device, requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False):
    """Standard normal."""
    data = _generator.standard_normal(_size(size)).astype(_float(dtype, "normal_kernel_cpu"))
    return _finish(data, None, device, requires_grad)


def randint(low, high=None, size=None, *, dtype=None, device=None, requires_grad=False):
    """Integers uniform on [low, high)."""
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if high <= low:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    data = _generator.integers(low, high, _size((size,)), dtype=np.int64)
    return _finish(data, dtypes.int64 if dtype is None else dtype, device, requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    """Uniform values in [0, 1) with ``input``'s shape, and its dtype and device unless given."""
    return _like("rand_like", input, dtype, device, requires_grad, rand)


def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    """Standard normal values with ``input``'s shape, and its dtype and device unless given."""
    return _like("randn_like", input, dtype, device, requires_grad, randn)


def randperm(n, *, dtype=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1`` (int64 by default)."""
    return _finish(_generator.permutation(n).astype(np.int64),
                   dtypes.int64 if dtype is None else dtype, device, requires_grad)
