"""Chapter 07: what ``detach()`` removes from a gradient.

``f(x) = F(x, h(x))`` where the branch ``h`` is partly detached:

    h_mix = alpha * h + (1 - alpha) * h.detach()

has the same *value* as ``h`` for every ``alpha``, but only the fraction ``alpha`` of the
gradient flows through it: ``df/dx = dF/dx + alpha * dF/dh * h'(x)``. At ``alpha = 1``
autograd agrees with finite differences of ``f``; at ``alpha = 0`` (a stop-gradient)
the term through ``h`` is gone. :class:`DetachExplorer` plots both next to finite
differences of the un-detached function.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

import nbgrad as ng

from .base import GradientWidget

# name -> (F(x, h), h(x), dF/dx held h fixed, dF/dh, h'(x)) in closed form for the tests
FUNCTIONS = {
    "x · sg(sin x)": (
        lambda x, h: x * h, lambda x: x.sin(),
        lambda x: np.sin(x), lambda x: x, np.cos),
    "(x - sg(cos x))²  (a target)": (
        lambda x, h: (x - h) ** 2, lambda x: x.cos(),
        lambda x: 2 * (x - np.cos(x)), lambda x: -2 * (x - np.cos(x)), lambda x: -np.sin(x)),
    "x / sg(1 + x²)  (a normaliser)": (
        lambda x, h: x / h, lambda x: 1 + x * x,
        lambda x: 1 / (1 + x * x), lambda x: -x / (1 + x * x) ** 2, lambda x: 2 * x),
}
GRID = np.linspace(-3.0, 3.0, 121)


def evaluate(name, xs, alpha):
    """f's values and autograd's df/dx at ``xs`` when ``alpha`` of the branch h is attached."""
    F, h_fn = FUNCTIONS[name][:2]
    x = ng.tensor(np.asarray(xs, dtype=np.float64), requires_grad=True)
    h = h_fn(x)
    mixed = alpha * h + (1 - alpha) * h.detach()
    y = F(x, mixed)
    y.sum().backward()
    return y.detach().numpy(), x.grad.numpy()


def finite_difference(name, xs, eps=1e-6):
    """Central differences of the un-detached f, without autograd."""
    F, h_fn = FUNCTIONS[name][:2]

    def f(v):
        with ng.no_grad():
            x = ng.tensor(v)
            return F(x, h_fn(x)).numpy()

    xs = np.asarray(xs, dtype=np.float64)
    return (f(xs + eps) - f(xs - eps)) / (2 * eps)


LABEL = {"description_width": "initial"}  # the whole description, never cut
# under the axes, where no curve is (inside, every corner hides some curve for some setting)
BELOW = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2), "ncol": 2, "fontsize": 7}


class DetachExplorer(GradientWidget):
    """Slide how much of the branch h stays attached; the value never changes, the gradient does."""

    figsize = (8, 4.4)  # room for the legends under the axes

    def __init__(self, function="x · sg(sin x)", alpha=0.0, x=1.0):
        super().__init__({
            "function": ipywidgets.Dropdown(options=list(FUNCTIONS), value=function,
                                            description="f(x) =", style=LABEL,
                                            layout=ipywidgets.Layout(width="320px")),
            "alpha": ipywidgets.FloatSlider(value=alpha, min=0.0, max=1.0, step=0.05,
                                            description="attached", style=LABEL),
            "x": ipywidgets.FloatSlider(value=x, min=-3.0, max=3.0, step=0.1, description="x",
                                       style=LABEL),
        }, ncols=2)

    def draw(self, function, alpha, x):
        values, grad = evaluate(function, GRID, alpha)
        _, stopped = evaluate(function, GRID, 0.0)
        _, full = evaluate(function, GRID, 1.0)
        fd = finite_difference(function, GRID)
        value_at, grad_at = (v[0] for v in evaluate(function, [x], alpha))
        fd_at = finite_difference(function, [x])[0]
        self.data = {"function": function, "alpha": alpha, "x": x, "grid": GRID,
                     "values": values, "grad": grad, "stopped": stopped, "full": full,
                     "finite_difference": fd, "value_at": value_at, "grad_at": grad_at,
                     "finite_difference_at": fd_at, "removed": fd - grad}

        left, right = self.axes
        left.plot(GRID, values, color="tab:blue", label="f(x), the same for every setting")
        left.plot(GRID, value_at + grad_at * (GRID - x), "--", color="tab:orange",
                  label="slope autograd reports")
        left.plot(GRID, value_at + fd_at * (GRID - x), ":", color="black",
                  label="true slope")
        left.plot([x], [value_at], "o", color="black")
        span = values.max() - values.min()
        left.set_ylim(values.min() - 0.2 * span - 0.1, values.max() + 0.2 * span + 0.1)
        left.set_xlabel("x")
        left.set_ylabel("f(x)")
        left.set_title(f"f({x:.1f}) = {value_at:.3f}", fontsize=10)
        left.legend(**BELOW)

        right.axhline(0, color="gray", linewidth=0.8)
        right.plot(GRID, full, color="tab:green", linewidth=1, label="nothing detached")
        right.plot(GRID, stopped, color="tab:red", linewidth=1, label="h fully detached")
        right.plot(GRID, grad, color="tab:orange", linewidth=2.5, alpha=0.8,
                   label=f"{alpha:.2f} of h attached")
        right.plot(GRID[::8], fd[::8], "x", color="black", label="finite differences of f")
        right.plot([x], [grad_at], "o", color="black")
        shown = round(fd_at, 3) + 0.0  # no "-0.000"
        right.set_xlabel("x")
        right.set_ylabel("df/dx")
        right.set_title(f"df/dx({x:.1f}): autograd {grad_at:.3f}, finite diff. {shown:.3f}",
                        fontsize=10)
        right.legend(**BELOW)
