"""Chapter 01's widget: moving x moves the tangent, and autograd matches finite differences."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

from nbgrad.viz.widgets.chain_rule import FUNCTIONS, ChainRuleExplorer  # noqa: E402


def test_moving_x_updates_slope_and_plot():
    widget = ChainRuleExplorer(function="sin(x²)", x=0.8)
    assert widget.data["autograd"] == pytest.approx(np.cos(0.64) * 1.6, rel=1e-9)
    tangent_before = widget.axes[0].lines[1].get_ydata().copy()

    widget.controls["x"].value = 1.3

    assert widget.data["x"] == 1.3
    assert widget.data["autograd"] == pytest.approx(np.cos(1.69) * 2.6, rel=1e-9)
    assert widget.data["finite_difference"] == pytest.approx(widget.data["autograd"], abs=1e-6)
    tangent_after = widget.axes[0].lines[1].get_ydata()
    assert not np.allclose(tangent_before, tangent_after)
    marker = widget.axes[1].lines[2]
    assert marker.get_xdata()[0] == 1.3
    assert marker.get_ydata()[0] == pytest.approx(widget.data["autograd"])


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_every_function_agrees_with_finite_differences(name):
    widget = ChainRuleExplorer()
    widget.controls["function"].value = name
    plotted = widget.axes[1].lines[0].get_ydata()
    crosses = widget.axes[1].lines[1].get_ydata()
    np.testing.assert_allclose(plotted[::10], crosses, atol=1e-5)
    assert np.array_equal(plotted, widget.data["derivative"])
