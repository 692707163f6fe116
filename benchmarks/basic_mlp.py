"""The MLP with its loss written from basic operations: where per-operation cost shows.

The same 64-128-128-10 ReLU network as ``mlp.py``, trained on scikit-learn's digits
scaled to [0, 1] (``/ 16``, float32) with plain SGD (lr 0.1), but written the way a first
autograd program writes it, one small operation at a time:

    h = relu(x @ w1 + b1); h = relu(h @ w2 + b2); z = h @ w3 + b3
    sh = z - rowmax(z)                       # the max taken as a constant
    lse = log(sum(exp(sh), 1, keepdim=True))
    loss = sum(onehot * (lse - sh)) * (1 / B)
    w -= lr * w.grad  (under no_grad), then w.grad = None

Every engine runs exactly this: hand NumPy (forward and backward written out, the floor),
PyTorch, nbgrad (the same code as PyTorch), and DeZero (the engine of the book "Deep
Learning from Scratch 3") when it is installed. They start from the same weights and see
the same batches; ``check`` compares the losses and the weights of their first steps.
"""

import numpy as np

from common import ng, torch

LR = 0.1
CHECKED_STEPS = 5


def load_data():
    """Digits ``/ 16`` as float32 and their labels one-hot (float32)."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return (np.ascontiguousarray(X / 16, dtype=np.float32),
            np.eye(10, dtype=np.float32)[y])


def initial_weights():
    """``[w1, b1, w2, b2, w3, b3]`` with ``w`` of shape (in, out): ``mlp.py``'s weights."""
    from mlp import initial_weights as layer_weights

    return [np.ascontiguousarray(w.T) for w in layer_weights()]


def batches(X, onehot, batch_size, seed):
    """One epoch: a permutation of the rows cut into batches."""
    order = np.random.default_rng(seed).permutation(len(X))
    return [(np.ascontiguousarray(X[i]), np.ascontiguousarray(onehot[i]))
            for i in (order[s:s + batch_size] for s in range(0, len(X), batch_size))]


class NumpyMLP:
    """Forward and backward by hand: what any NumPy engine must at least compute."""

    def __init__(self, weights):
        self.params = [w.copy() for w in weights]

    def prepare(self, x, onehot):
        return x, onehot

    def step(self, batch):
        x, t = batch
        w1, b1, w2, b2, w3, b3 = self.params
        a1 = x @ w1 + b1
        h1 = np.maximum(a1, 0)
        a2 = h1 @ w2 + b2
        h2 = np.maximum(a2, 0)
        z = h2 @ w3 + b3
        sh = z - z.max(1, keepdims=True)
        e = np.exp(sh)
        s = e.sum(1, keepdims=True)
        lse = np.log(s)
        scale = 1 / len(x)
        loss = (t * (lse - sh)).sum() * scale
        g = t * scale                                   # d loss / d (lse - sh)
        dz = g.sum(1, keepdims=True) * (e / s) - g      # through lse and through sh
        dh2 = (dz @ w3.T) * (a2 > 0)
        dh1 = (dh2 @ w2.T) * (a1 > 0)
        grads = (x.T @ dh1, dh1.sum(0), h1.T @ dh2, dh2.sum(0), h2.T @ dz, dz.sum(0))
        for p, grad in zip(self.params, grads):
            p -= LR * grad
        return float(loss)

    def weights(self):
        return self.params


class TensorMLP:
    """PyTorch's API: one class for PyTorch and nbgrad (``lib`` is the module)."""

    lib = None

    def __init__(self, weights):
        self.params = [self.lib.from_numpy(w.copy()).requires_grad_() for w in weights]

    def prepare(self, x, onehot):
        return self.lib.from_numpy(x), self.lib.from_numpy(onehot)

    def step(self, batch):
        x, t = batch
        w1, b1, w2, b2, w3, b3 = self.params
        h = (x @ w1 + b1).relu()
        h = (h @ w2 + b2).relu()
        z = h @ w3 + b3
        sh = z - z.detach().amax(1, keepdim=True)
        lse = sh.exp().sum(1, keepdim=True).log()
        loss = (t * (lse - sh)).sum() * (1 / len(x))
        loss.backward()
        with self.lib.no_grad():
            for p in self.params:
                p -= LR * p.grad
                p.grad = None
        return loss.item()

    def weights(self):
        return [p.detach().numpy() for p in self.params]


