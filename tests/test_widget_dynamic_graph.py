"""Chapter 00's widget: the graph follows the program's path, and so does the gradient."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

from nbgrad.viz.widgets.dynamic_graph import (  # noqa: E402
    PROGRAMS, DynamicGraphExplorer, finite_difference, run)

HALVE, NEWTON, BRANCH = PROGRAMS


def halvings(x):
    k = 0
    while abs(x) > 1:
        x, k = x / 2, k + 1
    return k


def test_moving_x_changes_the_graph_and_the_gradient():
    widget = DynamicGraphExplorer(program=HALVE, x=3.0)
    # 3 -> 1.5 -> 0.75: two halvings, then h * h; f = (x/4)², df/dx = 2x/16
    assert widget.data["nodes"] == {"DivBackward0": 2, "MulBackward0": 1, "AccumulateGrad": 1}
    assert widget.data["autograd"] == pytest.approx(0.375, rel=1e-12)
    bars_before = [bar.get_width() for bar in widget.axes[2].patches]

    widget.controls["x"].value = 5.0  # three halvings
    assert widget.data["nodes"] == {"DivBackward0": 3, "MulBackward0": 1, "AccumulateGrad": 1}
    assert widget.data["autograd"] == pytest.approx(2 * 5.0 / 64, rel=1e-12)
    assert widget.data["f"] == pytest.approx((5.0 / 8) ** 2, rel=1e-12)
    bars = [bar.get_width() for bar in widget.axes[2].patches]
    assert bars != bars_before
    assert dict(zip(widget.data["kinds"], bars)) == {
        "AccumulateGrad": 1, "DivBackward0": 3, "MulBackward0": 1}
    marker = widget.axes[1].lines[2]
    assert marker.get_xdata()[0] == 5.0
    assert marker.get_ydata()[0] == pytest.approx(0.15625)

    widget.controls["x"].value = 0.5  # no halving: the loop body never ran
    assert widget.data["nodes"] == {"MulBackward0": 1, "AccumulateGrad": 1}
    assert widget.data["autograd"] == pytest.approx(1.0)


def test_halving_curve_is_the_derivative_of_the_branch_taken():
    widget = DynamicGraphExplorer(program=HALVE)
    grid = widget.data["grid"]
    k = np.array([halvings(x) for x in grid])
    np.testing.assert_allclose(widget.data["derivative"], 2 * grid / 4.0 ** k, rtol=1e-12)
    np.testing.assert_array_equal(widget.data["node_totals"], k + 2)
    np.testing.assert_array_equal(widget.axes[1].lines[0].get_ydata(), widget.data["derivative"])


def test_newton_unrolled_loop_gives_the_true_derivative():
    widget = DynamicGraphExplorer(program=NEWTON, x=2.5)
    grid = widget.data["grid"]
    np.testing.assert_allclose(widget.data["derivative"], grid / np.sqrt(grid ** 2 + 1),
                               atol=1e-8)
    assert widget.data["autograd"] == pytest.approx(2.5 / np.sqrt(7.25), abs=1e-10)
    assert widget.data["f"] == pytest.approx(np.sqrt(7.25), rel=1e-12)
    near_zero = widget.data["total_nodes"]
    widget.controls["x"].value = 6.0  # further from the start: more Newton steps
    assert widget.data["total_nodes"] > near_zero
    steps = widget.data["nodes"]["AddBackward0"] - 1  # one Add per step, one in x*x + 1
    assert widget.data["nodes"]["DivBackward0"] == 2 * steps
    assert widget.data["autograd"] == pytest.approx(6 / np.sqrt(37), abs=1e-10)


def test_branch_records_only_the_branch_taken():
    widget = DynamicGraphExplorer(program=BRANCH, x=1.5)
    assert widget.data["nodes"] == {"PowBackward0": 1, "AccumulateGrad": 1}
    assert widget.data["autograd"] == pytest.approx(3.0)
    widget.controls["x"].value = -1.0
    assert widget.data["nodes"] == {"SinBackward0": 1, "MulBackward0": 1, "AccumulateGrad": 1}
    assert widget.data["autograd"] == pytest.approx(2 * np.cos(-2.0))
    assert widget.axes[2].get_title() == "graph at x = -1.00: 3 nodes"


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_autograd_agrees_with_finite_differences_away_from_jumps(name):
    widget = DynamicGraphExplorer(program=name)
    crosses = widget.axes[1].lines[1]
    points, values = crosses.get_xdata(), crosses.get_ydata()
    autograd = [run(PROGRAMS[name], p)[1] for p in points]
    np.testing.assert_allclose(values, autograd, atol=1e-5)
    assert finite_difference(PROGRAMS[name], 0.3) == pytest.approx(run(PROGRAMS[name], 0.3)[1],
                                                                  abs=1e-5)


def test_plots_are_labelled_and_slider_labels_not_cut():
    widget = DynamicGraphExplorer()
    left, middle, right = widget.axes
    assert left.get_xlabel() and left.get_ylabel() and middle.get_ylabel() and right.get_xlabel()
    assert [t.get_text() for t in left.get_legend().get_texts()] == ["f(x)", "nodes in the graph"]
    assert middle.get_legend() is not None
    for control in widget.controls.values():
        assert control.style.description_width == "initial"
