"""Chapter 09: broken programs, their fixes, and what each does to the graph and gradient.

Each entry of ``PROGRAMS`` is one of the autograd mistakes chapter 09 indexes, written as a
small function of the input value ``x`` and of ``fix`` (apply the fix or not). It returns
a :class:`Run`: the graph it built (to draw), the gradients autograd left in ``.grad``
(or the first line of the error that backward raised) and the gradients the program was
meant to compute, by hand. The widget draws the graph (``nbgrad.viz.draw``, as a PNG) on
the left and, on the right, a bar per gradient entry with the correct values as markers,
or the error message when the program raises.
"""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass, field
from typing import Any

import ipywidgets
import matplotlib.image
import numpy as np

import nbgrad as ng
from nbgrad.viz import draw

from .base import GradientWidget


@dataclass
class Run:
    """What one run of a program left behind.

    Attributes
    ----------
    roots : tuple of Tensor
        Where its graph starts (what ``draw`` is given).
    names : dict of str to Tensor
        Labels for the graph.
    grads : dict of str to numpy.ndarray or None
        Each gradient the program reads, by its label: the values ``.grad`` holds
        (``None`` where ``.grad`` is None, the trap of a non-leaf).
    expected : dict of str to numpy.ndarray
        The gradients the program meant to compute, derived by hand.
    error : str or None
        ``"RuntimeError: <first line>"`` when backward raised, or what went wrong when
        the gradient the program reads is missing (a ``.grad`` that is None).
    view : GraphView or None
        The graph as the program drew it itself (before the backward that failed); by
        default the widget draws ``roots`` after the program ran.
    """

    roots: tuple
    names: dict
    grads: dict = field(default_factory=dict)
    expected: dict = field(default_factory=dict)
    error: str | None = None
    view: Any = None


def _attempt(run, step):
    """Call ``step()``; on an error, record its type and first line in ``run.error``."""
    try:
        step()
    except (RuntimeError, TypeError) as error:  # the errors these programs make
        run.error = f"{type(error).__name__}: {str(error).splitlines()[0]}"


def _values(t):
    return None if t is None else np.asarray(t.detach().numpy(), dtype=np.float64).reshape(-1)


def no_requires_grad(x, fix):
    """``w`` was created without ``requires_grad=True``: nothing to differentiate."""
    w = ng.tensor([x, 2.0], requires_grad=fix)
    loss = (w * w).sum()
    run = Run((loss,), {"w": w, "loss": loss},
              expected={"w.grad": np.array([2 * x, 4.0])})
    _attempt(run, loss.backward)
    run.grads["w.grad"] = _values(w.grad)
    return run


def rnn_hidden_state(x, fix):
    """An RNN cell run for two steps, one backward per step, the hidden state carried over;
    the fix detaches it at the start of each step (truncated backpropagation)."""
    W = ng.tensor(x, requires_grad=True)
    h = ng.zeros(2)
    steps = (ng.tensor([1.0, 2.0]), ng.tensor([0.5, -1.0]))
    grad_by_hand, h_value = 0.0, np.zeros(2)
    run = Run((), {"W": W})
    for inputs in steps:
        if fix:
            h = h.detach()
        h = (W * h + inputs).tanh()
        loss = h.sum()
        run.roots, run.names["h"], run.names["loss"] = (loss,), h, loss
        if not fix:  # drawn before backward: step 1's freed nodes under step 2's graph
            run.view = draw(loss, names=dict(run.names))
        _attempt(run, loss.backward)
        if run.error:
            break
        # d/dW of sum(tanh(W h_prev + x)) with h_prev a constant (detached)
        new = np.tanh(x * h_value + inputs.numpy())
        grad_by_hand += float(((1 - new ** 2) * h_value).sum())
        h_value = new
    run.grads["W.grad"] = _values(W.grad)
    run.expected["W.grad"] = np.array([grad_by_hand])  # the steps that ran, h_prev constant
    return run


