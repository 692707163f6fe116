"""Filling a tensor in place with random numbers: ``normal_``, ``uniform_``, ``bernoulli_``,
``random_``, ``exponential_``, ``cauchy_``, ``log_normal_`` and ``geometric_``.

Each follows the in-place rules of every in-place method (``ops/inplace.py``, chapter 05):
the leaf rule, the version bump, and, on a tensor in the graph, a node of PyTorch's name
(``NormalBackward0`` ...) giving the old values (and a tensor ``p``) a zero gradient.
"""

from __future__ import annotations

import numpy as np

from .. import backend, dtypes
from ..ops.inplace import apply_inplace
from ..ops.methods import tensor_method
from ..tensor import Tensor
from .generator import Generator, numpy_generator
from .zero_gradient import NoReparameterisation, record_sample

__all__ = []  # only Tensor methods

_NUMBERS = (int, float, np.integer, np.floating)

# the C++ type names some of PyTorch's messages use
_C_NAMES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short", "int32": "int",
            "int64": "long int", "bool": "bool", "float16": "c10::Half", "float32": "float",
            "float64": "double"}


def _sampled(input, node_cls, g, draw, *parameters):
    """``draw(g, shape)`` (``g`` a NumPy generator) cast to ``input``'s dtype, shaped like it:
    the random fill out of place, which ``apply_inplace`` writes back."""
    data = np.asarray(draw(g, tuple(input.shape))).astype(input._data.dtype, copy=False)
    return record_sample(node_cls, Tensor._make(backend.to_device(data, input.device)),
                         (input, *parameters))


def _fill(t, op, node_cls, generator, draw, *parameters):
    g = numpy_generator(generator, t.device, op)
    return apply_inplace(t, _sampled, node_cls, g, draw, *parameters)


def _floats(op, **arguments):
    """PyTorch's TypeError for an argument of ``op`` that is not a number (in order)."""
    for position, (name, value) in enumerate(arguments.items(), 1):
        if isinstance(value, (str, bytes)) or not isinstance(value, _NUMBERS):
            raise TypeError(f"{op}(): argument '{name.rstrip('_')}' (position {position}) must be "
                            f"float, not {dtypes.type_name(value)}")


def _type(t):
    return dtypes.from_numpy_dtype(t._data.dtype)


def _require_floating(t, kernel):
    if t._data.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type(t)._tensor_type[:-6]}\'')


def _require_continuous(t, distribution, c_names=False):
    if t._data.dtype.kind != "f":
        name = _C_NAMES[_type(t).name] if c_names else _type(t)._tensor_type[:-6]
        raise RuntimeError(f"{distribution} distribution is a continuous probability "
                           f"distribution. dtype must be a floating point but you specified {name}")


class NormalBackward0(NoReparameterisation):
    """``normal_``: the old values get a zero gradient."""

    __slots__ = ()


@tensor_method()
def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *,
            generator: Generator | None = None) -> Tensor:
    """Fill in place with samples of ``N(mean, std**2)``.

    Parameters
    ----------
    mean, std : float
        The distribution (``std >= 0``).
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).

    Returns
    -------
    Tensor
        This tensor (floating only), its version bumped.
    """
    _floats("normal_", mean=mean, std=std)
    _require_floating(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    return _fill(self, "normal_", NormalBackward0, generator,
                 lambda g, shape: g.normal(mean, std, shape))


class UniformBackward0(NoReparameterisation):
    """``uniform_``: the old values get a zero gradient."""

    __slots__ = ()


@tensor_method()
def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *,
             generator: Generator | None = None) -> Tensor:
    """Fill in place with values drawn uniformly from ``[from_, to)``.

    PyTorch's parameter is ``from`` (a Python keyword): pass the bounds by position, or as
    ``from_=``, as PyTorch's own stubs spell it.

    Parameters
    ----------
    from_, to : float
        The bounds, ``from_ <= to``, within the dtype's range.
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).

    Returns
    -------
    Tensor
        This tensor (floating only), its version bumped.
    """
    _floats("uniform_", from_=from_, to=to)
    _require_floating(self, "check_uniform_bounds")
    largest = float(np.finfo(self._data.dtype).max)
    c_name = _C_NAMES[_type(self).name]
    for name, value in (("from", from_), ("to", to)):
        if not -largest <= value <= largest:
            raise RuntimeError(f"{name} is out of bounds for {c_name}")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_:g} > to={to:g}")
    if to - from_ > largest:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{c_name}>::max(), "
                           f"but found to={to:g} and from={from_:g} which result in to-from to "
                           "exceed the limit")
    return _fill(self, "uniform_", UniformBackward0, generator,
                 lambda g, shape: g.uniform(from_, to, shape))


