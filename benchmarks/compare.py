"""Is the working tree faster than a commit? An A/B of two versions of nbgrad in one process.

    python benchmarks/compare.py                 # the working tree against HEAD
    python benchmarks/compare.py a6f517f -r 301  # against a commit, more rounds

The full suite (``run.py``) compares engines; between two of its runs the machine's speed
can drift by more than a change is worth. Here the commit's ``nbgrad/`` is written out
(from git) as a package named ``nbgrad_base`` and both versions run in the same process,
round by round, alternating which goes first: an epoch of each batch-64 MLP of ``run.py``
(``nn`` layers with ``F.cross_entropy``, and the loss from basic ops), the op chain of the
overhead row, and a 10^4-deep chain of ``x + 1``. The figure is the median over rounds of
new / old measured in the same round, so a drift that is slow compared with one round
cancels out.

Run it once with no change in the working tree (an A/A run) to see what noise alone reads:
on the project machine, A/A runs of 61 to 101 rounds read between 0.99 and 1.03. A figure
within about 3% of 1.00 is not a measured difference.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [ROOT, HERE]

import numpy as np  # noqa: E402

import basic_mlp  # noqa: E402
import mlp  # noqa: E402
import overhead  # noqa: E402


def git(*args):
    done = subprocess.run(["git", "-C", ROOT, *args], capture_output=True)
    if done.returncode:
        raise SystemExit(f"git {' '.join(args)} failed: {done.stderr.decode().strip()}")
    return done.stdout


def load_commit(revision, into):
    """The package ``nbgrad/`` as it is at ``revision``, imported as ``nbgrad_base`` (its
    imports are relative, so it runs under another name)."""
    for path in git("ls-tree", "-r", "--name-only", revision, "nbgrad").decode().split("\n"):
        if path:
            target = os.path.join(into, "nbgrad_base", os.path.relpath(path, "nbgrad"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(git("show", f"{revision}:{path}"))
    sys.path.insert(0, into)
    return importlib.import_module("nbgrad_base")


def mlp_workload(lib):
    """One epoch of batch-64 training, as ``run.py`` times it."""
    X, y = mlp.load_data()
    engine = type("MLP", (mlp.NbgradMLP,), {"lib": lib})(mlp.initial_weights(), "nn")
    batches = [engine.prepare(a, b)
               for a, b in mlp.epoch_batches(X, y, 64, np.random.default_rng(mlp.SEED))]

    def run():
        for batch in batches:
            engine.step(batch)
    return run


def basic_mlp_workload(lib):
    """One epoch of the basic-op MLP at batch 64, as ``run.py`` times it."""
    X, onehot = basic_mlp.load_data()
    engine = type("MLP", (basic_mlp.TensorMLP,), {"lib": lib})(basic_mlp.initial_weights())
    batches = [engine.prepare(*b) for b in basic_mlp.batches(X, onehot, 64, 0)]

    def run():
        for batch in batches:
            engine.step(batch)
    return run


def depth_workload(lib, n=10**4):
    """``x = x + 1`` chained ``n`` times from a 0-d leaf, then backward."""
    def run():
        x = lib.zeros((), requires_grad=True)
        y = x
        for _ in range(n):
            y = y + 1
        y.backward()
    return run


def chain_workload(lib):
    """Five op chains of the overhead row (2000 operations each, then backward)."""
    x0 = overhead.start_values()
    chain = overhead.autograd_chain(lib)

    def run():
        for _ in range(5):
            x = lib.from_numpy(x0.copy()).requires_grad_()
            chain(x)
    return run


WORKLOADS = {"MLP epoch, batch 64": mlp_workload, "basic-op MLP epoch": basic_mlp_workload,
             "op chain": chain_workload, "depth 10^4": depth_workload}


def compare(workloads, rounds):
    ratios = {name: [] for name in workloads}
    for r in range(rounds + 1):  # round 0 warms up
        for name, (old, new) in workloads.items():
            times = {}
            for label, run in ((("old", old), ("new", new)) if r % 2 else
                               (("new", new), ("old", old))):
                gc.collect()
                t0 = time.perf_counter()
                run()
                times[label] = time.perf_counter() - t0
            if r:
                ratios[name].append(times["new"] / times["old"])
    return {name: np.array(values) for name, values in ratios.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", nargs="?", default="HEAD",
                        help="the commit to compare the working tree with (default HEAD)")
    parser.add_argument("-r", "--rounds", type=int, default=101,
                        help="rounds of each workload (default 101)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    import nbgrad
    with tempfile.TemporaryDirectory() as tmp:
        base = load_commit(args.revision, tmp)
        workloads = {name: (make(base), make(nbgrad)) for name, make in WORKLOADS.items()}
        ratios = compare(workloads, args.rounds)
    print(f"working tree / {args.revision}, median over {args.rounds} rounds "
          "(below 1: the working tree is faster)")
    for name, values in ratios.items():
        low, high = np.percentile(values, [25, 75])
        print(f"  {name:20s} {np.median(values):.3f}  (middle half of the rounds: "
              f"{low:.3f} to {high:.3f})")


if __name__ == "__main__":
    main()
