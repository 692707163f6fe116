"""Chapter 06's widget: autograd's gradient of non-differentiable functions, checked against
closed forms, finite differences and (when installed) PyTorch."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

from nbgrad.viz.widgets.nondiff import (
    FUNCTIONS,
    GRID,
    MARKERS,
    H,
    NonDifferentiableExplorer,
)

STE = ["STE round: x + (round(x) - x).detach()", "STE round: RoundSTE.apply(x)"]

# What PyTorch returns, written out: note the three different answers at x = 0 for the
# same function max(x, 0) (relu 0, clamp 1, maximum 0.5), and abs'(0) = 0.
EXPECTED_GRADIENT = {
    "sign": lambda x: np.zeros_like(x),
    "round": lambda x: np.zeros_like(x),
    "floor": lambda x: np.zeros_like(x),
    "ceil": lambda x: np.zeros_like(x),
    "abs": np.sign,
    "relu": lambda x: (x > 0).astype(float),
    "clamp(x, min=0)": lambda x: (x >= 0).astype(float),
    "maximum(x, 0)": lambda x: (x > 0) + 0.5 * (x == 0),
    STE[0]: lambda x: np.ones_like(x),
    STE[1]: lambda x: np.ones_like(x),
}

EXPECTED_VALUE = {
    "sign": np.sign, "round": np.round, "floor": np.floor, "ceil": np.ceil, "abs": np.abs,
    "relu": lambda x: np.maximum(x, 0), "clamp(x, min=0)": lambda x: np.maximum(x, 0),
    "maximum(x, 0)": lambda x: np.maximum(x, 0), STE[0]: np.round, STE[1]: np.round,
}


def test_the_dropdown_covers_every_expected_function():
    assert set(FUNCTIONS) == set(EXPECTED_GRADIENT)


def test_round_at_a_jump_autograd_zero_finite_difference_huge():
    widget = NonDifferentiableExplorer(function="round", x=0.5)
    assert widget.data["f"] == 0.0                      # round half to even
    assert widget.data["autograd"] == 0.0
    assert widget.data["finite_difference"] == pytest.approx(1 / (2 * H))
    np.testing.assert_array_equal(widget.data["disagree"], [-1.5, -0.5, 0.5, 1.5])
    title = widget.axes[1].get_title()
    assert "autograd 0" in title and "500" in title


def test_moving_x_and_switching_function_redraws_the_right_numbers():
    widget = NonDifferentiableExplorer(function="round", x=0.5)
    widget.controls["function"].value = "relu"
    widget.controls["x"].value = 0.0
    assert widget.data["function"] == "relu"
    assert widget.data["x"] == 0.0
    assert widget.data["autograd"] == 0.0                # PyTorch's choice at the kink
    assert widget.data["finite_difference"] == pytest.approx(0.5)
    np.testing.assert_array_equal(widget.data["disagree"], [0.0])
    highlight = widget.axes[1].lines[4]
    assert (highlight.get_xdata()[0], highlight.get_ydata()[0]) == (0.0, 0.0)

    widget.controls["x"].value = 1.25
    assert widget.data["autograd"] == 1.0
    assert widget.data["finite_difference"] == pytest.approx(1.0)
    assert widget.data["f"] == 1.25
    highlight = widget.axes[1].lines[4]
    assert (highlight.get_xdata()[0], highlight.get_ydata()[0]) == (1.25, 1.0)
    assert widget.axes[0].lines[1].get_ydata()[0] == 1.25


def test_slider_values_with_float_noise_are_rounded_onto_the_grid():
    widget = NonDifferentiableExplorer(function="maximum(x, 0)", x=0.3)
    widget.controls["x"].value = 0.1 + 0.2 - 0.3     # 5.6e-17, what a browser may send for 0
    assert widget.data["x"] == 0.0
    assert widget.data["autograd"] == 0.5              # a tie: half to each input


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_plotted_gradient_matches_closed_form_and_finite_differences(name):
    widget = NonDifferentiableExplorer(function="sign", x=-1.0)
    widget.controls["function"].value = name
    data = widget.data
    np.testing.assert_array_equal(data["values"], EXPECTED_VALUE[name](GRID))
    np.testing.assert_array_equal(data["gradient"], EXPECTED_GRADIENT[name](GRID))

    line, kinks = widget.axes[1].lines[0], widget.axes[1].lines[1]
    plotted = line.get_ydata()
    drawn = ~np.isnan(plotted)
    np.testing.assert_array_equal(plotted[drawn], data["gradient"][drawn])
    np.testing.assert_array_equal(kinks.get_ydata(), EXPECTED_GRADIENT[name](kinks.get_xdata()))
    assert len(kinks.get_xdata()) == (~drawn).sum() > 0

    # finite differences: equal to autograd away from the marked points (except for the
    # straight-through estimators, whose backward deliberately is not round's derivative)
    away = ~np.isin(MARKERS, data["kinks"])
    exact = EXPECTED_GRADIENT[name](MARKERS)
    if name in STE:
        np.testing.assert_allclose(data["fd"][away], 0.0, atol=1e-9)
        assert set(data["disagree"]) == set(MARKERS)
    else:
        np.testing.assert_allclose(data["fd"][away], exact[away], atol=1e-9)
        assert set(data["disagree"]) <= set(data["kinks"])


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_same_gradients_as_pytorch(name):
    torch = pytest.importorskip("torch")
    widget = NonDifferentiableExplorer(function=name, x=0.0)
    x = torch.tensor(GRID, dtype=torch.float64, requires_grad=True)
    reference = {
        "sign": torch.sign, "round": torch.round, "floor": torch.floor, "ceil": torch.ceil,
        "abs": torch.abs, "relu": torch.relu, "clamp(x, min=0)": lambda t: t.clamp(min=0.0),
        "maximum(x, 0)": lambda t: torch.maximum(t, torch.zeros_like(t)),
        STE[0]: lambda t: t + (t.round() - t).detach(), STE[1]: lambda t: t + (t.round() - t).detach(),
    }[name]
    y = reference(x)
    y.sum().backward()
    np.testing.assert_array_equal(widget.data["values"], y.detach().numpy())
    np.testing.assert_array_equal(widget.data["gradient"], x.grad.numpy())


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_axes_labelled_legends_outside_the_panels_and_labels_not_cut(name):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    widget = NonDifferentiableExplorer(function=name, x=-2.0)
    canvas = FigureCanvasAgg(widget.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in widget.axes:
        assert ax.get_xlabel() == "x" and ax.get_ylabel() in ("f(x)", "df/dx")
        legend = ax.get_legend()
        assert legend is not None and legend.get_texts()
        assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))
    for control in widget.controls.values():
        assert control.style.description_width == "initial"
