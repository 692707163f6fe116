"""Chapter 10's widget: f' and f'' by autograd (create_graph) against closed forms and finite
differences, and the tangent and parabola at x0."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

import nbgrad as ng  # noqa: E402
from nbgrad.viz.widgets.higher_order import (  # noqa: E402
    FUNCTIONS, HigherOrder, derivatives, finite_differences)
from widget_layout import layout_problems  # noqa: E402

# f'' in closed form, worked out by hand
SECOND = {
    "sin(x)": lambda x: -np.sin(x),
    "x³": lambda x: 6 * x,
    "tanh(2x)": lambda x: -8 * np.tanh(2 * x) * (1 - np.tanh(2 * x) ** 2),
    "x·exp(-x²)": lambda x: (4 * x ** 3 - 6 * x) * np.exp(-x ** 2),
}
FIRST = {
    "sin(x)": np.cos,
    "x³": lambda x: 3 * x ** 2,
    "tanh(2x)": lambda x: 2 * (1 - np.tanh(2 * x) ** 2),
    "x·exp(-x²)": lambda x: (1 - 2 * x ** 2) * np.exp(-x ** 2),
}


def line(ax, label):
    return next(line for line in ax.lines if line.get_label() == label)


def test_every_function_has_its_closed_forms_here():
    assert set(FUNCTIONS) == set(SECOND) == set(FIRST)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_derivatives_match_the_closed_forms_and_finite_differences(name):
    xs = np.linspace(-2.0, 2.0, 41)
    values, first, second = derivatives(FUNCTIONS[name], xs)
    with ng.no_grad():
        np.testing.assert_allclose(values, FUNCTIONS[name](ng.tensor(xs)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(first, FIRST[name](xs), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(second, SECOND[name](xs), rtol=1e-12, atol=1e-12)
    fd_first, fd_second = finite_differences(FUNCTIONS[name], xs)
    np.testing.assert_allclose(fd_first, first, atol=1e-6)
    np.testing.assert_allclose(fd_second, second, atol=1e-5)


def test_the_second_derivative_needs_the_recorded_first():
    x = ng.tensor([0.5, 1.0], dtype=ng.float64, requires_grad=True)
    first, = ng.autograd.grad(x.sin().sum(), x)  # not recorded
    assert first.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        ng.autograd.grad(first.sum(), x)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_the_plotted_second_derivative_is_the_closed_form(name):
    widget = HigherOrder(function=name, x0=0.5)
    grid = widget.data["grid"]
    right = widget.axes[1]
    np.testing.assert_allclose(line(right, "f'' by autograd (create_graph)").get_ydata(),
                               SECOND[name](grid), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(line(right, "f' by autograd").get_ydata(), FIRST[name](grid),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(widget.data["fd_second"], SECOND[name](widget.data["marks"]),
                               atol=1e-5)


def test_moving_x0_moves_the_tangent_and_the_parabola():
    widget = HigherOrder(function="sin(x)", x0=0.5)
    tangent_before = line(widget.axes[0], "tangent: slope f'(x0)").get_ydata().copy()
    widget.controls["x0"].value = 1.2
    f0, slope, curvature = widget.data["at_x0"]
    assert (f0, slope, curvature) == pytest.approx((np.sin(1.2), np.cos(1.2), -np.sin(1.2)), rel=1e-12)
    grid = widget.data["grid"]
    tangent = np.sin(1.2) + np.cos(1.2) * (grid - 1.2)
    parabola = tangent - 0.5 * np.sin(1.2) * (grid - 1.2) ** 2
    np.testing.assert_allclose(widget.data["tangent"], tangent, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(widget.data["parabola"], parabola, rtol=1e-12, atol=1e-12)
    shown = line(widget.axes[0], "tangent: slope f'(x0)").get_ydata()
    drawn = ~np.isnan(shown)  # drawn only near f
    assert drawn.sum() > 20
    np.testing.assert_allclose(shown[drawn], tangent[drawn], rtol=1e-12, atol=1e-12)
    assert not np.allclose(np.nan_to_num(shown), np.nan_to_num(tangent_before))
    marker = line(widget.axes[1], "_at x0")  # (x0, f'(x0)) and (x0, f''(x0))
    np.testing.assert_allclose(marker.get_xdata(), [1.2, 1.2])
    np.testing.assert_allclose(marker.get_ydata(), [np.cos(1.2), -np.sin(1.2)], rtol=1e-12)


def test_choosing_another_function_redraws_f_and_its_derivatives():
    widget = HigherOrder(function="sin(x)", x0=1.0)
    widget.controls["function"].value = "x³"
    grid = widget.data["grid"]
    np.testing.assert_allclose(line(widget.axes[0], "f(x)").get_ydata(), grid ** 3, rtol=1e-12)
    assert widget.data["at_x0"] == pytest.approx((1.0, 3.0, 6.0), rel=1e-12)
    # at an inflection point the parabola is the tangent: f''(0) = 0 for sin
    widget.controls["function"].value = "sin(x)"
    widget.controls["x0"].value = 0.0
    np.testing.assert_allclose(widget.data["parabola"], widget.data["tangent"], atol=1e-12)


@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("x0", [-2.0, 0.0, 1.3])
def test_nothing_is_hidden_or_cut(name, x0):
    assert layout_problems(HigherOrder(function=name, x0=x0)) == []
