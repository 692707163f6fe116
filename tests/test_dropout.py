"""Dropout as PyTorch's: ``F.dropout`` and its channel-wise forms, the layers honouring
``train()``/``eval()``, the scale ``1 / (1 - p)``, ``MulBackward0``, PyTorch's errors.

The masks are not PyTorch's numbers (another generator), so what is compared with torch is
everything else: nodes, dtypes, identity cases, errors, warnings; the mask is checked for
its structure and its frequency (a fixed seed: the counts cannot flake).
"""

import math
import warnings

import numpy as np
import pytest
from parity import check, check_error, torch

import nbgrad as ng
from nbgrad import nn
from nbgrad.autograd import gradcheck
from nbgrad.nn import functional as F

SEED = 1202


def values(t):
    return np.asarray(t.detach()._data, dtype=np.float64)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_zeroes_with_probability_p_and_scales_the_rest(p):
    ng.manual_seed(SEED)
    n = 40000
    v = values(F.dropout(ng.ones(n), p))
    kept = v != 0
    assert np.allclose(v[kept], np.float32(1) / np.float32(1 - p))
    assert abs((~kept).mean() - p) <= 5 * math.sqrt(p * (1 - p) / n)


def test_dropout_records_mulbackward0_and_its_gradient_is_the_noise():
    def program(M):
        x = M.rand(4, 5, requires_grad=True)
        y = M.nn.functional.dropout(x, 0.3)
        y.sum().backward()
        return type(y.grad_fn).__name__, y.dtype, y.shape, y.requires_grad
    check(program)
    ng.manual_seed(SEED)
    x = ng.rand(6, 7, dtype=ng.float64, requires_grad=True)
    y = F.dropout(x, 0.4)
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), values(y) / values(x))


def test_dropout_gradcheck_with_a_fixed_mask():
    x = ng.rand(3, 4, dtype=ng.float64, requires_grad=True)

    def f(x):
        ng.manual_seed(SEED)  # the same mask at every evaluation
        return F.dropout(x, 0.5)
    assert gradcheck(f, (x,))

    def g(x):
        ng.manual_seed(SEED)
        return F.dropout2d(x, 0.5)
    assert gradcheck(g, (ng.rand(2, 3, 2, 2, dtype=ng.float64, requires_grad=True),))


@pytest.mark.filterwarnings("ignore:.*Received a 3D input to dropout2d")
@pytest.mark.parametrize("call", [
    lambda M, x: M.nn.functional.dropout(x, 0.0),
    lambda M, x: M.nn.functional.dropout(x, 0.5, training=False),
    lambda M, x: M.nn.functional.dropout(x[:0], 0.5),
    lambda M, x: M.nn.functional.dropout2d(x, 0.5, training=False),
    lambda M, x: M.nn.functional.alpha_dropout(x, 0.5),
])
def test_nothing_to_do_returns_the_input_itself(call):
    def program(M):
        x = M.rand(3, 4, 2, requires_grad=True)
        y = call(M, x)
        return y is x or (y.shape == (0, 4, 2) and y._base is not None)
    check(program)


def test_p_one_zeroes_everything():
    def program(M):
        y = M.nn.functional.dropout(M.ones(3, requires_grad=True), 1.0)
        return y, type(y.grad_fn).__name__
    check(program)


@pytest.mark.parametrize("p", [-0.1, 1.1])
@pytest.mark.parametrize("make", [
    lambda M, p: M.nn.functional.dropout(M.ones(3), p),
    lambda M, p: M.nn.functional.dropout2d(M.ones(2, 3, 4), p),
    lambda M, p: M.nn.Dropout(p),
    lambda M, p: M.nn.Dropout2d(p),
])
def test_p_outside_0_1_raises_valueerror(make, p):
    check_error(lambda M: make(M, p))


@pytest.mark.parametrize("program", [
    lambda M: M.nn.functional.dropout([1.0, 2.0], 0.5),
    lambda M: M.nn.functional.dropout(M.ones(3, dtype=M.int64), 0.5),
    lambda M: M.nn.functional.dropout(M.ones(3, requires_grad=True), 0.5, inplace=True),
    lambda M: M.nn.functional.dropout1d(M.ones(3, 4, 5, 6), 0.5),
    lambda M: M.nn.functional.dropout1d(M.ones(3), 0.5),
])
def test_dropout_errors_as_torch(program):
    check_error(program)


def test_integers_pass_when_not_training():
    check(lambda M: M.nn.functional.dropout(M.ones(3, dtype=M.int64), 0.5, training=False))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_the_result_keeps_the_dtype(dtype):
    check(lambda M: M.nn.functional.dropout(M.ones(4, dtype=getattr(M, dtype)), 0.5).dtype)


def test_inplace_dropout_changes_the_input_and_records_mulbackward0():
    def program(M):
        x = M.ones(3, 4, requires_grad=True)
        y = x * 1
        out = M.nn.functional.dropout(y, 0.5, inplace=True)
        return out is y, y._version, type(y.grad_fn).__name__
    check(program)


