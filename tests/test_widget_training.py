"""Chapter 08's widget: a seeded training run whose loss curve, decision boundary and
per-layer gradient norms must be the right numbers for every slider setting.

The references are written here, independently of the widget: the same seeded initial
weights (``nbgrad.manual_seed(0)`` then the layers in order), then either hand-written
NumPy backpropagation with SGD + momentum in float64, or PyTorch given those weights.
"""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

import nbgrad as ng  # noqa: E402
from nbgrad import nn  # noqa: E402
from nbgrad.viz.widgets.training import TrainingExplorer  # noqa: E402
from widget_layout import layout_problems  # noqa: E402

MOMENTUM = 0.9


def initial_weights(hidden):
    """[(W, b), ...] of the three Linear layers, as NumPy float64 arrays."""
    ng.manual_seed(0)
    layers = [nn.Linear(2, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, 2)]
    return [(l.weight.detach().numpy().astype(np.float64),
             l.bias.detach().numpy().astype(np.float64)) for l in layers]


def forward(params, X):
    (W1, b1), (W2, b2), (W3, b3) = params
    h1 = np.tanh(X @ W1.T + b1)
    h2 = np.tanh(h1 @ W2.T + b2)
    return h1, h2, h2 @ W3.T + b3


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def numpy_training(X, y, lr, hidden, steps):
    """Full-batch SGD with momentum on cross-entropy, backpropagated by hand."""
    params = initial_weights(hidden)
    X = X.astype(np.float64)
    n = len(y)
    onehot = np.eye(2)[y]
    buffers = None
    losses, norms = [], []
    for _ in range(steps):
        h1, h2, z = forward(params, X)
        p = softmax(z)
        losses.append(-np.mean(np.log(p[np.arange(n), y])))
        dz = (p - onehot) / n
        dW3, db3 = dz.T @ h2, dz.sum(0)
        d2 = (dz @ params[2][0]) * (1 - h2 ** 2)
        dW2, db2 = d2.T @ h1, d2.sum(0)
        d1 = (d2 @ params[1][0]) * (1 - h1 ** 2)
        dW1, db1 = d1.T @ X, d1.sum(0)
        grads = [(dW1, db1), (dW2, db2), (dW3, db3)]
        norms.append([np.linalg.norm(gw) for gw, _ in grads])
        flat = [g for pair in grads for g in pair]
        # PyTorch's SGD: the buffer starts at the first gradient, then b = m b + g
        buffers = [g.copy() for g in flat] if buffers is None else [
            MOMENTUM * b + g for b, g in zip(buffers, flat)]
        values = [v - lr * b for v, b in zip([v for pair in params for v in pair], buffers)]
        params = [(values[0], values[1]), (values[2], values[3]), (values[4], values[5])]
    return np.array(losses), np.array(norms), params


def plotted_losses(widget):
    return widget.axes[0].lines[0].get_ydata()


def plotted_grad_norms(widget):
    return np.stack([line.get_ydata() for line in widget.axes[2].lines], axis=1)


def test_lr_slider_gives_the_loss_curve_of_an_independent_run():
    widget = TrainingExplorer(lr=0.1, hidden=8, steps=60)
    X, y = widget.data["X"], widget.data["y"]
    np.testing.assert_allclose(plotted_losses(widget), numpy_training(X, y, 0.1, 8, 60)[0],
                               rtol=1e-4)
    before = plotted_losses(widget).copy()

    widget.controls["lr"].value = 0.3

    losses, norms, params = numpy_training(X, y, 0.3, 8, 60)
    after = plotted_losses(widget)
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, losses, rtol=1e-4)
    np.testing.assert_allclose(plotted_grad_norms(widget), norms, rtol=1e-3)
    # the decision boundary panel shows P(class 1) of the trained network on the grid
    gx, gy = widget.data["grid"]
    grid = np.stack([gx.ravel(), gy.ravel()], axis=1)
    expected = softmax(forward(params, grid)[2])[:, 1].reshape(gx.shape)
    np.testing.assert_allclose(widget.data["probability"], expected, atol=1e-4)
    # the scatter shows the training data, class by class
    for label, collection in enumerate(widget.axes[1].collections[-2:]):
        np.testing.assert_array_equal(collection.get_offsets(), X[y == label])


