"""Chapter 09's widget: each broken program raises (or computes a wrong gradient), its fix
computes the right one, and every control redraws the graph and the bars."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

from nbgrad.viz.widgets.debugging import (
    MICRO_DATA,
    N_MICRO,
    PROGRAMS,
    DebuggingExplorer,
)

(NO_GRAD, RNN, INPLACE, SCALED, NON_SCALAR, WHERE, ZERO_GRAD, MICRO) = PROGRAMS


def bars(widget):
    return [patch.get_height() for patch in widget.axes[1].patches]


def markers(widget):
    (line,) = [line for line in widget.axes[1].lines if line.get_label() == "correct gradient"]
    return list(line.get_ydata())


def error_text(widget):
    return "".join(text.get_text() for text in widget.axes[1].texts).replace("\n", " ")


def test_toggling_the_fix_turns_the_rnn_error_into_a_gradient():
    widget = DebuggingExplorer(program=RNN, fix=False, x=0.5)
    assert widget.data["error"].startswith(
        "RuntimeError: Trying to backward through the graph a second time")
    assert "Trying to backward through the graph a second time" in error_text(widget)
    assert widget.axes[1].get_title() == "backward raised"
    assert not widget.axes[1].patches
    png = widget.png()
    widget.controls["x"].value = 1.0  # the same error, but the figure says which x
    assert widget.data["error"].startswith("RuntimeError: Trying to backward")
    assert widget.png() != png
    widget.controls["x"].value = 0.5
    broken_graph = widget.data["graph"]
    assert broken_graph.count("TanhBackward0") == 2  # step 2's graph reaches into step 1's
    # drawn before step 2's backward: step 1's Tanh and Mul were freed, step 2's not yet
    assert broken_graph.count("saved tensors freed by backward") == 2
    assert "saved output (2,), version 0 (now 0)" in broken_graph

    widget.controls["fix"].value = True
    assert widget.data["error"] is None
    # step 1: h_prev = 0, no gradient; step 2: sum((1 - h2²) h1), h1 = tanh([1, 2])
    h1 = np.tanh([1.0, 2.0])
    h2 = np.tanh(0.5 * h1 + [0.5, -1.0])
    expected = float(((1 - h2 ** 2) * h1).sum())
    assert bars(widget) == pytest.approx([expected], rel=1e-6)
    assert markers(widget) == pytest.approx([expected], rel=1e-6)
    assert widget.data["graph"] != broken_graph
    assert widget.data["graph"].count("TanhBackward0") == 1  # detached: one step deep
    assert widget.data["image"].shape[2] in (3, 4)  # the PNG, as an image

    png = widget.png()
    widget.controls["x"].value = -1.0  # the slider redraws too
    assert widget.data["suptitle"] == f"{RNN}: fix applied, x = -1.00"
    assert widget.figure.get_suptitle() == widget.data["suptitle"]
    assert widget.png() != png
    h2 = np.tanh(-1.0 * h1 + [0.5, -1.0])
    assert bars(widget) == pytest.approx([float(((1 - h2 ** 2) * h1).sum())], rel=1e-6)


@pytest.mark.parametrize("program, first_line", [
    (NO_GRAD, ("RuntimeError: element 0 of tensors does not require grad and does not have "
              "a grad_fn")),
    (INPLACE, ("RuntimeError: one of the variables needed for gradient computation has been "
              "modified by an inplace operation: [nbgrad.FloatTensor [2]], which is output 0 "
              "of Exp, is at version 1; expected version 0 instead.")),
    (NON_SCALAR, "RuntimeError: grad can be implicitly created only for scalar outputs"),
    (SCALED, "w.grad is None: w is not a leaf, its grad_fn is MulBackward0"),
])
def test_broken_programs_show_their_error_and_the_fix_the_gradient(program, first_line):
    widget = DebuggingExplorer(program=program, fix=False, x=1.5)
    assert widget.data["error"].startswith(first_line)
    assert first_line.split(":")[0] in error_text(widget)
    widget.controls["fix"].value = True
    assert widget.data["error"] is None
    (name,) = widget.data["expected"]
    np.testing.assert_allclose(bars(widget), widget.data["expected"][name], rtol=1e-6)
    np.testing.assert_allclose(widget.data["grads"][name], widget.data["expected"][name],
                               rtol=1e-6)


def test_fixed_gradients_are_the_hand_derived_ones():
    widget = DebuggingExplorer(program=NO_GRAD, fix=True, x=1.5)
    assert bars(widget) == pytest.approx([3.0, 4.0])  # d/dw sum(w²) = 2w, w = [1.5, 2]
    widget.controls["program"].value = INPLACE
    assert bars(widget) == pytest.approx(np.exp([1.5, 1.0]))
    widget.controls["program"].value = SCALED
    assert bars(widget) == pytest.approx([2 * 0.015, 2 * 0.01])
    widget.controls["program"].value = NON_SCALAR
    assert bars(widget) == pytest.approx([3.0, 4.0, -2.0])


def test_where_sqrt_gives_nan_and_the_double_where_fixes_it():
    widget = DebuggingExplorer(program=WHERE, fix=False, x=-1.0)
    grads = widget.data["grads"]["x.grad"]
    assert np.isnan(grads[:2]).all() and grads[2] == pytest.approx(0.25)
    assert [t.get_text() for t in widget.axes[1].texts] == ["nan", "nan"]
    assert markers(widget) == pytest.approx([0.0, 0.0, 0.25])
    widget.controls["x"].value = 1.0  # x > 0 takes the sqrt branch: only the 0 entry is nan
    grads = widget.data["grads"]["x.grad"]
    assert grads[0] == pytest.approx(0.5) and np.isnan(grads[1])
    widget.controls["fix"].value = True
    assert bars(widget) == pytest.approx([0.5, 0.0, 0.25])
    assert not widget.axes[1].texts


def test_missing_zero_grad_accumulates_and_zero_grad_does_not():
    widget = DebuggingExplorer(program=ZERO_GRAD, fix=False, x=1.0)
    # w = 1 -> 0.8 -> ...: gradients 2, then 2 + 1.6 (still holding the first), ...
    assert bars(widget) == pytest.approx([2.0, 3.6, 4.48])
    assert markers(widget) == pytest.approx([2.0, 1.6, 2 * (0.8 - 0.1 * 3.6)])
    widget.controls["fix"].value = True
    assert bars(widget) == pytest.approx([2.0, 1.6, 1.28])
    assert markers(widget) == pytest.approx(bars(widget))


def test_micro_batches_need_the_mean_divided_by_their_count():
    widget = DebuggingExplorer(program=MICRO, fix=False, x=0.5)
    full = float((2 * (0.5 * MICRO_DATA - 1) * MICRO_DATA).mean())
    assert markers(widget) == pytest.approx([full])
    assert bars(widget) == pytest.approx([N_MICRO * full])
    widget.controls["fix"].value = True
    assert bars(widget) == pytest.approx([full])
    widget.controls["x"].value = -1.0
    assert bars(widget) == pytest.approx([float((2 * (-MICRO_DATA - 1) * MICRO_DATA).mean())])


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_every_fix_matches_the_correct_gradient(program):
    widget = DebuggingExplorer(program=program, fix=True, x=0.5)
    assert widget.data["error"] is None
    np.testing.assert_allclose(bars(widget), markers(widget), rtol=1e-6)


def test_plots_are_labelled_and_control_labels_not_cut():
    widget = DebuggingExplorer(program=MICRO, fix=True)
    right = widget.axes[1]
    assert right.get_xlabel() == "gradient entry" and right.get_ylabel() == "gradient"
    assert sorted(t.get_text() for t in right.get_legend().get_texts()) == [
        "autograd's .grad", "correct gradient"]
    for control in widget.controls.values():
        assert control.style.description_width == "initial"
    assert len(widget.png()) > 1000
