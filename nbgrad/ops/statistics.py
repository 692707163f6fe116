"""Order statistics and paired reductions, each one block: median and nanmedian,
var_mean and std_mean, aminmax and count_nonzero; and cov and corrcoef, composed of
nbgrad's operations as PyTorch composes them.

A median's gradient goes where its value came from: over the whole tensor it is shared
evenly among the elements equal to it (as for ``max``); along ``dim`` it goes to the
element whose index is returned.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes
from ..autograd.graph import OUTPUT, record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .elementwise import check_dtype
from .linalg import mm
from .operands import tensor_operand
from .reductions import (
    MaxBackward0,
    MaxBackward1,
    _axis,
    _check_nonempty,
    _expand_back,
    _kept_shape,
    normalize_dims,
    numpy_spelling,
    return_types,
    var_backward,
    variance,
)

if TYPE_CHECKING:
    from ..types import Dims


def _lower_median_positions(data, axis, skip_nan):
    """Where each slice's lower median sits among the slice sorted (stable, NaN last): the
    first NaN if the slice has one (its median is NaN), unless ``skip_nan``."""
    xp = array_module(data)
    n = data.shape[axis]
    nans = xp.isnan(data).sum(axis=axis, keepdims=True) if data.dtype.kind == "f" else 0
    if skip_nan:
        valid = n - nans
        return xp.where(valid > 0, (valid - 1) // 2, 0)
    return xp.where(nans > 0, n - nans, (n - 1) // 2) if data.dtype.kind == "f" else \
        xp.full((1,) * data.ndim, (n - 1) // 2)


def _median_along(data, axis, keepdim, skip_nan):
    """``(values, indices)`` of the lower median along ``axis``."""
    xp = array_module(data)
    order = xp.argsort(data, axis=axis, kind="stable")
    position = _lower_median_positions(data, axis, skip_nan)
    position = xp.broadcast_to(position, _kept_shape(data.shape, (axis,)))
    indices = xp.take_along_axis(order, position, axis=axis)
    values = xp.take_along_axis(data, indices, axis=axis)
    if not keepdim:
        indices, values = indices.squeeze(axis), values.squeeze(axis)
    return values, indices.astype(np.int64)


class MedianBackward0(MaxBackward1):
    """Whole-tensor median: shared evenly among the elements equal to it (NaN to NaN)."""

    __slots__ = ()


class MedianBackward1(MaxBackward0):
    """median(dim): the gradient goes to the element whose index was returned."""

    __slots__ = ()


def _median(op, whole_node, dim_node, input, dim, keepdim, skip_nan):
    x = tensor_operand(input, op)
    data = x._data
    check_dtype("median", data.dtype)
    if dim is None:
        flat = data.reshape(-1)
        if not flat.size:
            out = Tensor._make(array_module(data).asarray(np.nan, dtype=data.dtype))
        else:
            values, _ = _median_along(flat, 0, False, skip_nan)
            out = Tensor._make(values)
        if should_record(x):
            record(whole_node, out, (x,), saved=(x, OUTPUT))
        return out
    axis = dtypes.dim_index(dim, data.ndim)
    _check_nonempty(op, data, axis)
    if data.ndim:
        values, indices = _median_along(data, axis, keepdim, skip_nan)
    else:
        values, indices = data.copy(), array_module(data).zeros((), np.int64)
    values, indices = Tensor._make(values), Tensor._make(indices)
    if should_record(x):
        record(dim_node, values, (x,), saved=(indices,), shape=data.shape, dim=axis,
               keepdim=keepdim)
    return getattr(return_types, op)(values, indices)


@op(MedianBackward0, MedianBackward1)
def median(input: Tensor, dim: int | None = None, keepdim: bool = False, *,
           axis: int | None = None,
           keepdims: bool | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """The lower median of all elements, or ``(values, indices)`` of it along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        Without it, the median of all elements is returned as a 0-d tensor (NaN for none).
    keepdim : bool
        With ``dim``: keep it with size 1.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        A 0-d tensor without ``dim``; with it, the named tuple ``(values, indices)``
        (``nbgrad.return_types.median``), indices int64. Of an even count, the lower of the two middle values (PyTorch's median, not
        NumPy's mean of the two). A NaN makes the median NaN, at the NaN's index.
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("median", dim, axis, keepdim, keepdims)
    return _median("median", MedianBackward0, MedianBackward1, input, dim, keepdim, False)


class NanmedianBackward0(MaxBackward1):
    __slots__ = ()


class NanmedianBackward1(MaxBackward0):
    __slots__ = ()


@op(NanmedianBackward0, NanmedianBackward1)
def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False, *,
              axis: int | None = None,
              keepdims: bool | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """``median`` of the elements that are not NaN (NaN where all are).

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        Without it, the median of all elements is returned as a 0-d tensor.
    keepdim : bool
        With ``dim``: keep it with size 1.
    axis, keepdims
        NumPy's spellings of ``dim`` and ``keepdim`` (not both spellings at once).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        As ``median``'s: with ``dim``, the named tuple ``(values, indices)``
        (``nbgrad.return_types.nanmedian``).
    """
    if axis is not None or keepdims is not None:
        dim, keepdim = numpy_spelling("nanmedian", dim, axis, keepdim, keepdims)
    return _median("nanmedian", NanmedianBackward0, NanmedianBackward1, input, dim, keepdim, True)


# -- variance (or standard deviation) and mean, in one pass ---------------------------------
def _spread_mean(op, node_cls, input, dim, unbiased, keepdim, correction):
    x = tensor_operand(input, op)
    var, axes, correction, whole = variance(op, x, dim, unbiased, keepdim, correction, stacklevel=4)
    data = x._data
    axis = _axis(axes, data.ndim)
    with np.errstate(invalid="ignore"):
        mean = data.sum(axis=axis, keepdims=keepdim) / int(np.prod([data.shape[a] for a in axes]))
    is_std = node_cls is StdMeanBackward0
    spread = Tensor._make((np.sqrt(var) if is_std else var).astype(data.dtype, copy=False))
    mean = Tensor._make(array_module(data).asarray(mean).astype(data.dtype, copy=False))
    if should_record(x):
        record(node_cls, (spread, mean), (x,), saved=(x,), shape=data.shape, axes=axes,
               keepdim=keepdim, correction=correction, whole=whole, std=is_std)
    return spread, mean


class VarMeanBackward0(Node):
    """Two outputs: the variance's gradient (var_backward) plus the mean's (spread evenly)."""

    __slots__ = ("axes", "correction", "keepdim", "num_outputs", "shape", "std", "whole")

    def apply(self, grad_spread, grad_mean):
        (x,) = self.saved_values
        grads = []
        if grad_spread is not None:
            if self.std:  # d std = d var / (2 std), 0 where std is 0 (as StdBackward0)
                std = x.std(_axis(self.axes, len(self.shape)), correction=self.correction,
                            keepdim=self.keepdim)
                grad_spread = (grad_spread / (std * 2)).masked_fill(std == 0, 0.0)
            grads.append(var_backward(grad_spread, x, self.shape, self.axes, self.keepdim,
                                      self.correction, self.whole))
        if grad_mean is not None:
            count = int(np.prod([self.shape[a] for a in self.axes]))
            grads.append(_expand_back(grad_mean, self.shape, self.axes, self.keepdim) / count)
        return (grads[0] + grads[1] if len(grads) == 2 else grads[0],)


@op(VarMeanBackward0, method=False)
def var_mean(input: Tensor, dim: Dims | None = None, unbiased: bool | None = None,
             keepdim: bool = False, *,
             correction: float | None = None) -> tuple[Tensor, Tensor]:
    """``(var, mean)`` of all elements, or along ``dim``, in one call.

    Parameters
    ----------
    input : Tensor
        Floating point.
    dim : int or tuple of int, optional
        The dimensions reduced; all of them when omitted.
    unbiased : bool, optional
        The old spelling of ``correction`` (True: 1, False: 0).
    keepdim : bool
        Keep the reduced dimensions with size 1.
    correction : float, optional
        What the count is reduced by (Bessel's correction, 1, by default).

    Returns
    -------
    tuple of Tensor
        Both with one ``grad_fn``, ``VarMeanBackward0``, as in PyTorch.
    """
    return _spread_mean("var_mean", VarMeanBackward0, input, dim, unbiased, keepdim, correction)


class StdMeanBackward0(VarMeanBackward0):
    __slots__ = ()


@op(StdMeanBackward0, method=False)
def std_mean(input: Tensor, dim: Dims | None = None, unbiased: bool | None = None,
             keepdim: bool = False, *,
             correction: float | None = None) -> tuple[Tensor, Tensor]:
    """``(std, mean)`` of all elements, or along ``dim``, in one call.

    Parameters
    ----------
    input : Tensor
        Floating point.
    dim : int or tuple of int, optional
        The dimensions reduced; all of them when omitted.
    unbiased : bool, optional
        The old spelling of ``correction`` (True: 1, False: 0).
    keepdim : bool
        Keep the reduced dimensions with size 1.
    correction : float, optional
        What the count is reduced by (Bessel's correction, 1, by default).

    Returns
    -------
    tuple of Tensor
        Both with one ``grad_fn``, ``StdMeanBackward0``, as in PyTorch.
    """
    return _spread_mean("std_mean", StdMeanBackward0, input, dim, unbiased, keepdim, correction)


# -- both extremes, and a count ---------------------------------------------------------------
class AminmaxBackward0(Node):
    """Each extreme's gradient shared evenly among the elements equal to it (as amin/amax).
    Saves the input only, the extremes being found again from it."""

    __slots__ = ("axes", "keepdim", "num_outputs")

    def apply(self, grad_min, grad_max):
        (x,) = self.saved_values
        total = None
        for grad, extreme in ((grad_min, x.amin), (grad_max, x.amax)):
            if grad is None:
                continue
            value = extreme(self.axes, keepdim=True)
            if not self.keepdim:
                grad = grad.reshape(_kept_shape(x._data.shape, self.axes))
            ties = x == value
            part = ties * (grad / ties.sum(self.axes, keepdim=True))
            total = part if total is None else total + part
        return (total,)


@op(AminmaxBackward0)
def aminmax(input: Tensor, *, dim: int | None = None,
            keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """``(min, max)`` of all elements, or along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        The one dimension reduced (keyword only); all of them when omitted.
    keepdim : bool
        Keep it with size 1.

    Returns
    -------
    (Tensor, Tensor)
        The named tuple ``(min, max)`` (``nbgrad.return_types.aminmax``); ties share the
        gradient evenly.
    """
    x = tensor_operand(input, "aminmax")
    data = x._data
    axes = normalize_dims(dim, data.ndim) if dim is not None else tuple(range(data.ndim))
    if dim is not None:
        dtypes.dim_index(dim, data.ndim)
    if dim is None and not data.size:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dim is not None and data.ndim and not data.shape[axes[0]]:
        raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size.")
    axis = _axis(axes, data.ndim)
    low = Tensor._make(data.min(axis=axis, keepdims=keepdim))
    high = Tensor._make(data.max(axis=axis, keepdims=keepdim))
    if should_record(x):
        record(AminmaxBackward0, (low, high), (x,), saved=(x,), axes=axes, keepdim=keepdim)
    return return_types.aminmax(low, high)


@op()
def count_nonzero(input: Tensor, dim: Dims | None = None, *,
                  axis: Dims | None = None) -> Tensor:
    """How many elements are nonzero, over all elements or along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int or tuple of int, optional
        The dimensions counted over; all of them when omitted.
    axis : int or tuple of int, optional
        NumPy's spelling of ``dim`` (not both spellings at once).

    Returns
    -------
    Tensor
        int64, with no ``grad_fn``.
    """
    if axis is not None:
        dim, _ = numpy_spelling("count_nonzero", dim, axis)
    x = tensor_operand(input, "count_nonzero")
    data = x._data
    axes = normalize_dims(dim, data.ndim)
    return Tensor._make((data != 0).sum(axis=_axis(axes, data.ndim)).astype(np.int64))


# -- covariance and correlation ---------------------------------------------------------------
def _check_weights(name, w, observations, integral):
    """PyTorch's checks of ``fweights`` (``integral``) or ``aweights``."""
    if not isinstance(w, Tensor):
        raise TypeError(f"cov(): argument '{name}' must be Tensor, not {type(w).__name__}")
    data = w._data
    if data.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {data.ndim} dimensions")
    if integral and data.dtype.kind not in "iu":
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with "
                           f"{dtypes.scalar_type_name(data.dtype)} dtype")
    if not integral and data.dtype.kind != "f":
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got {name} "
                           f"with {dtypes.scalar_type_name(data.dtype)} dtype")
    if data.size != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {data.size} != {observations}")
    if observations and (data < 0).any():
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return w


