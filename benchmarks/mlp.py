"""Training a 64-128-128-10 ReLU MLP on scikit-learn's digits, three ways.

* ``NumpyMLP``: forward and backward written out by hand with NumPy (the floor for any
  NumPy engine);
* ``TorchMLP``: PyTorch on the CPU;
* ``NbgradMLP``: nbgrad.

Every engine starts from the same weights (drawn with NumPy and copied in), sees the same
batches in the same order, and computes the loss the same way: softmax cross-entropy,
``mean(-log_softmax(z)[arange(n), y])``, then plain SGD with lr 0.05 and the gradients
reset to ``None`` after each step.

Two structures, the same for PyTorch and nbgrad:

* ``"nn"``: ``nn.Sequential(nn.Linear, nn.ReLU, ...)``, ``nn.functional.cross_entropy``
  and ``optim.SGD`` (used when ``nbgrad.nn`` and ``nbgrad.optim`` exist and work);
* ``"ops"``: raw tensors and tensor operations (``x @ w.t() + b``, ``.relu()``,
  ``log_softmax(1)``, indexing, ``.mean()``), and SGD as ``p.sub_(lr * p.grad)`` under
  ``no_grad()``.
"""

import numpy as np

from common import ng, torch

SIZES = (64, 128, 128, 10)
LR = 0.05
SEED = 0


# -- data and weights -------------------------------------------------------------------
def load_data():
    """Digits as float32, each feature standardized (constant features stay zero)."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X.astype(np.float32)
    std = X.std(0)
    std[std == 0] = 1
    X = ((X - X.mean(0)) / std).astype(np.float32)
    return np.ascontiguousarray(X), y.astype(np.int64)


def initial_weights(seed=SEED):
    """``[W1, b1, W2, b2, W3, b3]``, float32, ``W`` of shape (out, in), PyTorch's layout
    and PyTorch's default range ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``."""
    rng = np.random.default_rng(seed)
    weights = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return weights


def epoch_batches(X, y, batch_size, rng):
    """One epoch: a fresh permutation cut into batches (the last one may be smaller)."""
    perm = rng.permutation(len(X))
    return [(np.ascontiguousarray(X[idx]), y[idx])
            for idx in (perm[i:i + batch_size] for i in range(0, len(X), batch_size))]


