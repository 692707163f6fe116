"""Chapter 05's widget: an in-place write after the loss, and what the version check refuses."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

from nbgrad.viz.widgets.inplace import (  # noqa: E402
    CHANGED,
    FUNCTIONS,
    GRID,
    VersionCheck,
    run,
)
from nbgrad.viz.widgets.calculus import finite_difference  # noqa: E402
from widget_layout import layout_problems  # noqa: E402

REFUSAL = ("one of the variables needed for gradient computation has been modified by an "
           "inplace operation")


def right_lines(widget):
    """The right panel's curves by label: the true gradient and backward's (or the one
    backward would give without the check)."""
    return {line.get_label(): line.get_ydata() for line in widget.axes[1].lines}


def test_exp_saves_its_output_so_y_mul_k_is_refused_and_would_give_k_exp_x():
    widget = VersionCheck(k=2.0, function="exp(a)", changed="y")
    assert widget.data["error"].startswith(REFUSAL)
    assert "is at version 1; expected version 0" in widget.data["error"]
    assert widget.data["grad"] is None
    assert run("exp(a)", "y", 2.0, checked=False)["version"] == 0  # written behind the counter
    np.testing.assert_allclose(widget.data["true"], np.exp(GRID), rtol=1e-8)
    np.testing.assert_allclose(widget.data["unchecked"], 2.0 * np.exp(GRID), rtol=1e-12)
    np.testing.assert_allclose(widget.data["unchecked"], 2.0 * finite_difference(FUNCTIONS["exp(a)"][0], GRID, h=1e-6),
                               rtol=1e-8)
    lines = right_lines(widget)
    before = lines["x.grad without the version check"].copy()
    np.testing.assert_array_equal(before, widget.data["unchecked"])
    np.testing.assert_array_equal(lines["true d loss/dx (finite differences)"],
                                  widget.data["true"][::4])
    assert widget.axes[1].get_title().endswith("y is at version 1; expected version 0")
    left_before = widget.axes[0].lines[1].get_ydata().copy()

    widget.controls["k"].value = 0.5

    plotted = right_lines(widget)["x.grad without the version check"]
    np.testing.assert_allclose(plotted, 0.5 * np.exp(GRID), rtol=1e-12)
    assert not np.allclose(plotted, before)
    np.testing.assert_allclose(widget.axes[0].lines[1].get_ydata(), 0.5 * np.exp(GRID),
                               rtol=1e-12)
    assert not np.allclose(widget.axes[0].lines[1].get_ydata(), left_before)
    np.testing.assert_array_equal(widget.axes[0].lines[0].get_ydata(), np.exp(GRID))


def test_the_refusal_is_pytorchs_message():
    torch = pytest.importorskip("torch")
    ours = run("exp(a)", "y", 2.0)["error"]
    x = torch.tensor(GRID, requires_grad=True)
    y = (x * 1).exp()
    loss = y.sum()
    y.mul_(2.0)
    with pytest.raises(RuntimeError) as theirs:
        loss.backward()
    first = str(theirs.value).split(" Hint:")[0]
    assert ours.split(" Hint:")[0] == first.replace("torch.", "nbgrad.")


@pytest.mark.parametrize("function", list(FUNCTIONS))
@pytest.mark.parametrize("changed", CHANGED)
def test_backward_refuses_exactly_when_the_changed_tensor_was_saved(function, changed):
    _, df, saved = FUNCTIONS[function]
    widget = VersionCheck(k=1.5, function=function, changed=changed)
    assert widget.data["version"] == 1
    np.testing.assert_allclose(widget.data["true"], df(GRID), rtol=1e-7, atol=1e-8)
    if saved == changed:
        assert widget.data["error"].startswith(REFUSAL)
        assert "backward() refuses" in widget.axes[1].get_title()
        # the wrong gradient: f' computed from the saved value, now 1.5 times it
        wrong = {"exp(a)": 1.5 * np.exp(GRID), "sin(a)": np.cos(1.5 * GRID),
                 "a * a": 2 * 1.5 * GRID}[function]
        np.testing.assert_allclose(widget.data["unchecked"], wrong, rtol=1e-12)
    else:
        assert widget.data["error"] is None
        assert widget.axes[1].get_title() == "backward() runs: x.grad is right"
        np.testing.assert_allclose(widget.data["grad"], widget.data["true"], rtol=1e-7, atol=1e-8)
        np.testing.assert_array_equal(right_lines(widget)["x.grad from backward()"],
                                      widget.data["grad"])
        np.testing.assert_array_equal(widget.data["unchecked"], widget.data["grad"])


def test_what_chapter_05_suggests_happens():
    """The chapter's suggestions: at k = 1 the values do not change, yet backward refuses
    (the counter counts writes, not changes); with sin, changing y is fine and changing a
    is refused (it would give cos(kx)); a + 1 saves nothing, so neither change is refused."""
    widget = VersionCheck(k=1.0, function="exp(a)", changed="y")
    np.testing.assert_array_equal(widget.data["after"], widget.data["before"])
    assert widget.data["error"].startswith(REFUSAL)
    np.testing.assert_allclose(widget.data["unchecked"], widget.data["true"], rtol=1e-8)

    widget.controls["k"].value = 2.0
    widget.controls["function"].value = "sin(a)"
    assert widget.data["error"] is None
    widget.controls["changed"].value = "a"
    assert widget.data["error"].startswith(REFUSAL)
    np.testing.assert_allclose(widget.data["unchecked"], np.cos(2.0 * GRID), rtol=1e-12)

    widget.controls["function"].value = "a + 1"
    for changed in CHANGED:
        widget.controls["changed"].value = changed
        assert widget.data["error"] is None


@pytest.mark.parametrize("function", list(FUNCTIONS))
def test_labels_whole_axes_labelled_legends_off_the_curves(function):
    widget = VersionCheck(function=function)
    for changed in CHANGED:
        widget.controls["changed"].value = changed
        for k in (0.0, 3.0):  # the smallest and the largest values plotted
            widget.controls["k"].value = k
            assert layout_problems(widget) == []
