"""The view mechanism: a tensor that shares its input's storage, and knows it.

A view shares the storage and the version counter of the tensor it was made from,
records its ``_base`` (the tensor that owns the storage) and how to replay it from the
base: an in-place change through a view must reach the base's gradient (``inplace.py``).
The view operations themselves (``view``, ``transpose``, indexing, ...) are in ``shape.py``.
"""

import weakref

from ..autograd.graph import record, should_record
from ..core.grad_mode import grad_mode
from ..tensor import Tensor


# What ``_made_without_grad`` holds for a view made under ``no_grad``; a view of one made
# afterwards holds its own node class, which PyTorch's message names (neither may be changed
# in place with grad mode on: ``inplace.check_leaf``).
NO_GRAD_VIEW = "made under no_grad"
VIEW_OF_NO_GRAD_VIEW = "a view of a view made under no_grad"


def make_view(x, data, replay, node_cls=None, **attributes):
    """A tensor over ``data`` (a view of ``x``'s array) that autograd knows is a view.

    ``replay(t)`` redoes this view on ``t``; a view keeps the replays from its base to
    itself (``_view_fn``, a tuple: views of views a thousand deep must not recurse), so
    it can be rebuilt from the base. ``replay=None`` marks an output of a multi-output
    view operation (``unbind``), which may not be changed in place.
    """
    out = Tensor._make(data, x._counter())
    base = x._base
    if base is None:
        out._base, out._view_fn = x, (replay,)
    else:
        out._base, out._view_fn = base, x._view_fn + (replay,)
    if grad_mode.enabled:
        # The base remembers its live views, so that an in-place change can rebuild their
        # grad_fn. Views made under no_grad (backward formulas, optimizer steps) are not
        # tracked, as PyTorch does not regenerate them either. Each is a weak reference that
        # takes itself out of the set when its view dies (a WeakSet, without the Python
        # code around it: a layer makes a view of its weight on every call).
        views = out._base._views
        if views is None:
            views = out._base._views = set()
        views.add(weakref.ref(out, views.discard))
        if x._made_without_grad:  # PyTorch keeps the restriction on views of such a view
            out._made_without_grad = node_cls or VIEW_OF_NO_GRAD_VIEW
    else:
        out._made_without_grad = NO_GRAD_VIEW
    if node_cls is not None and should_record(x):
        record(node_cls, out, (x,), **attributes)
    return out


def replay_view(view, t):
    """Redo ``view``'s chain of view operations on ``t`` (a tensor shaped like its base)."""
    for replay in view._view_fn:
        t = replay(t)
    return t

