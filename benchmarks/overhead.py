"""Per-operation overhead.

2000 small elementwise operations (alternating ``* 1.0001`` and ``+ 0.5``) on an
8-element float32 tensor, then backward; the time divided by 2000 is the cost of one
operation, forward and backward together, when the arithmetic itself is almost free.
Hand NumPy does the same forward and the backward arithmetic an engine must do (the
gradient of ``* c`` is ``grad * c``; the gradient of ``+ c`` passes through unchanged).
Deep graphs are in ``graphs.py``.
"""

import numpy as np

from common import ng, torch

N_OPS = 2000
MUL, ADD = 1.0001, 0.5


def start_values():
    return np.random.default_rng(1).standard_normal(8).astype(np.float32)


def numpy_chain(x0):
    y = x0
    for _ in range(N_OPS // 2):
        y = y * MUL
        y = y + ADD
    grad = np.ones_like(y)
    for _ in range(N_OPS // 2):  # reverse order: + passes the gradient, * scales it
        grad = grad * MUL
    return grad


def autograd_chain(lib):
    def chain(x, seed):
        y = x
        for _ in range(N_OPS // 2):
            y = y * MUL
            y = y + ADD
        y.backward(seed)
        return x.grad
    return chain


def make_runner(name, chains_per_repeat):
    """``prepare(r) -> timed()`` for ``common.interleaved``: ``chains_per_repeat`` chains."""
    x0 = start_values()
    if name == "numpy":
        def prepare(r):
            return lambda: [numpy_chain(x0) for _ in range(chains_per_repeat)]
        return prepare
    lib = {"torch": torch, "nbgrad": ng}[name]
    chain = autograd_chain(lib)

    def prepare(r):
        leaves = [lib.from_numpy(x0.copy()).requires_grad_() for _ in range(chains_per_repeat)]
        seed = lib.ones_like(leaves[0].detach())
        return lambda: [chain(x, seed) for x in leaves]
    return prepare


def check_chain():
    """The three engines must agree on the gradient (1.0001 ** 1000 for every element)."""
    x0 = start_values()
    expected = numpy_chain(x0)
    results = {"numpy": expected}
    for name, lib in (("torch", torch), ("nbgrad", ng)):
        if lib is None:
            continue
        x = lib.from_numpy(x0.copy()).requires_grad_()
        results[name] = autograd_chain(lib)(x, lib.ones_like(x.detach())).numpy()
    for name, grad in results.items():
        if not np.allclose(grad, expected, rtol=1e-5):
            raise SystemExit(f"ABORT: overhead chain: {name} computes gradient {grad}, "
                             f"hand NumPy {expected}")


def overhead(chains_per_repeat, repeats, interleaved):
    """Microseconds per operation (forward and backward) for each engine."""
    check_chain()
    names = ["numpy"] + (["torch"] if torch is not None else []) + ["nbgrad"]
    medians, _ = interleaved({n: make_runner(n, chains_per_repeat) for n in names}, repeats)
    return {n: m / chains_per_repeat / N_OPS * 1e6 for n, m in medians.items()}
