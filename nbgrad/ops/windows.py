"""Sliding windows over an array's two spatial dimensions: the kernels of convolution,
pooling and ``unfold``/``fold``.

A window operation looks at a kernel of ``kh x kw`` taps (``dilation`` apart) moved
``stride`` at a time over its input padded by ``pads``. Its arrays are ``(N, C, H, W)``
(a 1-d operation uses a height of 1):

* ``padded``: the input inside a border of one value (zeros; ``-inf`` for max pooling);
* ``windows``: a strided *view* of the padded array, shape ``(N, C, kh, kw, Ho, Wo)``: its
  element ``[n, c, i, j, y, x]`` is tap ``(i, j)`` of the window at output ``(y, x)``. Its
  copy, reshaped to ``(N, C * kh * kw, Ho * Wo)``, is im2col's matrix of columns;
* ``add_windows``: the adjoint (col2im): every tap's values added back where they came
  from, one strided slice per kernel offset (``kh * kw`` additions, no loop over pixels,
  no ``np.add.at``).

The same code runs on NumPy and CuPy arrays (``array_module``).
"""

from __future__ import annotations

import math

import numpy as np

from ..backend import array_module

__all__ = [
    "Window",
    "add_windows",
    "batch_last",
    "columns_batch_last",
    "fold_batch_last",
    "output_length",
    "over_taps",
    "padded",
    "windows",
]


