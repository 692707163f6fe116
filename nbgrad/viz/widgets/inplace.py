"""Chapter 05: what the version check refuses, and the gradient it keeps you from getting.

:class:`VersionCheck` runs one small program with nbgrad::

    a = x * 1              # a non-leaf, so that it may be changed in place
    y = f(a)               # f's node saves what its backward formula needs
    loss = y.sum()         # d loss / dx = f'(x)
    t.mul_(k)              # t is a or y: one in-place write, version 0 -> 1
    loss.backward()

and plots, over ``x``:

* left: the changed tensor's values when ``f`` ran (version 0) and after ``t.mul_(k)``
  (version 1);
* right: the true ``d loss / dx`` (finite differences of ``f``) and the gradient backward
  computes from the values it now finds. Where ``f``'s node saved ``t``, backward refuses
  (PyTorch's ``RuntimeError``, shown in the title) and the plotted wrong gradient is what
  it would have returned without the check (for ``exp``, which saves its output,
  ``k · exp(x)`` instead of ``exp(x)``); where the node saved something else, or nothing,
  backward runs and its gradient is the true one.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

import nbgrad as ng

from .base import GradientWidget
from .calculus import finite_difference

# name -> (f on tensors, f' in closed form, the tensor f's node saves: "a", "y" or None)
FUNCTIONS = {
    "exp(a)": (lambda a: a.exp(), np.exp, "y"),
    "sin(a)": (lambda a: a.sin(), np.cos, "a"),
    "a * a": (lambda a: a * a, lambda x: 2 * x, "a"),
    "a + 1": (lambda a: a + 1, np.ones_like, None),
}
CHANGED = ("y", "a")  # the tensor changed in place: f's output or its input
GRID = np.linspace(-2.0, 2.0, 81)

LABEL = {"description_width": "initial"}  # the whole description, never cut
# under the axes, where no curve is (inside, some setting always hides a curve)
BELOW = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2), "fontsize": 8, "frameon": False}


def run(function, changed, k, xs=GRID, checked=True):
    """Run the program on ``xs``; return the changed tensor's values before and after the
    write, its version after it, and what ``loss.backward()`` gave: ``x.grad`` or the
    ``RuntimeError``'s message.

    With ``checked=False`` the write goes through ``t.data`` (the same memory, not the
    version counter, chapter 07), so backward runs on the overwritten value: the gradient
    the version check keeps you from getting.
    """
    f = FUNCTIONS[function][0]
    x = ng.tensor(np.asarray(xs, dtype=np.float64), requires_grad=True)
    a = x * 1
    y = f(a)
    loss = y.sum()
    t = {"a": a, "y": y}[changed]
    before = t.detach().numpy().copy()
    (t if checked else t.data).mul_(k)
    result = {"before": before, "after": t.detach().numpy().copy(), "version": t._version,
              "grad": None, "error": None}
    try:
        loss.backward()
        result["grad"] = x.grad.numpy()
    except RuntimeError as error:
        result["error"] = str(error)
    return result


def versions(message):
    """The words of PyTorch's message that give the versions: "is at version 1; expected
    version 0"."""
    return message[message.index("is at version"):message.index(" instead")]


class VersionCheck(GradientWidget):
    """Change ``a`` or ``y = f(a)`` in place after the loss is computed: backward refuses,
    or runs, and the gradient it would compute from the overwritten value."""

    figsize = (9, 4.2)  # room for the legends under the axes

    def __init__(self, k=2.0, function="exp(a)", changed="y"):
        super().__init__({
            "k": ipywidgets.FloatSlider(value=k, min=0.0, max=3.0, step=0.1,
                                        readout_format=".1f", description="mul_(k): k =",
                                        style=LABEL),
            "function": ipywidgets.Dropdown(options=list(FUNCTIONS), value=function,
                                            description="y = f(a) =", style=LABEL,
                                            layout=ipywidgets.Layout(width="200px")),
            "changed": ipywidgets.Dropdown(options=list(CHANGED), value=changed,
                                           description="in place:", style=LABEL,
                                           layout=ipywidgets.Layout(width="140px")),
        }, ncols=2)

    def draw(self, k, function, changed):
        checked = run(function, changed, k)
        unchecked = run(function, changed, k, checked=False)
        true = finite_difference(FUNCTIONS[function][0], GRID, h=1e-6)
        saved = FUNCTIONS[function][2]
        self.data = {"k": k, "function": function, "changed": changed, "grid": GRID,
                     "before": checked["before"], "after": checked["after"],
                     "version": checked["version"], "error": checked["error"],
                     "grad": checked["grad"], "unchecked": unchecked["grad"],
                     "true": true, "saved": saved}

        left, right = self.axes
        left.plot(GRID, checked["before"], color="tab:blue",
                  label=f"{changed} when f ran (version 0)")
        left.plot(GRID, checked["after"], "--", color="tab:orange",
                  label=f"{changed} after {changed}.mul_({k:.1f}) "
                        f"(version {checked['version']})")
        left.set_xlabel("x")
        left.set_ylabel(f"values of {changed}")
        who = "saved by f's node" if saved == changed else "not saved by f's node"
        left.set_title(f"y = {function}: {changed} is {who}", fontsize=10)
        left.legend(**BELOW)

        right.plot(GRID[::4], true[::4], "x", color="black",
                   label="true d loss/dx (finite differences)")
        if checked["error"] is None:
            right.plot(GRID, checked["grad"], color="tab:green", label="x.grad from backward()")
            right.set_title("backward() runs: x.grad is right", fontsize=10)
        else:
            right.plot(GRID, unchecked["grad"], "--", color="tab:red",
                       label="x.grad without the version check")
            right.set_title(f"backward() refuses, RuntimeError:\n"
                            f"{changed} {versions(checked['error'])}", fontsize=10)
        right.set_xlabel("x")
        right.set_ylabel("d loss / dx")
        right.legend(**BELOW)
