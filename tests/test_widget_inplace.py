"""Chapter 05's widgets: in-place descent under no_grad, and a stale saved tensor."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

from nbgrad.viz.widgets.inplace import (
    DESCENT_FUNCTIONS,
    STALE_FUNCTIONS,
    InplaceDescent,
    StaleGradient,
)


def reference_descent(name, w0, lr, steps):
    """The same iteration in plain NumPy with the closed-form derivative."""
    _, df = DESCENT_FUNCTIONS[name]
    ws, grads = [w0], []
    for _ in range(steps):
        grads.append(df(ws[-1]))
        ws.append(ws[-1] - lr * grads[-1])
    return np.array(ws), np.array(grads)


def test_moving_the_learning_rate_changes_iterates_and_gradients():
    widget = InplaceDescent(function="w⁴ - 3w² + w", lr=0.05, steps=10, w0=-0.2)
    ws, grads = reference_descent("w⁴ - 3w² + w", -0.2, 0.05, 10)
    np.testing.assert_allclose(widget.data["iterates"], ws, rtol=1e-12)
    np.testing.assert_allclose(widget.data["grads"], grads, rtol=1e-12)
    assert widget.data["grads"][0] == pytest.approx(4 * (-0.2) ** 3 - 6 * (-0.2) + 1)
    before = widget.axes[1].lines[1].get_ydata().copy()

    widget.controls["lr"].value = 0.02

    ws, grads = reference_descent("w⁴ - 3w² + w", -0.2, 0.02, 10)
    np.testing.assert_allclose(widget.data["iterates"], ws, rtol=1e-12)
    plotted = widget.axes[1].lines[1].get_ydata()
    np.testing.assert_allclose(plotted, grads, rtol=1e-12)
    assert not np.allclose(before, plotted)


def test_the_parameter_stays_one_leaf_and_its_version_counts_the_updates():
    widget = InplaceDescent(steps=7)
    assert widget.data["versions"] == list(range(8))
    assert widget.data["is_leaf"] and widget.data["requires_grad"]
    widget.controls["steps"].value = 3
    assert widget.data["versions"] == [0, 1, 2, 3]
    assert len(widget.axes[1].lines[1].get_ydata()) == 3


@pytest.mark.parametrize("name", list(DESCENT_FUNCTIONS))
def test_every_function_matches_the_closed_form(name):
    widget = InplaceDescent(function=name, lr=0.1, steps=15, w0=1.5)
    ws, grads = reference_descent(name, 1.5, 0.1, 15)
    np.testing.assert_allclose(widget.data["iterates"], ws, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(widget.data["grads"], grads, rtol=1e-12, atol=1e-12)


def test_a_too_large_learning_rate_diverges_and_stops():
    widget = InplaceDescent(function="w⁴ - 3w² + w", lr=0.3, steps=40, w0=-0.2)
    assert widget.data["diverged"]
    assert len(widget.data["grads"]) < 40
    widget.controls["lr"].value = 0.05
    assert not widget.data["diverged"]
    assert widget.data["iterates"][-1] == pytest.approx(-1.3008, abs=1e-3)  # the left minimum


@pytest.mark.parametrize("name", list(STALE_FUNCTIONS))
def test_stale_gradient_uses_the_changed_value_silently(name):
    _, df = STALE_FUNCTIONS[name]
    widget = StaleGradient(function=name, delta=0.0)
    grid = widget.data["grid"]
    np.testing.assert_allclose(widget.data["stale"], df(grid), rtol=1e-12)
    np.testing.assert_allclose(widget.data["true"], df(grid), rtol=1e-12)

    widget.controls["delta"].value = 0.7

    np.testing.assert_allclose(widget.data["true"], df(grid), rtol=1e-12)
    np.testing.assert_allclose(widget.data["stale"], df(grid + 0.7), rtol=1e-12)
    assert widget.data["version"] == 0  # the counter never saw the change
    np.testing.assert_allclose(widget.axes[0].lines[1].get_ydata(), df(grid + 0.7), rtol=1e-12)
    np.testing.assert_allclose(widget.axes[1].lines[1].get_ydata(),
                               df(grid + 0.7) - df(grid), rtol=1e-9, atol=1e-12)


def _legends_beside_the_data(widget):
    """Every panel has labelled axes and a legend drawn outside the panel (so it covers no
    curve); every slider label is shown at full width."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(widget.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in widget.axes:
        assert ax.get_xlabel() and ax.get_ylabel()
        legend = ax.get_legend()
        assert legend is not None and legend.get_texts()
        assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))
    for control in widget.controls.values():
        assert control.style.description_width == "initial"


@pytest.mark.parametrize("make", [lambda: InplaceDescent(),
                                  lambda: InplaceDescent(lr=0.3, steps=40),
                                  lambda: StaleGradient(delta=-1.2)])
def test_axes_labelled_legends_outside_the_panels_and_labels_not_cut(make):
    widget = make()
    _legends_beside_the_data(widget)
    widget.controls[next(iter(widget.controls))].index = 0  # another function: still so
    _legends_beside_the_data(widget)
