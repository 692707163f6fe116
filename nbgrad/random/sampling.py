"""Random tensors: ``rand``, ``randn``, ``randint``, ``randperm``, ``normal``, ``bernoulli``,
``multinomial``, ``poisson`` and the ``*_like`` forms.

Each takes ``generator=`` (``default_generator`` when not given, which ``manual_seed``
reseeds). Values are drawn with NumPy on the CPU and moved to the device. Sampling is not
differentiable: a result that depends on a tensor requiring grad records a node giving that
tensor a zero gradient, as PyTorch's ``derivatives.yaml`` says (``NormalBackward3`` ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import backend, dtypes
from ..autograd.graph import record, should_record
from ..creation import (_allocate, _default, _finish, _is_int, _keywords, _like, _size,
                        _size_sequence)
from ..ops.elementwise import NotImplementedBackward
from ..ops.methods import tensor_method
from ..ops.operands import broadcast_error
from ..tensor import Tensor
from .generator import Generator, numpy_generator
from .zero_gradient import NoReparameterisation, record_sample

if TYPE_CHECKING:
    from ..backend import device
    from ..dtypes import dtype
    from ..types import Shape

__all__ = [
    "bernoulli",
    "multinomial",
    "normal",
    "poisson",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
]


def _float(dtype, kernel):
    """The NumPy dtype of a floating ``dtype`` (the default one for ``None``), or PyTorch's
    refusal naming the ``kernel`` that has no integer version."""
    dtype = _default(dtype)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype._tensor_type[:-6]}\'')
    return dtypes.to_numpy_dtype(dtype)


def _shape(op, sizes, size):
    """The shape given as ``rand(2, 3)``, ``rand((2, 3))`` or ``rand(size=(2, 3))``."""
    if size is None:
        if not sizes:
            raise TypeError(f"{op}() received an invalid combination of arguments - got (), but "
                            "expected a size: (tuple of ints size, *, Generator generator, ...)")
        return _size(sizes, op)
    if sizes:
        raise TypeError(f"{op}() received an invalid combination of arguments - got sizes "
                        "and size= together")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{op}(): argument 'size' must be tuple of ints, not "
                        f"{dtypes.type_name(size)}")
    return _size(tuple(size), op)


def _random(op, draw, shape, generator, dtype, device, requires_grad, kernel):
    """``draw(numpy_generator, shape)`` (float64 values) as a tensor of the floating ``dtype``."""
    np_dtype = _float(_keywords(op, dtype, device, requires_grad), kernel)
    g = numpy_generator(generator, device, op)
    data = _allocate(lambda shape, d: np.asarray(draw(g, shape), dtype=d), shape, np_dtype)
    return _finish(data, None, device, requires_grad)


def rand(*sizes: int | Shape, size: Shape | None = None, generator: Generator | None = None,
         dtype: dtype | None = None, device: str | device | None = None,
         requires_grad: bool = False) -> Tensor:
    """Values drawn uniformly from ``[0, 1)``.

    Parameters
    ----------
    *sizes : int or sequence of ints
        The shape, as ``rand(2, 3)`` or ``rand((2, 3))``.
    size : sequence of ints, optional
        The shape as a keyword, instead of ``*sizes``.
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).
    dtype, device, requires_grad
        As for every creation function; the dtype must be floating (default float32).

    Returns
    -------
    Tensor
        A new leaf tensor.
    """
    return _random("rand", lambda g, shape: g.random(shape), _shape("rand", sizes, size),
                   generator, dtype, device, requires_grad, "check_uniform_bounds")


def randn(*sizes: int | Shape, size: Shape | None = None, generator: Generator | None = None,
          dtype: dtype | None = None, device: str | device | None = None,
          requires_grad: bool = False) -> Tensor:
    """Values drawn from the standard normal distribution (mean 0, variance 1).

    Parameters
    ----------
    *sizes : int or sequence of ints
        The shape, as ``randn(2, 3)`` or ``randn((2, 3))``.
    size : sequence of ints, optional
        The shape as a keyword, instead of ``*sizes``.
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).
    dtype : nbgrad.dtype, optional
        Floating (default: the default float dtype).
    device : str or nbgrad.device, optional
        Default: ``nbgrad.get_default_device()``.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).

    Returns
    -------
    Tensor
        A new leaf tensor.
    """
    return _random("randn", lambda g, shape: g.standard_normal(shape),
                   _shape("randn", sizes, size), generator, dtype, device, requires_grad,
                   "normal_kernel_cpu")


def randint(low: int = 0, high: int | None = None, size: Shape | None = None, *,
            generator: Generator | None = None, dtype: dtype | None = None,
            device: str | device | None = None, requires_grad: bool = False) -> Tensor:
    """Integers drawn uniformly from ``[low, high)``.

    Parameters
    ----------
    low : int, optional
        The lowest value (0 by default): ``randint(10, (3,))`` draws from ``[0, 10)``.
    high : int
        One above the highest value.
    size : sequence of ints
        The shape (required).
    generator, dtype, device, requires_grad
        As for ``rand``; the dtype is int64 unless given.

    Returns
    -------
    Tensor
        A new leaf tensor.
    """
    position = 3  # of size, for the messages
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError("randint() missing required argument 'size'")
        low, high, size, position = 0, low, high, 2
    elif high is None:
        low, high = 0, low
    dtype = _keywords("randint", dtype, device, requires_grad)
    shape = _size_sequence(size, "randint", position)
    return _integers("randint", low, high, shape, generator, dtype, device, requires_grad)


def _integers(op, low, high, shape, generator, dtype, device, requires_grad):
    if high <= low:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    g = numpy_generator(generator, device, op)
    data = _allocate(lambda shape, d: g.integers(low, high, shape, dtype=d), shape,
                     np.dtype(np.int64))
    return _finish(data, dtypes.int64 if dtype is None else dtype, device, requires_grad)


def _like_with(op, input, generator, dtype, device, requires_grad, make):
    """``make(shape, generator=..., ...)`` for a ``*_like`` function: ``input``'s shape, and
    its dtype and device unless given."""
    return _like(op, input, dtype, device, requires_grad,
                 lambda shape, **kw: make(shape, generator=generator, **kw))


def rand_like(input: Tensor, *, generator: Generator | None = None,
              dtype: dtype | None = None, device: str | device | None = None,
              requires_grad: bool = False) -> Tensor:
    """Uniform values in [0, 1) with ``input``'s shape, and its dtype and device unless given.

    Parameters
    ----------
    input : Tensor
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).
    dtype : nbgrad.dtype, optional
        Floating; default: ``input``'s.
    device : str or nbgrad.device, optional
        Default: ``input``'s.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).

    Returns
    -------
    Tensor
        A new leaf tensor.
    """
    return _like_with("rand_like", input, generator, dtype, device, requires_grad, rand)


def randn_like(input: Tensor, *, generator: Generator | None = None,
               dtype: dtype | None = None, device: str | device | None = None,
               requires_grad: bool = False) -> Tensor:
    """Standard normal values with ``input``'s shape, and its dtype and device unless given.

    Parameters
    ----------
    input : Tensor
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).
    dtype : nbgrad.dtype, optional
        Floating; default: ``input``'s.
    device : str or nbgrad.device, optional
        Default: ``input``'s.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).

    Returns
    -------
    Tensor
        A new leaf tensor.
    """
    return _like_with("randn_like", input, generator, dtype, device, requires_grad, randn)


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *,
                 generator: Generator | None = None, dtype: dtype | None = None,
                 device: str | device | None = None,
                 requires_grad: bool = False) -> Tensor:
    """Integers from ``[low, high)`` with ``input``'s shape, and its dtype and device unless given.

    Parameters
    ----------
    input : Tensor
    low : int
        The lowest value; with ``high`` omitted, the bound (``randint_like(x, 10)`` draws
        from ``[0, 10)``).
    high : int, optional
        One above the highest value.
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).
    dtype : nbgrad.dtype, optional
        Default: ``input``'s (a floating dtype holds the integers as floats).
    device : str or nbgrad.device, optional
        Default: ``input``'s.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).

    Returns
    -------
    Tensor
        A new leaf tensor.

    Raises
    ------
    RuntimeError
        ``high <= low``.
    """
    if high is None:
        low, high = 0, low
    return _like("randint_like", input, dtype, device, requires_grad,
                 lambda shape, dtype, device, requires_grad: _integers(
                     "randint_like", low, high, tuple(shape), generator, dtype, device,
                     requires_grad))


def randperm(n: int, *, generator: Generator | None = None, dtype: dtype | None = None,
             device: str | device | None = None, requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0, 1, ..., n-1``.

    Parameters
    ----------
    n : int
        Non-negative.
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).
    dtype : nbgrad.dtype, optional
        Default: int64.
    device : str or nbgrad.device, optional
        Default: ``nbgrad.get_default_device()``.
    requires_grad : bool
        Make it a leaf that autograd tracks (floating dtypes only).

    Returns
    -------
    Tensor
        A new one-dimensional leaf tensor of ``n`` values.

    Raises
    ------
    TypeError
        ``n`` is not an int.
    RuntimeError
        ``n`` is negative.
    """
    if not _is_int(n):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not {dtypes.type_name(n)}")
    dtype = _keywords("randperm", dtype, device, requires_grad)
    (n,) = _size((n,), "randperm")
    g = numpy_generator(generator, device, "randperm")
    return _finish(g.permutation(n).astype(np.int64),
                   dtypes.int64 if dtype is None else dtype, device, requires_grad)