def inplace_on_saved(x, fix):
    """``exp`` saves its output; ``y += 1`` changes it before backward needs it."""
    a = ng.tensor([x, 1.0], requires_grad=True)
    y = a.exp()
    if fix:
        y = y + 1
    else:
        y += 1
    loss = (y * 1.0).sum()
    run = Run((loss,), {"a": a, "y": y, "loss": loss},
              expected={"a.grad": np.exp([x, 1.0])})
    _attempt(run, loss.backward)
    run.grads["a.grad"] = _values(a.grad)
    return run


def scaled_leaf(x, fix):
    """``w = tensor(..., requires_grad=True) * 0.01``: ``w`` is the product, not the leaf."""
    values = ng.tensor([x, 1.0])
    if fix:
        w = (values * 0.01).requires_grad_()
    else:
        w = values.requires_grad_() * 0.01
    loss = (w * w).sum()
    run = Run((loss,), {"w": w, "loss": loss},
              expected={"w.grad": 2 * 0.01 * np.array([x, 1.0])})
    loss.backward()
    run.grads["w.grad"] = _values(w.grad) if w.is_leaf else None
    if not w.is_leaf:
        run.error = f"w.grad is None: w is not a leaf, its grad_fn is {w.grad_fn.name()}"
    return run


def non_scalar_output(x, fix):
    """``backward()`` on a vector: which weighting of its entries did you mean?"""
    w = ng.tensor([x, 2.0, -1.0], requires_grad=True)
    y = w * w
    out = y.sum() if fix else y
    run = Run((out,), {"w": w, "y": y}, expected={"w.grad": 2 * np.array([x, 2.0, -1.0])})
    _attempt(run, out.backward)
    run.grads["w.grad"] = _values(w.grad)
    return run


def where_sqrt(x, fix):
    """``where(x > 0, sqrt(x), 0)``: the branch not taken still gets a gradient, 0 · inf."""
    t = ng.tensor([x, 0.0, 4.0], requires_grad=True)
    positive = t > 0
    if fix:
        safe = ng.where(positive, t, ng.ones_like(t))  # sqrt never sees x <= 0
        y = ng.where(positive, safe.sqrt(), 0.0)
    else:
        y = ng.where(positive, t.sqrt(), 0.0)
    loss = y.sum()
    values = np.array([x, 0.0, 4.0])
    expected = np.where(values > 0, 0.5 / np.sqrt(np.where(values > 0, values, 1.0)), 0.0)
    run = Run((loss,), {"x": t, "loss": loss}, expected={"x.grad": expected})
    loss.backward()
    run.grads["x.grad"] = _values(t.grad)
    return run


def missing_zero_grad(x, fix):
    """Three SGD steps on ``w²``; without ``zero_grad()`` each step adds to the last."""
    w = ng.tensor([x], requires_grad=True)
    optimizer = ng.optim.SGD([w], lr=0.1)
    grads, expected, value = [], [], x
    for _ in range(3):
        if fix:
            optimizer.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        grads.append(w.grad.item())
        expected.append(2 * value)
        optimizer.step()
        value = w.item()
    run = Run((loss,), {"w": w, "loss": loss},
              grads={f"step {i + 1}": np.array([g]) for i, g in enumerate(grads)},
              expected={f"step {i + 1}": np.array([g]) for i, g in enumerate(expected)})
    return run


MICRO_DATA = np.array([1.0, 2.0, 3.0, 4.0])
N_MICRO = 2


def micro_batches(x, fix):
    """The mean loss over 4 samples, accumulated over 2 micro-batches: each micro-batch's
    mean must be divided by the number of micro-batches."""
    w = ng.tensor(x, requires_grad=True)
    data = ng.tensor(MICRO_DATA)
    for chunk in data.chunk(N_MICRO):
        loss = ((w * chunk - 1) ** 2).mean()
        if fix:
            loss = loss / N_MICRO
        loss.backward()
    full = float((2 * (x * MICRO_DATA - 1) * MICRO_DATA).mean())
    return Run((loss,), {"w": w, "loss": loss}, grads={"w.grad": _values(w.grad)},
               expected={"w.grad": np.array([full])})


