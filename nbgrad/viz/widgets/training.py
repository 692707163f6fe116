"""Chapter 08: a small network trained live on two moons, with the loss curve, the
decision boundary and every layer's gradient norm over training.

The model is ``Linear(2, h) → Tanh → Linear(h, h) → Tanh → Linear(h, 2)``, trained full
batch with ``F.cross_entropy`` and ``optim.SGD(momentum=0.9)``: the training loop of the
chapter (``zero_grad``, forward, loss, ``backward``, ``step``). Everything is seeded, so a
setting of the sliders always gives the same curves.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

import nbgrad as ng
import nbgrad.nn.functional as F
from nbgrad import nn, optim

from .base import GradientWidget

LEARNING_RATES = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
MOMENTUM = 0.9
COLORS = ("tab:blue", "tab:orange")
LABEL = {"description_width": "initial"}  # the whole description, never cut ("hidden wi…")
# under the axes, where no curve or point is (inside, any corner hides some for some setting)
BELOW = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2), "ncol": 2, "fontsize": 7}


def two_moons(n=200, noise=0.2, seed=0):
    """Two interleaved half circles in the plane: points ``X`` (float32, ``n × 2``) and
    labels ``y`` (int64, ``n``; the first half 0, the second half 1)."""
    rng = np.random.default_rng(seed)
    half = n // 2
    angle = rng.uniform(0.0, np.pi, n)
    upper = np.stack([np.cos(angle[:half]), np.sin(angle[:half])], axis=1)
    lower = np.stack([1.0 - np.cos(angle[half:]), 0.5 - np.sin(angle[half:])], axis=1)
    X = np.concatenate([upper, lower]) + noise * rng.standard_normal((n, 2))
    y = np.repeat(np.arange(2), [half, n - half])
    return X.astype(np.float32), y.astype(np.int64)


def make_model(hidden, seed=0):
    """The network, its weights drawn from ``nbgrad.manual_seed(seed)``."""
    ng.manual_seed(seed)
    return nn.Sequential(nn.Linear(2, hidden), nn.Tanh(),
                         nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, 2))


def train(lr, hidden, steps, seed=0, data=None):
    """Train from scratch; returns the model, the loss before each step, and
    ``‖W.grad‖`` of each ``Linear`` layer at each step (``steps × layers``)."""
    X, y = two_moons(seed=seed) if data is None else data
    inputs, targets = ng.tensor(X), ng.tensor(y)
    model = make_model(hidden, seed)
    layers = [m for m in model if isinstance(m, nn.Linear)]
    optimizer = optim.SGD(model.parameters(), lr=lr, momentum=MOMENTUM)
    losses = np.empty(steps)
    grad_norms = np.empty((steps, len(layers)))
    for step in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses[step] = loss.item()
        grad_norms[step] = [np.linalg.norm(layer.weight.grad.numpy()) for layer in layers]
    return model, losses, grad_norms


def class_probability(model, X):
    """P(class 1 | x) for each row of ``X``: the softmax of the model's two scores."""
    with ng.no_grad():
        return F.softmax(model(ng.tensor(X, dtype=ng.float32)), dim=1)[:, 1].numpy()


def grid_for(X, points=60, margin=0.5):
    """A ``points × points`` grid covering the data."""
    lo, hi = X.min(axis=0) - margin, X.max(axis=0) + margin
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], points), np.linspace(lo[1], hi[1], points))
    return gx, gy


class TrainingExplorer(GradientWidget):
    """Pick the learning rate, the hidden width and the number of steps: the network is
    retrained from the same seed and the three panels are redrawn."""

    figsize = (12, 4.2)  # room for the legends under the axes

    def __init__(self, lr=0.3, hidden=16, steps=200):
        self.X, self.y = two_moons()
        super().__init__({
            "lr": ipywidgets.SelectionSlider(options=LEARNING_RATES, value=lr,
                                             description="lr", style=LABEL),
            "hidden": ipywidgets.IntSlider(value=hidden, min=2, max=32, step=2,
                                           description="hidden width", style=LABEL),
            "steps": ipywidgets.IntSlider(value=steps, min=10, max=400, step=10,
                                          description="steps", style=LABEL),
        }, ncols=3)

    def draw(self, lr, hidden, steps):
        model, losses, grad_norms = train(lr, hidden, steps, data=(self.X, self.y))
        gx, gy = grid_for(self.X)
        probability = class_probability(model, np.stack([gx.ravel(), gy.ravel()], axis=1))
        probability = probability.reshape(gx.shape)
        accuracy = float(np.mean((class_probability(model, self.X) > 0.5) == self.y))
        self.data = {"lr": lr, "hidden": hidden, "steps": steps, "losses": losses,
                     "grad_norms": grad_norms, "grid": (gx, gy), "probability": probability,
                     "accuracy": accuracy, "X": self.X, "y": self.y}

        left, middle, right = self.axes
        step_numbers = np.arange(1, steps + 1)
        left.plot(step_numbers, losses, label="loss at each step")
        left.set_xlabel("step")
        left.set_ylabel("cross-entropy loss")
        left.set_title(f"lr={lr}, momentum={MOMENTUM}: final loss {losses[-1]:.4f}")
        finite = losses[np.isfinite(losses)]
        left.set_ylim(0, min(max(1.3 * losses[0], finite.max(initial=0.0)), 20.0))
        left.legend(**BELOW)

        middle.contourf(gx, gy, probability, levels=np.linspace(0, 1, 11), cmap="RdBu_r",
                        alpha=0.6)
        middle.contour(gx, gy, probability, levels=[0.5], colors="black", linewidths=1)
        for label, color in enumerate(COLORS):
            points = self.X[self.y == label]
            middle.scatter(points[:, 0], points[:, 1], s=10, color=color, edgecolors="black",
                           linewidths=0.3, label=f"class {label}")
        middle.legend(**BELOW)
        middle.set_title(f"P(class 1), hidden width {hidden}: accuracy {accuracy:.1%}")
        middle.set_xlabel("x₁")
        middle.set_ylabel("x₂")

        names = ["layer 1 (2→h)", "layer 2 (h→h)", "layer 3 (h→2)"]
        for layer, name in enumerate(names):
            right.plot(step_numbers, grad_norms[:, layer], label=name)
        right.set_yscale("log")
        right.set_xlabel("step")
        right.set_ylabel("‖W.grad‖ (log scale)")
        right.set_title("‖W.grad‖ per layer")
        right.legend(**BELOW)
