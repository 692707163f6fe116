"""Chapter 08: what ``.grad`` keeps between training steps.

``backward()`` adds into ``.grad``; only ``optimizer.zero_grad()`` clears it. The widget
trains chapter 08's network (``Linear(2, 16) → Tanh → Linear(16, 16) → Tanh →
Linear(16, 2)`` on two moons, ``cross_entropy``, ``SGD(lr=0.3, momentum=0.9)``, the weights
of ``nbgrad.manual_seed(0)``) with ``zero_grad()`` called once every ``k`` backward calls,
in one of three loops:

* ``FORGOTTEN``: ``step()`` after every backward, so it reads the gradients of up to ``k``
  steps piled up (a loop that forgot ``zero_grad()``, for ``k > 1``);
* ``MEAN``: gradient accumulation done right: the 200 points in ``k`` equal micro-batches,
  ``(loss / k).backward()`` for each, then one ``step()``. The sum is the full batch's
  gradient, so the run is the full-batch loop's;
* ``SUM``: the same without ``/ k``: ``.grad`` is ``k`` times the full batch's gradient.

A hook on every parameter records what each backward call computed, before it is added
into ``.grad`` (chapter 03): ``.grad`` read by ``step()`` is the sum of those since the last
``zero_grad()``. The widget plots ``‖.grad‖`` as ``step()`` reads it and the loss, beside the
correct loop (``k = 1``, which is every loop's).
"""

from __future__ import annotations

from functools import lru_cache

import ipywidgets
import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

import nbgrad as ng
import nbgrad.nn.functional as F
from nbgrad import nn, optim

from .base import GradientWidget

HIDDEN, LR, MOMENTUM, STEPS = 16, 0.3, 0.9, 100
K_VALUES = (1, 2, 4, 5, 8, 10)  # they divide the 200 points into equal micro-batches
FORGOTTEN = "step() after each backward"
MEAN = "step() after k micro-batches, (loss / k).backward()"
SUM = "step() after k micro-batches, loss.backward()"
LOOPS = (FORGOTTEN, MEAN, SUM)
LABEL = {"description_width": "initial"}  # the whole description, never cut
# under the axes, where no curve is (inside, some setting always hides a curve)
BELOW = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2), "fontsize": 9, "frameon": False}


def two_moons(n=200, noise=0.2, seed=0):
    """Two interleaved half circles in the plane: points ``X`` (float32, ``n × 2``) and
    labels ``y`` (int64, ``n``; the first half 0, the second half 1)."""
    rng = np.random.default_rng(seed)
    half = n // 2
    angle = rng.uniform(0.0, np.pi, n)
    upper = np.stack([np.cos(angle[:half]), np.sin(angle[:half])], axis=1)
    lower = np.stack([1.0 - np.cos(angle[half:]), 0.5 - np.sin(angle[half:])], axis=1)
    X = np.concatenate([upper, lower]) + noise * rng.standard_normal((n, 2))
    y = np.repeat(np.arange(2), [half, n - half])
    return X.astype(np.float32), y.astype(np.int64)


def make_model(hidden=HIDDEN, seed=0):
    """The network, its weights drawn from ``nbgrad.manual_seed(seed)``."""
    ng.manual_seed(seed)
    return nn.Sequential(nn.Linear(2, hidden), nn.Tanh(),
                         nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, 2))


def _flat(arrays):
    return np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays])


