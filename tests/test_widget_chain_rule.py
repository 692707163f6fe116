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


# -- the graph with upstream × local on every edge ----------------------------------------
import re  # noqa: E402

from nbgrad.viz.widgets.chain_rule import CHAINS, ChainGraphExplorer  # noqa: E402

NUMBER = r"(-?\d+\.\d+)"


def edge_texts(widget):
    """The edge labels drawn on the figure, parsed back: (upstream, local, product)."""
    texts = [t.get_text() for t in widget.axes[0].texts if t.get_gid() == "edge"]
    parsed = [re.fullmatch(f"{NUMBER} × {NUMBER} = {NUMBER}", t) for t in texts]
    assert all(parsed), texts
    return [tuple(map(float, m.groups())) for m in parsed]


def by_hand_sin_x2_plus_x(x):
    """y = s + x, s = sin(u), u = x²: (output, input) -> (upstream, local), by hand."""
    dy_ds, dy_du = 1.0, np.cos(x * x)
    return {("u", "x"): (dy_du, 2 * x), ("s", "u"): (dy_ds, np.cos(x * x)),
            ("y", "s"): (1.0, 1.0), ("y", "x"): (1.0, 1.0)}


def by_hand_exp_sin(x):
    """y = e·s, e = exp(x), s = sin(x)."""
    e, s = np.exp(x), np.sin(x)
    return {("e", "x"): (s, e), ("s", "x"): (e, np.cos(x)), ("y", "e"): (1.0, s),
            ("y", "s"): (1.0, e)}


def check_edges(widget, by_hand):
    x = widget.controls["x"].value
    expected = by_hand(x)
    drawn = edge_texts(widget)
    assert len(drawn) == len(expected) == len(widget.data["edges"])
    for edge, (upstream, local, product) in zip(widget.data["edges"], drawn):
        want_up, want_local = expected[(edge["output"], edge["input"])]
        assert upstream == pytest.approx(want_up, abs=5e-5)
        assert local == pytest.approx(want_local, abs=5e-5)
        assert product == pytest.approx(want_up * want_local, abs=5e-5)
        assert edge["product"] == pytest.approx(want_up * want_local, rel=1e-12)
    # what reaches x is the sum over x's edges, and that is dy/dx
    into_x = sum(e["product"] for e in widget.data["edges"] if e["input"] == "x")
    assert widget.data["grads"]["x"] == pytest.approx(into_x, rel=1e-12)
    return drawn


def test_moving_x_rewrites_every_edge_as_upstream_times_local():
    widget = ChainGraphExplorer(chain="y = sin(x²) + x", x=0.5)
    before = check_edges(widget, by_hand_sin_x2_plus_x)
    assert widget.data["grads"]["x"] == pytest.approx(np.cos(0.25) + 1, rel=1e-12)

    widget.controls["x"].value = 1.3

    after = check_edges(widget, by_hand_sin_x2_plus_x)
    assert after != before
    assert widget.data["grads"]["x"] == pytest.approx(2.6 * np.cos(1.69) + 1, rel=1e-12)
    assert widget.data["node_names"] == {"u": "PowBackward0", "s": "SinBackward0",
                                         "y": "AddBackward0"}
    assert "dy/dx = " + f"{2.6 * np.cos(1.69) + 1:.4f}" in widget.axes[0].get_title()


def test_the_other_program_and_its_fan_out():
    widget = ChainGraphExplorer(chain="y = exp(x)·sin(x)", x=-0.7)
    check_edges(widget, by_hand_exp_sin)
    widget.controls["x"].value = 1.1
    check_edges(widget, by_hand_exp_sin)
    assert widget.data["grads"]["x"] == pytest.approx(np.exp(1.1) * (np.sin(1.1) + np.cos(1.1)),
                                                      rel=1e-12)
    nodes = [t.get_text() for t in widget.axes[0].texts if t.get_gid() == "node"]
    assert len(nodes) == len(CHAINS["y = exp(x)·sin(x)"]["positions"])
    assert any("MulBackward0" in t for t in nodes)


def test_labels_fit_and_plots_are_labelled():
    widget = ChainRuleExplorer()
    for ax in widget.axes:
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None
    for w in (widget, ChainGraphExplorer()):
        for control in w.controls.values():
            assert control.style.description_width == "initial"
