"""Per-operation overhead, and depth.

Overhead: 2000 small elementwise operations (alternating ``* 1.0001`` and ``+ 0.5``) on an
8-element float32 tensor, then backward; the time divided by 2000 is the cost of one
operation, forward and backward together, when the arithmetic itself is almost free.
Hand NumPy does the same forward and the backward arithmetic an engine must do (the
gradient of ``* c`` is ``grad * c``; the gradient of ``+ c`` passes through unchanged).

Depth: ``x = x + 1`` chained ``n`` times from a 0-d leaf, then ``backward()``: an engine
must neither recurse nor slow down on a graph a million nodes deep.
"""

import gc

import numpy as np

from common import ng, perf_counter, torch

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


# -- depth ------------------------------------------------------------------------------
def depth_once(lib, n):
    """(seconds for forward + backward, seconds to free the graph); checks x.grad == 1."""
    gc.collect()
    x = lib.zeros((), requires_grad=True)
    t0 = perf_counter()
    y = x
    for _ in range(n):
        y = y + 1
    y.backward()
    elapsed = perf_counter() - t0
    if float(x.grad) != 1.0 or float(y.detach()) != float(n):
        raise SystemExit(f"ABORT: depth {n}: {lib.__name__} gives grad {float(x.grad)}, "
                         f"value {float(y.detach())}")
    t0 = perf_counter()
    del y
    gc.collect()
    freed = perf_counter() - t0
    return elapsed, freed


def view_chain_once(lib, n):
    """(seconds, seconds to free): ``n`` chained ``view()`` calls on a non-leaf, one in-place
    change through the last view, then backward from the base; checks the gradient."""
    gc.collect()
    x = lib.ones(4, requires_grad=True)
    t0 = perf_counter()
    y = x * 1
    v = y
    for i in range(n):
        v = v.view(2, 2) if i % 2 == 0 else v.view(4)
    v.mul_(2)
    y.sum().backward()
    elapsed = perf_counter() - t0
    if x.grad.tolist() != [2.0] * 4:
        raise SystemExit(f"ABORT: view chain {n}: {lib.__name__} gives grad {x.grad.tolist()}")
    t0 = perf_counter()
    del y, v
    gc.collect()
    freed = perf_counter() - t0
    return elapsed, freed


def depth(n, repeats, engines, once=depth_once):
    """Median seconds of ``once`` for each engine (interleaved), and the median time to free
    the graph."""
    times = {name: [] for name in engines}
    frees = {name: [] for name in engines}
    for r in range(repeats):
        for name in (list(engines)[r % len(engines):] + list(engines)[:r % len(engines)]):
            elapsed, freed = once(engines[name], n)
            times[name].append(elapsed)
            frees[name].append(freed)
    med = lambda v: float(np.median(v))
    return {k: med(v) for k, v in times.items()}, {k: med(v) for k, v in frees.items()}
