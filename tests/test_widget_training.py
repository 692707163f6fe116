"""Chapter 08's widget: what ``.grad`` holds when ``step()`` reads it, with ``zero_grad()``
every ``k`` backward calls, in each of the three loops, for every slider setting.

The reference is written here, independently of the widget: the same seeded initial
weights (``nbgrad.manual_seed(0)`` then the layers in order), then hand-written NumPy
backpropagation in float64 with PyTorch's SGD + momentum, whose ``grad`` is a NumPy array
that each backward adds into and that the loop sets to zero where ``zero_grad()`` runs.
"""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

import nbgrad as ng  # noqa: E402
from nbgrad import nn  # noqa: E402
from nbgrad.viz.widgets.training import (  # noqa: E402
    FORGOTTEN, K_VALUES, LOOPS, MEAN, SUM, ZeroGradExplorer, two_moons)
from widget_layout import layout_problems  # noqa: E402

LR, MOMENTUM = 0.3, 0.9


def initial_weights(hidden=16):
    """[W1, b1, W2, b2, W3, b3] of the three Linear layers, as NumPy float64 arrays."""
    ng.manual_seed(0)
    layers = [nn.Linear(2, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, 2)]
    return [a.detach().numpy().astype(np.float64) for l in layers for a in (l.weight, l.bias)]


def loss_and_gradient(params, X, y):
    """Mean cross-entropy of the 2-h-h-2 tanh network on (X, y) and its gradient, by hand."""
    W1, b1, W2, b2, W3, b3 = params
    h1 = np.tanh(X @ W1.T + b1)
    h2 = np.tanh(h1 @ W2.T + b2)
    z = h2 @ W3.T + b3
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    n = len(y)
    dz = (p - np.eye(2)[y]) / n
    d2 = (dz @ W3) * (1 - h2 ** 2)
    d1 = (d2 @ W2) * (1 - h1 ** 2)
    grads = [d1.T @ X, d1.sum(0), d2.T @ h1, d2.sum(0), dz.T @ h2, dz.sum(0)]
    return -np.mean(np.log(p[np.arange(n), y])), grads


def hand_loop(k, loop, steps):
    """The widget's training loop by hand: losses, and .grad (flattened) at each step()."""
    X, y = two_moons()
    X = X.astype(np.float64)
    params, buffers, grad = initial_weights(), None, None
    losses, read = [], []
    for step in range(steps):
        if loop == FORGOTTEN:
            if step % k == 0:
                grad = [np.zeros_like(p) for p in params]        # zero_grad()
            loss, g = loss_and_gradient(params, X, y)
            grad = [a + b for a, b in zip(grad, g)]               # backward adds into .grad
        else:
            grad, loss = [np.zeros_like(p) for p in params], 0.0  # zero_grad()
            for rows in np.split(np.arange(len(y)), k):           # k equal micro-batches
                part, g = loss_and_gradient(params, X[rows], y[rows])
                scale = 1 / k if loop == MEAN else 1.0
                grad = [a + scale * b for a, b in zip(grad, g)]
                loss += part / k
        losses.append(loss)
        read.append(np.concatenate([g.ravel() for g in grad]))
        # PyTorch's SGD: the buffer starts at the first gradient, then b = m b + g
        buffers = [g.copy() for g in grad] if buffers is None else [
            MOMENTUM * b + g for b, g in zip(buffers, grad)]
        params = [p - LR * b for p, b in zip(params, buffers)]
    return np.array(losses), np.array(read)


def plotted(widget):
    """(‖.grad‖ read by step(), the step's own gradient, the correct loop's, this loop's
    loss, the correct loop's loss), as plotted."""
    left, right = widget.axes
    return [line.get_ydata() for line in left.lines] + [line.get_ydata() for line in right.lines]


