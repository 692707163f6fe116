"""Deep graphs: a chain of ``x = x + 1`` and a chain of views, each engine timed in a
Python process of its own.

Depth: ``x = x + 1`` chained ``n`` times from a 0-d leaf, then ``backward()``: an engine
must neither recurse nor slow down on a graph a million nodes deep.

View chain: ``v.view(2, 2)`` and ``v.view(4)`` alternated ``n`` times, one in-place change
through the last view, then backward from the base: view bookkeeping must be linear.

Why a process each: a graph of 10^5 nodes that stay alive makes Python run full garbage
collections, and each one visits every object in the process. Importing PyTorch alone
leaves about 150,000 of them (NumPy and nbgrad about 20,000), while PyTorch's own graph
is C++ that the collector never sees. In one shared process nbgrad's graph would pay for
PyTorch's heap; a program imports one of the two, and so does each measurement here.

    python benchmarks/graphs.py view_chain_once nbgrad 100000   # one run, as JSON
"""

import gc
import importlib
import json
import os
import statistics
import subprocess
import sys
from time import perf_counter


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


def in_own_process(once, lib, n):
    """``once(lib, n)`` run in a fresh interpreter that imports only ``lib`` (the same copy
    of it as this process: its folder goes first on the child's path)."""
    env = dict(os.environ)
    package_parent = os.path.dirname(os.path.dirname(lib.__file__))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, __file__, once.__name__, lib.__name__, str(n)],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:  # the child's last line says why (an ABORT, a RecursionError...)
        lines = done.stderr.strip().splitlines() or ["no output"]
        raise RuntimeError(f"{once.__name__}({lib.__name__}, {n}) failed: {lines[-1]}")
    return tuple(json.loads(done.stdout))


def timed(n, repeats, engines, once):
    """Median seconds of ``once`` for each engine, and the median time to free the graph.
    Each run is a process of its own; the engines take turns, the first rotating."""
    times = {name: [] for name in engines}
    frees = {name: [] for name in engines}
    names = list(engines)
    for r in range(repeats):
        for name in names[r % len(names):] + names[:r % len(names)]:
            elapsed, freed = in_own_process(once, engines[name], n)
            times[name].append(elapsed)
            frees[name].append(freed)
    median = statistics.median
    return {k: median(v) for k, v in times.items()}, {k: median(v) for k, v in frees.items()}


if __name__ == "__main__":
    once_name, lib_name, size = sys.argv[1:]
    if lib_name == "torch":
        importlib.import_module("torch").set_num_threads(1)
    print(json.dumps(globals()[once_name](importlib.import_module(lib_name), int(size))))
