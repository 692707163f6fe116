"""Convolution as one matrix product: ``unfold`` (im2col), ``fold`` (col2im), ``conv1d``
and ``conv2d``, each one block.

``unfold`` copies every window of the input into a column: ``(N, C, H, W)`` becomes
``(N, C * kh * kw, L)``, one column per output position. A convolution with ``groups``
is then one batched matrix product of the weight, seen as ``(G, O/G, C/G * kh * kw)``,
with those columns seen as ``(N, G, C/G * kh * kw, L)`` (``windows.py`` has the array
kernels). Its backward, ``ConvolutionBackward0``, is two more products:

* ``grad_weight = sum_n grad @ columns^T``;
* ``grad_input = fold(weight^T @ grad)``: ``fold`` adds each column back where ``unfold``
  read it, the adjoint of ``unfold``; so ``unfold``'s backward is ``fold``, and ``fold``'s
  is ``unfold``;
* ``grad_bias``: ``grad`` summed over the batch and the positions.

The nodes' ``apply`` is written with these differentiable operations, so double backward
(``create_graph=True``) works; ``fast_apply`` is the same formula on the arrays.
A 1-d convolution is the 2-d one with a height of 1.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import dtypes
from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from .declare import op
from .elementwise import check_dtype
from .operands import same_device
from .windows import Window, batch_last, columns_batch_last, fold_batch_last

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["conv1d", "conv2d", "fold", "unfold"]


# -- the arguments, checked as PyTorch checks them -------------------------------------------
def expand_param(value, dims, name, op, expected_dims=None):
    """``stride=2`` or ``stride=(2,)`` as ``(2, 2)`` for a 2-d op; PyTorch's error for a
    sequence of another length (it counts the dims of the weight, ``expected_dims``)."""
    if isinstance(value, bool) or not isinstance(value, (int, tuple, list)):
        raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, not "
                        f"{type(value).__name__}")
    values = (value,) * dims if isinstance(value, int) else tuple(value)
    if len(values) == 1:
        values = values * dims
    expected_dims = dims if expected_dims is None else expected_dims
    if len(values) != expected_dims:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {expected_dims} values "
            f"to match the convolution dimensions, but got {name}={list(values)}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, but found "
                            f"element of type {type(v).__name__}")
    return values


def _as_2d(values, fill):
    """A 1-d op's parameters as a 2-d op's (a height of 1)."""
    return values if len(values) == 2 else (fill, *values)


def _tensor(value, op, position, name):
    if isinstance(value, Tensor):
        return value
    raise TypeError(f"{op}() received an invalid combination of arguments - got "
                    f"({name}={type(value).__name__}), but expected one of:\n"
                    f" * (Tensor input, Tensor weight, Tensor bias = None, ...)")


def _unfold_geometry(op, x, kernel_size, dilation, padding, stride, in_size):
    kernel = expand_param(kernel_size, 2, "kernel_size", op)
    dilation = expand_param(dilation, 2, "dilation", op)
    padding = expand_param(padding, 2, "padding", op)
    stride = expand_param(stride, 2, "stride", op)
    for what, values, name, low in (
            ("kernel size", kernel, "kernel", 1), ("dilation", dilation, "dilation", 1),
            ("padding", padding, "pad", 0), ("stride", stride, "stride", 1)):
        if min(values) < low:
            wanted = "be non-negative" if low == 0 else "be greater than zero"
            raise RuntimeError(f"{what} should {wanted}, but got {name}_height: {values[0]} "
                               f"{name}_width: {values[1]}")
    return Window(kernel, stride, dilation, tuple((p, p) for p in padding), in_size)


# -- unfold and fold: each the other's adjoint -------------------------------------------------
def unfold_columns(input, window):
    """``(N, C, H, W)`` -> ``(N, C * kh * kw, L)``, or unbatched ``(C, H, W)`` ->
    ``(C * kh * kw, L)`` (no checks)."""
    x = input._data if input._data.ndim == 4 else input._data[None]
    n, c = x.shape[:2]
    columns = window.columns(x).reshape(n, c * math.prod(window.kernel),
                                        math.prod(window.out_size))
    out = Tensor._make(columns if input._data.ndim == 4 else columns[0])
    if should_record(input):
        record(Im2ColBackward0, out, (input,), window=window)
    return out


def fold_columns(input, window):
    """``(N, C * kh * kw, L)`` -> ``(N, C, H, W)``, or unbatched ``(C * kh * kw, L)`` ->
    ``(C, H, W)``: the columns summed back (no checks)."""
    cols = input._data if input._data.ndim == 3 else input._data[None]
    n = cols.shape[0]
    c = cols.shape[1] // math.prod(window.kernel)
    image = window.fold(cols.reshape(n, c, *window.kernel, *window.out_size))
    out = Tensor._make(image if input._data.ndim == 3 else image[0])
    if should_record(input):
        record(Col2ImBackward0, out, (input,), window=window)
    return out


class Im2ColBackward0(Node):
    """``unfold``'s backward: ``fold`` of the gradient (each column added back)."""

    __slots__ = ("window",)

    def apply(self, grad):
        return (fold_columns(grad, self.window),)