class BernoulliBackward1(NoReparameterisation):
    """``bernoulli_(p)`` with a tensor ``p``: zero for the old values and for ``p``."""

    __slots__ = ()


class BernoulliBackward2(NoReparameterisation):
    """``bernoulli_(p)`` with a number ``p``: zero for the old values."""

    __slots__ = ()


@tensor_method()
def bernoulli_(self: Tensor, p: float | Tensor = 0.5, *,
               generator: Generator | None = None) -> Tensor:
    """Fill in place with ones, each with probability ``p``, and zeros.

    Parameters
    ----------
    p : float or Tensor
        One probability in [0, 1], or a tensor of them that broadcasts to this tensor's shape.
    generator : Generator, optional
        Where the numbers come from.

    Returns
    -------
    Tensor
        This tensor (any dtype), its version bumped.
    """
    if not isinstance(p, Tensor):
        if isinstance(p, (str, bytes)) or not isinstance(p, _NUMBERS):
            raise TypeError(f"bernoulli_() received an invalid combination of arguments - got "
                            f"({dtypes.type_name(p)}), but expected (float p) or (Tensor p)")
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        return _fill(self, "bernoulli_", BernoulliBackward2, generator,
                     lambda g, shape: g.random(shape) < p)
    probabilities = backend.to_device(p._data, "cpu")
    if probabilities.size and not bool(((probabilities >= 0) & (probabilities <= 1)).all()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    try:
        probabilities = np.broadcast_to(probabilities, self.shape)
    except ValueError:
        raise RuntimeError(_expand_message(self.shape, probabilities.shape)) from None
    return _fill(self, "bernoulli_", BernoulliBackward1, generator,
                 lambda g, shape: g.random(shape) < probabilities, p)


def _expand_message(target, shape):
    """PyTorch's ``expand`` error for ``shape`` that does not broadcast to ``target``."""
    target, shape = list(target), list(shape)
    for dim in range(-1, -len(shape) - 1, -1):
        if len(target) < -dim or shape[dim] not in (1, target[dim]):
            at = len(target) + dim
            wanted = target[dim] if len(target) >= -dim else None
            return (f"The expanded size of the tensor ({wanted}) must match the existing size "
                    f"({shape[dim]}) at non-singleton dimension {at}.  Target sizes: {target}."
                    f"  Tensor sizes: {shape}")
    return f"expand: {shape} to {target}"


class RandomBackward0(NoReparameterisation):
    """``random_(from, to)``: the old values get a zero gradient."""

    __slots__ = ()


class RandomBackward1(NoReparameterisation):
    """``random_(to)``: the old values get a zero gradient."""

    __slots__ = ()


class RandomBackward2(NoReparameterisation):
    """``random_()``: the old values get a zero gradient."""

    __slots__ = ()


_ONE_BOUND = object()  # ``random_(5)`` (``to`` only) is not ``random_(5, None)``


def _dtype_range(t):
    """The integers ``random_()`` draws for ``t``'s dtype, both ends included: those its
    mantissa holds exactly for a floating dtype, all of them for an integer one."""
    dtype = t._data.dtype
    if dtype.kind == "b":
        return 0, 1
    if dtype.kind == "f":
        return 0, 2 ** (np.finfo(dtype).nmant + 1)
    return 0, int(np.iinfo(dtype).max)


def _check_in_range(t, name, value):
    dtype = t._data.dtype
    if dtype.kind == "f":
        low, high = -(2 ** (np.finfo(dtype).nmant + 1)), 2 ** (np.finfo(dtype).nmant + 1)
    elif dtype.kind == "b":
        low, high = 0, 1
    else:
        low, high = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    if not low <= value <= high:
        raise RuntimeError(f"{name} is out of bounds for {_C_NAMES[_type(t).name]}")


@tensor_method()
def random_(self: Tensor, from_: int | None = None,
            to: int | None = _ONE_BOUND,  # type: ignore[assignment]  # the sentinel: no `to`
            *, generator: Generator | None = None) -> Tensor:
    """Fill in place with integers drawn uniformly, in PyTorch's three forms.

    * ``random_()``: from ``[0, 2**mantissa]`` for a floating dtype (2**24 for float32),
      ``[0, max]`` for an integer one;
    * ``random_(to)``: from ``[0, to)``;
    * ``random_(from_, to)``: from ``[from_, to)``, or ``[from_, max]`` with ``to=None``.

    Parameters
    ----------
    from_ : int, optional
        The lowest value; alone, it is ``to`` (``random_(10)`` draws from ``[0, 10)``).
    to : int or None, optional
        One above the highest value; None for the dtype's largest.
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).

    Returns
    -------
    Tensor
        This tensor, its version bumped.
    """
    given = [v for v in (from_, to) if v is not None and v is not _ONE_BOUND]
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in given):
        raise TypeError("random_() received an invalid combination of arguments - got ("
                        f"{', '.join(dtypes.type_name(v) for v in given)}), but expected one of: "
                        "(*, Generator generator), (int from, int to, *, Generator generator), "
                        "(int to, *, Generator generator)")
    node_cls: type[NoReparameterisation]
    if from_ is None and to is _ONE_BOUND:
        low, high = _dtype_range(self)
        node_cls = RandomBackward2
    else:
        if to is _ONE_BOUND or from_ is None:  # random_(to) or random_(to=...)
            low, to, node_cls = 0, (from_ if to is _ONE_BOUND else to), RandomBackward1
        else:
            low, node_cls = from_, RandomBackward0
        if to is None:
            high = _dtype_range(self)[1]
            _check_in_range(self, "from", low)
        else:
            if low >= to:
                raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                                   f"from={low} >= to={to}")
            _check_in_range(self, "from", low)
            _check_in_range(self, "to - 1", to - 1)
            high = to - 1
    return _fill(self, "random_", node_cls, generator,
                 lambda g, shape: g.integers(low, high, shape, dtype=np.int64, endpoint=True))


