"""Random tensors from one seeded generator (``manual_seed``).

The numbers come from NumPy's PCG64 generator, so they are reproducible within nbgrad
but differ from PyTorch's for the same seed.
"""

import numpy as np

from . import dtypes
from .creation import (_allocate, _default, _finish, _is_int, _keywords, _like, _size,
                       _size_sequence)

_generator = np.random.default_rng(0)


def manual_seed(seed):
    """Reseed the generator behind ``rand``, ``randn``, ``randint`` and ``nn.init``.

    As in PyTorch the seed is ``int(seed)`` and may be negative (it is taken modulo 2**64).
    """
    global _generator
    seed = int(seed)  # PyTorch's own conversion: a str raises ValueError, 1.7 is 1
    if not -2 ** 63 <= seed < 2 ** 64:
        raise ValueError("Overflow when unpacking long long")
    _generator = np.random.default_rng(seed % 2 ** 64)
    return _generator


def generator():
    return _generator


def _float(dtype, name):
    dtype = _default(dtype)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{name}" not implemented for \'{dtype._tensor_type[:-6]}\'')
    return dtypes.to_numpy_dtype(dtype)


def _random(op, draw, size, dtype, device, requires_grad, kernel):
    """``draw(shape)`` (float64 values) as a tensor of the floating ``dtype``."""
    np_dtype = _float(_keywords(op, dtype, device, requires_grad), kernel)
    shape = _size(size, op)
    data = _allocate(lambda shape, d: draw(shape).astype(d), shape, np_dtype)
    return _finish(data, None, device, requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False):
    """Uniform on [0, 1)."""
    return _random("rand", _generator.random, size, dtype, device, requires_grad,
                   "check_uniform_bounds")


def randn(*size, dtype=None, device=None, requires_grad=False):
    """Standard normal."""
    return _random("randn", _generator.standard_normal, size, dtype, device, requires_grad,
                   "normal_kernel_cpu")


def randint(low, high=None, size=None, *, dtype=None, device=None, requires_grad=False):
    """Integers uniform on [low, high)."""
    position = 3  # of size, for the messages
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError("randint() missing required argument 'size'")
        low, high, size, position = 0, low, high, 2
    elif high is None:
        low, high = 0, low
    dtype = _keywords("randint", dtype, device, requires_grad)
    shape = _size_sequence(size, "randint", position)
    if high <= low:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    data = _allocate(lambda shape, d: _generator.integers(low, high, shape, dtype=d), shape,
                     np.dtype(np.int64))
    return _finish(data, dtypes.int64 if dtype is None else dtype, device, requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    """Uniform values in [0, 1) with ``input``'s shape, and its dtype and device unless given."""
    return _like("rand_like", input, dtype, device, requires_grad, rand)


def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    """Standard normal values with ``input``'s shape, and its dtype and device unless given."""
    return _like("randn_like", input, dtype, device, requires_grad, randn)


def randperm(n, *, dtype=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1`` (int64 by default)."""
    if not _is_int(n):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not {dtypes.type_name(n)}")
    dtype = _keywords("randperm", dtype, device, requires_grad)
    (n,) = _size((n,), "randperm")
    return _finish(_generator.permutation(n).astype(np.int64),
                   dtypes.int64 if dtype is None else dtype, device, requires_grad)
