"""Chapter 07's widget: detaching part of f changes its gradient, never its value."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

from nbgrad.viz.widgets.detach import FUNCTIONS, GRID, DetachExplorer  # noqa: E402


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


def layout_problems(widget):
    """What would make the widget hard to read: a control whose description may be cut
    (its width not "initial"), an axes without labels, a legend over plotted points."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    found = [f"control {name}: description may be cut"
             for name, control in widget.controls.items()
             if type(control).__name__ != "Checkbox"
             and control.style.description_width != "initial"]
    canvas = FigureCanvasAgg(widget.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    for i, ax in enumerate(widget.axes):
        if not ax.get_xlabel() or not ax.get_ylabel():
            found.append(f"axes {i}: an axis without a label")
        legend = ax.get_legend()
        if legend is None:
            continue
        box, area = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        for line in ax.lines:
            xy = ax.transData.transform(np.column_stack([line.get_xdata(), line.get_ydata()])
                                        .astype(float))
            shown = ((xy[:, 0] >= area.x0) & (xy[:, 0] <= area.x1)
                     & (xy[:, 1] >= area.y0) & (xy[:, 1] <= area.y1))  # not clipped away
            covered = shown & (xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) \
                & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)
            if covered.any():
                found.append(f"axes {i}: the legend covers {line.get_label()!r}")
    return found


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_labels_whole_axes_labelled_legends_off_the_curves(name):
    widget = DetachExplorer(function=name, alpha=0.0, x=1.0)
    for alpha, x in [(0.0, -3.0), (0.5, 0.0), (1.0, 1.0), (1.0, 3.0)]:
        widget.controls["alpha"].value = alpha
        widget.controls["x"].value = x
        assert layout_problems(widget) == []
    assert widget.controls["alpha"].style.description_width == "initial"
