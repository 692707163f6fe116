"""Chapter 02: freezing parameters with ``requires_grad_(False)``.

A tiny model, ``y = w2 · tanh(W1 x + b1) + b2`` with the loss ``(y - target)²``. The
checkboxes choose which of its four parameter tensors require grad. After ``backward()``
the frozen ones keep ``.grad = None``; the others get the same gradients whether or not
their neighbours are frozen. When nothing requires grad the loss has no graph, and
``backward()`` raises.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

import nbgrad as ng

from .base import GradientWidget

INITIAL = {
    "W1": [0.8, -1.2, 0.5],
    "b1": [0.1, 0.3, -0.2],
    "w2": [1.0, -0.7, 0.6],
    "b2": 0.05,
}
TARGET = 1.0
COLORS = {"W1": "tab:blue", "b1": "tab:orange", "w2": "tab:green", "b2": "tab:red"}


class TinyModel:
    """Four parameter tensors (float64 leaves) and the forward pass."""

    def __init__(self):
        self.params = {name: ng.Parameter(ng.tensor(np.array(value, dtype=np.float64)))
                       for name, value in INITIAL.items()}

    def forward(self, x):
        p = self.params
        hidden = (p["W1"] * x + p["b1"]).tanh()
        return (p["w2"] * hidden).sum() + p["b2"]

    def loss(self, x):
        return (self.forward(x) - TARGET) ** 2


def count_nodes(t):
    """The number of backward nodes behind ``t`` (leaf accumulators not counted)."""
    count, stack, seen = 0, [t.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if not hasattr(node, "variable"):  # AccumulateGrad nodes hold their leaf
            count += 1
        stack.extend(next_node for next_node, _ in node.next_functions)
    return count


def gradient_norms(model, trainable, x):
    """Freeze the others, run forward and backward at ``x``: each parameter's ‖grad‖ or None.

    Returns ``(norms, loss value, number of backward nodes, error message or None)``.
    """
    for name, param in model.params.items():
        param.requires_grad_(name in trainable)
        param.grad = None  # a fresh step, as optimizer.zero_grad() does
    loss = model.loss(ng.tensor(np.float64(x)))
    nodes = count_nodes(loss)
    error = None
    try:
        loss.backward()
    except RuntimeError as exc:
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    norms = {name: None if param.grad is None else float(np.linalg.norm(param.grad.numpy()))
             for name, param in model.params.items()}
    return norms, loss.item(), nodes, error


class FreezingExplorer(GradientWidget):
    """Tick which parameters require grad and move the input: the gradient norms follow."""

    figsize = (10, 3.9)  # room for the legend under the axes
    grid = np.linspace(-2.0, 2.0, 81)

    def __init__(self, x=1.5, trainable=("W1", "b1", "w2", "b2")):
        self.model = TinyModel()
        controls = {
            name: ipywidgets.Checkbox(value=name in trainable, description=name, indent=False,
                                      layout=ipywidgets.Layout(width="auto"))
            for name in INITIAL
        }
        controls["x"] = ipywidgets.FloatSlider(value=x, min=-2.0, max=2.0, step=0.1,
                                               description="input x",
                                               style={"description_width": "initial"})
        super().__init__(controls, ncols=2)

    def draw(self, x, **flags):
        names = list(INITIAL)
        trainable = [name for name in names if flags[name]]
        norms, loss, nodes, error = gradient_norms(self.model, trainable, x)
        curves = {name: [] for name in trainable}
        for value in self.grid:
            grid_norms = gradient_norms(self.model, trainable, value)[0]
            for name in trainable:
                curves[name].append(grid_norms[name])
        curves = {name: np.array(values) for name, values in curves.items()}
        self.data = {"x": x, "loss": loss, "norms": norms, "nodes": nodes, "error": error,
                     "trainable": trainable, "grid": self.grid, "curves": curves}

        left, right = self.axes
        heights = [0.0 if norms[name] is None else norms[name] for name in names]
        colors = [COLORS[name] if norms[name] is not None else "lightgray" for name in names]
        bars = left.bar(names, heights, color=colors)
        # one scale for every x, so that the bars move as the slider does
        top = max(max((curve.max() for curve in curves.values()), default=1.0), 1e-3)
        for bar, name in zip(bars, names):
            text = "None" if norms[name] is None else f"{norms[name]:.3f}"
            left.text(bar.get_x() + bar.get_width() / 2, bar.get_height() + 0.02 * top, text,
                      ha="center", va="bottom", fontsize=9)
        left.set_ylim(0, 1.15 * top)
        left.set_xlabel("parameter")
        left.set_ylabel("‖param.grad‖")
        if error is None:
            left.set_title(f"x = {x:.2f}: loss = {loss:.4f}, graph of {nodes} nodes", fontsize=10)
        else:
            left.set_title("nothing requires grad: loss.backward() raises", fontsize=10)
            left.text(0.5, 0.5, error.replace(" and ", "\nand "), transform=left.transAxes,
                      ha="center", va="center", fontsize=8, color="darkred")

        for name in trainable:
            right.plot(self.grid, curves[name], color=COLORS[name], label=name)
            right.plot([x], [norms[name]], "o", color="black", markersize=4)
        right.axvline(x, color="gray", linewidth=0.8)
        right.set_xlim(self.grid[0], self.grid[-1])
        right.set_ylim(0, 1.15 * top)
        right.set_xlabel("input x")
        right.set_ylabel("‖param.grad‖")
        frozen = [name for name in names if name not in trainable]
        right.set_title("frozen (no curve): " + (", ".join(frozen) if frozen else "none"),
                        fontsize=10)
        if trainable:
            right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=4, fontsize=8)
