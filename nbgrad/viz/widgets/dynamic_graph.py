"""Chapter 00: a program whose graph depends on the data.

Each program below reads the value of its input in Python control flow (a ``while`` loop
or an ``if``), so every value of ``x`` records its own graph. The widget runs the program
once per point, plots autograd's df/dx against finite differences, and counts the kinds
of backward nodes in the graph recorded for the current ``x``.
"""

from __future__ import annotations

from collections import Counter

import ipywidgets
import numpy as np

import nbgrad as ng

from .base import GradientWidget


def halve_then_square(x):
    """Halve ``x`` until |h| <= 1, then square: the loop runs ceil(log2 |x|) times."""
    h = x
    while h.abs() > 1:
        h = h / 2
    return h * h


def newton_sqrt(x, rtol=1e-12):
    """sqrt(x² + 1) by Newton's method, iterated until converged: more steps for larger |x|."""
    a = x * x + 1
    y = a
    while (y * y - a).abs() > rtol * a:
        y = (y + a / y) / 2
    return y


def branch(x):
    """x² where x > 0, sin(2x) elsewhere: an ``if`` picks which operations are recorded."""
    if x > 0:
        return x ** 2
    return (2 * x).sin()


PROGRAMS = {
    "halve while |h| > 1, then h²": halve_then_square,
    "Newton's √(x²+1), until converged": newton_sqrt,
    "if x > 0: x² else sin(2x)": branch,
}


def graph_nodes(output):
    """How many backward nodes of each kind ``output``'s graph holds (walking next_functions)."""
    counts = Counter()
    stack, seen = [output.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        counts[node.name()] += 1
        stack.extend(next_node for next_node, _ in node.next_functions)
    return counts


def run(program, x):
    """One forward and backward pass at ``x``: (f(x), df/dx, node counts of its graph)."""
    xt = ng.tensor(np.float64(x), requires_grad=True)  # float64 from the start
    y = program(xt)
    nodes = graph_nodes(y)
    y.backward()
    return y.item(), xt.grad.item(), nodes


def finite_difference(program, x, h=1e-6):
    """(f(x + h) - f(x - h)) / 2h, without autograd."""
    with ng.no_grad():
        plus = program(ng.tensor(np.float64(x) + h)).item()
        minus = program(ng.tensor(np.float64(x) - h)).item()
    return (plus - minus) / (2 * h)


class DynamicGraphExplorer(GradientWidget):
    """Move ``x``: the program takes another path, records another graph, and autograd
    differentiates the path it took."""

    figsize = (11, 3.4)
    grid = np.linspace(-6.0, 6.0, 241)

    def __init__(self, program="halve while |h| > 1, then h²", x=3.0):
        style = {"description_width": "initial"}  # labels never cut
        super().__init__({
            "program": ipywidgets.Dropdown(options=list(PROGRAMS), value=program,
                                           description="program", style=style),
            "x": ipywidgets.FloatSlider(value=x, min=-6.0, max=6.0, step=0.05,
                                        description="x", style=style),
        }, ncols=3)

    def draw(self, program, x):
        f = PROGRAMS[program]
        runs = [run(f, value) for value in self.grid]
        values = np.array([r[0] for r in runs])
        derivative = np.array([r[1] for r in runs])
        node_totals = np.array([sum(r[2].values()) for r in runs])
        kinds = sorted(set().union(*(r[2] for r in runs)))
        y, slope, nodes = run(f, x)
        slope_fd = finite_difference(f, x)
        fd_points = self.grid[5::10]  # between the grid's round numbers, away from the jumps
        fd_values = np.array([finite_difference(f, p) for p in fd_points])
        counts = [nodes.get(kind, 0) for kind in kinds]
        self.data = {"x": x, "f": y, "autograd": slope, "finite_difference": slope_fd,
                     "nodes": dict(nodes), "total_nodes": sum(nodes.values()),
                     "grid": self.grid, "derivative": derivative, "node_totals": node_totals,
                     "kinds": kinds, "counts": counts}

        left, middle, right = self.axes
        left.plot(self.grid, values, ".", markersize=2, color="tab:blue", label="f(x)")
        left.plot([x], [y], "o", color="black")
        left.set_title(f"f({x:.2f}) = {y:.4f}")
        left.set_xlabel("x")
        left.set_ylabel("f(x)", color="tab:blue")
        size = self._size_axes(left)
        size.step(self.grid, node_totals, where="mid", color="gray", linewidth=1,
                  label="nodes in the graph")
        size.set_ylim(0, node_totals.max() + 1)
        size.set_ylabel("nodes in the graph", color="gray")
        left.legend(handles=left.lines[:1] + size.lines[:1], loc="upper center",
                    bbox_to_anchor=(0.5, -0.18), ncol=2, fontsize=8, frameon=False)
        middle.plot(self.grid, derivative, ".", markersize=2, label="df/dx by autograd")
        middle.plot(fd_points, fd_values, "x", label="finite differences")
        middle.plot([x], [slope], "o", color="black")
        middle.set_title(f"df/dx = {slope:.4f} (finite diff. {slope_fd:.4g})")
        middle.set_xlabel("x")
        middle.set_ylabel("df/dx")
        middle.legend(loc="best", fontsize=8)
        right.barh(kinds, counts, color="tab:blue")
        right.set_xlim(0, max(max(r[2].values()) for r in runs) + 1.5)
        right.invert_yaxis()
        for row, count in enumerate(counts):
            right.text(count + 0.1, row, str(count), va="center", fontsize=9)
        right.set_title(f"graph at x = {x:.2f}: {sum(counts)} nodes")
        right.set_xlabel("nodes of this kind")
        right.tick_params(axis="y", labelsize=8)

    def _size_axes(self, left):
        """A second y axis on the left panel for the graph's size (made once, cleared each time)."""
        if getattr(self, "_size", None) is None:
            self._size = left.twinx()
        self._size.clear()
        self._size.yaxis.tick_right()
        self._size.yaxis.set_label_position("right")
        return self._size