@op(Im2ColBackward0, export=False, method=False, functional=True)
def unfold(input: Tensor, kernel_size: int | Sequence[int], dilation: int | Sequence[int] = 1,
           padding: int | Sequence[int] = 0, stride: int | Sequence[int] = 1) -> Tensor:
    """Every sliding window of a batch of images copied into a column (im2col).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``, or ``(C, H, W)`` unbatched.
    kernel_size, dilation, padding, stride : int or tuple of two ints
        The windows, as a convolution takes them (zero padding on each side).

    Returns
    -------
    Tensor
        ``(N, C * kh * kw, L)`` (``(C * kh * kw, L)`` unbatched), ``L`` the number of
        windows; the channel varies slowest in a column, then the kernel row, then its
        column, as in PyTorch. The backward node is ``Im2ColBackward0``.
    """
    x = _tensor(input, "unfold", 1, "input")
    if x.dim() not in (3, 4) or 0 in x.shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {list(x.shape)}")
    size = tuple(x.shape[-2:])
    window = _unfold_geometry("im2col", x, kernel_size, dilation, padding, stride, size)
    if min(window.out_size) < 1:
        raise RuntimeError(
            f"Given input with spatial size {size}, kernel_size={window.kernel}, "
            f"dilation={window.dilation}, padding={tuple(p[0] for p in window.pads)}, "
            f"calculated shape of the array of sliding blocks as {window.out_size}, but its "
            "components must be at least one.")
    return unfold_columns(x, window)


class Col2ImBackward0(Node):
    """``fold``'s backward: ``unfold`` of the gradient (each window read out again)."""

    __slots__ = ("window",)

    def apply(self, grad):
        return (unfold_columns(grad, self.window),)