def output_length(size, kernel, stride, before, after, dilation=1, ceil_mode=False):
    """How many windows fit along one dimension (PyTorch's ``pooling_output_shape``).

    With ``ceil_mode`` a last, partial window counts too, unless it would start in the
    padding after the input.
    """
    span = size + before + after - dilation * (kernel - 1) - 1
    if not ceil_mode:
        return span // stride + 1
    count = -(-span // stride) + 1
    if (count - 1) * stride >= size + before:
        count -= 1
    return count


def padded(array, pads, extent, value=0):
    """``array`` (N, C, H, W) inside a border: ``pads = ((top, bottom), (left, right))``,
    grown at the bottom and right where needed to reach ``extent = (rows, cols)`` (the
    last window of ``ceil_mode``). The array itself when there is no border."""
    (top, bottom), (left, right) = pads
    n, c, h, w = array.shape
    rows, cols = max(extent[0], top + h + bottom), max(extent[1], left + w + right)
    if (rows, cols) == (h, w) and top == left == 0:
        return array
    xp = array_module(array)
    out = xp.full((n, c, rows, cols), value, dtype=array.dtype)
    out[:, :, top:top + h, left:left + w] = array
    return out


def extent(out_size, kernel, stride, dilation):
    """The rows and columns that ``out_size`` windows reach, from the padded array's start."""
    return tuple((o - 1) * s + d * (k - 1) + 1 if o > 0 else 0
                 for o, k, s, d in zip(out_size, kernel, stride, dilation))


def windows(padded_array, kernel, stride, dilation, out_size):
    """The windows of a padded array: a read-only view ``(N, C, kh, kw, Ho, Wo)``."""
    xp = array_module(padded_array)
    n, c = padded_array.shape[:2]
    sn, sc, sh, sw = padded_array.strides
    shape = (n, c, *kernel, *out_size)
    strides = (sn, sc, sh * dilation[0], sw * dilation[1], sh * stride[0], sw * stride[1])
    return xp.lib.stride_tricks.as_strided(padded_array, shape, strides)


def over_taps(view, combine):
    """Each window of ``view`` (N, C, kh, kw, Ho, Wo) reduced by the ufunc ``combine``
    (``maximum``, ``add``), one tap at a time: NumPy's own reduction over the two strided
    kernel axes is measured 20x slower than these ``kh * kw`` whole-array operations."""
    kh, kw = view.shape[2:4]
    out = view[:, :, 0, 0].copy()
    for t in range(1, kh * kw):
        combine(out, view[:, :, t // kw, t % kw], out=out)
    return out


def add_windows(taps, padded_shape, stride, dilation):
    """The adjoint of ``windows``: ``taps`` (N, C, kh, kw, Ho, Wo) summed into a new zero
    array of ``padded_shape``, each tap added where ``windows`` read it from."""
    xp = array_module(taps)
    out = xp.zeros(padded_shape, dtype=taps.dtype)
    kh, kw, ho, wo = taps.shape[2:]
    if ho == 0 or wo == 0:
        return out
    (sh, sw), (dh, dw) = stride, dilation
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh:i * dh + sh * (ho - 1) + 1:sh,
                j * dw:j * dw + sw * (wo - 1) + 1:sw] += taps[:, :, i, j]
    return out


class Window:
    """Where one operation's windows lie: ``kernel``, ``stride``, ``dilation`` and ``pads``
    (each a pair: rows, columns), over an input of spatial size ``in_size`` giving
    ``out_size`` windows; ``ceil_mode`` as pooling takes it."""

    __slots__ = ("dilation", "in_size", "kernel", "out_size", "pads", "stride")

    def __init__(self, kernel, stride, dilation, pads, in_size, ceil_mode=False):
        self.kernel, self.stride, self.dilation, self.pads = kernel, stride, dilation, pads
        self.in_size = in_size
        self.out_size = tuple(output_length(*args, ceil_mode=ceil_mode) for args in zip(
            in_size, kernel, stride, (p[0] for p in pads), (p[1] for p in pads), dilation))

    def extent(self):
        """The rows and columns of the padded input that the windows reach."""
        return extent(self.out_size, self.kernel, self.stride, self.dilation)

    def disjoint(self):
        """Whether every window lies inside the input and no two share an element."""
        return (not any(self.pads[0] + self.pads[1])
                and all(e <= s for e, s in zip(self.extent(), self.in_size))
                and all(s >= d * (k - 1) + 1
                        for s, d, k in zip(self.stride, self.dilation, self.kernel)))

    def view(self, array, value=0):
        """The windows of ``array`` (N, C, H, W) padded with ``value``: a view."""
        return windows(padded(array, self.pads, self.extent(), value), self.kernel,
                       self.stride, self.dilation, self.out_size)

    def columns(self, array):
        """im2col: the windows of ``array`` copied, ``(N, C, kh, kw, Ho, Wo)``."""
        return array_module(array).ascontiguousarray(self.view(array))

    def fold(self, taps):
        """col2im, the adjoint of ``columns``: ``taps`` (N, C, kh, kw, Ho, Wo) summed back
        into an array of the input's shape (what fell in the padding is dropped)."""
        (top, bottom), (left, right) = self.pads
        h, w = self.in_size
        rows, cols = self.extent()
        shape = (*taps.shape[:2], max(rows, top + h + bottom), max(cols, left + w + right))
        full = add_windows(taps, shape, self.stride, self.dilation)
        if full.shape[2:] == (h, w):
            return full
        return array_module(full).ascontiguousarray(full[:, :, top:top + h, left:left + w])


# -- the batch-last layout of convolution ------------------------------------------------------
# A convolution's im2col and col2im run faster with the batch as the innermost axis
# (cuda-convnet's ``(C, H, W, N)`` layout): each kernel offset then reads or adds whole
# rows of ``Wo * N`` contiguous numbers rather than rows of ``Wo``, measured 10x faster
# for col2im on the CNN benchmark's layers. Columns are ``(kh, kw, C, Ho, Wo, N)``.
# Rows this long or longer are copied 8 at a time: reading a column of an array whose rows
# are 2 KiB or more apart maps every read to one cache set of the CPU, which then holds only
# a few of them, and NumPy's whole-array transpose is measured 2.5x to 8x slower than
# 8-row blocks there (and faster below that length).
_LONG_ROW_BYTES = 2048
_ROWS_PER_BLOCK = 8


def batch_last(array):
    """``array`` (N, ...) copied with the batch as its last axis: a new ``(..., N)`` array."""
    xp = array_module(array)
    n = array.shape[0]
    rows = array.reshape(n, math.prod(array.shape[1:]))
    if xp is not np or rows.shape[1] * rows.itemsize < _LONG_ROW_BYTES:
        return xp.ascontiguousarray(rows.T).reshape(*array.shape[1:], n)
    out = xp.empty(rows.shape[::-1], dtype=rows.dtype)
    for start in range(0, n, _ROWS_PER_BLOCK):
        out[:, start:start + _ROWS_PER_BLOCK] = rows[start:start + _ROWS_PER_BLOCK].T
    return out.reshape(*array.shape[1:], n)


def columns_batch_last(array, window):
    """im2col of ``array`` (N, C, H, W): a new ``(kh, kw, C, Ho, Wo, N)`` array."""
    xp = array_module(array)
    n, c, h, w = array.shape
    (top, bottom), (left, right) = window.pads
    rows, cols = window.extent()
    buffer = xp.zeros((c, max(rows, top + h + bottom), max(cols, left + w + right), n),
                      dtype=array.dtype)
    buffer[:, top:top + h, left:left + w] = batch_last(array)
    sc, sh, sw, sn = buffer.strides
    (dh, dw), (th, tw) = window.dilation, window.stride
    view = xp.lib.stride_tricks.as_strided(
        buffer, (*window.kernel, c, *window.out_size, n),
        (sh * dh, sw * dw, sc, sh * th, sw * tw, sn))
    return xp.ascontiguousarray(view)


def fold_batch_last(taps, window):
    """col2im of ``taps`` (kh, kw, C, Ho, Wo, N): a new ``(N, C, H, W)`` array."""
    xp = array_module(taps)
    kh, kw, c, ho, wo, n = taps.shape
    (top, bottom), (left, right) = window.pads
    h, w = window.in_size
    rows, cols = window.extent()
    buffer = xp.zeros((c, max(rows, top + h + bottom), max(cols, left + w + right), n),
                      dtype=taps.dtype)
    (sh, sw), (dh, dw) = window.stride, window.dilation
    if ho and wo:
        for i in range(kh):
            for j in range(kw):
                buffer[:, i * dh:i * dh + sh * (ho - 1) + 1:sh,
                       j * dw:j * dw + sw * (wo - 1) + 1:sw] += taps[i, j]
    return xp.ascontiguousarray(buffer[:, top:top + h, left:left + w].transpose(3, 0, 1, 2))