@op()
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in
    the columns), as NumPy's ``cov``.

    Parameters
    ----------
    input : Tensor
        0-, 1- (one variable) or 2-d; not bool.
    correction : int
        What the number of observations is reduced by (1: Bessel's correction).
    fweights : Tensor, optional
        Integer repeat counts of the observations, one each, not negative.
    aweights : Tensor, optional
        Floating point weights of the observations, one each, not negative.

    Returns
    -------
    Tensor
        ``(variables, variables)``, squeezed (a 0-d variance for one variable). With no
        degrees of freedom left, PyTorch's warning, and inf or NaN.

    Raises
    ------
    RuntimeError
        More than two dimensions, a bool input, or weights of a wrong dtype, shape or sign,
        or summing to zero.
    """
    x = tensor_operand(input, "cov")
    if type(correction) is not int:
        raise TypeError(f"cov(): argument 'correction' must be int, not {type(correction).__name__}")
    if x._data.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input "
                           f"with {x._data.ndim} dimensions")
    if x._data.dtype.kind == "b":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    observations_of = x if x._data.ndim == 2 else x.reshape(1, -1)
    observations = observations_of._data.shape[1]
    w = None
    if fweights is not None:
        w = _check_weights("fweights", fweights, observations, integral=True)
    if aweights is not None:
        aw = _check_weights("aweights", aweights, observations, integral=False)
        w = aw if w is None else w * aw
    if w is None:
        w_sum = Tensor._make(array_module(x._data).asarray(observations, dtype=np.int64))
    else:
        w_sum = w.sum()
        if not (w_sum._data != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    inputs = observations_of
    average = (inputs if w is None else inputs * w).sum(1) / w_sum
    if w is not None and correction != 0 and aweights is not None:
        norm_factor = w_sum - correction * (w * aw).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    if norm_factor._data <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than "
                      "the number of observations.", UserWarning, stacklevel=2)
        norm_factor = norm_factor * 0
    centred = inputs - average.unsqueeze(1)
    product = mm(centred, (centred if w is None else centred * w).t())
    return (product / norm_factor).squeeze()


@op()
def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the variables in the rows of ``input``: its
    ``cov`` normalised by the standard deviations, clipped to ``[-1, 1]``.

    Parameters
    ----------
    input : Tensor
        0-, 1- or 2-d, variables in rows and observations in columns.

    Returns
    -------
    Tensor
        ``(variables, variables)``; for one variable, a 0-d ``cov / cov`` (1, or NaN for a
        constant).
    """
    x = tensor_operand(input, "corrcoef")
    if x._data.ndim > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an "
                           f"input with {x._data.ndim} dimensions")
    c = cov(x)
    if not c._data.ndim:  # one variable: 1 (NaN for a constant one, or no observations)
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.reshape(-1, 1)
    c = c / stddev.reshape(1, -1)
    return c.clip(-1, 1)
