"""Chapter 04: the memory a graph holds for backward, and ``.grad`` across backward calls.

``saved_bytes(*tensors)`` is the accounting: walk the graph behind the tensors and add up
the arrays its nodes saved for backward (each distinct array once: the output of one
layer saved by its own node and by the next layer's node is counted once). A node whose
saved values were released by ``backward()`` holds nothing.

The widget builds a chain ``h_l = tanh(w_l * h_{l-1})`` of ``depth`` layers on vectors of
``n`` float32 numbers and plots

* left: the bytes held after each forward layer, after ``backward(retain_graph=True)``
  and after a plain ``backward()``;
* right: ``‖w.grad‖`` after each of several ``backward`` calls on the same graph, when
  gradients accumulate and when they are zeroed in between.
"""

from __future__ import annotations

import ipywidgets
import numpy as np
from matplotlib.ticker import MaxNLocator

import nbgrad as ng

from ...core.node import _FREED, SavedOutput, SavedTensor
from .base import GradientWidget

LABEL = {"description_width": "initial"}  # the whole description, never cut ("n (thousa…")


def _array(value):
    """The array behind one saved value, or None for shapes, numbers and ``None``."""
    if type(value) is SavedTensor:
        return value.tensor._data
    if type(value) is SavedOutput:
        return value.data
    if hasattr(value, "nbytes") and hasattr(value, "shape"):  # a raw NumPy/CuPy array
        return value
    return None


def saved_arrays(*tensors):
    """The distinct arrays that the graph behind ``tensors`` holds for backward."""
    arrays = {}
    stack = [t.grad_fn for t in tensors if t.grad_fn is not None]
    seen = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node._saved is not _FREED:
            for value in node._saved:
                array = _array(value)
                if array is not None:
                    arrays[id(array)] = array
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return list(arrays.values())


def saved_bytes(*tensors):
    """How many bytes of saved arrays the graph behind ``tensors`` keeps alive."""
    return sum(int(a.nbytes) for a in saved_arrays(*tensors))


def chain(n, depth, seed=0):
    """``x`` (no grad), weights ``w_1..w_depth`` (leaves) and the outputs ``h_1..h_depth``."""
    ng.manual_seed(seed)
    x = ng.randn(n)
    weights = [(1 + 0.1 * ng.randn(n)).requires_grad_() for _ in range(depth)]
    outputs, h = [], x
    for w in weights:
        h = (w * h).tanh()
        outputs.append(h)
    return x, weights, outputs


def memory_timeline(n, depth):
    """Saved bytes after each forward layer, then after the two kinds of backward."""
    _, _, outputs = chain(n, depth)
    forward = [saved_bytes(h) for h in outputs]  # the graph behind h_l is layers 1..l
    loss = outputs[-1].sum()
    before = saved_bytes(loss)
    count = len(saved_arrays(loss))
    loss.backward(retain_graph=True)
    retained = saved_bytes(loss)
    loss.backward()
    freed = saved_bytes(loss)
    try:
        loss.backward()
        third = "no error"
    except RuntimeError as error:
        third = str(error).split(".")[0]
    return {"forward": np.array(forward), "before": before, "arrays": count,
            "after_retain_graph": retained,
            "after_backward": freed, "third_backward": third}


def _weights_grad_norm(weights):
    return float(np.sqrt(sum(np.sum(w.grad.numpy() ** 2) for w in weights)))


def grad_across_calls(n, depth, calls):
    """‖(w_1..w_depth).grad‖ after each of ``calls`` backward passes through one graph.

    Returns ``(accumulated, zeroed)``: without and with ``w.grad = None`` before each call.
    """
    _, weights, outputs = chain(n, depth)
    loss = outputs[-1].sum()
    accumulated, zeroed = [], []
    for _ in range(calls):
        loss.backward(retain_graph=True)
        accumulated.append(_weights_grad_norm(weights))
    for call in range(calls):
        for w in weights:
            w.grad = None  # what optimizer.zero_grad() does
        loss.backward(retain_graph=call < calls - 1)  # the last call may free the graph
        zeroed.append(_weights_grad_norm(weights))
    return np.array(accumulated), np.array(zeroed)


def _unit(nbytes):
    for unit, size in (("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if nbytes >= size:
            return unit, size
    return "bytes", 1


class SavedMemory(GradientWidget):
    """Size and depth set the memory a graph saves; backward frees it, unless told not to."""

    figsize = (9, 3.4)

    def __init__(self, size=10, depth=10, calls=4):
        super().__init__({
            "size": ipywidgets.IntSlider(value=size, min=1, max=100, step=1,
                                         description="n (thousands)", style=LABEL),
            "depth": ipywidgets.IntSlider(value=depth, min=1, max=40, step=1,
                                          description="layers", style=LABEL),
            "calls": ipywidgets.IntSlider(value=calls, min=1, max=8, step=1,
                                          description="backward calls", style=LABEL),
        }, ncols=2)

    def draw(self, size, depth, calls):
        n = size * 1000
        timeline = memory_timeline(n, depth)
        accumulated, zeroed = grad_across_calls(n, depth, calls)
        self.data = {"n": n, "depth": depth, "calls": calls, **timeline,
                     "accumulated": accumulated, "zeroed": zeroed}

        left, right = self.axes
        unit, scale = _unit(timeline["before"])
        layers = np.arange(1, depth + 1)
        left.plot(layers, timeline["forward"] / scale, "o-", markersize=3,
                  label="forward, layer by layer")
        end = depth + max(1, depth // 8)
        left.plot([depth, end], [timeline["before"] / scale, timeline["after_retain_graph"] / scale],
                  "s--", color="tab:green", label="backward(retain_graph=True)")
        left.plot([depth, end], [timeline["before"] / scale, timeline["after_backward"] / scale],
                  "v--", color="tab:red", label="backward()")
        left.set_xlabel("forward layers built  |  right of the dotted line: after backward",
                       fontsize=8)
        left.set_ylabel(f"saved arrays ({unit})")
        # headroom above the curves, so that the legend (upper left) covers none of them
        left.set_ylim(-0.05 * timeline["before"] / scale, 1.45 * timeline["before"] / scale)
        left.axvline(depth, color="gray", linestyle=":", linewidth=1)
        left.set_title(f"held for backward: {timeline['arrays']} arrays of {n} float32 "
                       f"= {timeline['before'] / scale:.3g} {unit}", fontsize=9)
        left.legend(fontsize=8, loc="upper left")
        left.xaxis.set_major_locator(MaxNLocator(integer=True))

        steps = np.arange(1, calls + 1)
        right.plot(steps, accumulated, "o-", color="tab:purple",
                   label="backward(retain_graph=True), again and again")
        right.plot(steps, zeroed, "s--", color="tab:gray", label="w.grad = None before each call")
        right.set_xlabel("backward calls on the same graph")
        right.set_ylabel("‖w.grad‖ (all layers)")
        right.set_ylim(0, 1.5 * max(accumulated.max(), zeroed.max()))
        right.set_title(f"after {calls} calls: {accumulated[-1] / zeroed[-1]:.3g}× one call's gradient",
                        fontsize=9)
        right.legend(fontsize=8, loc="upper left")
        right.xaxis.set_major_locator(MaxNLocator(integer=True))
        for ax in (left, right):
            ax.grid(True, alpha=0.3)
