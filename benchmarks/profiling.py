"""``--profile``: where nbgrad's time goes, by cProfile, on the MLP step and the op chain."""

import cProfile
import io
import pstats

import numpy as np

import mlp
import overhead
from common import ng


def _top(profiler, limit):
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(limit)
    lines = out.getvalue().splitlines()
    # Keep the header line of the table and the rows; drop pstats' preamble.
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(line.replace("/work/main/", "") for line in lines[start:] if line.strip())


def profile_mlp(X, y, structure, batch_size=64, epochs=5, limit=15):
    engine = mlp.NbgradMLP(mlp.initial_weights(), structure)
    rng = np.random.default_rng(mlp.SEED)
    batches = [engine.prepare(x, t) for _ in range(epochs)
               for x, t in mlp.epoch_batches(X, y, batch_size, rng)]
    engine.step(batches[0])
    profiler = cProfile.Profile()
    profiler.enable()
    for batch in batches:
        engine.step(batch)
    profiler.disable()
    return (f"nbgrad MLP ({structure}), batch {batch_size}, {len(batches)} steps, "
            f"top {limit} by tottime:\n" + _top(profiler, limit))


def profile_chain(chains=20, limit=15):
    chain = overhead.autograd_chain(ng)
    x0 = overhead.start_values()
    leaves = [ng.from_numpy(x0.copy()).requires_grad_() for _ in range(chains)]
    profiler = cProfile.Profile()
    profiler.enable()
    for x in leaves:
        chain(x)
    profiler.disable()
    return (f"nbgrad op chain, {chains} x {overhead.OPS} ops, top {limit} by tottime:\n"
            + _top(profiler, limit))
