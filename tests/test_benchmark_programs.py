"""The benchmarks' programs compute what they claim (benchmarks/README.md): every engine
trains the basic-op MLP as hand NumPy does, and the overhead chain's gradient is hand
NumPy's. Timings are the benchmarks' business; here only the numbers are checked."""

import pathlib
import sys

import numpy as np
import pytest

pytest.importorskip("sklearn", reason="scikit-learn (the digits data) is not installed")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))

import basic_mlp  # noqa: E402
import overhead  # noqa: E402

import nbgrad as ng  # noqa: E402


def test_nbgrads_basic_op_mlp_trains_as_hand_numpy_does():
    X, onehot = basic_mlp.load_data()
    first = basic_mlp.batches(X, onehot, 64, 0)[:basic_mlp.CHECKED_STEPS]
    by_hand = basic_mlp.NumpyMLP(basic_mlp.initial_weights())
    engine = type("NbgradMLP", (basic_mlp.TensorMLP,), {"lib": ng})(basic_mlp.initial_weights())
    for batch in first:
        expected = by_hand.step(by_hand.prepare(*batch))
        assert engine.step(engine.prepare(*batch)) == pytest.approx(expected, rel=1e-5)
    for got, expected in zip(engine.weights(), by_hand.weights()):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)


def test_every_installed_engine_passes_the_benchmarks_own_check():
    basic_mlp.check(basic_mlp.load_data())  # SystemExit names the engine that differs
    overhead.check_chain()


def test_the_overhead_chain_is_differentiated_by_hand_correctly():
    x0 = overhead.start_values()
    x = ng.from_numpy(x0.copy()).requires_grad_()
    np.testing.assert_allclose(overhead.autograd_chain(ng)(x).numpy(),
                               overhead.numpy_chain(x0), rtol=1e-12)
