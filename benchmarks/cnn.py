"""A small CNN on scikit-learn's 8x8 digits, batch 64: nbgrad beside PyTorch (CPU).

    Conv2d(1, 16, 3, padding=1) - ReLU - MaxPool2d(2)
    Conv2d(16, 32, 3, padding=1) - ReLU - MaxPool2d(2) - Flatten - Linear(32 * 2 * 2, 10)

trained with ``F.cross_entropy`` and ``optim.SGD`` (lr 0.05), written the same way for
both libraries (``import nbgrad as torch`` style). Both start from the same weights
(drawn with NumPy, copied in) and see the same batches in the same order; the losses of
every step are compared, so the two must compute the same thing.

Each library runs in a Python process of its own that imports only it (as ``graphs.py``
does, and for the same reason: PyTorch's heap would make Python's garbage collector
slower for nbgrad), with one BLAS thread. A run times ``epochs`` epochs one by one and
reports the median epoch.

    python benchmarks/cnn.py                    # the comparison, a few repeats
    python benchmarks/cnn.py once nbgrad 3      # one process's run, as JSON
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import importlib
import json
import statistics
import subprocess
import sys
from time import perf_counter

import numpy as np

BATCH = 64
LR = 0.05
SEED = 0
HERE = os.path.dirname(os.path.abspath(__file__))


def load_images():
    """The digits as ``(n, 1, 8, 8)`` float32 images (each pixel standardised) and labels."""
    sys.path.insert(0, HERE)
    from mlp import load_data  # the MLP benchmark's data, the same standardisation

    X, y = load_data()
    return np.ascontiguousarray(X.reshape(-1, 1, 8, 8)), y


def initial_weights(seed=SEED):
    """The parameters in ``model.parameters()`` order, PyTorch's default ranges
    (``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``), float32."""
    rng = np.random.default_rng(seed)
    shapes = [(16, 1, 3, 3), (16,), (32, 16, 3, 3), (32,), (10, 128), (10,)]
    fan_ins = [9, 9, 144, 144, 128, 128]
    return [rng.uniform(-1 / np.sqrt(f), 1 / np.sqrt(f), s).astype(np.float32)
            for s, f in zip(shapes, fan_ins)]


def model(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10))


def once(lib_name, epochs):
    """Train ``epochs`` epochs with ``lib_name``: ``(median seconds per epoch, losses)``."""
    lib = importlib.import_module(lib_name)
    if lib_name == "torch":
        lib.set_num_threads(1)
    X, y = load_images()
    net = model(lib)
    with lib.no_grad():
        for p, w in zip(net.parameters(), initial_weights()):
            p.copy_(lib.from_numpy(w))
    opt = lib.optim.SGD(net.parameters(), lr=LR)
    F = lib.nn.functional
    rng = np.random.default_rng(SEED)
    times, losses = [], []
    for _ in range(epochs):
        perm = rng.permutation(len(X))
        batches = [(lib.from_numpy(np.ascontiguousarray(X[i])), lib.from_numpy(y[i]))
                   for i in (perm[k:k + BATCH] for k in range(0, len(X), BATCH))]
        t0 = perf_counter()
        for xb, yb in batches:
            loss = F.cross_entropy(net(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        times.append(perf_counter() - t0)
    return statistics.median(times), [float(v) for v in losses]


def in_own_process(lib_name, epochs):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [os.path.dirname(HERE), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, __file__, "once", lib_name, str(epochs)],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["no output"]
        raise RuntimeError(f"cnn once {lib_name} failed: {lines[-1]}")
    return json.loads(done.stdout)


def benchmark(repeats=3, epochs=3, engines=("torch", "nbgrad")):
    """``{engine: median seconds per epoch}`` over ``repeats`` processes each (taking
    turns), after checking that the engines' losses agree step by step."""
    times = {name: [] for name in engines}
    losses = {}
    for r in range(repeats):
        for name in engines[r % len(engines):] + engines[:r % len(engines)]:
            seconds, losses[name] = in_own_process(name, epochs)
            times[name].append(seconds)
    if len(losses) == 2:
        a, b = losses.values()
        if not np.allclose(a, b, rtol=1e-3, atol=1e-4):
            worst = int(np.argmax(np.abs(np.subtract(a, b))))
            raise SystemExit(f"ABORT: the CNN's losses differ at step {worst}: "
                             f"{a[worst]} vs {b[worst]}")
    return {name: statistics.median(v) for name, v in times.items()}


def main():
    try:
        import torch  # noqa: F401
        engines = ("torch", "nbgrad")
    except ImportError:
        engines = ("nbgrad",)
    result = benchmark(engines=engines)
    for name, seconds in result.items():
        print(f"{name}: {seconds * 1e3:.1f} ms per epoch")
    if "torch" in result:
        print(f"nbgrad / PyTorch: {result['nbgrad'] / result['torch']:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["once"]:
        print(json.dumps(once(sys.argv[2], int(sys.argv[3]))))
    else:
        main()
