"""Shared helpers: timing, medians, formatting, the engines that are available.

``run.py`` sets the BLAS thread variables before anything imports NumPy; every other
module of the suite is imported after that, so importing NumPy here is safe.
"""

import gc
import statistics
import time

import numpy as np

try:
    import torch
except ImportError:  # the suite still runs: hand NumPy and nbgrad only
    torch = None

import nbgrad as ng

perf_counter = time.perf_counter


def median(values):
    return statistics.median(values) if values else float("nan")


def interleaved(runners, repeats, warmup=1):
    """Time each runner ``repeats`` times, round-robin, and return the medians.

    ``runners`` maps a name to a callable ``prepare(r) -> timed()``: ``prepare`` does the
    untimed set-up of repeat ``r`` (building batches, ...) and returns the function whose
    duration is measured. Interleaving the engines (and rotating who goes first) keeps a
    slow drift of the machine (frequency, a neighbour process) from favouring one of them.
    """
    names = list(runners)
    samples = {name: [] for name in names}
    for r in range(warmup + repeats):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            timed = runners[name](r)
            gc.collect()
            t0 = perf_counter()
            timed()
            elapsed = perf_counter() - t0
            if r >= warmup:
                samples[name].append(elapsed)
    return {name: median(values) for name, values in samples.items()}, samples


def fmt_time(seconds):
    if seconds != seconds:  # nan
        return "n/a"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def fmt_mb(nbytes):
    return "n/a" if nbytes is None else f"{nbytes / 2**20:.1f} MB"


def fmt_ratio(value):
    return "n/a" if value is None or value != value else f"{value:.2f}x"
