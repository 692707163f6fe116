"""Chapter 03: vanishing and exploding gradients, seen through ``retain_grad()``.

A deep chain of layers ``h_l = f(h_{l-1} @ W_l)`` with ``W_l ~ N(0, scale² / width)``.
Every layer's output calls ``retain_grad()``, so after one ``backward()`` each ``h_l.grad``
holds ``∂loss/∂h_l``; their norms, layer by layer, show the gradient shrinking or growing
as it travels back. The per-layer factor is roughly ``scale × (typical f'(z))``: below 1
the gradient vanishes geometrically with depth, above 1 it explodes.
"""

from __future__ import annotations

import ipywidgets
import numpy as np
from matplotlib.ticker import MaxNLocator

import nbgrad as ng

from .base import GradientWidget

ACTIVATIONS = {"tanh": ng.tanh, "sigmoid": ng.sigmoid, "relu": ng.relu}
COLORS = {"tanh": "tab:blue", "sigmoid": "tab:orange", "relu": "tab:green"}
WIDTH, BATCH = 64, 16
LABEL = {"description_width": "initial"}  # the whole description, never cut ("weight sc…")


def deep_chain(activation, scale, depth, width=WIDTH, batch=BATCH, seed=0):
    """Build the chain, ``retain_grad()`` every layer's output, and backpropagate ``h_L.sum()``.

    Returns ``(x, weights, outputs)``: after the call every ``outputs[l].grad`` and
    ``weights[l].grad`` is filled (float64, so that even extreme scales stay finite).
    """
    f = ACTIVATIONS[activation]
    ng.manual_seed(seed)
    x = ng.randn(batch, width, dtype=ng.float64)
    weights = []
    for _ in range(depth):
        w = ng.randn(width, width, dtype=ng.float64) * (scale / width ** 0.5)
        weights.append(w.requires_grad_())
    outputs = []
    h = x
    for w in weights:
        h = f(h @ w)
        h.retain_grad()  # keep ∂loss/∂h_l: without it h.grad would stay None
        outputs.append(h)
    h.sum().backward()
    return x, weights, outputs


def gradient_norms(activation, scale, depth, **kwargs):
    """``(‖∂loss/∂h_l‖, ‖∂loss/∂W_l‖)`` for l = 1..depth, as two NumPy arrays."""
    _, weights, outputs = deep_chain(activation, scale, depth, **kwargs)
    h_norms = np.array([np.linalg.norm(h.grad.numpy()) for h in outputs])
    w_norms = np.array([np.linalg.norm(w.grad.numpy()) for w in weights])
    return h_norms, w_norms


class VanishingGradients(GradientWidget):
    """Choose the activation, the weight scale and the depth: watch ``‖h_l.grad‖`` per layer."""

    figsize = (9, 3.4)

    def __init__(self, activation="tanh", scale=1.0, depth=20):
        super().__init__({
            "activation": ipywidgets.Dropdown(options=list(ACTIVATIONS), value=activation,
                                              description="f =", style=LABEL),
            "scale": ipywidgets.FloatSlider(value=scale, min=0.1, max=3.0, step=0.1,
                                            description="weight scale", style=LABEL),
            "depth": ipywidgets.IntSlider(value=depth, min=5, max=50, step=5,
                                          description="layers", style=LABEL),
        }, ncols=2)

    def draw(self, activation, scale, depth):
        scale = round(scale, 2)
        layers = np.arange(1, depth + 1)
        norms = {name: gradient_norms(name, scale, depth) for name in ACTIVATIONS}
        h_norms, w_norms = norms[activation]
        self.data = {"activation": activation, "scale": scale, "depth": depth,
                     "layers": layers, "h_grad_norms": h_norms, "w_grad_norms": w_norms,
                     "factors": h_norms[:-1] / h_norms[1:],
                     "all_h_grad_norms": {k: v[0] for k, v in norms.items()}}

        left, right = self.axes
        for name, (other, _) in norms.items():
            if name != activation:
                left.plot(layers, other, "--", color=COLORS[name], alpha=0.5, label=name)
        left.plot(layers, h_norms, "o-", color=COLORS[activation], markersize=3, label=activation)
        left.set_yscale("log")
        left.set_xlabel("layer l (input side → output side)")
        left.set_ylabel("‖h_l.grad‖ (log scale)")
        ratio = h_norms[0] / h_norms[-1]
        left.set_title(f"‖h_l.grad‖, scale {scale:g}: layer 1 gets {ratio:.1e}× layer {depth}'s",
                       fontsize=10)
        left.legend(fontsize=8, loc="best", title="f", title_fontsize=8)
        factors = h_norms[:-1] / h_norms[1:]
        right.axhline(1.0, color="gray", linewidth=1, label="1: norm kept")
        right.plot(layers[1:], factors, "o-", color=COLORS[activation], markersize=3,
                   label=f"{activation}, scale {scale:g}")
        right.set_yscale("log")
        _at_least_decades(right, np.append(factors, 1.0), 2)
        right.set_xlabel("layer l")
        right.set_ylabel("factor (log scale)")
        right.legend(fontsize=8, loc="best")
        right.set_title(f"one layer's factor ‖h_(l-1).grad‖ / ‖h_l.grad‖ ({activation})",
                        fontsize=10)
        for ax in (left, right):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.grid(True, which="major", alpha=0.3)


def _at_least_decades(ax, values, decades):
    """Widen a log axis around ``values`` to span at least ``decades`` powers of ten."""
    values = values[values > 0]
    if values.size == 0:
        return
    low, high = np.log10(values.min()), np.log10(values.max())
    if high - low < decades:
        middle = (low + high) / 2
        ax.set_ylim(10 ** (middle - decades / 2), 10 ** (middle + decades / 2))
