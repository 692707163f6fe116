"""Chapter 03's widget: per-layer gradient norms (retain_grad) in a deep chain of layers."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets", reason="the widgets need the `lab` extra (ipywidgets)")

from nbgrad.viz.widgets.vanishing import VanishingGradients, deep_chain  # noqa: E402

DERIVATIVES = {  # f'(z), written with NumPy only
    "tanh": lambda z: 1 - np.tanh(z) ** 2,
    "sigmoid": lambda z: (s := 1 / (1 + np.exp(-z))) * (1 - s),
    "relu": lambda z: (z > 0).astype(z.dtype),
}
FORWARD = {"tanh": np.tanh, "sigmoid": lambda z: 1 / (1 + np.exp(-z)),
           "relu": lambda z: np.maximum(z, 0)}


def reference_norms(activation, scale, depth):
    """‖∂(h_L.sum())/∂h_l‖ by hand-written NumPy backpropagation on the same weights."""
    x, weights, _ = deep_chain(activation, scale, depth)
    ws = [w.detach().numpy() for w in weights]
    h, hs, zs = x.numpy(), [], []
    for w in ws:
        z = h @ w
        h = FORWARD[activation](z)
        zs.append(z)
        hs.append(h)
    grad = np.ones_like(h)  # ∂ sum / ∂h_L
    norms = [0.0] * depth
    for layer in reversed(range(depth)):
        norms[layer] = np.linalg.norm(grad)
        grad = (grad * DERIVATIVES[activation](zs[layer])) @ ws[layer].T
    return np.array(norms)


def test_initial_norms_match_numpy_backprop():
    widget = VanishingGradients(activation="tanh", scale=1.0, depth=20)
    np.testing.assert_allclose(widget.data["h_grad_norms"], reference_norms("tanh", 1.0, 20),
                               rtol=1e-10)
    assert widget.data["h_grad_norms"][-1] == pytest.approx(np.sqrt(16 * 64))  # ‖ones‖


def test_changing_controls_recomputes_the_right_norms():
    widget = VanishingGradients()
    before = widget.axes[0].lines[-1].get_ydata().copy()

    widget.controls["activation"].value = "sigmoid"
    widget.controls["scale"].value = 1.0
    sigmoid = widget.data["h_grad_norms"]
    np.testing.assert_allclose(sigmoid, reference_norms("sigmoid", 1.0, 20), rtol=1e-10)
    # sigmoid' <= 1/4: the gradient vanishes geometrically on its way to layer 1
    assert sigmoid[0] / sigmoid[-1] < 1e-8
    assert np.all(widget.data["factors"] < 0.5)
    plotted = widget.axes[0].lines[-1].get_ydata()
    assert not np.allclose(before, plotted)
    np.testing.assert_array_equal(plotted, sigmoid)

    widget.controls["activation"].value = "relu"
    widget.controls["scale"].value = 2.5
    relu = widget.data["h_grad_norms"]
    np.testing.assert_allclose(relu, reference_norms("relu", 2.5, 20), rtol=1e-10)
    assert relu[0] / relu[-1] > 1e3  # scale 2.5 > sqrt(2): exploding
    np.testing.assert_allclose(widget.axes[1].lines[-1].get_ydata(), relu[:-1] / relu[1:])


def test_depth_slider_changes_the_number_of_layers():
    widget = VanishingGradients()
    widget.controls["depth"].value = 35
    assert len(widget.data["h_grad_norms"]) == 35
    np.testing.assert_allclose(widget.data["h_grad_norms"], reference_norms("tanh", 1.0, 35),
                               rtol=1e-10)


def test_same_numbers_as_pytorch():
    torch = pytest.importorskip("torch")
    x, weights, outputs = deep_chain("tanh", 1.5, 10)
    h = torch.tensor(x.numpy())
    retained = []
    for w in weights:
        h = torch.tanh(h @ torch.tensor(w.detach().numpy(), requires_grad=True))
        h.retain_grad()
        retained.append(h)
    h.sum().backward()
    for ours, theirs in zip(outputs, retained):
        expected = theirs.grad.numpy()
        # Entries near zero come from cancelling sums, whose rounding depends on the BLAS:
        # their error is relative to the size of the terms, not of the result.
        np.testing.assert_allclose(ours.grad.numpy(), expected, rtol=1e-10,
                                   atol=1e-12 * np.abs(expected).max())


def test_axes_are_labelled_and_have_legends():
    widget = VanishingGradients()
    for activation, scale in (("tanh", 1.0), ("relu", 2.0), ("sigmoid", 3.0)):
        widget.controls["activation"].value = activation
        widget.controls["scale"].value = scale
        for ax in widget.axes:
            assert ax.get_xlabel() and ax.get_ylabel()
            legend = ax.get_legend()
            assert legend is not None and legend._loc == 0  # loc="best": placed off the curves
        labels = [t.get_text() for t in widget.axes[0].get_legend().get_texts()]
        assert sorted(labels) == ["relu", "sigmoid", "tanh"]


def test_slider_labels_are_not_cut():
    widget = VanishingGradients()
    for control in widget.controls.values():
        assert control.style.description_width == "initial"  # the whole description shows


def test_what_chapter_03_tells_the_reader_to_try_happens():
    """The chapter's text: sigmoid shrinks the gradient at any scale; tanh past scale 1 grows
    its factor more slowly than the scale (saturation shrinks |f'|); relu's factor is about
    s/sqrt(2), so 1.4 keeps the norm flat, 1.0 shrinks it and 2.0 makes it explode."""
    widget = VanishingGradients(depth=20)

    def factor(activation, scale):  # one layer's factor, the geometric mean over the chain
        widget.controls["activation"].value = activation
        widget.controls["scale"].value = scale
        norms = widget.data["h_grad_norms"]
        return (norms[0] / norms[-1]) ** (1 / (len(norms) - 1))

    assert factor("sigmoid", 1.0) < factor("sigmoid", 3.0) < 1
    slopes = [factor("tanh", s) / s for s in (1.0, 1.5, 3.0)]
    assert slopes[0] > slopes[1] > slopes[2]
    for scale in (1.0, 1.4, 2.0):
        assert factor("relu", scale) == pytest.approx(scale / np.sqrt(2), rel=0.1)