# -- hand-written NumPy -----------------------------------------------------------------
class NumpyMLP:
    name = "numpy"

    def __init__(self, weights, structure=None):
        self.params = [w.copy() for w in weights]

    def prepare(self, x, y):
        return x, y

    def step(self, batch):
        x, y = batch
        W1, b1, W2, b2, W3, b3 = self.params
        n = x.shape[0]
        rows = np.arange(n)
        # forward
        h1 = x @ W1.T
        h1 += b1
        a1 = np.maximum(h1, 0)
        h2 = a1 @ W2.T
        h2 += b2
        a2 = np.maximum(h2, 0)
        z = a2 @ W3.T
        z += b3
        shifted = z - z.max(1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(1, keepdims=True)
        logp = shifted - np.log(s)
        loss = -logp[rows, y].mean()
        # backward
        dz = e / s
        dz[rows, y] -= 1
        dz /= n
        dW3 = dz.T @ a2
        db3 = dz.sum(0)
        da2 = dz @ W3
        da2[h2 <= 0] = 0
        dW2 = da2.T @ a1
        db2 = da2.sum(0)
        da1 = da2 @ W2
        da1[h1 <= 0] = 0
        dW1 = da1.T @ x
        db1 = da1.sum(0)
        # SGD
        for p, g in zip(self.params, (dW1, db1, dW2, db2, dW3, db3)):
            p -= LR * g
        return loss

    @staticmethod
    def loss_value(loss):
        return float(loss)

    def weights(self):
        return [p.copy() for p in self.params]


# -- PyTorch and nbgrad share one implementation: their APIs are the same ---------------
class _AutogradMLP:
    lib = None  # the module: torch or nbgrad

    def __init__(self, weights, structure="ops"):
        lib = self.lib
        self.structure = structure
        if structure == "nn":
            nn = lib.nn
            layers = []
            for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
                if i:
                    layers.append(nn.ReLU())
                layers.append(nn.Linear(fan_in, fan_out))
            self.model = nn.Sequential(*layers)
            linears = [m for m in self.model if isinstance(m, nn.Linear)]
            with lib.no_grad():
                for layer, (w, b) in zip(linears, zip(weights[::2], weights[1::2])):
                    layer.weight.copy_(lib.from_numpy(w.copy()))
                    layer.bias.copy_(lib.from_numpy(b.copy()))
            self.params = [p for layer in linears for p in (layer.weight, layer.bias)]
            self.cross_entropy = nn.functional.cross_entropy
            self.optimizer = lib.optim.SGD(self.model.parameters(), lr=LR)
            self.step = self._step_nn
        elif structure == "ops":
            self.params = [lib.from_numpy(w.copy()).requires_grad_() for w in weights]
            self.step = self._step_ops
        else:
            raise ValueError(f"unknown structure {structure!r}")

    def prepare(self, x, y):
        return self.lib.from_numpy(x), self.lib.from_numpy(y)

    def _step_ops(self, batch):
        lib = self.lib
        x, y = batch
        W1, b1, W2, b2, W3, b3 = self.params
        h = (x @ W1.t() + b1).relu()
        h = (h @ W2.t() + b2).relu()
        z = h @ W3.t() + b3
        loss = -z.log_softmax(1)[lib.arange(x.shape[0]), y].mean()
        loss.backward()
        with lib.no_grad():
            for p in self.params:
                p.sub_(LR * p.grad)
                p.grad = None
        return loss

    def _step_nn(self, batch):
        x, y = batch
        loss = self.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss

    @staticmethod
    def loss_value(loss):
        return loss.item()

    def weights(self):
        return [p.detach().numpy().copy() for p in self.params]


class NbgradMLP(_AutogradMLP):
    name = "nbgrad"
    lib = ng


class TorchMLP(_AutogradMLP):
    name = "torch"
    lib = torch


def nn_available():
    """Why the ``nn`` structure cannot be used with nbgrad, or ``None`` if it can."""
    nn = getattr(ng, "nn", None)
    optim = getattr(ng, "optim", None)
    missing = [name for name, module, attr in (
        ("nbgrad.nn.Linear", nn, "Linear"), ("nbgrad.nn.ReLU", nn, "ReLU"),
        ("nbgrad.nn.Sequential", nn, "Sequential"),
        ("nbgrad.nn.functional.cross_entropy", getattr(nn, "functional", None), "cross_entropy"),
        ("nbgrad.optim.SGD", optim, "SGD"),
    ) if getattr(module, attr, None) is None]
    return f"missing {', '.join(missing)}" if missing else None


# -- the same computation everywhere ----------------------------------------------------
class Mismatch(Exception):
    pass


def check_same(engines, batches, steps=5, rtol=1e-4, atol=1e-6):
    """Run ``steps`` steps of each engine from the same weights; raise ``Mismatch`` unless
    every loss (and the weights after the last step) agree within float32 tolerance."""
    losses, weights = {}, {}
    for name, engine in engines.items():
        prepared = [engine.prepare(x, y) for x, y in batches[:steps]]
        losses[name] = [engine.loss_value(engine.step(b)) for b in prepared]
        weights[name] = engine.weights()
    reference = "numpy"
    for name in engines:
        if name == reference:
            continue
        if not np.allclose(losses[name], losses[reference], rtol=rtol, atol=atol):
            raise Mismatch(
                f"{name} and hand NumPy compute different losses on the first {steps} steps:\n"
                f"  numpy : {np.array(losses[reference])}\n"
                f"  {name:6}: {np.array(losses[name])}"
            )
        for i, (a, b) in enumerate(zip(weights[name], weights[reference])):
            if not np.allclose(a, b, rtol=1e-3, atol=1e-5):
                raise Mismatch(
                    f"{name} and hand NumPy disagree on parameter {i} after {steps} SGD steps "
                    f"(max abs difference {np.abs(a - b).max():.3g})"
                )
    return losses


def make_engines(structure, weights):
    engines = {"numpy": NumpyMLP(weights)}
    if torch is not None:
        engines["torch"] = TorchMLP(weights, structure)
    engines["nbgrad"] = NbgradMLP(weights, structure)
    return engines


def choose_structure(requested, X, y):
    """The structure to benchmark and a note on why; ``"ops"`` if ``"nn"`` fails."""
    if requested == "ops":
        return "ops", "tensor ops (requested)"
    reason = nn_available()
    if reason is None:
        try:
            batches = epoch_batches(X, y, 64, np.random.default_rng(SEED))
            check_same(make_engines("nn", initial_weights()), batches)
            return "nn", "nbgrad.nn + nbgrad.optim"
        except Mismatch as error:
            reason = f"nn/optim give a different loss: {error}"
        except Exception as error:  # being written: any failure means fall back
            reason = f"nn/optim failed: {type(error).__name__}: {error}"
    if requested == "nn":
        raise SystemExit(f"--structure nn requested but unusable: {reason}")
    return "ops", f"tensor ops (fallback; {reason.splitlines()[0]})"


def benchmark(X, y, batch_size, structure, epochs_per_repeat, repeats, interleaved):
    """Seconds per epoch for each engine: the median over ``repeats`` blocks of
    ``epochs_per_repeat`` epochs, after one warm-up block. Checks the losses first."""
    weights = initial_weights()
    rng = np.random.default_rng(SEED + batch_size)
    blocks = [[epoch_batches(X, y, batch_size, rng) for _ in range(epochs_per_repeat)]
              for _ in range(repeats + 1)]
    try:
        check_same(make_engines(structure, weights), blocks[0][0])
    except Mismatch as error:
        raise SystemExit(f"ABORT: MLP at batch {batch_size}: {error}") from None

    engines = make_engines(structure, weights)

    def runner(engine):
        def prepare(r):
            epochs = [[engine.prepare(x, t) for x, t in epoch] for epoch in blocks[r]]

            def timed():
                step = engine.step
                for epoch in epochs:
                    for batch in epoch:
                        step(batch)
            return timed
        return prepare

    medians, samples = interleaved({name: runner(e) for name, e in engines.items()}, repeats)
    return {name: m / epochs_per_repeat for name, m in medians.items()}