def run(k, loop, steps=STEPS):
    """Train with ``zero_grad()`` every ``k`` backward calls in ``loop`` (one of ``LOOPS``).

    Returns a dict of arrays: ``loss`` (the full batch's loss at each step: in the
    micro-batch loops the mean of the ``k`` micro-batch losses), ``read`` (every parameter's
    ``.grad``, flattened, as ``step()`` reads it: ``steps × 354``), ``added`` (what each
    backward call computed, as the parameters' hooks saw it: ``calls × 354``) and
    ``zeroed`` (for each backward call, whether ``zero_grad()`` ran just before it).
    """
    if loop not in LOOPS:
        raise ValueError(f"loop must be one of {LOOPS}, not {loop!r}")
    X, y = two_moons()
    if loop != FORGOTTEN and len(y) % k:
        raise ValueError(f"k = {k} does not split the {len(y)} points into equal micro-batches")
    model = make_model()
    params = list(model.parameters())
    optimizer = optim.SGD(params, lr=LR, momentum=MOMENTUM)
    seen = [None] * len(params)

    def keep(i):
        def hook(grad):
            seen[i] = grad.numpy()
        return hook

    for i, p in enumerate(params):
        p.register_hook(keep(i))
    if loop == FORGOTTEN:
        batches = [(ng.tensor(X), ng.tensor(y))]
    else:
        batches = [(ng.tensor(X[rows]), ng.tensor(y[rows]))
                   for rows in np.split(np.arange(len(y)), k)]
    losses, read, added, zeroed = [], [], [], []
    for step in range(steps):
        if loop == FORGOTTEN:
            if step % k == 0:
                optimizer.zero_grad()
            loss = F.cross_entropy(model(batches[0][0]), batches[0][1])
            loss.backward()
            zeroed.append(step % k == 0)
            added.append(_flat(seen))
            losses.append(loss.item())
        else:
            optimizer.zero_grad()
            total = 0.0
            for i, (inputs, targets) in enumerate(batches):
                loss = F.cross_entropy(model(inputs), targets)
                (loss / k if loop == MEAN else loss).backward()
                zeroed.append(i == 0)
                added.append(_flat(seen))
                total += loss.item() / k
            losses.append(total)
        read.append(_flat(p.grad.numpy() for p in params))
        optimizer.step()
    return {"loss": np.array(losses), "read": np.array(read), "added": np.array(added),
            "zeroed": np.array(zeroed)}


@lru_cache(maxsize=1)
def correct_loop():
    """The full-batch loop with ``zero_grad()`` before every backward: ``run(1, ...)``."""
    return run(1, FORGOTTEN)


def _norms(rows):
    return np.linalg.norm(rows, axis=1)


class ZeroGradExplorer(GradientWidget):
    """Call ``zero_grad()`` every ``k`` backward calls in one of three loops: ``.grad`` as
    ``step()`` reads it, and the loss, beside the correct loop."""

    figsize = (10, 4.8)  # room for the legends under the axes

    def __init__(self, k=4, loop=FORGOTTEN):
        super().__init__({
            "k": ipywidgets.SelectionSlider(options=K_VALUES, value=k,
                                            description="zero_grad() every k backward calls: k",
                                            style=LABEL),
            "loop": ipywidgets.Dropdown(options=LOOPS, value=loop, description="loop",
                                        style=LABEL, layout=ipywidgets.Layout(width="420px")),
        }, ncols=2)

    def draw(self, k, loop):
        result, correct = run(k, loop), correct_loop()
        read, own = _norms(result["read"]), _norms(self._this_steps(result, k, loop))
        self.data = {"k": k, "loop": loop, **result, "read_norm": read, "own_norm": own,
                     "correct_loss": correct["loss"], "correct_norm": _norms(correct["read"])}

        left, right = self.axes
        steps = np.arange(1, len(read) + 1)
        left.plot(steps, read, color="tab:red", label="‖.grad‖ read by step()")
        left.plot(steps, own, ":", color="black", label="‖gradient of this step's backward calls‖")
        left.plot(steps, self.data["correct_norm"], "--", color="tab:gray",
                  label="correct loop (k = 1): ‖.grad‖")
        left.set_yscale("log")
        left.set_xlabel("optimizer step")
        left.set_ylabel("‖.grad‖, all parameters (log scale)")
        left.set_title(f"k = {k}: ‖.grad‖ at step {len(read)} is {read[-1]:.3g} "
                       f"(correct loop {self.data['correct_norm'][-1]:.3g})", fontsize=10)
        left.legend(**BELOW)

        right.plot(steps, result["loss"], color="tab:red", label=f"this loop, k = {k}")
        right.plot(steps, correct["loss"], "--", color="tab:gray", label="correct loop (k = 1)")
        right.set_yscale("log")
        right.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))  # 0.1, 0.2, 0.5, 1, ...
        right.set_xlabel("optimizer step")
        right.set_ylabel("cross-entropy loss (log scale)")
        right.set_title(f"loss at step {len(read)}: {result['loss'][-1]:.3g} "
                        f"(correct loop {correct['loss'][-1]:.3g})", fontsize=10)
        right.legend(**BELOW)
        for ax in (left, right):
            ax.grid(True, alpha=0.3)
            ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            ax.yaxis.set_minor_formatter(NullFormatter())  # no "6×10⁻¹" between the decades

    @staticmethod
    def _this_steps(result, k, loop):
        """The gradient each step's own backward calls computed (one call, or ``k``)."""
        if loop == FORGOTTEN:
            return result["added"]
        return result["added"].reshape(-1, k, result["added"].shape[1]).sum(axis=1)