PROGRAMS = {
    "element 0 ... does not require grad": no_requires_grad,
    "RNN: backward through the graph a second time": rnn_hidden_state,
    "modified by an inplace operation": inplace_on_saved,
    "w = randn(..., requires_grad=True) * 0.01": scaled_leaf,
    "grad can be implicitly created only for scalars": non_scalar_output,
    "NaN gradient from where + sqrt": where_sqrt,
    "the missing zero_grad()": missing_zero_grad,
    "a mean loss over micro-batches": micro_batches,
}


def graph_image(view):
    """A drawn graph (``nbgrad.viz.draw``'s result) as an image array for ``imshow``."""
    return matplotlib.image.imread(io.BytesIO(view.png()), format="png")


class DebuggingExplorer(GradientWidget):
    """Pick a broken program, toggle its fix, move ``x``: the graph it built (left), and
    the gradient it computed against the correct one, or the error it raised (right)."""

    figsize = (11, 4.4)

    def __init__(self, program="RNN: backward through the graph a second time", fix=False,
                 x=0.5):
        style = {"description_width": "initial"}  # labels never cut
        super().__init__({
            "program": ipywidgets.Dropdown(options=list(PROGRAMS), value=program,
                                           description="broken program", style=style,
                                           layout=ipywidgets.Layout(width="430px")),
            "fix": ipywidgets.Checkbox(value=fix, description="apply the fix", style=style,
                                       indent=False),
            "x": ipywidgets.FloatSlider(value=x, min=-2.0, max=2.0, step=0.5,
                                        description="input value x", style=style),
        }, ncols=2)

    def draw(self, program, fix, x):
        run = PROGRAMS[program](x, fix)
        view = run.view or draw(*run.roots, names=run.names)
        image = graph_image(view)
        self.data = {"program": program, "fix": fix, "x": x,
                     "error": run.error, "grads": run.grads,
                     "expected": run.expected, "image": image,
                     "graph": view.source}
        left, right = self.axes
        left.imshow(image)
        left.set_axis_off()
        left.set_title("the graph it built (nbgrad.viz.draw)", fontsize=10)
        state = "fix applied" if fix else "broken"
        self.figure.suptitle(f"{program}: {state}, x = {x:.2f}", fontsize=10)
        self.data["suptitle"] = f"{program}: {state}, x = {x:.2f}"
        if run.error is not None:  # an error, or a .grad that is None: no bars to draw
            right.set_axis_off()
            right.text(0.0, 0.9, "\n".join(textwrap.wrap(run.error, 48)), va="top",
                       ha="left", fontsize=10, color="tab:red", family="monospace",
                       transform=right.transAxes)
            raised = run.error.startswith(("RuntimeError", "TypeError"))
            right.set_title("backward raised" if raised else "the trap: no gradient",
                            fontsize=10)
            return
        labels, heights, targets = [], [], []
        for name, values in run.grads.items():
            expected = run.expected.get(name)
            for i, value in enumerate(values):
                labels.append(name if len(values) == 1 else f"{name}[{i}]")
                heights.append(value)
                targets.append(np.nan if expected is None else expected[i])
        heights, targets = np.array(heights), np.array(targets)
        positions = np.arange(len(labels))
        right.bar(positions, np.nan_to_num(heights, nan=0.0), color="tab:blue", width=0.6,
                  label="autograd's .grad")
        right.plot(positions, targets, "D", color="black", label="correct gradient")
        for position, value in zip(positions, heights):
            if np.isnan(value):
                right.text(position, 0.0, "nan", ha="center", va="bottom", color="tab:red",
                           fontsize=11, fontweight="bold")
        right.axhline(0.0, color="gray", linewidth=0.8)
        right.set_xlim(-0.9, len(labels) - 0.1)
        right.set_xticks(positions, labels, fontsize=8)
        right.set_xlabel("gradient entry")
        right.set_ylabel("gradient")
        top = np.nanmax(np.abs(np.concatenate([heights, targets, [1e-3]])))
        right.set_ylim(-1.35 * top, 1.35 * top)
        right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8,
                     frameon=False)
        status = "fixed" if fix else "broken"
        right.set_title(f"{status}: autograd's gradient and the correct one", fontsize=10)