def test_dropout_on_a_0d_and_a_non_contiguous_input():
    check(lambda M: M.nn.functional.dropout(M.ones(()), 0.5).shape)
    ng.manual_seed(SEED)
    x = ng.ones(6, 4).t()
    y = F.dropout(x, 0.5)
    assert y.shape == (4, 6) and set(np.unique(values(y))) <= {0.0, 2.0}


@pytest.mark.parametrize("name, shape, node", [
    ("dropout1d", (2, 3, 5), "MulBackward0"),
    ("dropout1d", (8, 5), "SqueezeBackward1"),
    ("dropout2d", (2, 3, 4, 4), "MulBackward0"),
    ("dropout3d", (2, 3, 2, 2, 2), "MulBackward0"),
    ("dropout3d", (8, 2, 2, 2), "SqueezeBackward1"),
    ("feature_alpha_dropout", (2, 3, 4), "AddBackward0"),
])
def test_channel_dropout_zeroes_whole_channels(name, shape, node):
    def program(M):
        x = M.ones(*shape, requires_grad=True)
        training = {"training": True} if "alpha" in name else {}
        y = getattr(M.nn.functional, name)(x, 0.5, **training)
        return type(y.grad_fn).__name__, y.shape
    check(program)
    ng.manual_seed(SEED)
    y = values(getattr(F, name)(ng.ones(*shape), 0.5, training=True))
    batched = len(shape) == {"dropout1d": 3, "dropout2d": 4, "dropout3d": 5}.get(name, len(shape))
    per_channel = y.reshape(int(np.prod(shape[:2 if batched else 1])), -1)
    assert (per_channel == per_channel[:, :1]).all()  # one draw per channel
    assert len(np.unique(per_channel[:, 0])) == 2  # and some kept, some dropped


def test_dropout2d_warns_as_torch():
    for shape in [(3, 4), (2, 3, 4)]:
        for M in (torch, ng):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                M.nn.functional.dropout2d(M.ones(*shape), 0.5)
            messages = [str(w.message)[:40] for w in caught]
            if M is torch:
                expected = messages
            else:
                assert messages == expected


def test_alpha_dropout_keeps_mean_and_variance():
    ng.manual_seed(SEED)
    n = 100000
    x = ng.randn(n, dtype=ng.float64)
    y = values(F.alpha_dropout(x, 0.2, training=True))
    assert abs(y.mean()) <= 5 / math.sqrt(n) and abs(y.std() - 1) <= 5 * math.sqrt(2 / n) * 2
    alpha, p = 1.7580993408473766, 0.2
    dropped_value = -alpha * (1 - p) / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    dropped = np.isclose(y, dropped_value).mean()  # a dropped unit becomes that value
    assert abs(dropped - p) <= 5 * math.sqrt(p * (1 - p) / n)


@pytest.mark.filterwarnings("ignore:.*Received a 3D input to dropout2d")
@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                                  "AlphaDropout", "FeatureAlphaDropout"])
def test_layers_repr_and_train_eval(name):
    check(lambda M: repr(getattr(M.nn, name)(0.2)))
    check(lambda M: repr(getattr(M.nn, name)(0.3, inplace=True)))
    check(lambda M: repr(getattr(M.nn, name)()))
    layer = getattr(nn, name)(0.5)
    x = ng.ones(2, 3, 4, 4, 4) if name == "Dropout3d" else ng.ones(2, 3, 4)
    assert not ng.equal(layer(x), x)  # training by default
    layer.eval()
    assert layer(x) is x
    layer.train()
    assert not ng.equal(layer(x), x)


def test_dropout_in_a_model_follows_model_train_and_eval():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 2))
    x = ng.ones(16, 4)
    ng.manual_seed(SEED)
    a, b = model(x), model(x)
    assert not ng.equal(a, b)
    model.eval()
    assert ng.equal(model(x), model(x))


def test_manual_seed_reproduces_the_mask():
    ng.manual_seed(SEED)
    a = F.dropout(ng.ones(50), 0.5)
    ng.manual_seed(SEED)
    assert ng.equal(F.dropout(ng.ones(50), 0.5), a)
    assert not ng.equal(F.dropout(ng.ones(50), 0.5), a)


def test_dropout_on_each_device(device):
    ng.manual_seed(SEED)
    x = ng.ones(4, 6, device=device, requires_grad=True)
    y = F.dropout(x, 0.5)
    y.sum().backward()
    assert y.device.type == device and x.grad.device.type == device
    ng.manual_seed(SEED)
    assert ng.equal(y.detach().cpu(), F.dropout(ng.ones(4, 6), 0.5))
    assert ng.equal(x.grad.cpu(), y.detach().cpu())
    assert F.dropout2d(ng.ones(2, 3, 2, 2, device=device), 0.5).device.type == device
