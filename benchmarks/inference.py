"""Inference of small batches: ``no_grad`` against ``inference_mode``.

The 64-128-128-10 MLP of ``mlp.py`` (``nn.Sequential`` of ``nn.Linear``/``nn.ReLU``, the
same weights in both libraries) classifies one row of digits at a time, ``N_ROWS`` rows,
the prediction read as ``model(row).squeeze(0).argmax()``: small operations whose cost is
the library's own work, not the arithmetic. Each engine runs the loop under ``no_grad``
and under ``inference_mode``; the modes and the engines take turns (``common.interleaved``).

In PyTorch an inference tensor has no version counter and its views no view bookkeeping,
which is what makes ``inference_mode`` the faster of the two there. nbgrad's tensors make
their version counter only when one is needed, under either mode; what inference mode
skips in nbgrad is a view's bookkeeping, where the view is of an inference tensor.
"""

import numpy as np

from common import ng, torch
from mlp import SIZES, initial_weights, load_data

N_ROWS = 1000
MODES = ("no_grad", "inference_mode")


def make_model(lib):
    """The MLP in ``lib``, holding ``mlp.initial_weights``."""
    nn = lib.nn
    layers = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        layers += [nn.Linear(fan_in, fan_out), nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    with lib.no_grad():
        for p, w in zip(model.parameters(), initial_weights()):
            p.copy_(lib.from_numpy(w))
    return model


def predictions(lib, model, rows, mode):
    """The class of each row, one row at a time, under ``mode`` (a name in ``MODES``)."""
    with getattr(lib, mode)():
        return [int(model(row).squeeze(0).argmax()) for row in rows]


def make_runner(lib, mode, rows_np):
    model = make_model(lib)
    rows = [lib.from_numpy(r[None]) for r in rows_np]

    def prepare(r):
        return lambda: predictions(lib, model, rows, mode)
    return prepare


def inference(repeats, interleaved):
    """``{engine: {mode: milliseconds for N_ROWS rows}}``, after checking that every engine
    and mode predicts the same classes."""
    rows_np = load_data()[0][:N_ROWS]
    engines = {"nbgrad": ng} if torch is None else {"torch": torch, "nbgrad": ng}
    answers = {(name, mode): predictions(lib, make_model(lib), [lib.from_numpy(r[None])
                                                                 for r in rows_np], mode)
               for name, lib in engines.items() for mode in MODES}
    first = next(iter(answers.values()))
    for key, answer in answers.items():
        if answer != first:
            wrong = int(np.argmax(np.not_equal(answer, first)))
            raise SystemExit(f"ABORT: inference: {key} predicts {answer[wrong]} for row "
                             f"{wrong}, not {first[wrong]}")
    runners = {(name, mode): make_runner(lib, mode, rows_np)
               for name, lib in engines.items() for mode in MODES}
    medians, _ = interleaved(runners, repeats)
    return {name: {mode: medians[name, mode] * 1e3 for mode in MODES} for name in engines}


if __name__ == "__main__":
    import os
    import sys

    if os.environ.get("OMP_NUM_THREADS") != "1":
        sys.exit("run with OMP_NUM_THREADS=1 (run.py sets it)")
    if torch is not None:
        torch.set_num_threads(1)
    from common import interleaved

    for name, times in inference(int(sys.argv[1]) if sys.argv[1:] else 11, interleaved).items():
        print(f"{name}: no_grad {times['no_grad']:.1f} ms, inference_mode "
              f"{times['inference_mode']:.1f} ms, inference_mode / no_grad "
              f"{times['inference_mode'] / times['no_grad']:.3f}")
