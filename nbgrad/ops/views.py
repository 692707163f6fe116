"""The view mechanism: a tensor that shares its input's storage, and knows it.

A view shares the storage and the version counter of the tensor it was made from and
records its ``_base``: the tensor that owns the storage, never another view (a view of a
view has the same base), as PyTorch keeps it. An in-place change through a view must
reach the base's gradient (``inplace.py``); what it needs is where the view's elements
lie in the base's memory (a ``Geometry``: shape, strides and offset), measured when
needed from the two arrays. So a view costs the same a million views deep as one deep,
and nothing is ever replayed view by view.

A view also remembers how it was made (PyTorch's ``CreationMeta``): under ``no_grad``, as
one output of a multi-output view operation (``unbind``), or inside a custom
``Function`` (``Tensor._creation_meta``; a later non-default one wins over its input's,
as in PyTorch's propagate_creation_meta). Such a view may not be changed in place while
autograd records, nor used once its base was changed in place (``inplace.check_leaf``,
``inplace.regenerate_grad_fn``).
The view operations themselves (``view``, ``transpose``, indexing, ...) are in
``shape.py`` and ``indexing.py``.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..autograd.graph import next_edges, record, should_record
from ..backend import array_module
from ..core.grad_mode import grad_mode
from ..core.node import INFERENCE_COUNTER, Node, attach
from ..tensor import NO_GRAD_MODE, Tensor


def make_view(x, data, node_cls=None, creation=None, **attributes):
    """A tensor over ``data`` (a view of ``x``'s array) that autograd knows is a view.

    ``node_cls`` (with ``attributes``) is the view's backward node, recorded as any
    operation's; ``None`` for the pieces of a multi-output view operation, which records
    one node for all of them. ``creation`` is how the view was made, if not plainly.
    """
    vc = x._counter()
    if vc is INFERENCE_COUNTER:
        # A view of an inference tensor is a plain inference tensor, as in PyTorch: no
        # base, no view bookkeeping, never requires grad (it can never join a graph).
        return Tensor._make(data, vc)
    out = Tensor._make(data, vc)
    out._grad_fn_version = vc[0]
    base = x._base
    if base is None:
        base = x
    elif creation is None:
        creation = x._creation_meta
    out._base = base
    if not grad_mode.enabled:
        out._creation_meta = NO_GRAD_MODE
        out._requires_grad = base._requires_grad  # a view requires grad when its base does
    else:
        out._creation_meta = creation
        if x._requires_grad:  # in the graph: a node of its own, or one for all the pieces
            if node_cls is not None:
                node = node_cls(*next_edges((x,)))  # ``record``, for one input, nothing saved
                attach(out, node)
                for name, value in attributes.items():
                    setattr(node, name, value)
            return out
    # Outside any graph, the view's requires_grad follows its base's: the base remembers
    # it, as a weak reference that takes itself out of the set when the view dies (a
    # WeakSet, without the Python code around it: a layer under no_grad makes a view of its
    # weight on every call).
    views = base._views
    if views is None:
        views = base._views = set()
    views.add(weakref.ref(out, views.discard))
    return out


# -- where a view lies in its base ------------------------------------------------------
class Geometry:
    """A view's elements as a place in its base's memory: ``shape`` and ``strides`` (in
    bytes) from ``offset`` bytes after the base's first element, and the base's own
    ``base_shape`` and ``base_strides``. Any array laid out like the base (``laid_out``)
    has the view's elements at the same place (``region``): PyTorch's ``as_strided``."""

    __slots__ = ("shape", "strides", "offset", "base_shape", "base_strides")

    def __init__(self, view, base):
        self.shape, self.strides = view.shape, view.strides
        self.offset = _address(view) - _address(base)
        self.base_shape, self.base_strides = base.shape, base.strides
        if not lies_in(view, base):
            raise RuntimeError(
                "a view no longer lies in its base's memory (the .data of one of them was "
                "replaced), so an in-place change through it cannot reach the base.\n"
                "nbgrad hint: clone() the view, or make it again from the base."
            )

    def region(self, array):
        """The view's elements in ``array`` (laid out like the base), as a view of it."""
        return _strided(array, self.shape, self.strides, self.offset)

    def laid_out(self, array):
        """A new array with ``array``'s values (shaped like the base) laid out in memory
        as the base is, so that ``region`` finds the view's elements in it."""
        xp = array_module(array)
        shape, strides, itemsize = self.base_shape, self.base_strides, array.dtype.itemsize
        if strides == _c_strides(shape, itemsize):
            return xp.array(array, order="C", copy=True)
        low, high = _span(shape, strides)
        size = 0 if 0 in shape else (high - low) // itemsize + 1
        out = _strided(xp.empty(size, array.dtype), shape, strides, -low)
        out[...] = array
        return out

    def base_indices(self, xp, itemsize):
        """For each element of the view, the (row-major) index of the base's element it is."""
        base = _element_offsets(self.base_shape, self.base_strides, 0, itemsize, xp)
        low = int(base.min())
        inverse = xp.zeros(int(base.max()) - low + 1, np.int64)
        inverse[base.ravel() - low] = xp.arange(base.size)
        return inverse[_element_offsets(self.shape, self.strides, self.offset, itemsize, xp) - low]

    def overlaps(self):
        """Whether elements of the view share memory (a dimension made by ``expand``)."""
        return internal_overlap(self.shape, self.strides)


def lies_in(view, base):
    """Whether the array ``view`` lies in ``base``'s memory (false only once the ``.data``
    of a view or of its base was replaced)."""
    offset = _address(view) - _address(base)
    low, high = _span(view.shape, view.strides)
    base_low, base_high = _span(base.shape, base.strides)
    return not view.size or base_low <= offset + low <= offset + high <= base_high


def internal_overlap(shape, strides):
    """PyTorch's has_internal_overlap, where it can tell: a dimension of size > 1 with
    stride 0 (an empty tensor has no elements to share)."""
    if 0 in shape:
        return False
    return any(stride == 0 and size > 1 for size, stride in zip(shape, strides))


def _span(shape, strides):
    """The byte offsets of the lowest and of the highest element, from the first."""
    low = sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0)
    high = sum(s * (n - 1) for n, s in zip(shape, strides) if s > 0)
    return low, high