def test_hidden_width_slider_matches_torch_given_the_same_weights(torch):
    widget = TrainingExplorer(lr=0.3, hidden=16, steps=50)
    widget.controls["hidden"].value = 6
    X, y = widget.data["X"], widget.data["y"]

    model = torch.nn.Sequential(torch.nn.Linear(2, 6), torch.nn.Tanh(),
                                torch.nn.Linear(6, 6), torch.nn.Tanh(),
                                torch.nn.Linear(6, 2))
    linears = [model[0], model[2], model[4]]
    with torch.no_grad():
        for layer, (W, b) in zip(linears, initial_weights(6)):
            layer.weight.copy_(torch.from_numpy(W.astype(np.float32)))
            layer.bias.copy_(torch.from_numpy(b.astype(np.float32)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.3, momentum=MOMENTUM)
    inputs, targets = torch.from_numpy(X), torch.from_numpy(y)
    losses, norms = [], []
    for _ in range(50):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        norms.append([layer.weight.grad.norm().item() for layer in linears])

    np.testing.assert_allclose(plotted_losses(widget), losses, rtol=1e-5)
    np.testing.assert_allclose(plotted_grad_norms(widget), norms, rtol=1e-4)
    assert widget.data["hidden"] == 6


def test_more_steps_lower_the_final_loss():
    widget = TrainingExplorer(lr=0.3, hidden=16, steps=20)
    short = plotted_losses(widget).copy()
    assert len(short) == 20

    widget.controls["steps"].value = 200

    long = plotted_losses(widget)
    assert len(long) == 200
    np.testing.assert_array_equal(long[:20], short)  # the same seeded run, continued
    assert long[-1] < 0.5 * short[-1]
    assert long[-1] < 0.2 and widget.data["accuracy"] > 0.9
    assert widget.data["losses"][-1] == long[-1]


def test_labels_whole_axes_labelled_legends_off_the_curves():
    widget = TrainingExplorer(steps=30)
    assert layout_problems(widget) == []
    assert widget.controls["hidden"].style.description_width == "initial"  # "hidden wi…"
    widget.controls["lr"].value = 3.0  # diverging: curves everywhere
    assert layout_problems(widget) == []
    assert [line.get_label() for line in widget.axes[2].lines] == [
        "layer 1 (2→h)", "layer 2 (h→h)", "layer 3 (h→2)"]
    assert widget.axes[1].get_legend() is not None


def test_what_chapter_08_tells_the_reader_to_try_happens():
    """Section 7's text: a small learning rate (0.003) creeps down to the straight-line
    plateau (about 0.3); 3.0 diverges, its gradient norms jumping around instead of settling;
    with width 2 the boundary can hardly bend (its loss stays near a straight boundary's)."""
    widget = TrainingExplorer()
    settled = np.ptp(np.log(plotted_grad_norms(widget)[-50:]), axis=0)

    widget.controls["lr"].value = 0.003
    creeping = plotted_losses(widget)
    assert np.all(np.diff(creeping) < 0) and 0.3 < creeping[-1] < 0.35

    widget.controls["lr"].value = 3.0
    assert plotted_losses(widget).max() > 10 * plotted_losses(widget)[0]
    jumping = np.ptp(np.log(plotted_grad_norms(widget)[-50:]), axis=0)
    assert np.all(jumping > np.log(5)) and np.all(settled < np.log(2))

    widget.controls["lr"].value = 0.3
    wide = plotted_losses(widget)[-1]
    widget.controls["hidden"].value = 2
    assert plotted_losses(widget)[-1] > 0.25 > 2 * wide