class ExponentialBackward0(NoReparameterisation):
    """``exponential_``: the old values get a zero gradient."""

    __slots__ = ()


@tensor_method()
def exponential_(self: Tensor, lambd: float = 1.0, *,
                 generator: Generator | None = None) -> Tensor:
    """Fill in place with samples of the exponential distribution of rate ``lambd``.

    Parameters
    ----------
    lambd : float
        The rate (> 0): the mean is ``1 / lambd``.
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).

    Returns
    -------
    Tensor
        This tensor (floating only), its version bumped.
    """
    _floats("exponential_", lambd=lambd)
    _require_continuous(self, "Exponential")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    return _fill(self, "exponential_", ExponentialBackward0, generator,
                 lambda g, shape: g.exponential(1.0 / lambd, shape))


class CauchyBackward0(NoReparameterisation):
    """``cauchy_``: the old values get a zero gradient."""

    __slots__ = ()


@tensor_method()
def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *,
            generator: Generator | None = None) -> Tensor:
    """Fill in place with samples of the Cauchy distribution.

    Parameters
    ----------
    median : float
    sigma : float
        The scale (> 0).
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).

    Returns
    -------
    Tensor
        This tensor (floating only), its version bumped.
    """
    _floats("cauchy_", median=median, sigma=sigma)
    _require_continuous(self, "Cauchy", c_names=True)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return _fill(self, "cauchy_", CauchyBackward0, generator,
                 lambda g, shape: median + sigma * g.standard_cauchy(shape))


class LogNormalBackward0(NoReparameterisation):
    """``log_normal_``: the old values get a zero gradient."""

    __slots__ = ()


@tensor_method()
def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *,
                generator: Generator | None = None) -> Tensor:
    """Fill in place with ``exp`` of samples of ``N(mean, std**2)``.

    Parameters
    ----------
    mean, std : float
        Of the underlying normal distribution (``std`` > 0), not of the result.
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).

    Returns
    -------
    Tensor
        This tensor (floating only), its version bumped.
    """
    _floats("log_normal_", mean=mean, std=std)
    _require_floating(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _fill(self, "log_normal_", LogNormalBackward0, generator,
                 lambda g, shape: g.lognormal(mean, std, shape))


class GeometricBackward0(NoReparameterisation):
    """``geometric_``: the old values get a zero gradient."""

    __slots__ = ()


@tensor_method()
def geometric_(self: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Fill in place with the number of Bernoulli(``p``) trials up to the first success
    (1, 2, ...).

    Parameters
    ----------
    p : float
        The probability of success of each trial, in (0, 1).
    generator : Generator, optional
        Where the numbers come from (``default_generator`` when not given).

    Returns
    -------
    Tensor
        This tensor (not bool), its version bumped.
    """
    _floats("geometric_", p=p)
    if self._data.dtype.kind == "b":
        _require_floating(self, "geometric_cpu")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill(self, "geometric_", GeometricBackward0, generator,
                 lambda g, shape: g.geometric(p, shape))
