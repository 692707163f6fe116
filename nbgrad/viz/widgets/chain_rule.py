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
        style = {"description_width": "initial"}  # labels never cut
        super().__init__({
            "function": ipywidgets.Dropdown(options=list(FUNCTIONS), value=function,
                                            description="f(x) =", style=style),
            "x": ipywidgets.FloatSlider(value=x, min=-2.0, max=2.0, step=0.1, description="x",
                                        style=style),
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
        left.set_xlabel("x")
        left.set_ylabel("f(x)")
        left.legend(loc="best", fontsize=8)
        right.plot(grid, derivative, label="df/dx by autograd")
        right.plot(grid[::10], finite_difference(f, grid[::10]), "x", label="finite differences")
        right.plot([x], [slope], "o", color="black")
        right.set_title(f"df/dx = {slope:.4f} (finite diff. {slope_fd:.4f})")
        right.set_xlabel("x")
        right.set_ylabel("df/dx")
        right.legend(loc="best", fontsize=8)


# -- the chain itself: upstream gradient × local derivative on every edge -----------------

# A program as steps, each ``(name, operation, input names)``, and where to draw each tensor
# (x across, height up: the output at the top, the input at the bottom).
CHAINS = {
    "y = sin(x²) + x": {
        "steps": [("u", lambda x: x ** 2, ("x",)),
                  ("s", lambda u: u.sin(), ("u",)),
                  ("y", lambda s, x: s + x, ("s", "x"))],
        "formulas": {"u": "u = x²", "s": "s = sin(u)", "y": "y = s + x"},
        "positions": {"y": (0.6, 3.0), "s": (0.25, 2.0), "u": (0.25, 1.0), "x": (0.6, 0.0)},
    },
    "y = exp(x)·sin(x)": {
        "steps": [("e", lambda x: x.exp(), ("x",)),
                  ("s", lambda x: x.sin(), ("x",)),
                  ("y", lambda e, s: e * s, ("e", "s"))],
        "formulas": {"e": "e = exp(x)", "s": "s = sin(x)", "y": "y = e · s"},
        "positions": {"y": (0.5, 2.0), "e": (0.2, 1.0), "s": (0.8, 1.0), "x": (0.5, 0.0)},
    },
}


def chain_numbers(chain, x):
    """The numbers the graph shows at ``x``, all computed with nbgrad.

    Returns ``(values, grads, edges, names)``: each tensor's value; dy/d(tensor) for each
    (``autograd.grad`` of y with respect to the intermediates themselves); one dict per edge
    (``output``, ``input``, ``upstream`` = dy/d(output), ``local`` = d(output)/d(input) with
    the other inputs held fixed, ``product``); and each result's ``grad_fn`` name.
    """
    spec = CHAINS[chain]
    tensors = {"x": ng.tensor(np.float64(x), requires_grad=True)}
    for name, operation, inputs in spec["steps"]:
        tensors[name] = operation(*(tensors[i] for i in inputs))
    output = spec["steps"][-1][0]
    order = list(tensors)
    grads = dict(zip(order, (g.item() for g in ng.autograd.grad(
        tensors[output], [tensors[n] for n in order]))))
    edges = []
    for name, operation, inputs in spec["steps"]:
        # The local derivative: the one operation again, on fresh leaves holding the inputs'
        # values, differentiated alone (so paths through other nodes do not count).
        leaves = [tensors[i].detach().requires_grad_() for i in inputs]
        locals_ = ng.autograd.grad(operation(*leaves), leaves)
        for i, local in zip(inputs, locals_):
            edges.append({"output": name, "input": i, "upstream": grads[name],
                          "local": local.item(), "product": grads[name] * local.item()})
    values = {n: t.item() for n, t in tensors.items()}
    names = {n: t.grad_fn.name() for n, t in tensors.items() if t.grad_fn is not None}
    return values, grads, edges, names


def edge_label(edge):
    """What an edge says: ``upstream × local = product``, to four decimals."""
    return f"{edge['upstream']:.4f} × {edge['local']:.4f} = {edge['product']:.4f}"


class ChainGraphExplorer(GradientWidget):
    """Move ``x``: every edge of the graph shows upstream gradient × local derivative, and
    every tensor the sum of what its edges deliver (its gradient, dy/d·)."""

    figsize = (8, 4.6)

    def __init__(self, chain="y = sin(x²) + x", x=0.5):
        style = {"description_width": "initial"}
        super().__init__({
            "chain": ipywidgets.Dropdown(options=list(CHAINS), value=chain,
                                         description="program", style=style),
            "x": ipywidgets.FloatSlider(value=x, min=-2.0, max=2.0, step=0.1,
                                        description="x", style=style),
        }, ncols=1)

    def draw(self, chain, x):
        spec = CHAINS[chain]
        values, grads, edges, names = chain_numbers(chain, x)
        self.data = {"x": x, "values": values, "grads": grads, "edges": edges,
                     "labels": [edge_label(e) for e in edges], "node_names": names}
        (ax,) = self.axes
        position = spec["positions"]
        for edge in edges:  # backward runs down: from the output of an operation to its input
            (x0, y0), (x1, y1) = position[edge["output"]], position[edge["input"]]
            ax.annotate("", xy=(x1, y1 + 0.22), xytext=(x0, y0 - 0.22),
                        arrowprops={"arrowstyle": "->", "color": "tab:red", "lw": 1.5})
            middle = (x0 + x1) / 2  # the label beside its edge, away from the picture's centre
            left = middle < 0.5
            ax.text(middle - 0.02 if left else middle + 0.02, (y0 + y1) / 2, edge_label(edge),
                    fontsize=8, color="tab:red", ha="right" if left else "left", va="center",
                    gid="edge",
                    bbox={"boxstyle": "round", "fc": "white", "ec": "none", "alpha": 0.9})
        for name, (px, py) in position.items():
            title = spec["formulas"].get(name, "x (leaf)")
            node = f"  {names[name]}" if name in names else "  AccumulateGrad"
            ax.text(px, py, f"{title} = {values[name]:.4f}\n{node}\ndy/d{name} = {grads[name]:.4f}",
                    fontsize=8, ha="center", va="center", gid="node",
                    bbox={"boxstyle": "round", "fc": "lightyellow", "ec": "gray"})
        ax.plot([], [], "-", color="tab:red",
                label="backward edge: upstream gradient × local derivative = what it delivers")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.01), fontsize=8, frameon=False)
        heights = [py for _, py in position.values()]
        ax.set_xlim(-0.3, 1.3)
        ax.set_ylim(min(heights) - 0.45, max(heights) + 0.45)
        ax.set_axis_off()
        ax.set_title(f"{chain} at x = {x:.2f}: dy/dx = {grads['x']:.4f}, the sum of x's edges")