@op(Col2ImBackward0, export=False, method=False, functional=True)
def fold(input: Tensor, output_size: int | Sequence[int], kernel_size: int | Sequence[int], dilation: int | Sequence[int] = 1,
         padding: int | Sequence[int] = 0, stride: int | Sequence[int] = 1) -> Tensor:
    """Columns of sliding windows summed back into images (col2im), ``unfold``'s adjoint.

    Parameters
    ----------
    input : Tensor
        ``(N, C * kh * kw, L)``, or ``(C * kh * kw, L)`` unbatched.
    output_size : int or tuple of two ints
        The images' height and width.
    kernel_size, dilation, padding, stride : int or tuple of two ints
        The windows, as for ``unfold``.

    Returns
    -------
    Tensor
        ``(N, C, H, W)``: where windows overlap, their values add up (so
        ``fold(unfold(x))`` is ``x`` times how many windows cover each pixel).
        The backward node is ``Col2ImBackward0``.
    """
    cols = _tensor(input, "fold", 1, "input")
    if cols.dim() not in (2, 3) or 0 in cols.shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(cols.shape)}")
    size = expand_param(output_size, 2, "output_size", "col2im")
    window = _unfold_geometry("col2im", cols, kernel_size, dilation, padding, stride, size)
    rows, length = cols.shape[-2:]
    taps = math.prod(window.kernel)
    if rows % taps:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={rows} and kernel_size={window.kernel}.")
    if length != math.prod(window.out_size):
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={window.kernel}, "
            f"dilation={window.dilation}, padding={tuple(p[0] for p in window.pads)}, "
            f"stride={window.stride}, expected size of input's dimension 2 to match the "
            f"calculated number of sliding blocks {' * '.join(map(str, window.out_size))} = "
            f"{math.prod(window.out_size)}, but got input.size(2)={length}.")
    return fold_columns(cols, window)


# -- convolution -------------------------------------------------------------------------------
def _as_4d(array, window):
    """A 1-d op's ``(N, C, L)`` array as ``(N, C, 1, L)``."""
    return array.reshape(*array.shape[:2], *window.in_size)


