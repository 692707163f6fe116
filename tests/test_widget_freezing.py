"""Chapter 02's widget: frozen parameters get no gradient, the others are unaffected."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

from nbgrad.viz.widgets.freezing import INITIAL, TARGET, FreezingExplorer  # noqa: E402
from widget_layout import layout_problems  # noqa: E402

NAMES = list(INITIAL)


def closed_form_norms(x):
    """‖dL/dp‖ for y = w2·tanh(W1 x + b1) + b2 and L = (y - target)², derived by hand."""
    W1, b1, w2 = (np.array(INITIAL[n]) for n in ("W1", "b1", "w2"))
    h = np.tanh(W1 * x + b1)
    dy = 2 * (w2 @ h + INITIAL["b2"] - TARGET)
    dpre = dy * w2 * (1 - h ** 2)
    grads = {"W1": dpre * x, "b1": dpre, "w2": dy * h, "b2": dy}
    return {n: float(np.linalg.norm(g)) for n, g in grads.items()}


def bar_heights(widget):
    return [bar.get_height() for bar in widget.axes[0].patches]


def bar_labels(widget):
    return [text.get_text() for text in widget.axes[0].texts]


def test_all_trainable_match_the_closed_form():
    widget = FreezingExplorer(x=1.5)
    expected = closed_form_norms(1.5)
    for name in NAMES:
        assert widget.data["norms"][name] == pytest.approx(expected[name], rel=1e-12)
    np.testing.assert_allclose(bar_heights(widget), [expected[n] for n in NAMES], rtol=1e-12)
    assert widget.data["nodes"] == 8


def test_freezing_leaves_grad_none_and_the_others_unchanged():
    widget = FreezingExplorer(x=1.5)
    before = dict(widget.data["norms"])
    widget.controls["W1"].value = False
    assert widget.data["norms"]["W1"] is None
    assert not widget.model.params["W1"].requires_grad
    assert widget.model.params["W1"].grad is None
    for name in ("b1", "w2", "b2"):
        assert widget.data["norms"][name] == pytest.approx(before[name], rel=1e-12)
    assert bar_heights(widget)[0] == 0
    assert bar_labels(widget)[0] == "None"
    assert "W1" not in widget.data["curves"]
    assert [line.get_label() for line in widget.axes[1].lines[0:6:2]] == ["b1", "w2", "b2"]
    # W1 * x is no longer recorded: x does not require grad either
    assert widget.data["nodes"] == 7

    widget.controls["b1"].value = False  # the whole first layer is outside the graph
    assert widget.data["nodes"] == 5  # w2 * h, sum, + b2, - target, ** 2
    assert bar_labels(widget)[:2] == ["None", "None"]


def test_moving_the_input_updates_the_bars():
    widget = FreezingExplorer(x=1.5, trainable=("W1", "w2"))
    before = bar_heights(widget)
    widget.controls["x"].value = -0.7
    expected = closed_form_norms(-0.7)
    assert bar_heights(widget) != before
    assert widget.data["norms"]["W1"] == pytest.approx(expected["W1"], rel=1e-12)
    assert widget.data["norms"]["w2"] == pytest.approx(expected["w2"], rel=1e-12)
    assert widget.data["norms"]["b1"] is None and widget.data["norms"]["b2"] is None
    grid = widget.data["grid"]
    curve = widget.axes[1].lines[0]
    assert curve.get_label() == "W1"
    np.testing.assert_allclose(curve.get_ydata(), [closed_form_norms(x)["W1"] for x in grid],
                               rtol=1e-10)


def test_nothing_trainable_means_no_graph():
    widget = FreezingExplorer(trainable=())
    assert widget.data["error"] == (
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn")
    assert widget.data["nodes"] == 0
    assert all(v is None for v in widget.data["norms"].values())
    assert bar_labels(widget)[:4] == ["None"] * 4
    widget.controls["b2"].value = True
    assert widget.data["error"] is None
    assert widget.data["norms"]["b2"] == pytest.approx(closed_form_norms(1.5)["b2"], rel=1e-12)


def test_labels_whole_axes_labelled_legend_off_the_curves():
    widget = FreezingExplorer()
    for x in (-2.0, -0.5, 0.0, 1.5, 2.0):
        widget.controls["x"].value = x
        assert layout_problems(widget) == []
    widget.controls["W1"].value = False
    assert layout_problems(widget) == []
    assert widget.controls["x"].style.description_width == "initial"
