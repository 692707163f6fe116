"""``pad``: widen (or, with negative sizes, crop) the last dimensions of a tensor.

``constant`` fills the new border with a value; its gradient is the incoming gradient
cropped back, which is padding by the negated sizes (PyTorch's formula). ``reflect``,
``replicate`` and ``circular`` fill it with the input's own values: a gather along each
padded dimension, whose gradient adds each border element's gradient back into the element
it copied.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..autograd.graph import record, should_record
from ..backend import array_module
from ..core.node import Node
from ..tensor import Tensor
from . import indexing
from .declare import op
from .operands import tensor_operand

if TYPE_CHECKING:
    from collections.abc import Sequence


def _pairs(pad, ndim):
    """``{dim: (before, after)}`` from PyTorch's flat list (last dimension first)."""
    return {ndim - 1 - i: (pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)}


def _constant(data, pairs, value):
    xp = array_module(data)
    crop = tuple(slice(max(-b, 0), data.shape[d] - max(-a, 0)) if d in pairs else slice(None)
                 for d, (b, a) in ((d, pairs.get(d, (0, 0))) for d in range(data.ndim)))
    data = data[crop]
    widths = [(max(pairs[d][0], 0), max(pairs[d][1], 0)) if d in pairs else (0, 0)
              for d in range(data.ndim)]
    return xp.pad(data, widths, constant_values=value)


class ConstantPadNdBackward0(Node):
    __slots__ = ("pad",)

    def apply(self, grad):
        return (_constant_pad(grad, [-p for p in self.pad], 0),)


def _constant_pad(x, pad, value):
    pairs = _pairs(pad, x.dim())
    for d, (before, after) in pairs.items():
        if x.shape[d] + min(before, 0) + min(after, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    out = Tensor._make(_constant(x._data, pairs, value).astype(x._data.dtype, copy=False))
    if should_record(x):
        record(ConstantPadNdBackward0, out, (x,), pad=list(pad))
    return out


def _source_index(xp, size, before, after, mode):
    """For each position of the padded dimension, the input position it copies."""
    positions = xp.arange(-before, size + after)
    if mode == "replicate":
        return xp.clip(positions, 0, size - 1)
    if mode == "circular":
        return positions % size
    period = 2 * (size - 1)  # reflect: ... 2 1 | 0 1 2 ... n-1 | n-2 ...
    folded = xp.abs(positions) % period if period else xp.zeros_like(positions)
    return xp.where(folded >= size, period - folded, folded)


class _GatherPadBackward(Node):
    """Each border element's gradient goes back to the element it copied (the input is
    saved, as PyTorch's reflection and replication pads save it, though not needed)."""

    __slots__ = ("key", "shape")

    def apply(self, grad):
        (_input,) = self.saved_values  # unpacked: checks it was not changed in place
        return (indexing.embed(grad, self.shape, self.key),)


_NODES = {}
for _mode, _stem in (("reflect", "ReflectionPad"), ("replicate", "ReplicationPad"),
                     ("circular", "CircularPad")):
    for _n in (1, 2, 3):
        _name = f"{_stem}{_n}DBackward0"
        _NODES[_mode, _n] = type(_name, (_GatherPadBackward,),
                                 {"__slots__": (), "__module__": __name__, "__qualname__": _name})


def _gather_pad(x, pad, mode):
    data = x._data
    xp = array_module(data)
    pairs = _pairs(pad, data.ndim)
    for d, (before, after) in pairs.items():
        size = data.shape[d]
        if mode == "circular" and (before > size or after > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({before}, {after}) at dimension {d} of input "
                f"{list(data.shape)}")
    key = tuple(
        _source_index(xp, data.shape[d], *pairs[d], mode).reshape(
            (1,) * d + (-1,) + (1,) * (data.ndim - d - 1))
        if d in pairs else xp.arange(data.shape[d]).reshape((1,) * d + (-1,) + (1,) * (data.ndim - d - 1))
        for d in range(data.ndim))
    out = Tensor._make(data[key])
    if should_record(x):
        record(_NODES[mode, len(pairs)], out, (x,), saved=(x,), key=key, shape=data.shape)
    return out


@op(ConstantPadNdBackward0, _GatherPadBackward, export=False, method=False, functional=True)
def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dimensions of ``input``.

    Parameters
    ----------
    input : Tensor
    pad : sequence of int
        ``(left, right)`` for the last dimension, then ``(top, bottom)`` for the one before,
        and so on; negative sizes crop (``constant`` only).
    mode : str
        ``'constant'`` (``value``, default 0), ``'reflect'`` (mirror, edge excluded),
        ``'replicate'`` (repeat the edge) or ``'circular'`` (wrap around).
    value : float, optional
        The fill value of ``constant``.

    Returns
    -------
    Tensor
        One node: ``ConstantPadNdBackward0``, ``ReflectionPad{1,2,3}DBackward0`` or
        ``ReplicationPad{1,2,3}DBackward0`` as in PyTorch (its ``circular`` is composed of
        copies; nbgrad's is one gather node).
    """
    x = tensor_operand(input, "pad")
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > x.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{x.dim()}")
    if mode == "constant":
        return _constant_pad(x, pad, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    n = len(pad) // 2
    if n not in (1, 2, 3) or x.dim() not in (n + 1, n + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {x.dim()}D "
                                  "input tensor.")
    if 0 in tuple(x.shape)[1 if x.dim() == n + 2 else 0:]:  # (a batch may be empty)
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 "
                           "batch size and other non-zero dimensions for input, but got: "
                           f"{list(x.shape)}")
    return _gather_pad(x, pad, mode)
