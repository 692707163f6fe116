"""Chapter 01: a composite function, its tangent, and autograd's derivative checked
against finite differences as ``x`` moves."""

from __future__ import annotations

import ipywidgets
import numpy as np

import nbgrad as ng

from .base import GradientWidget
from .calculus import autograd_derivative, finite_difference

FUNCTIONS = {
    "sin(x²)": lambda x: (x * x).sin(),
    "x·exp(-x²)": lambda x: x * (-(x * x)).exp(),
    "tanh(3x)·x": lambda x: (3 * x).tanh() * x,
    "log(1 + x⁴)": lambda x: (1 + x ** 4).log(),
}


class ChainRuleExplorer(GradientWidget):
    """Move ``x``: the tangent follows, and autograd's slope matches finite differences."""

    def __init__(self, function="sin(x²)", x=0.8):
        super().__init__({
            "function": ipywidgets.Dropdown(options=list(FUNCTIONS), value=function,
                                            description="f(x) ="),
            "x": ipywidgets.FloatSlider(value=x, min=-2.0, max=2.0, step=0.1, description="x"),
        }, ncols=2)

    def draw(self, function, x):
        f = FUNCTIONS[function]
        grid = np.linspace(-2.0, 2.0, 201)
        with ng.no_grad():
            values = f(ng.tensor(grid, dtype=ng.float64)).numpy()
            y = f(ng.tensor(x, dtype=ng.float64)).item()
        slope = autograd_derivative(f, np.array([x]))[0]
        slope_fd = finite_difference(f, np.array([x]))[0]
        derivative = autograd_derivative(f, grid)
        self.data = {"x": x, "f": y, "autograd": slope, "finite_difference": slope_fd,
                     "grid": grid, "derivative": derivative}

        left, right = self.axes
        left.plot(grid, values, label="f(x)")
        left.plot(grid, y + slope * (grid - x), "--", label="tangent (autograd slope)")
        left.plot([x], [y], "o", color="black")
        left.set_ylim(values.min() - 0.5, values.max() + 0.5)
        left.set_title(f"f({x:.2f}) = {y:.4f}")
        left.legend(loc="lower right", fontsize=8)
        right.plot(grid, derivative, label="df/dx by autograd")
        right.plot(grid[::10], finite_difference(f, grid[::10]), "x", label="finite differences")
        right.plot([x], [slope], "o", color="black")
        right.set_title(f"df/dx = {slope:.4f} (finite diff. {slope_fd:.4f})")
        right.legend(loc="lower right", fontsize=8)
