"""Memory: the extra memory one MLP training step needs, and whether it stays flat.

* Extra memory of one step at batch 4096 (forward + backward + SGD update), after one
  warm-up step: for hand NumPy and nbgrad, ``tracemalloc``'s peak during the step minus
  what was traced before it (NumPy reports its array buffers to tracemalloc, and every
  Python object an engine creates is counted too). PyTorch allocates its buffers with its
  own allocator, which tracemalloc cannot see; its number is PyTorch's own accounting:
  the running total of the allocations and frees that ``torch.profiler``
  (``profile_memory=True``) records during the step, at its highest.
* Flat over many steps: nbgrad's traced memory after step 10 and after step N (batch 64,
  the digits cycled); a leak of any object per step shows up as growth.
"""

import contextlib
import gc
import json
import os
import tempfile
import tracemalloc

import numpy as np

from common import torch
import mlp

BATCH = 4096


def big_batch(X, y):
    """4096 rows drawn with replacement from digits (which has 1797)."""
    idx = np.random.default_rng(2).integers(0, len(X), BATCH)
    return np.ascontiguousarray(X[idx]), y[idx]


def traced_step_peak(engine, batch):
    """tracemalloc peak during one step, minus the traced memory before it (bytes)."""
    prepared = engine.prepare(*batch)
    engine.step(prepared)  # warm-up: lazily created state is not part of a step
    gc.collect()
    tracemalloc.start()
    try:
        prepared = engine.prepare(*batch)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        engine.step(prepared)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak - before


@contextlib.contextmanager
def _quiet_stderr():
    """The profiler's C++ side prints start/stop lines on file descriptor 2."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def torch_step_peak(engine, batch):
    """PyTorch's own accounting: highest running total of the step's CPU allocations."""
    from torch.profiler import ProfilerActivity, profile

    prepared = engine.prepare(*batch)
    engine.step(prepared)
    prepared = engine.prepare(*batch)
    with _quiet_stderr():
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            engine.step(prepared)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trace.json")
            prof.export_chrome_trace(path)
            with open(path) as f:
                events = json.load(f)["traceEvents"]
    memory = sorted((e for e in events if e.get("name") == "[memory]"
                     and e.get("args", {}).get("Device Type", 0) == 0),
                    key=lambda e: (e["ts"], e["args"].get("Ev Idx", 0)))
    if not memory:
        raise RuntimeError("the profiler recorded no memory events")
    total = peak = 0
    for event in memory:
        total += event["args"]["Bytes"]
        peak = max(peak, total)
    return peak


def step_memory(X, y, structure):
    """Extra bytes of one step for each engine (``None`` with a reason when unmeasurable)."""
    batch = big_batch(X, y)
    weights = mlp.initial_weights()
    results, notes = {}, {}
    results["numpy"] = traced_step_peak(mlp.NumpyMLP(weights), batch)
    if torch is not None:
        try:
            results["torch"] = torch_step_peak(mlp.TorchMLP(weights, structure), batch)
            notes["torch"] = "torch.profiler allocator accounting (tracemalloc cannot see it)"
        except Exception as error:
            results["torch"] = None
            notes["torch"] = f"n/a: {type(error).__name__}: {error}"
    results["nbgrad"] = traced_step_peak(mlp.NbgradMLP(weights, structure), batch)
    return results, notes


def flat_memory(X, y, structure, steps, early=10):
    """nbgrad's traced memory (bytes) after step ``early`` and after step ``steps``."""
    engine = mlp.NbgradMLP(mlp.initial_weights(), structure)
    rng = np.random.default_rng(3)
    batches = []
    while len(batches) < steps:
        batches.extend(mlp.epoch_batches(X, y, 64, rng))
    batches = batches[:steps]
    gc.collect()
    tracemalloc.start()
    try:
        # The arrays exist before tracing starts; each step wraps its batch in tensors, as
        # a training loop does, and drops them (an engine may attach state to its inputs,
        # such as the record of their views, which must go with them).
        for i, (x, t) in enumerate(batches, 1):
            engine.step(engine.prepare(x, t))
            if i == early:
                gc.collect()
                after_early = tracemalloc.get_traced_memory()[0]
        gc.collect()
        after_last = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return after_early, after_last