def _element_offsets(shape, strides, offset, itemsize, xp):
    """The memory offset (in elements) of each element of an array of this geometry."""
    offsets = xp.full(shape, offset // itemsize, np.int64)
    for axis, (n, stride) in enumerate(zip(shape, strides)):
        offsets += (xp.arange(n) * (stride // itemsize)).reshape((n,) + (1,) * (len(shape) - axis - 1))
    return offsets


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _address(array):
    """Where ``array``'s first element is in memory."""
    if type(array) is np.ndarray:
        return array.__array_interface__["data"][0]
    return array.data.ptr  # CuPy


class _Interface:
    """An array interface for NumPy to wrap (what ``as_strided`` does, with an offset)."""

    def __init__(self, interface, owner):
        self.__array_interface__ = interface
        self.owner = owner  # keeps the memory alive as long as the new array


def _strided(array, shape, strides, offset):
    """An array over ``array``'s memory: ``shape`` and ``strides`` from ``offset`` bytes
    after its first element."""
    if type(array) is np.ndarray:
        interface = dict(array.__array_interface__)
        interface.update(data=(interface["data"][0] + offset, False), shape=shape,
                         strides=strides)
        return np.asarray(_Interface(interface, array))
    xp = array_module(array)
    return xp.ndarray(shape, array.dtype, array.data + offset, strides)


# -- as_strided, the view a base's other views become after an in-place change ---------
class AsStridedBackward0(Node):
    """The ``grad_fn`` of a view rebuilt after an in-place change of its base (or of
    another view of it): the gradient goes back to the view's place in the base."""

    __slots__ = ("geometry",)

    def apply(self, grad):
        return (strided_scatter(grad, self.geometry),)


def as_strided(t, geometry):
    """The view ``geometry`` describes, of ``t`` (laid out like the base it was measured
    on)."""
    return make_view(t, geometry.region(t._data), AsStridedBackward0, geometry=geometry)


def rebuilt_view_node(view, base):
    """A fresh ``AsStridedBackward0`` for ``view``, from ``base``'s current ``grad_fn``
    (``None`` for a view that no longer lies in its base's memory: it keeps its own)."""
    if not lies_in(view._data, base._data):
        return None
    node = AsStridedBackward0(*next_edges((base,)))
    node.geometry = Geometry(view._data, base._data)
    return node


class AsStridedScatterBackward0(Node):
    """The backward of ``strided_scatter`` (for higher-order gradients): take the region."""

    __slots__ = ("geometry",)

    def apply(self, grad):
        return (as_strided(laid_out(grad, self.geometry), self.geometry),)


def strided_scatter(values, geometry):
    """Zeros shaped like the base with ``values`` added where the view lies (the adjoint of
    ``as_strided``: elements an ``expand`` repeats add up)."""
    data = values._data
    xp = array_module(data)
    out = geometry.laid_out(xp.zeros(geometry.base_shape, data.dtype))
    if geometry.overlaps():
        flat = xp.zeros(out.size, data.dtype)
        xp.add.at(flat, geometry.base_indices(xp, data.dtype.itemsize), data)
        out = flat.reshape(out.shape)
    else:
        geometry.region(out)[...] = data
    result = Tensor._make(out)
    if should_record(values):
        record(AsStridedScatterBackward0, result, (values,), geometry=geometry)
    return result


class LaidOutBackward(Node):
    """A copy in another memory layout: the gradient passes straight through."""

    __slots__ = ()

    def apply(self, grad):
        return (grad,)


def laid_out(t, geometry):
    """A copy of ``t`` (shaped like the base) laid out in memory as the base is."""
    out = Tensor._make(geometry.laid_out(t._data))
    if should_record(t):
        record(LaidOutBackward, out, (t,))
    return out
