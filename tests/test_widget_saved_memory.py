"""Chapter 04's widget: bytes held by saved tensors, and .grad across backward calls."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

import nbgrad as ng  # noqa: E402
from nbgrad.viz.widgets.saved_memory import (  # noqa: E402
    SavedMemory, chain, saved_arrays, saved_bytes)


def test_saved_bytes_counts_each_saved_array_once():
    x = ng.randn(1000, requires_grad=True)   # float32: 4000 bytes
    assert saved_bytes(x) == 0               # a leaf has no graph
    y = x * x                                # MulBackward0 saves x twice: one array
    assert saved_bytes(y) == 4000
    z = y.exp()                              # ExpBackward0 saves its output
    assert saved_bytes(z) == 8000
    assert saved_bytes((z + 1).sum()) == 8000  # add and sum save no tensors
    w = ng.randn(1000, dtype=ng.float64, requires_grad=True)
    assert saved_bytes(z, w.tanh()) == 8000 + 8000
    z.sum().backward()
    assert saved_bytes(z) == 0 and saved_arrays(z) == []


def test_saved_bytes_respects_retain_graph():
    x = ng.randn(500, requires_grad=True)
    loss = (x * x).exp().sum()
    loss.backward(retain_graph=True)
    assert saved_bytes(loss) == 2 * 500 * 4
    loss.backward()
    assert saved_bytes(loss) == 0


def reference_grad_norm(n, depth):
    """‖∂ sum(h_depth) / ∂(w_1..w_depth)‖ by hand-written NumPy backpropagation."""
    x, weights, _ = chain(n, depth)
    h = [x.numpy().astype(np.float64)]
    ws = [w.detach().numpy().astype(np.float64) for w in weights]
    for w in ws:
        h.append(np.tanh(w * h[-1]))
    grad, total = np.ones(n), 0.0
    for layer in reversed(range(depth)):
        grad_z = grad * (1 - h[layer + 1] ** 2)
        total += np.sum((grad_z * h[layer]) ** 2)
        grad = grad_z * ws[layer]
    return np.sqrt(total)


def test_memory_plot_follows_size_and_depth():
    widget = SavedMemory(size=10, depth=10, calls=4)
    # per layer: w_l (saved by the product) and h_l (saved by tanh, reused by the next
    # product); layer 1 saves x instead of w_1, since x does not require grad
    expected = [2 * layer * 10_000 * 4 for layer in range(1, 11)]
    np.testing.assert_array_equal(widget.data["forward"], expected)
    assert widget.data["before"] == widget.data["after_retain_graph"] == expected[-1]
    assert widget.data["after_backward"] == 0
    assert widget.data["third_backward"].startswith("Trying to backward through the graph")
    line = widget.axes[0].lines[0]
    np.testing.assert_allclose(line.get_ydata() * 2 ** 10, expected)  # plotted in KiB

    widget.controls["size"].value = 50
    widget.controls["depth"].value = 25
    expected = [2 * layer * 50_000 * 4 for layer in range(1, 26)]
    np.testing.assert_array_equal(widget.data["forward"], expected)
    assert widget.data["arrays"] == 50
    retained, freed = widget.axes[0].lines[1], widget.axes[0].lines[2]
    assert retained.get_ydata()[1] * 2 ** 20 == pytest.approx(expected[-1])  # in MiB
    assert freed.get_ydata()[1] == 0


def test_grad_accumulates_across_calls_unless_zeroed():
    widget = SavedMemory(size=2, depth=5, calls=3)
    one = reference_grad_norm(2000, 5)
    np.testing.assert_allclose(widget.data["accumulated"], [one, 2 * one, 3 * one], rtol=1e-5)
    np.testing.assert_allclose(widget.data["zeroed"], [one] * 3, rtol=1e-5)

    widget.controls["calls"].value = 6
    widget.controls["depth"].value = 8
    one = reference_grad_norm(2000, 8)
    np.testing.assert_allclose(widget.data["accumulated"], one * np.arange(1, 7), rtol=1e-5)
    np.testing.assert_allclose(widget.axes[1].lines[0].get_ydata(), widget.data["accumulated"])
    np.testing.assert_allclose(widget.axes[1].lines[1].get_ydata(), [one] * 6, rtol=1e-5)


def _covered_points(ax):
    """The plotted points (in display coordinates) that lie under the axes' legend."""
    ax.figure.canvas.draw()
    box = ax.get_legend().get_window_extent()
    covered = []
    for line in ax.lines:
        if line.get_label().startswith("_"):
            continue  # axvline and other unlabelled guides
        points = ax.transData.transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
        covered += [tuple(p) for p in points if box.contains(*p)]
    return covered


@pytest.mark.parametrize("size, depth, calls", [(10, 10, 4), (100, 40, 8), (1, 1, 1), (5, 3, 8)])
def test_labels_and_legends_cover_no_curve(size, depth, calls):
    widget = SavedMemory(size=size, depth=depth, calls=calls)
    widget.figure.tight_layout()
    for ax in widget.axes:
        assert ax.get_xlabel() and ax.get_ylabel()
        assert ax.get_legend() is not None
        assert _covered_points(ax) == []


def test_slider_labels_are_not_cut():
    widget = SavedMemory()
    for control in widget.controls.values():
        assert control.style.description_width == "initial"  # the whole description shows
