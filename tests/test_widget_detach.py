"""Chapter 07's widget: detaching part of f changes its gradient, never its value."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

from nbgrad.viz.widgets.detach import FUNCTIONS, GRID, DetachExplorer  # noqa: E402
from widget_layout import layout_problems  # noqa: E402


def closed_form(name, xs, alpha):
    """dF/dx + alpha * dF/dh * h'(x): the chain rule with a fraction alpha through h."""
    _, _, dF_dx, dF_dh, dh = FUNCTIONS[name]
    return dF_dx(xs) + alpha * dF_dh(xs) * dh(xs)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_alpha_moves_the_gradient_between_stop_gradient_and_the_true_one(name):
    widget = DetachExplorer(function=name, alpha=0.0, x=1.0)
    np.testing.assert_allclose(widget.data["grad"], closed_form(name, GRID, 0.0), rtol=1e-10,
                               atol=1e-12)
    values_detached = widget.data["values"].copy()
    plotted_before = widget.axes[1].lines[3].get_ydata().copy()

    widget.controls["alpha"].value = 1.0

    np.testing.assert_allclose(widget.data["grad"], widget.data["finite_difference"], atol=1e-6)
    np.testing.assert_allclose(widget.data["grad"], closed_form(name, GRID, 1.0), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_array_equal(widget.data["values"], values_detached)  # same f
    plotted = widget.axes[1].lines[3].get_ydata()
    np.testing.assert_array_equal(plotted, widget.data["grad"])
    assert not np.allclose(plotted, plotted_before)

    widget.controls["alpha"].value = 0.25
    np.testing.assert_allclose(widget.data["grad"], closed_form(name, GRID, 0.25), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(widget.data["removed"],
                               0.75 * (closed_form(name, GRID, 1.0) - closed_form(name, GRID, 0.0)),
                               atol=1e-6)


def test_moving_x_moves_the_marker_and_the_reported_slope():
    widget = DetachExplorer(function="x · sg(sin x)", alpha=0.0, x=1.0)
    assert widget.data["grad_at"] == pytest.approx(np.sin(1.0), rel=1e-12)  # not sin + x cos
    assert widget.data["finite_difference_at"] == pytest.approx(np.sin(1.0) + np.cos(1.0),
                                                                abs=1e-8)
    widget.controls["x"].value = -2.0
    assert widget.data["grad_at"] == pytest.approx(np.sin(-2.0), rel=1e-12)
    marker = widget.axes[1].lines[5]
    assert marker.get_xdata()[0] == -2.0
    assert marker.get_ydata()[0] == pytest.approx(np.sin(-2.0))
    tangent = widget.axes[0].lines[1].get_ydata()
    assert tangent[1] - tangent[0] == pytest.approx(np.sin(-2.0) * (GRID[1] - GRID[0]))


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_labels_whole_axes_labelled_legends_off_the_curves(name):
    widget = DetachExplorer(function=name, alpha=0.0, x=1.0)
    for alpha, x in [(0.0, -3.0), (0.5, 0.0), (1.0, 1.0), (1.0, 3.0)]:
        widget.controls["alpha"].value = alpha
        widget.controls["x"].value = x
        assert layout_problems(widget) == []
    assert widget.controls["alpha"].style.description_width == "initial"