def dezero_module():
    """DeZero when installed, else None. Its 0.0.13 release names ``np.int`` (removed in
    NumPy 2) while it is imported: the alias exists only for that import."""
    import importlib.util

    if importlib.util.find_spec("dezero") is None:
        return None
    aliased = not hasattr(np, "int")
    if aliased:
        np.int = int
    try:
        import dezero
    finally:
        if aliased:
            del np.int
    return dezero


class DezeroMLP:
    """The same program in DeZero's API (``F.relu``, ``F.sum(x, axis, keepdims)``)."""

    def __init__(self, weights):
        dezero = dezero_module()
        self.F = dezero.functions
        self.params = [dezero.Variable(w.copy()) for w in weights]

    def prepare(self, x, onehot):
        return x, onehot

    def step(self, batch):
        F = self.F
        x, t = batch
        w1, b1, w2, b2, w3, b3 = self.params
        h = F.relu(F.matmul(x, w1) + b1)
        h = F.relu(F.matmul(h, w2) + b2)
        z = F.matmul(h, w3) + b3
        sh = z - z.data.max(1, keepdims=True)
        lse = F.log(F.sum(F.exp(sh), axis=1, keepdims=True))
        loss = F.sum(t * (lse - sh)) * (1 / len(x))
        loss.backward()
        for p in self.params:
            p.data -= LR * p.grad.data
            p.cleargrad()
        return float(loss.data)

    def weights(self):
        return [p.data for p in self.params]


def engines():
    """``{name: engine class}`` of the engines installed, hand NumPy first."""
    found = {"numpy": NumpyMLP}
    if torch is not None:
        found["torch"] = type("TorchMLP", (TensorMLP,), {"lib": torch})
    if dezero_module() is not None:
        found["dezero"] = DezeroMLP
    found["nbgrad"] = type("NbgradMLP", (TensorMLP,), {"lib": ng})
    return found


def check(data):
    """The engines' first steps must agree with hand NumPy's, losses and weights."""
    X, onehot = data
    first = batches(X, onehot, 64, 0)[:CHECKED_STEPS]
    results = {}
    for name, cls in engines().items():
        engine = cls(initial_weights())
        losses = [engine.step(engine.prepare(*b)) for b in first]
        results[name] = (losses, engine.weights())
    losses, weights = results["numpy"]
    for name, (other_losses, other_weights) in results.items():
        if not np.allclose(other_losses, losses, rtol=1e-4) or not all(
                np.allclose(a, b, rtol=1e-4, atol=1e-6) for a, b in zip(other_weights, weights)):
            raise SystemExit(f"ABORT: basic-op MLP: {name} trains differently from hand NumPy "
                             f"(losses {other_losses} against {losses})")


def make_runner(cls, data, batch_size, epochs):
    """``prepare(r) -> timed()`` for ``common.interleaved``: ``epochs`` epochs per repeat."""
    X, onehot = data
    engine = cls(initial_weights())

    def prepare(r):
        wrapped = [[engine.prepare(*b) for b in batches(X, onehot, batch_size, r * epochs + e)]
                   for e in range(epochs)]

        def timed():
            for epoch in wrapped:
                for batch in epoch:
                    engine.step(batch)
        return timed
    return prepare


def basic_mlp(batch_size, epochs, repeats, interleaved):
    """Seconds per epoch for each engine."""
    data = load_data()
    check(data)
    runners = {name: make_runner(cls, data, batch_size, epochs)
               for name, cls in engines().items()}
    medians, _ = interleaved(runners, repeats)
    return {name: m / epochs for name, m in medians.items()}