def test_forgetting_zero_grad_piles_up_the_steps_gradients_as_the_hand_loop_does():
    widget = ZeroGradExplorer(k=2, loop=FORGOTTEN)
    read, own, correct, loss, correct_loss = plotted(widget)
    # each backward call's gradient, seen by the hooks, is added into .grad: what step()
    # reads is the sum of the gradients since the last zero_grad()
    data, piled = widget.data, None
    for i, (added, zeroed) in enumerate(zip(data["added"], data["zeroed"])):
        piled = added if zeroed else piled + added
        np.testing.assert_allclose(data["read"][i], piled, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(read, np.linalg.norm(data["read"], axis=1))
    np.testing.assert_allclose(own, np.linalg.norm(data["added"], axis=1))
    assert list(data["zeroed"][:6]) == [True, False] * 3

    # the same numbers as the hand loop (20 steps: float32 and float64 part later)
    losses, grads = hand_loop(2, FORGOTTEN, 20)
    np.testing.assert_allclose(loss[:20], losses, rtol=1e-4)
    np.testing.assert_allclose(data["read"][:20], grads, rtol=1e-3, atol=1e-5)
    # step 2 reads both gradients: more than either alone
    assert read[1] > max(own[0], own[1])


def test_the_k_slider_redraws_the_curves_of_another_loop():
    widget = ZeroGradExplorer(k=2, loop=FORGOTTEN)
    before = [line.copy() for line in plotted(widget)]

    widget.controls["k"].value = 4

    after = plotted(widget)
    assert not np.allclose(before[0], after[0]) and not np.allclose(before[3], after[3])
    np.testing.assert_array_equal(before[2], after[2])  # the correct loop stays
    losses, grads = hand_loop(4, FORGOTTEN, 20)
    np.testing.assert_allclose(after[3][:20], losses, rtol=1e-4)
    np.testing.assert_allclose(after[0][:20], np.linalg.norm(grads, axis=1), rtol=1e-3)
    assert list(widget.data["zeroed"][:8]) == [True, False, False, False] * 2
    # within a run of k steps ‖.grad‖ read by step() never drops below the first step's
    assert after[0][3] > after[0][0]


@pytest.mark.parametrize("k", [2, 5, 10])
def test_micro_batches_with_loss_over_k_add_up_to_the_full_batch_gradient(k):
    widget = ZeroGradExplorer(k=1, loop=MEAN)
    widget.controls["k"].value = k
    data = widget.data
    assert len(data["added"]) == k * len(data["read"])  # k backward calls per step
    # each step's k hooked gradients add up to .grad, which is the full batch's gradient
    pieces = data["added"].reshape(-1, k, data["added"].shape[1]).sum(axis=1)
    np.testing.assert_allclose(data["read"], pieces, rtol=1e-5, atol=1e-7)
    losses, grads = hand_loop(1, FORGOTTEN, 30)
    np.testing.assert_allclose(data["read"][:30], grads, rtol=1e-3, atol=1e-6)
    read, own, correct, loss, correct_loss = plotted(widget)
    np.testing.assert_allclose(loss, correct_loss, rtol=1e-5)
    np.testing.assert_allclose(read, correct, rtol=1e-4)
    np.testing.assert_allclose(loss[:30], losses, rtol=1e-4)


def test_micro_batches_without_over_k_give_k_times_the_gradient():
    widget = ZeroGradExplorer(k=4, loop=SUM)
    data = widget.data
    first_correct = hand_loop(1, FORGOTTEN, 1)[1][0]
    np.testing.assert_allclose(data["read"][0], 4 * first_correct, rtol=1e-4, atol=1e-6)
    losses, grads = hand_loop(4, SUM, 20)
    np.testing.assert_allclose(data["loss"][:20], losses, rtol=1e-4)
    np.testing.assert_allclose(data["read"][:20], grads, rtol=1e-3, atol=1e-5)


def test_with_k_1_every_loop_is_the_correct_loop():
    widget = ZeroGradExplorer(k=1)
    for loop in LOOPS:
        widget.controls["loop"].value = loop
        read, own, correct, loss, correct_loss = plotted(widget)
        np.testing.assert_array_equal(loss, correct_loss)
        np.testing.assert_array_equal(read, correct)
        np.testing.assert_array_equal(own, read)  # zeroed every step: .grad is this step's


@pytest.mark.parametrize("k, loop", [(4, FORGOTTEN), (1, MEAN), (10, SUM), (10, FORGOTTEN)])
def test_labels_whole_axes_labelled_legends_off_the_curves(k, loop):
    widget = ZeroGradExplorer(k=k, loop=loop)
    assert layout_problems(widget) == []
    for ax in widget.axes:
        legend = ax.get_legend()
        assert legend is not None
        assert min(text.get_fontsize() for text in legend.get_texts()) >= 9
    assert widget.controls["k"].options == K_VALUES


def test_what_chapter_08_tells_the_reader_to_try_happens():
    """Section 7's text: forgetting zero_grad() every other step (k = 2) stalls the loss
    near 0.5, while the correct loop reaches 0.12; at k = 4 the loss ends higher than it
    started. (loss / k).backward() over k micro-batches follows the correct loop for
    every k. Without / k the gradient is k times as large, as a learning rate k times as
    large: k = 2 trains faster, and at k = 8 the loss ends higher than it started."""
    widget = ZeroGradExplorer(k=2, loop=FORGOTTEN)
    stalled, correct = widget.data["loss"], widget.data["correct_loss"]
    assert 0.45 < stalled[-1] < 0.55 and correct[-1] == pytest.approx(0.124, abs=0.001)
    widget.controls["k"].value = 4
    assert widget.data["loss"][-1] > widget.data["loss"][0]

    widget.controls["loop"].value = MEAN
    for k in K_VALUES:
        widget.controls["k"].value = k
        np.testing.assert_allclose(widget.data["loss"], correct, rtol=1e-5)

    widget.controls["loop"].value = SUM
    for k in (2, 8):
        widget.controls["k"].value = k
        np.testing.assert_allclose(widget.data["read_norm"][0], k * widget.data["correct_norm"][0],
                                   rtol=1e-5)
    widget.controls["k"].value = 2
    assert widget.data["loss"][-1] < correct[-1]
    widget.controls["k"].value = 8
    assert widget.data["loss"][-1] > widget.data["loss"][0]
