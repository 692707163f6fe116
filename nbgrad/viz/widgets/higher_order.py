"""Chapter 10: a function, its first and second derivatives by autograd, and its curvature
at a point.

``derivatives(f, xs)`` differentiates ``f`` twice at every point of ``xs``: the first
``autograd.grad(..., create_graph=True)`` records the backward pass, so the gradient it
returns is a function of ``x`` that a second ``autograd.grad`` differentiates again.
``finite_differences(f, xs)`` computes both derivatives without autograd, by central
differences.

The widget plots, left, ``f`` with its tangent at ``x0`` (slope f'(x0)) and its osculating
parabola there (curvature f''(x0)); right, f' and f'' by autograd against the finite
differences.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

import nbgrad as ng

from .base import GradientWidget

FUNCTIONS = {
    "sin(x)": lambda x: x.sin(),
    "x³": lambda x: x ** 3,
    "tanh(2x)": lambda x: (2 * x).tanh(),
    "x·exp(-x²)": lambda x: x * (-(x * x)).exp(),
}
LABEL = {"description_width": "initial"}  # the whole description, never cut


def derivatives(f, xs):
    """``f``, f' and f'' at every point of ``xs`` (float64 arrays), by autograd.

    The points are independent (``f`` works elementwise), so one backward of the sum gives
    each point's derivative. The first gradient is recorded (``create_graph=True``): the
    second is the gradient of the first.
    """
    x = ng.tensor(np.asarray(xs, dtype=np.float64), requires_grad=True)
    y = f(x)
    first, = ng.autograd.grad(y.sum(), x, create_graph=True)  # a tensor with a grad_fn
    second, = ng.autograd.grad(first.sum(), x)
    return y.detach().numpy(), first.detach().numpy(), second.numpy()


def finite_differences(f, xs, h=1e-4):
    """f' and f'' at ``xs`` by central differences, computed without autograd:
    (f(x+h) - f(x-h)) / 2h and (f(x+h) - 2 f(x) + f(x-h)) / h²."""
    xs = np.asarray(xs, dtype=np.float64)
    with ng.no_grad():
        plus, middle, minus = (f(ng.tensor(v)).numpy() for v in (xs + h, xs, xs - h))
    return (plus - minus) / (2 * h), (plus - 2 * middle + minus) / h ** 2


def _shown(value):
    """A number to four decimals, never "-0.0000"."""
    return f"{round(value, 4) + 0.0:.4f}"


def _within(values, low, high):
    """``values`` with those outside [low, high] left out (NaN: not drawn)."""
    return np.where((values >= low) & (values <= high), values, np.nan)


class HigherOrder(GradientWidget):
    """Pick f and move ``x0``: autograd's f' and f'' against finite differences, and the
    tangent and osculating parabola that f' and f'' give at ``x0``."""

    figsize = (9, 3.6)

    def __init__(self, function="sin(x)", x0=0.5):
        super().__init__({
            "function": ipywidgets.Dropdown(options=list(FUNCTIONS), value=function,
                                            description="f(x) =", style=LABEL),
            "x0": ipywidgets.FloatSlider(value=x0, min=-2.0, max=2.0, step=0.1,
                                         description="x0", style=LABEL),
        }, ncols=2)

    def draw(self, function, x0):
        f = FUNCTIONS[function]
        grid = np.linspace(-2.0, 2.0, 201)
        values, first, second = derivatives(f, grid)
        (f0,), (slope,), (curvature,) = derivatives(f, [x0])
        marks = grid[::10]
        fd_first, fd_second = finite_differences(f, marks)
        tangent = f0 + slope * (grid - x0)
        parabola = tangent + 0.5 * curvature * (grid - x0) ** 2
        self.data = {"function": function, "x0": x0, "grid": grid, "f": values,
                     "first": first, "second": second, "at_x0": (f0, slope, curvature),
                     "marks": marks, "fd_first": fd_first, "fd_second": fd_second,
                     "tangent": tangent, "parabola": parabola}

        left, right = self.axes
        low, high = values.min(), values.max()
        span = max(high - low, 1.0)
        near = (low - 0.25 * span, high + 0.25 * span)  # tangent and parabola: drawn near f only
        left.plot(grid, values, color="black", label="f(x)")
        left.plot(grid, _within(tangent, *near), "--", color="tab:blue",
                  label="tangent: slope f'(x0)")
        left.plot(grid, _within(parabola, *near), ":", color="tab:red", linewidth=2,
                  label="parabola: curvature f''(x0)")
        left.plot([x0], [f0], "o", color="black")
        left.set_ylim(near[0], high + 0.9 * span)  # room above for the legend
        left.set_xlabel("x")
        left.set_ylabel("f(x)")
        left.set_title(f"f'({x0:.1f}) = {_shown(slope)},  f''({x0:.1f}) = {_shown(curvature)}",
                       fontsize=9)
        left.legend(fontsize=8, loc="upper center", ncol=1)

        right.plot(grid, first, color="tab:blue", label="f' by autograd")
        right.plot(grid, second, color="tab:red", label="f'' by autograd (create_graph)")
        right.plot(marks, fd_first, "x", color="tab:blue", label="finite differences")
        right.plot(marks, fd_second, "x", color="tab:red")
        right.plot([x0, x0], [slope, curvature], "o", color="black", label="_at x0")
        both = np.concatenate([first, second])
        span = max(both.max() - both.min(), 1.0)
        right.set_ylim(both.min() - 0.15 * span, both.max() + 0.8 * span)
        right.axvline(x0, color="gray", linestyle=":", linewidth=1)
        right.set_xlabel("x")
        right.set_ylabel("f'(x), f''(x)")
        right.set_title("autograd vs finite differences", fontsize=9)
        right.legend(fontsize=8, loc="upper center", ncol=1)
        for ax in (left, right):
            ax.grid(True, alpha=0.3)