def _weight_batch_last(w, groups):
    """The weight ``(O, C/G, kh, kw)`` as ``(G, O/G, kh * kw * C/G)``: each row in the
    order of the batch-last columns (kernel offset, then channel)."""
    o, cg = w.shape[:2]
    taps = math.prod(w.shape[2:])
    return (w.reshape(groups, o // groups, cg, taps).transpose(0, 1, 3, 2)
            .reshape(groups, o // groups, taps * cg))


def _grouped(columns, groups):
    """Batch-last columns ``(kh, kw, C, Ho, Wo, N)`` as ``(G, kh * kw * C/G, Ho * Wo * N)``
    (a copy only when ``groups > 1``)."""
    kh, kw, c = columns.shape[:3]
    positions = columns[0, 0, 0].size
    return (columns.reshape(kh * kw, groups, c // groups, positions).transpose(1, 0, 2, 3)
            .reshape(groups, kh * kw * (c // groups), positions))


def _padding(padding, weight_size, dilation, stride, dims, expected_dims):
    """Pairs ``(before, after)`` per dimension from an int, a tuple, ``'valid'`` or ``'same'``
    (which puts the odd one of an even kernel's padding after, as PyTorch does)."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * dims
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for d, k in zip(dilation, weight_size)]
        return tuple((t // 2, t - t // 2) for t in totals)
    values = expand_param(padding, dims, "padding", "conv", expected_dims)
    if min(values) < 0:
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in values)


def _check_shapes(x, w, b, groups):
    """PyTorch's checks of the weight, the channels and the bias against each other."""
    out_channels, cg = w.shape[:2]
    if out_channels % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"[{list(w.shape)}] instead")
    if x.shape[1] != cg * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(w.shape)}, expected "
                           f"input{list(x.shape)} to have {cg * groups} channels, but got "
                           f"{x.shape[1]} channels instead")
    if b is not None and (b.ndim != 1 or b.shape[0] != out_channels):
        raise RuntimeError(f"Given weight of size {list(w.shape)}, expected bias to be "
                           f"1-dimensional with {out_channels} elements, but got bias of "
                           f"size {list(b.shape)} instead")


def _check_dtypes(input, weight, bias):
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) "
                           "should be the same or input should be a MKLDNN tensor and weight "
                           "is a dense tensor")
    if bias is not None and bias._data.dtype != input._data.dtype:
        name = dtypes.c_type_name
        raise RuntimeError(f"Input type ({name(input._data.dtype)}) and bias type "
                           f"({name(bias._data.dtype)}) should be the same")
    check_dtype("conv", input._data.dtype)


def convolution(op, dims, input, weight, bias, stride, padding, dilation, groups):
    """``op`` (``conv1d`` or ``conv2d``, over ``dims`` spatial dimensions): the checks, the
    unbatched case, then one batched matrix product and its node."""
    input = _tensor(input, op, 1, "input")
    weight = _tensor(weight, op, 2, "weight")
    if bias is not None:
        bias = _tensor(bias, op, 3, "bias")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input "
                           f"to {op}, but got input of size: {list(input.shape)}")
    if input.dim() == dims + 1:
        out = convolution(op, dims, input.unsqueeze(0), weight, bias, stride, padding,
                          dilation, groups)
        return out.squeeze(0)
    same_device(input, weight, bias)
    if isinstance(groups, bool) or not isinstance(groups, int):
        raise TypeError(f"{op}(): argument 'groups' must be int, not {type(groups).__name__}")
    w_dims = weight.dim() - 2
    stride = expand_param(stride, dims, "stride", op, w_dims)
    dilation = expand_param(dilation, dims, "dilation", op, w_dims)
    pads = _padding(padding, weight.shape[2:], dilation, stride, dims, w_dims)
    if min(stride) < 1:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) < 1:
        raise RuntimeError("non-positive dilation is not supported")
    if groups < 1:
        raise RuntimeError("non-positive groups is not supported")
    x, w = input._data, weight._data
    _check_shapes(x, w, None if bias is None else bias._data, groups)
    padded = [s + a + b for s, (a, b) in zip(x.shape[2:], pads)]
    effective = [d * (k - 1) + 1 for d, k in zip(dilation, w.shape[2:])]
    if any(p < k for p, k in zip(padded, effective)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, effective))}). Kernel size can't be greater "
            "than actual input size")
    _check_dtypes(input, weight, bias)
    window = Window(_as_2d(tuple(w.shape[2:]), 1), _as_2d(stride, 1), _as_2d(dilation, 1),
                    _as_2d(pads, (0, 0)), _as_2d(tuple(x.shape[2:]), 1))
    n, o = x.shape[0], w.shape[0]
    columns = _grouped(columns_batch_last(_as_4d(x, window), window), groups)
    products = array_module(x).matmul(_weight_batch_last(w, groups), columns)  # (G, O/G, M)
    products = products.reshape(o, math.prod(window.out_size), n)
    if bias is not None:
        products += bias._data.reshape(o, 1, 1)
    data = array_module(x).ascontiguousarray(products.transpose(2, 0, 1))
    data = data.reshape(n, o, *window.out_size[2 - dims:])
    out = Tensor._make(data)
    if should_record(input, weight, bias):
        record(ConvolutionBackward0, out, (input, weight, bias),
               saved=(input if weight._requires_grad else None,
                      weight if input._requires_grad else None,
                      columns if weight._requires_grad else None),
               window=window, groups=groups, dims=dims, weight_shape=w.shape)
    return out


