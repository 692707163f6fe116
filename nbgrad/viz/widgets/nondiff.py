"""Chapter 06: functions without a (useful) derivative, and what autograd returns for them.

Pick a function and move ``x``. Left: the function. Right: the gradient autograd returns
at every point of the range, with central finite differences as markers. Away from the
jumps and kinks the two agree; at a jump the finite difference is huge (the jump divided
by ``2h``) while autograd says 0; at a kink autograd returns one chosen subgradient. The
straight-through estimators run ``round`` forward but pretend, in backward, to be the
identity: their gradient is 1 everywhere, which no finite difference confirms.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

import nbgrad as ng

from .base import GradientWidget
from .calculus import autograd_derivative, finite_difference


class RoundSTE(ng.autograd.Function):
    """round in forward, the identity in backward: the straight-through estimator."""

    @staticmethod
    def forward(ctx, x):
        return x.round()

    @staticmethod
    def backward(ctx, grad):
        return grad


INTEGERS = [-2.0, -1.0, 0.0, 1.0, 2.0]
HALVES = [-1.5, -0.5, 0.5, 1.5]

# name: (the function, the points of [-2, 2] where it has no derivative)
FUNCTIONS = {
    "sign": (lambda x: x.sign(), [0.0]),
    "round": (lambda x: x.round(), HALVES),
    "floor": (lambda x: x.floor(), INTEGERS),
    "ceil": (lambda x: x.ceil(), INTEGERS),
    "abs": (lambda x: x.abs(), [0.0]),
    "relu": (lambda x: x.relu(), [0.0]),
    "clamp(x, min=0)": (lambda x: x.clamp(min=0.0), [0.0]),
    "maximum(x, 0)": (lambda x: ng.maximum(x, ng.zeros_like(x)), [0.0]),
    "STE round: x + (round(x) - x).detach()": (lambda x: x + (x.round() - x).detach(), HALVES),
    "STE round: RoundSTE.apply(x)": (lambda x: RoundSTE.apply(x), HALVES),
}

# slider labels at their full width; legends under their panel, where they cover no curve
STYLE = {"description_width": "initial"}
BELOW = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2), "fontsize": 8, "frameon": False}

GRID = np.arange(-200, 201) / 100  # -2.00 ... 2.00; every jump and kink lies on it exactly
MARKERS = np.arange(-20, 21) / 10  # where finite differences are drawn
H = 1e-3                           # the finite-difference step
YLIM = (-1.6, 1.6)                 # the gradient panel; larger finite differences sit on its edge


def evaluate(f, xs):
    with ng.no_grad():
        return f(ng.tensor(np.asarray(xs, dtype=np.float64))).numpy()


def _split_at(xs, ys, points):
    """The gradient curve with gaps at ``points`` (where the function has no derivative),
    and the values autograd returns exactly at those points, drawn as dots."""
    at = np.searchsorted(xs, points)
    line = ys.astype(float)
    line[at] = np.nan
    return line, xs[at], ys[at]


def _broken_at_jumps(xs, ys, threshold=0.1):
    """The curve with a NaN wherever it jumps, so that no vertical segment is drawn."""
    jumps = np.flatnonzero(np.abs(np.diff(ys)) > threshold) + 1
    return np.insert(xs, jumps, np.nan), np.insert(ys, jumps, np.nan)


class NonDifferentiableExplorer(GradientWidget):
    """A function and its autograd gradient side by side, finite differences as markers."""

    figsize = (9, 4.2)

    def __init__(self, function="round", x=0.5):
        super().__init__({
            "function": ipywidgets.Dropdown(options=list(FUNCTIONS), value=function,
                                            description="f(x) =", style=STYLE,
                                            layout=ipywidgets.Layout(width="420px")),
            "x": ipywidgets.FloatSlider(value=x, min=-2.0, max=2.0, step=0.05, description="x",
                                       style=STYLE),
        }, ncols=2)

    def draw(self, function, x):
        f, kinks = FUNCTIONS[function]
        x = round(float(x), 2)  # a slider step of 0.05 may arrive as 0.15000000000000002
        values = evaluate(f, GRID)
        gradient = autograd_derivative(f, GRID)
        line, kink_x, kink_y = _split_at(GRID, gradient, kinks)
        fd = finite_difference(f, MARKERS, H)
        disagree = ~np.isclose(fd, gradient[np.searchsorted(GRID, MARKERS)], atol=1e-6)
        y = evaluate(f, [x])[0]
        slope = autograd_derivative(f, [x])[0]
        slope_fd = finite_difference(f, [x], H)[0]
        self.data = {"function": function, "x": x, "f": y, "autograd": slope,
                     "finite_difference": slope_fd, "grid": GRID, "values": values,
                     "gradient": gradient, "kinks": kink_x, "at_kinks": kink_y,
                     "markers": MARKERS, "fd": fd, "disagree": MARKERS[disagree]}

        left, right = self.axes
        left.plot(*_broken_at_jumps(GRID, values), color="C0", label="f(x)")
        left.plot([x], [y], "o", color="black", label=f"f({x:g}) = {y:g}")
        left.axvline(x, color="gray", lw=0.8, ls=":")
        left.set_ylim(values.min() - 0.4, values.max() + 0.4)
        left.set_xlabel("x")
        left.set_ylabel("f(x)")
        left.set_title(function, fontsize=9)
        left.legend(**BELOW)

        low, high = YLIM
        shown = np.clip(fd, low + 0.05, high - 0.05)  # 1/(2h) at a jump: pinned to the edge
        right.plot(GRID, line, color="C1", lw=2, label="autograd df/dx")
        right.plot(kink_x, kink_y, "o", color="C1", ms=5, label="autograd at a jump or kink")
        right.plot(MARKERS[~disagree], shown[~disagree], "x", color="gray",
                   label="finite difference, agrees")
        right.plot(MARKERS[disagree], shown[disagree], "x", color="red", mew=2,
                   label="finite difference, disagrees (clipped)")
        right.plot([x], [slope], "o", color="black", ms=7)
        right.axvline(x, color="gray", lw=0.8, ls=":")
        right.set_ylim(*YLIM)
        right.set_xlabel("x")
        right.set_ylabel("df/dx")
        off_scale = "" if low < slope_fd < high else " (off scale)"
        right.set_title(f"at x = {x:g}: autograd {slope:g}, finite diff. {slope_fd:.4g}"
                        + off_scale, fontsize=9)
        right.legend(ncol=2, **dict(BELOW, fontsize=7))
