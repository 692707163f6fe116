"""Chapter 05: in-place updates done right, and what the version counter protects.

* :class:`InplaceDescent`: gradient descent on a 1-D function where the parameter ``w``
  is one leaf tensor updated in place under ``no_grad`` (``w -= lr * w.grad``), as an
  optimizer does. Plots the function with the iterates, and ``w.grad`` at every step.
* :class:`StaleGradient`: ``y = f(x)`` saves ``x``; ``x.data`` is then changed by
  ``delta`` (``.data`` bypasses the version counter, chapter 07), and backward silently
  uses the changed value. Plots the gradient it returns against the true one.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

import nbgrad as ng

from .base import GradientWidget

# slider labels at their full width (the default cuts "x.data +=" and "start w" short)
STYLE = {"description_width": "initial"}
# legends go under their panel, where they cannot cover a curve
BELOW = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2), "fontsize": 8, "frameon": False}

# f(w) and its derivative in closed form (the tests compare against it)
DESCENT_FUNCTIONS = {
    "(w - 1)²": (lambda w: (w - 1) ** 2, lambda w: 2 * (w - 1)),
    "w⁴ - 3w² + w": (lambda w: w ** 4 - 3 * w ** 2 + w, lambda w: 4 * w ** 3 - 6 * w + 1),
    "√(1 + w²)": (lambda w: (1 + w * w).sqrt(), lambda w: w / np.sqrt(1 + w * w)),
}
LIMIT = 2.5  # the plotted range; an iterate beyond 1e6 counts as diverged


def descend(f, w0, lr, steps):
    """Run ``steps`` in-place updates of one leaf ``w``; return what happened at each step."""
    w = ng.tensor(np.float64(w0), requires_grad=True)  # a float64 scalar leaf
    iterates, grads, versions = [w.item()], [], [w._version]
    for _ in range(steps):
        loss = f(w)
        loss.backward()
        grads.append(w.grad.item())
        with ng.no_grad():
            w -= lr * w.grad  # in place: the same leaf, one version later
        w.grad = None
        iterates.append(w.item())
        versions.append(w._version)
        if not abs(iterates[-1]) < 1e6:
            break
    return {"iterates": np.array(iterates), "grads": np.array(grads),
            "versions": versions, "is_leaf": w.is_leaf, "requires_grad": w.requires_grad}


class InplaceDescent(GradientWidget):
    """Gradient descent with ``w -= lr * w.grad`` under ``no_grad``: iterates and gradients."""

    figsize = (8, 4.0)

    def __init__(self, function="w⁴ - 3w² + w", lr=0.05, steps=10, w0=-0.2):
        super().__init__({
            "function": ipywidgets.Dropdown(options=list(DESCENT_FUNCTIONS), value=function,
                                            description="f(w) =", style=STYLE),
            "lr": ipywidgets.FloatSlider(value=lr, min=0.01, max=1.2, step=0.01,
                                         description="lr", style=STYLE),
            "steps": ipywidgets.IntSlider(value=steps, min=0, max=40, description="steps",
                                         style=STYLE),
            "w0": ipywidgets.FloatSlider(value=w0, min=-2.0, max=2.0, step=0.1,
                                         description="start w", style=STYLE),
        }, ncols=2)

    def draw(self, function, lr, steps, w0):
        f, _ = DESCENT_FUNCTIONS[function]
        run = descend(f, w0, lr, steps)
        iterates, grads = run["iterates"], run["grads"]
        diverged = not abs(iterates[-1]) < 1e6
        grid = np.linspace(-LIMIT, LIMIT, 201)
        with ng.no_grad():
            curve = f(ng.tensor(grid, dtype=ng.float64)).numpy()
            losses = f(ng.tensor(iterates[np.abs(iterates) < 1e6], dtype=ng.float64)).numpy()
        self.data = dict(run, function=function, lr=lr, steps=steps, w0=w0, grid=grid,
                         curve=curve, losses=losses, diverged=diverged)

        left, right = self.axes
        left.plot(grid, curve, color="gray", label="f(w)")
        shown = np.abs(iterates[: len(losses)]) <= LIMIT
        left.plot(iterates[: len(losses)][shown], losses[shown], "o-", color="tab:blue",
                  markersize=4, linewidth=0.8, label="iterates w₀, w₁, …")
        left.plot(iterates[:1], losses[:1], "s", color="black", label="start")
        if not diverged:
            left.plot(iterates[-1:], losses[-1:], "*", color="tab:red", markersize=12,
                      label="last")
        left.set_xlim(-LIMIT, LIMIT)
        left.set_ylim(curve.min() - 0.5, min(curve.max(), curve.min() + 12) + 0.5)
        left.set_xlabel("w")
        left.set_ylabel("f(w)")
        end = "diverged" if diverged else f"w = {iterates[-1]:.4f}"
        left.set_title(f"after {len(grads)} steps: {end}, w._version = {run['versions'][-1]}",
                       fontsize=10)
        left.legend(ncol=2, **BELOW)

        k = np.arange(len(grads))
        right.axhline(0, color="gray", linewidth=0.8)
        right.plot(k, grads, "o-", color="tab:red", markersize=4, label="w.grad at step k")
        right.set_xlabel("step k")
        right.set_ylabel("w.grad")
        right.set_xlim(-0.5, max(steps, 1) - 0.5)
        scale = ""
        if len(grads) and np.all(np.isfinite(grads)):
            span = max(np.abs(grads).max(), 1e-3)
            if span > 100:  # a diverging run: keep the small early gradients readable
                right.set_yscale("symlog", linthresh=1.0)
                top = int(np.ceil(np.log10(span)))
                every = max(1, top // 3)
                powers = [10.0 ** e for e in range(every, top + 1, every)]
                right.set_yticks([-p for p in powers[::-1]] + [0.0] + powers)
                scale = ", symlog scale"
            else:
                right.set_ylim(-1.1 * span, 1.1 * span)
        right.set_title(f"gradient at each step (lr = {lr:.2f}{scale})", fontsize=10)
        right.legend(**BELOW)


# functions whose backward saves x itself, so changing x.data later reaches backward
STALE_FUNCTIONS = {
    "sin(x)": (lambda x: x.sin(), np.cos),
    "x³": (lambda x: x ** 3, lambda x: 3 * x ** 2),
}


def stale_gradient(f, xs, delta):
    """df/dx as backward computes it after ``x.data += delta`` (between forward and backward)."""
    x = ng.tensor(xs, dtype=ng.float64, requires_grad=True)
    y = f(x).sum()
    x.data += delta  # not seen by the version counter (chapter 07)
    y.backward()
    return x.grad.numpy(), x._version


def true_gradient(f, xs):
    x = ng.tensor(xs, dtype=ng.float64, requires_grad=True)
    f(x).sum().backward()
    return x.grad.numpy()


class StaleGradient(GradientWidget):
    """Change a saved tensor by ``delta`` behind autograd's back: backward does not notice."""

    figsize = (8, 3.8)

    def __init__(self, function="sin(x)", delta=0.5):
        super().__init__({
            "function": ipywidgets.Dropdown(options=list(STALE_FUNCTIONS), value=function,
                                            description="f(x) =", style=STYLE),
            "delta": ipywidgets.FloatSlider(value=delta, min=-1.5, max=1.5, step=0.1,
                                            description="x.data +=", style=STYLE),
        }, ncols=2)

    def draw(self, function, delta):
        f, _ = STALE_FUNCTIONS[function]
        grid = np.linspace(-2.0, 2.0, 81)
        true = true_gradient(f, grid)
        stale, version = stale_gradient(f, grid, delta)
        self.data = {"function": function, "delta": delta, "grid": grid, "true": true,
                     "stale": stale, "error": stale - true, "version": version}

        left, right = self.axes
        left.plot(grid, true, label="true df/dx at the x of the forward pass")
        left.plot(grid, stale, "--", label=f"backward's answer after x.data += {delta:.1f}")
        left.set_xlabel("x")
        left.set_ylabel("df/dx")
        left.set_title(f"f(x) = {function}: x._version is still {version}", fontsize=10)
        left.legend(**BELOW)
        right.axhline(0, color="gray", linewidth=0.8)
        right.plot(grid, stale - true, color="tab:red", label="backward's answer − true df/dx")
        right.set_xlabel("x")
        right.set_ylabel("error in df/dx")
        right.legend(**BELOW)
        right.set_title(f"silent error, largest {np.abs(stale - true).max():.3f}", fontsize=10)