class ConvolutionBackward0(Node):
    """The backward of ``conv1d``/``conv2d`` (see the module's docstring for the formulas).

    Saves the input (for the weight's gradient) and the weight (for the input's), each
    only when the other needs a gradient; with the input, the forward's columns (its
    im2col), which ``fast_apply`` reuses rather than copying the windows again.
    """

    __slots__ = ("dims", "groups", "weight_shape", "window")

    def apply(self, grad):
        x, w, _ = self.saved_values
        x_fn, w_fn, b_fn = self._next_nodes
        g = grad if self.dims == 2 else grad.unsqueeze(2)
        n, o = g.shape[:2]
        groups = self.groups
        length = math.prod(self.window.out_size)
        g = g.reshape(n, groups, o // groups, length)
        grad_input = grad_weight = grad_bias = None
        if x_fn is not None:
            per_group = math.prod(w.shape[1:])
            w3 = w.reshape(groups, o // groups, per_group)
            columns = w3.transpose(1, 2).matmul(g).reshape(n, groups * per_group, length)
            grad_input = fold_columns(columns, self.window)
            if self.dims == 1:
                grad_input = grad_input.squeeze(2)
        if w_fn is not None:
            x4 = x if self.dims == 2 else x.unsqueeze(2)
            columns = unfold_columns(x4, self.window)
            columns = columns.reshape(n, groups, columns.shape[1] // groups, length)
            grad_weight = g.matmul(columns.transpose(2, 3)).sum(0).reshape(w.shape)
        if b_fn is not None:
            grad_bias = grad.sum((0, *range(2, grad.dim())))
        return grad_input, grad_weight, grad_bias

    def fast_apply(self, grad):
        # The same products on the arrays, in the batch-last layout (``windows.py``).
        _, w, columns = self.saved_values  # the input is there for its version check
        x_fn, w_fn, b_fn = self._next_nodes
        window, groups = self.window, self.groups
        xp = array_module(grad._data)
        o, cg = self.weight_shape[:2]
        n, taps = grad._data.shape[0], math.prod(window.kernel)
        positions = math.prod(window.out_size) * n
        g = batch_last(grad._data).reshape(groups, o // groups, positions)
        grad_input = grad_weight = grad_bias = None
        if x_fn is not None:
            back = xp.matmul(_weight_batch_last(w._data, groups).transpose(0, 2, 1), g)
            back = back.reshape(groups, taps, cg, positions).transpose(1, 0, 2, 3)
            back = back.reshape(*window.kernel, groups * cg, *window.out_size, n)
            spatial = window.in_size[2 - self.dims:]
            grad_input = Tensor._make(
                fold_batch_last(back, window).reshape(n, groups * cg, *spatial))
        if w_fn is not None:
            products = xp.matmul(g, columns.transpose(0, 2, 1))
            grad_weight = Tensor._make(
                products.reshape(groups, o // groups, taps, cg).transpose(0, 1, 3, 2)
                .reshape(self.weight_shape))
        if b_fn is not None:
            grad_bias = Tensor._make(g.reshape(o, positions).sum(axis=1))
        return grad_input, grad_weight, grad_bias


@op(ConvolutionBackward0, method=False, functional=True)
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
           stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
           dilation: int | Sequence[int] = 1, groups: int = 1) -> Tensor:
    """A 2-d convolution (PyTorch's, a cross-correlation) of a batch of images.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``, or ``(C, H, W)`` unbatched.
    weight : Tensor
        ``(O, C / groups, kh, kw)``.
    bias : Tensor, optional
        ``(O,)``.
    stride, dilation : int or tuple of two ints
    padding : int, tuple of two ints, ``'valid'`` or ``'same'``
        Zeros around the input; ``'same'`` keeps the size (stride 1 only), an even
        kernel's odd unit of padding going after the input, as in PyTorch.
    groups : int
        Input and output channels split into ``groups`` independent convolutions.

    Returns
    -------
    Tensor
        ``(N, O, Ho, Wo)`` with ``Ho = (H + 2 padding - dilation (kh - 1) - 1) // stride + 1``.
        The node is ``ConvolutionBackward0`` (``SqueezeBackward1`` above it for an
        unbatched input, as in PyTorch); its formula is differentiable again.
    """
    return convolution("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@op(method=False, functional=True)
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
           stride: int | Sequence[int] = 1, padding: int | Sequence[int] | str = 0,
           dilation: int | Sequence[int] = 1, groups: int = 1) -> Tensor:
    """A 1-d convolution of a batch of sequences: ``conv2d`` with a height of 1.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)``, or ``(C, L)`` unbatched.
    weight : Tensor
        ``(O, C / groups, k)``.
    bias : Tensor, optional
        ``(O,)``.
    stride, padding, dilation, groups
        As for ``conv2d``, with one value each.

    Returns
    -------
    Tensor
        ``(N, O, Lo)``, node ``ConvolutionBackward0``.
    """
    return convolution("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)