# -- sampling from given parameters: a zero gradient for the parameters --------------------
_NUMBERS = (int, float, np.integer, np.floating)


def _invalid_combination(op, arguments):
    """PyTorch's TypeError for arguments that match none of ``op``'s forms."""
    names = ", ".join("Tensor" if isinstance(a, Tensor) else dtypes.type_name(a)
                      for a in arguments)
    return TypeError(f"{op}() received an invalid combination of arguments - got ({names}), "
                     "but expected one of: (Tensor mean, Tensor std), (Tensor mean, float std), "
                     "(float mean, Tensor std), (float mean, float std, tuple of ints size)")


def _tensor_input(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{dtypes.type_name(input)}")


def _cpu(t):
    return backend.to_device(t._data, "cpu")


class NormalBackward1(NoReparameterisation):
    """``normal(mean_tensor, std_float)``: zero for ``mean``."""

    __slots__ = ()


class NormalBackward2(NoReparameterisation):
    """``normal(mean_float, std_tensor)``: zero for ``std``."""

    __slots__ = ()


class NormalBackward3(NoReparameterisation):
    """``normal(mean_tensor, std_tensor)``: zero for both."""

    __slots__ = ()


def normal(mean: Tensor | float, std: Tensor | float = 1.0, size: Shape | None = None, *,
           generator: Generator | None = None, dtype: dtype | None = None,
           device: str | device | None = None, requires_grad: bool = False) -> Tensor:
    """Samples from normal distributions, in PyTorch's four forms.

    * ``normal(mean, std)`` with two tensors: their broadcast shape, ``mean``'s dtype;
    * ``normal(mean, std=1.0)`` with a tensor ``mean`` and a number ``std``;
    * ``normal(mean, std)`` with a number ``mean`` and a tensor ``std``;
    * ``normal(mean, std, size)`` with two numbers: a new leaf (``dtype=``, ``device=``,
      ``requires_grad=`` as for ``randn``).

    Parameters
    ----------
    mean, std : Tensor or float
        The means and standard deviations (``std >= 0`` everywhere).
    size : sequence of ints, optional
        The shape, only with two numbers.
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).
    dtype, device, requires_grad
        Only with two numbers, as for ``randn``; with a tensor parameter the result has its
        dtype and device.

    Returns
    -------
    Tensor
        The samples. With a tensor parameter that requires grad the result records
        ``NormalBackward1/2/3``, which gives the parameters a zero gradient (PyTorch does not
        reparameterise: use ``mean + std * randn_like(std)`` for a pathwise gradient).
    """
    given = (mean, std) if size is None else (mean, std, size)
    if any(isinstance(v, (str, bytes)) or not isinstance(v, (Tensor, *_NUMBERS))
           for v in (mean, std)):
        raise _invalid_combination("normal", given)
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    if not tensors:
        if not isinstance(size, (tuple, list)):  # two numbers need a size
            raise _invalid_combination("normal", given)
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        return _random("normal", lambda g, shape: g.normal(mean, std, shape),
                       _size_sequence(size, "normal", 3), generator, dtype, device,
                       requires_grad, "normal_kernel_cpu")
    if size is not None:  # a size only with two numbers
        raise _invalid_combination("normal", given)
    if isinstance(std, Tensor):
        if std._data.size and bool((std._data < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    # the result has mean's dtype (std's when mean is a number), as PyTorch's
    np_dtype = _float(dtypes.from_numpy_dtype(tensors[0]._data.dtype), "normal_kernel_cpu")
    try:
        shape = np.broadcast_shapes(*(t.shape for t in tensors))
    except ValueError:
        raise broadcast_error(*(t.shape for t in tensors)) from None
    means = _cpu(mean) if isinstance(mean, Tensor) else mean
    stds = _cpu(std) if isinstance(std, Tensor) else std
    g = numpy_generator(generator, tensors[0].device, "normal")
    data = (means + stds * g.standard_normal(shape)).astype(np_dtype, copy=False)
    out = Tensor._make(backend.to_device(np.asarray(data), tensors[0].device))
    node_cls = (NormalBackward3 if len(tensors) == 2
                else NormalBackward1 if isinstance(mean, Tensor) else NormalBackward2)
    return record_sample(node_cls, out, (mean, std))


class BernoulliBackward0(NoReparameterisation):
    """``bernoulli(p)``: zero for the probabilities."""

    __slots__ = ()


def _check_probability(p, op):
    if not 0 <= p <= 1:
        raise RuntimeError(f"{op} expects p to be in [0, 1], but got p={p}")


def _check_probabilities(data):
    if data.size and not bool(((data >= 0) & (data <= 1)).all()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")


@tensor_method()
def bernoulli(input: Tensor, p: float | None = None, *,
              generator: Generator | None = None) -> Tensor:
    """Ones with the probabilities in ``input`` (zeros otherwise), of ``input``'s dtype.

    Parameters
    ----------
    input : Tensor
        Probabilities in [0, 1] (floating).
    p : float, optional
        One probability for every element instead; ``input`` then gives only the shape and
        dtype, and the result records PyTorch's ``NotImplemented`` node (no derivative).
    generator : Generator, optional
        Where the numbers come from.

    Returns
    -------
    Tensor
        The samples; with ``input`` requiring grad, ``BernoulliBackward0`` (a zero gradient).
    """
    _tensor_input(input, "bernoulli")
    g = numpy_generator(generator, input.device, "bernoulli")
    data = _cpu(input)
    if p is not None:
        if isinstance(p, (str, bytes)) or not isinstance(p, _NUMBERS):
            raise TypeError(f"bernoulli() received an invalid combination of arguments - got "
                            f"(Tensor, {dtypes.type_name(p)}), but expected (Tensor input, "
                            "float p)")
        _check_probability(p, "bernoulli_")
        out = Tensor._make(backend.to_device(np.asarray(g.random(data.shape) < p, data.dtype),
                                             input.device))
        if should_record(input):
            record(NotImplementedBackward, out, (input,), op="bernoulli")
        return out
    if data.dtype.kind != "f":
        raise NotImplementedError('"bernoulli_tensor_cpu_p_" not implemented for '
                                  f"'{dtypes.from_numpy_dtype(data.dtype)._tensor_type[:-6]}'")
    _check_probabilities(data)
    out = Tensor._make(backend.to_device(np.asarray(g.random(data.shape) < data, data.dtype),
                                         input.device))
    return record_sample(BernoulliBackward0, out, (input,))


class PoissonBackward0(NoReparameterisation):
    """``poisson(rates)``: zero for the rates."""

    __slots__ = ()


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Counts drawn from Poisson distributions with the rates in ``input`` (of its dtype).

    Parameters
    ----------
    input : Tensor
        Non-negative rates (floating).
    generator : Generator, optional
        Where the numbers come from (positional too, as in PyTorch).

    Returns
    -------
    Tensor
        The counts as floats; with ``input`` requiring grad, ``PoissonBackward0`` (zero).
    """
    _tensor_input(input, "poisson")
    data = _cpu(input)
    if data.dtype.kind != "f":
        raise NotImplementedError('"poisson_cpu" not implemented for '
                                  f"'{dtypes.from_numpy_dtype(data.dtype)._tensor_type[:-6]}'")
    if data.size and not bool((data >= 0).all()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    g = numpy_generator(generator, input.device, "poisson")
    out = Tensor._make(backend.to_device(np.asarray(g.poisson(data), data.dtype), input.device))
    return record_sample(PoissonBackward0, out, (input,))


@tensor_method()
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    """Indices drawn from the categorical distributions given by the rows of ``input``.

    Parameters
    ----------
    input : Tensor
        Non-negative weights (1-D, or 2-D with one distribution per row); they need not sum
        to one.
    num_samples : int
        How many indices to draw from each distribution.
    replacement : bool
        Whether an index may be drawn more than once. Without replacement ``num_samples``
        may not exceed the number of categories.
    generator : Generator, optional
        Where the numbers come from.

    Returns
    -------
    Tensor
        int64 indices of shape ``(num_samples,)`` or ``(rows, num_samples)``; no gradient.
    """
    _tensor_input(input, "multinomial")
    if not _is_int(num_samples):
        raise TypeError("multinomial(): argument 'num_samples' (position 2) must be int, not "
                        f"{dtypes.type_name(num_samples)}")
    data = _cpu(input)
    if data.ndim not in (1, 2):  # PyTorch checks this before the dtype
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if data.dtype.kind != "f":
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{dtypes.from_numpy_dtype(data.dtype)._tensor_type[:-6]}")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and n > data.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if data.shape[-1] > 2 ** 24:  # the largest count a float32 holds exactly
        raise RuntimeError("number of categories cannot exceed 2^24")
    rows = data.reshape(-1, data.shape[-1]).astype(np.float64)
    if rows.size and not bool((np.isfinite(rows) & (rows >= 0)).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    cumulative = np.cumsum(rows, axis=1)
    if rows.shape[1] == 0 or bool((cumulative[:, -1] <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    g = numpy_generator(generator, input.device, "multinomial")
    picks = (_with_replacement if replacement else _without_replacement)(g, rows, cumulative, n)
    picks = picks.reshape(*data.shape[:-1], n).astype(np.int64)
    return Tensor._make(backend.to_device(picks, input.device))


def _with_replacement(g, rows, cumulative, n):
    """Inverse CDF: for each uniform draw, the first category whose cumulative weight
    exceeds it (the last weight is the total, so a category of weight zero is never hit)."""
    draws = g.random((len(rows), n)) * cumulative[:, -1:]
    picks = np.empty((len(rows), n), np.int64)
    for i, (c, u) in enumerate(zip(cumulative, draws)):
        picks[i] = np.minimum(np.searchsorted(c, u, side="right"), len(c) - 1)
    return picks


def _without_replacement(g, rows, cumulative, n):
    """The ``n`` categories with the smallest exponential(1) / weight: in distribution, ``n``
    successive draws each without the ones drawn before (weight zero: never, or last)."""
    keys = np.full(rows.shape, np.inf)
    np.divide(g.exponential(size=rows.shape), rows, out=keys, where=rows > 0)
    return np.argsort(keys, axis=1, kind="stable")[:, :n]
