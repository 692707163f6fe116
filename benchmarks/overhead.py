"""Per-operation overhead.

2000 small operations on an 8-element float64 tensor, ``* 1.0001`` and ``+ 0.001``
alternating, with a ``tanh`` after every 10th, then ``sum()`` and backward; the time
divided by the number of operations (2200) is the cost of one, forward and backward
together, when the arithmetic itself is almost free. Hand NumPy does the same forward and the backward
arithmetic an engine must do (the gradient of ``* c`` is ``grad * c``, of ``+ c`` the
gradient itself, of ``tanh`` ``grad * (1 - y**2)``). Deep graphs are in ``graphs.py``.
"""

import numpy as np

from common import ng, torch

N_OPS = 2000
MUL, ADD = 1.0001, 0.001
TANH_EVERY = 10
OPS = N_OPS + N_OPS // TANH_EVERY  # the operations of one chain: the time is per operation


def start_values():
    return np.random.default_rng(1).standard_normal(8)


def numpy_chain(x0):
    y, tanh_outputs = x0, []
    for i in range(N_OPS):
        y = y * MUL if i % 2 == 0 else y + ADD
        if i % TANH_EVERY == TANH_EVERY - 1:
            y = np.tanh(y)
            tanh_outputs.append(y)
    grad = np.ones_like(y)  # sum()'s backward
    for i in reversed(range(N_OPS)):
        if i % TANH_EVERY == TANH_EVERY - 1:
            out = tanh_outputs.pop()
            grad = grad * (1 - out * out)
        if i % 2 == 0:
            grad = grad * MUL
    return grad


def autograd_chain(lib):
    def chain(x):
        y = x
        for i in range(N_OPS):
            y = y * MUL if i % 2 == 0 else y + ADD
            if i % TANH_EVERY == TANH_EVERY - 1:
                y = y.tanh()
        y.sum().backward()
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
        return lambda: [chain(x) for x in leaves]
    return prepare


def check_chain():
    """The engines must agree with hand NumPy on the gradient."""
    x0 = start_values()
    expected = numpy_chain(x0)
    results = {"numpy": expected}
    for name, lib in (("torch", torch), ("nbgrad", ng)):
        if lib is None:
            continue
        x = lib.from_numpy(x0.copy()).requires_grad_()
        results[name] = autograd_chain(lib)(x).numpy()
    for name, grad in results.items():
        if not np.allclose(grad, expected, rtol=1e-12):
            raise SystemExit(f"ABORT: overhead chain: {name} computes gradient {grad}, "
                             f"hand NumPy {expected}")


def overhead(chains_per_repeat, repeats, interleaved):
    """Microseconds per operation (forward and backward) for each engine."""
    check_chain()
    names = ["numpy"] + (["torch"] if torch is not None else []) + ["nbgrad"]
    medians, _ = interleaved({n: make_runner(n, chains_per_repeat) for n in names}, repeats)
    return {n: m / chains_per_repeat / OPS * 1e6 for n, m in medians.items()}
