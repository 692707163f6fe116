"""Layers against PyTorch: activations (functional and modules), normalisation, Embedding,
containers and module hooks. Values, gradients, grad_fn names, reprs and errors are compared
with torch from the same weights; gradients are also checked by finite differences (float64).
"""

import numpy as np
import pytest
from parity import assert_same, check, check_error, check_warning, grad_of, torch

import nbgrad as ng
import nbgrad.nn.functional as F
from nbgrad import nn
from nbgrad.autograd import gradcheck

# (F name, keyword options): every activation of nn.functional, with non-default options
ACTIVATIONS = [
    ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.3}),
    ("gelu", {}), ("gelu", {"approximate": "tanh"}),
    ("elu", {}), ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {}), ("celu", {"alpha": 2.0}),
    ("silu", {}), ("mish", {}),
    ("softplus", {}), ("softplus", {"beta": 2.0, "threshold": 1.0}),
    ("hardtanh", {}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0}), ("relu6", {}),
    ("hardsigmoid", {}), ("hardswish", {}), ("logsigmoid", {}),
    ("hardshrink", {}), ("hardshrink", {"lambd": 1.0}), ("softshrink", {}),
    ("softshrink", {"lambd": 1.0}), ("threshold", {"threshold": 0.5, "value": -2.0}),
    ("softsign", {}), ("tanhshrink", {}),
]
IDS = [f"{name}-{'-'.join(map(str, options.values()))}" for name, options in ACTIVATIONS]
PIECEWISE_LINEAR = ("leaky_relu", "hardtanh", "relu6", "hardsigmoid", "hardshrink", "softshrink",
                    "threshold")
INPLACE = ["leaky_relu", "elu", "selu", "celu", "silu", "mish", "hardtanh", "relu6",
           "hardsigmoid", "hardswish", "threshold"]


def _samples(rng):
    """Inputs: a random matrix with the kinks (0, +-0.5, +-1, +-3, 6) and large values among
    its entries, a 0-d tensor, an empty one; the matrix is also passed transposed."""
    x = rng.normal(size=(4, 6)) * 3
    x.flat[:12] = [0.0, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 6.0, 40.0, -40.0, 2.0, -2.0]
    return [x, np.array(0.7), np.zeros((0, 3))]


def _call(M, name, options, x):
    return getattr(M.nn.functional, name)(x, **options)


@pytest.mark.parametrize("name,options", ACTIVATIONS, ids=IDS)
def test_activation_matches_torch(name, options):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    for x in _samples(rng):
        for transposed in (False, True) if x.ndim == 2 else (False,):
            def program(M, x=x, transposed=transposed):
                t = M.tensor(x, dtype=M.float32, requires_grad=True)
                y = _call(M, name, options, t.t() if transposed else t)
                y.backward(M.ones_like(y) * 0.5)
                return y, t.grad, type(y.grad_fn).__name__
            check(program)


@pytest.mark.parametrize("name,options", ACTIVATIONS, ids=IDS)
def test_activation_gradcheck_and_second_derivative(name, options):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 4)) * 2
    if name in PIECEWISE_LINEAR or name == "hardswish":  # away from the kinks (finite differences)
        x = np.where(np.abs(np.abs(x) - np.round(np.abs(x) * 2) / 2) < 0.05, x + 0.1, x)
    t = ng.tensor(x, requires_grad=True)
    assert gradcheck(lambda a: _call(ng, name, options, a), (t,))

    def program(M):
        a = M.tensor(x, dtype=M.float64, requires_grad=True)
        (g,) = M.autograd.grad(_call(M, name, options, a).sum(), a, create_graph=True)
        (g.square().sum()).backward()
        return g, a.grad
    if name == "hardsigmoid":  # PyTorch has no derivative of hardsigmoid's backward
        check_error(program)
    else:  # (piecewise linear: a.grad is zero, but a is in the graph of g, as in PyTorch)
        check(program)


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_activation(name):
    x = np.array([[-2.0, -0.2, 0.0], [0.3, 1.5, 7.0]])
    options = {"threshold": 0.5, "value": -2.0} if name == "threshold" else {}

    def program(M):
        a = M.tensor(x, dtype=M.float32, requires_grad=True)
        b = a * 1
        y = _call(M, name, {**options, "inplace": True}, b)
        y.sum().backward()
        return y is b, b._version if hasattr(b, "_version") else None, y, a.grad

    t, n = program(torch), program(ng)
    assert n[0] and t[0]
    assert_same(t[2:], n[2:])


@pytest.mark.parametrize("name", sorted({n for n, _ in ACTIVATIONS} - {"softsign", "tanhshrink",
                                                                       "hardtanh", "relu6",
                                                                       "threshold"}))
def test_activation_refuses_integers(name):
    check_error(lambda M: _call(M, name, {}, M.tensor([1, 2])))


def test_integer_activations_keep_their_dtype():
    check(lambda M: (M.nn.functional.hardtanh(M.tensor([-3, 0, 2])),
                     M.nn.functional.relu6(M.tensor([-3, 7, 2])),
                     M.nn.functional.threshold(M.tensor([1, 2, 3]), 1, 5)))


def test_bad_options():
    check_error(lambda M: M.nn.functional.celu(M.ones(2), alpha=0.0))
    check_error(lambda M: M.nn.Hardtanh(1.0, 0.0))
    check_error(lambda M: M.nn.functional.gelu(M.ones(2), approximate="foo"))
    check_error(lambda M: M.nn.functional.softshrink(M.ones(2), -1.0))


# -- layers of the activations ---------------------------------------------------------------
MODULES = [
    ("LeakyReLU", ()), ("LeakyReLU", (0.2, True)), ("GELU", ()), ("GELU", ("tanh",)),
    ("ELU", ()), ("ELU", (0.5, True)), ("SELU", ()), ("SELU", (True,)), ("CELU", (2.0,)),
    ("SiLU", ()), ("SiLU", (True,)), ("Mish", ()), ("Softplus", ()), ("Softplus", (2.0, 5.0)),
    ("Hardtanh", ()), ("Hardtanh", (-2.0, 3.0, True)), ("ReLU6", ()), ("ReLU6", (True,)),
    ("Hardsigmoid", ()), ("Hardsigmoid", (True,)), ("Hardswish", ()), ("Softsign", ()),
    ("Tanhshrink", ()), ("LogSigmoid", ()), ("Hardshrink", ()), ("Softshrink", (0.2,)),
    ("Threshold", (0.1, 2.0)), ("Threshold", (0.1, 2.0, True)), ("Softmin", (1,)),
    ("PReLU", ()), ("PReLU", (3, 0.1)),
]


@pytest.mark.parametrize("name,args", MODULES, ids=[f"{n}{a}" for n, a in MODULES])
def test_activation_module(name, args):
    x = np.random.default_rng(2).normal(size=(2, 3, 4)) * 3

    def program(M):
        layer = getattr(M.nn, name)(*args)
        a = M.tensor(x, dtype=M.float32, requires_grad=True)
        y = layer(a * 1)
        y.sum().backward()
        grads = [grad_of(p) for p in layer.parameters()]
        return repr(layer), y, a.grad, grads, type(y.grad_fn).__name__ if "True" not in str(args) else ""
    check(program)


def test_prelu():
    def program(M):
        w = M.tensor([0.1, -0.2, 0.3], requires_grad=True)
        x = M.tensor(np.random.default_rng(3).normal(size=(2, 3, 5)), dtype=M.float32,
                     requires_grad=True)
        y = M.nn.functional.prelu(x, w)
        y.backward(M.ones_like(y) * 2)
        return y, x.grad, w.grad, type(y.grad_fn).__name__, x.prelu(w), M.prelu(x, w)
    check(program)
    check(lambda M: M.nn.functional.prelu(M.tensor(0.5), M.tensor([0.25])))
    check_error(lambda M: M.nn.functional.prelu(M.ones(2, 3), M.ones(2)))
    check_error(lambda M: M.nn.functional.prelu(M.ones(4), M.ones(2)))
    check_error(lambda M: M.nn.functional.prelu(M.ones(2, 3), M.ones(3, 1)))
    w = ng.tensor([0.1, -0.2, 0.3], dtype=ng.float64, requires_grad=True)
    x = ng.tensor(np.random.default_rng(4).normal(size=(2, 3, 2)), requires_grad=True)
    assert gradcheck(F.prelu, (x, w))
    assert [n for n, _ in nn.PReLU(3).named_parameters()] == ["weight"]


def test_softmin():
    x = np.random.default_rng(5).normal(size=(3, 4))

    def program(M):
        a = M.tensor(x, dtype=M.float32, requires_grad=True)
        y = M.nn.functional.softmin(a, dim=0)
        y.backward(M.ones_like(y) * a.detach())
        return y, a.grad, type(y.grad_fn).__name__
    check(program)
    check(lambda M: M.nn.functional.softmin(M.tensor(x), -1, dtype=M.float32))


# -- normalisation ---------------------------------------------------------------------------
def _same_weights(t_layer, n_layer, rng):
    """Random weights, copied into both layers (through their state_dicts)."""
    state = {}
    for name, value in t_layer.state_dict().items():
        if value.dtype.is_floating_point:
            value = torch.tensor(rng.uniform(0.5, 1.5, tuple(value.shape)), dtype=value.dtype)
        state[name] = value
    t_layer.load_state_dict(state)
    n_layer.load_state_dict({k: ng.tensor(v.numpy()) for k, v in state.items()})


def _run_layer(t_layer, n_layer, batches, steps_eval=True):
    """Train-mode steps on each batch, then one eval step: outputs, input and parameter
    gradients, and every buffer after each step, compared."""
    for layer_mode in ("train", "eval") if steps_eval else ("train",):
        for x in batches if layer_mode == "train" else batches[:1]:
            results = []
            for M, layer in ((torch, t_layer), (ng, n_layer)):
                getattr(layer, layer_mode)()
                layer.zero_grad()
                a = M.tensor(x, dtype=M.float32, requires_grad=True)
                y = layer(a)
                y.backward(M.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)),
                                    dtype=M.float32))
                results.append((y, a.grad, type(y.grad_fn).__name__,
                                {n: grad_of(p) for n, p in layer.named_parameters()},
                                dict(layer.named_buffers())))
            assert_same(*results, where=layer_mode)


BATCH_NORMS = [
    ("BatchNorm1d", (3,), {}, (6, 3)), ("BatchNorm1d", (3,), {}, (4, 3, 5)),
    ("BatchNorm2d", (3,), {}, (4, 3, 2, 5)), ("BatchNorm3d", (2,), {}, (3, 2, 2, 2, 3)),
    ("BatchNorm1d", (3,), {"momentum": None}, (6, 3)),
    ("BatchNorm1d", (3,), {"momentum": 0.5, "eps": 1e-3}, (6, 3)),
    ("BatchNorm1d", (3,), {"affine": False}, (6, 3)),
    ("BatchNorm1d", (3,), {"bias": False}, (6, 3)),
    ("BatchNorm2d", (3,), {"track_running_stats": False}, (4, 3, 2, 2)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", BATCH_NORMS,
                         ids=[f"{n}-{kw}-{s}" for n, _, kw, s in BATCH_NORMS])
def test_batch_norm_layer(name, args, kwargs, shape):
    rng = np.random.default_rng(7)
    t_layer, n_layer = (getattr(M.nn, name)(*args, **kwargs) for M in (torch, ng))
    assert repr(n_layer) == repr(t_layer)
    assert list(n_layer.state_dict()) == list(t_layer.state_dict())
    assert_same({k: v for k, v in t_layer.state_dict().items()},
                {k: v for k, v in n_layer.state_dict().items()})
    _same_weights(t_layer, n_layer, rng)
    _run_layer(t_layer, n_layer, [rng.normal(size=shape) * 2 + 1 for _ in range(3)])


def test_batch_norm_noncontiguous_and_double():
    x = np.random.default_rng(8).normal(size=(5, 4, 3))

    def program(M):
        layer = M.nn.BatchNorm1d(3).double()
        a = M.tensor(x, dtype=M.float64, requires_grad=True)
        y = layer(a.transpose(1, 2))
        y.backward(M.ones_like(y) * M.arange(3, dtype=M.float64).reshape(1, 3, 1))
        return y, a.grad, layer.running_var, layer.weight.grad
    check(program)


def test_batch_norm_errors():
    check_error(lambda M: M.nn.BatchNorm1d(3)(M.randn(1, 3)))
    check_error(lambda M: M.nn.BatchNorm1d(3)(M.randn(1, 3, 1)))
    check_error(lambda M: M.nn.BatchNorm1d(3)(M.randn(2, 3, 4, 5)))
    check_error(lambda M: M.nn.BatchNorm2d(3)(M.randn(2, 3)))
    check_error(lambda M: M.nn.functional.batch_norm(M.randn(4, 3), M.zeros(2), M.ones(3)))
    check_error(lambda M: M.nn.functional.batch_norm(M.randn(4, 3), None, None))
    check_error(lambda M: M.nn.BatchNorm1d(3)(M.randn(4, 3, dtype=M.float64)))
    check(lambda M: M.nn.BatchNorm1d(3).eval()(M.ones(1, 3)))  # one sample is fine in eval
    check_error(lambda M: M.nn.functional.batch_norm(M.ones(2, 3, dtype=M.int64), None, None,
                                                     training=True))
    check_error(lambda M: M.nn.functional.layer_norm(M.ones(2, 3, dtype=M.int64), (3,)))
    check_error(lambda M: M.nn.functional.group_norm(M.ones(2, 4, dtype=M.int64), 2))


def test_normalisation_of_empty_tensors():
    def program(M):
        layer = M.nn.BatchNorm1d(3)
        out = [M.nn.functional.layer_norm(M.ones(0, 3), (3,)), layer(M.ones(2, 3, 0)),
               M.nn.BatchNorm1d(3).eval()(M.ones(0, 3)), M.nn.functional.group_norm(M.ones(0, 4), 2)]
        return out, layer.running_mean, layer.running_var
    check(program)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradcheck(training):
    rng = np.random.default_rng(9)
    x = ng.tensor(rng.normal(size=(4, 3, 2)), requires_grad=True)
    w = ng.tensor(rng.normal(size=3), requires_grad=True)
    b = ng.tensor(rng.normal(size=3), requires_grad=True)
    mean, var = ng.tensor(rng.normal(size=3)), ng.tensor(rng.uniform(0.5, 2, 3))
    assert gradcheck(lambda x, w, b: F.batch_norm(x, mean.clone(), var.clone(), w, b, training),
                     (x, w, b))

    def second(M):
        a, ww = (M.tensor(v._data, requires_grad=True) for v in (x, w))
        y = M.nn.functional.batch_norm(a, M.tensor(mean._data), M.tensor(var._data), ww, None,
                                       training)
        (g,) = M.autograd.grad((y * M.tensor(np.sin(np.arange(24.0)).reshape(4, 3, 2))).sum(), a,
                               create_graph=True)
        g.square().sum().backward()
        return g, a.grad, ww.grad
    check(second)


LAYER_NORMS = [((4,), {}, (3, 4)), (4, {}, (2, 3, 4)), ((3, 4), {}, (2, 3, 4)),
               ((4,), {"elementwise_affine": False}, (3, 4)), ((4,), {"bias": False}, (3, 4)),
               ((4,), {"eps": 1e-2}, (4,))]


@pytest.mark.parametrize("shape_arg,kwargs,shape", LAYER_NORMS,
                         ids=[f"{a}-{k}-{s}" for a, k, s in LAYER_NORMS])
def test_layer_norm_layer(shape_arg, kwargs, shape):
    rng = np.random.default_rng(10)
    t_layer, n_layer = (M.nn.LayerNorm(shape_arg, **kwargs) for M in (torch, ng))
    assert repr(n_layer) == repr(t_layer)
    assert list(n_layer.state_dict()) == list(t_layer.state_dict())
    _same_weights(t_layer, n_layer, rng)
    _run_layer(t_layer, n_layer, [rng.normal(size=shape) * 3], steps_eval=False)


def test_layer_norm_functional_and_errors():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(2, 3, 4))
    w, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))

    def program(M):
        a = M.tensor(x, requires_grad=True)
        ww, bb = M.tensor(w, requires_grad=True), M.tensor(b, requires_grad=True)
        y = M.nn.functional.layer_norm(a.transpose(0, 1).transpose(0, 1), [3, 4], ww, bb)
        y.backward(a.detach())
        return y, a.grad, ww.grad, bb.grad, type(y.grad_fn).__name__
    check(program)
    t = ng.tensor(x, requires_grad=True)
    assert gradcheck(lambda a, ww: F.layer_norm(a, (4,), ww), (t, ng.tensor(w[0], requires_grad=True)))

    def second(M):
        a = M.tensor(x, requires_grad=True)
        (g,) = M.autograd.grad((M.nn.functional.layer_norm(a, (4,)) * M.tensor(x[::-1].copy())).sum(),
                               a, create_graph=True)
        g.square().sum().backward()
        return g, a.grad
    check(second)
    check_error(lambda M: M.nn.functional.layer_norm(M.randn(2, 4), (3,)))
    check_error(lambda M: M.nn.functional.layer_norm(M.randn(2, 3), (3,), M.ones(2)))


GROUP_NORMS = [(2, 4, {}, (3, 4, 5)), (1, 3, {}, (2, 3)), (3, 6, {"affine": False}, (2, 6, 2, 2)),
               (2, 4, {"eps": 1e-3, "bias": False}, (2, 4, 3))]


@pytest.mark.parametrize("groups,channels,kwargs,shape", GROUP_NORMS,
                         ids=[f"{g}-{c}-{k}-{s}" for g, c, k, s in GROUP_NORMS])
def test_group_norm_layer(groups, channels, kwargs, shape):
    rng = np.random.default_rng(12)
    t_layer, n_layer = (M.nn.GroupNorm(groups, channels, **kwargs) for M in (torch, ng))
    assert repr(n_layer) == repr(t_layer)
    _same_weights(t_layer, n_layer, rng)
    _run_layer(t_layer, n_layer, [rng.normal(size=shape) * 3], steps_eval=False)


def test_group_norm_gradcheck_and_errors():
    rng = np.random.default_rng(13)
    x = ng.tensor(rng.normal(size=(2, 4, 3)), requires_grad=True)
    w = ng.tensor(rng.normal(size=4), requires_grad=True)
    b = ng.tensor(rng.normal(size=4), requires_grad=True)
    assert gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b))
    check_error(lambda M: M.nn.functional.group_norm(M.randn(2, 3, 4), 2))
    check_error(lambda M: M.nn.functional.group_norm(M.randn(2, 4), 2, M.ones(3)))
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(2, 3)


def test_batch_norm_running_stats_are_not_saved_in_training():
    """Two training steps, then one backward: the second step's update of the running
    statistics does not invalidate the first's graph (in evaluation they are saved)."""
    def program(M):
        layer = M.nn.BatchNorm1d(3)
        x = M.tensor(np.arange(12.0).reshape(4, 3) ** 1.5, dtype=M.float32, requires_grad=True)
        versions = layer.running_mean._version
        (layer(x).sum() + (layer(x * 2) ** 2).sum()).backward()
        return x.grad, layer.running_mean._version - versions, layer.running_var
    check(program)

    def modified(M):
        layer = M.nn.BatchNorm1d(3).eval()
        y = layer(M.ones(4, 3, requires_grad=True))
        with M.no_grad():
            layer.running_var.add_(1)
        y.sum().backward()
    check_error(modified)


# -- Embedding -------------------------------------------------------------------------------
EMBEDDINGS = [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
              {"max_norm": 1.0}, {"max_norm": 0.5, "norm_type": 1.0},
              {"padding_idx": 0, "scale_grad_by_freq": True}]


@pytest.mark.parametrize("options", EMBEDDINGS, ids=[str(o) for o in EMBEDDINGS])
def test_embedding_layer(options):
    rng = np.random.default_rng(14)
    table = rng.normal(size=(6, 3))
    indices = np.array([[0, 2, 2], [5, 1, 2]])

    def program(M):
        layer = M.nn.Embedding(6, 3, **options)
        with M.no_grad():
            layer.weight.copy_(M.tensor(table, dtype=M.float32))
        y = layer(M.tensor(indices))
        y.backward(M.tensor(np.arange(18.0).reshape(2, 3, 3), dtype=M.float32))
        return repr(layer), y, layer.weight.grad, layer.weight.detach(), type(y.grad_fn).__name__
    check(program)


def test_embedding_padding_row_starts_at_zero_and_shapes():
    check(lambda M: M.nn.Embedding(4, 2, padding_idx=1).weight[1])
    check(lambda M: M.nn.Embedding(4, 2, padding_idx=-3).padding_idx)
    check(lambda M: M.nn.functional.embedding(M.tensor(2), M.eye(4)))
    check(lambda M: M.nn.functional.embedding(M.tensor([], dtype=M.int64), M.eye(4)))
    check(lambda M: M.nn.functional.embedding(M.tensor([[1]], dtype=M.int32), M.eye(4)))
    check(lambda M: [n for n, _ in M.nn.Embedding(3, 2).named_parameters()])


def test_embedding_from_pretrained():
    def program(M):
        table = M.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        frozen = M.nn.Embedding.from_pretrained(table)
        free = M.nn.Embedding.from_pretrained(table, freeze=False, padding_idx=1)
        y = free(M.tensor([1, 2]))
        y.sum().backward()
        return (frozen.weight.requires_grad, frozen(M.tensor([0, 2])), free.weight.grad, repr(free),
                free.weight[1])
    check(program)
    check_error(lambda M: M.nn.Embedding.from_pretrained(M.ones(3)))


def test_embedding_errors():
    check_error(lambda M: M.nn.functional.embedding(M.tensor([4]), M.ones(4, 2)))
    check_error(lambda M: M.nn.functional.embedding(M.tensor([-1]), M.ones(4, 2)))
    check_error(lambda M: M.nn.functional.embedding(M.tensor([1.0]), M.ones(4, 2)))
    check_error(lambda M: M.nn.functional.embedding(M.tensor([1]), M.ones(4, 2), padding_idx=4))
    check_error(lambda M: M.nn.Embedding(4, 2, padding_idx=-5))


def test_embedding_gradcheck_and_second_order():
    w = ng.tensor(np.random.default_rng(15).normal(size=(5, 3)), requires_grad=True)
    idx = ng.tensor([[0, 3], [3, 4]])
    assert gradcheck(lambda w: F.embedding(idx, w), (w,))  # (padding_idx and scaling are not derivatives)

    def program(M):
        weight = M.tensor(w._data, requires_grad=True)
        y = M.nn.functional.embedding(M.tensor(idx._data), weight)
        (g,) = M.autograd.grad((y ** 3).sum(), weight, create_graph=True)
        g.sum().backward()
        return g, weight.grad
    check(program)


# -- containers ------------------------------------------------------------------------------
def test_module_dict():
    def program(M):
        d = M.nn.ModuleDict({"lin": M.nn.Linear(2, 3), "act": M.nn.ReLU()})
        d["out"] = M.nn.Linear(3, 1)
        d.update([("extra", M.nn.Tanh())])
        popped = d.pop("extra")
        names = [n for n, _ in d.named_parameters()]
        return (repr(d), list(d), list(d.keys()), len(d), "lin" in d, "extra" in d,
                type(popped).__name__, names, [type(m).__name__ for m in d.values()])
    check(program)
    check_error(lambda M: M.nn.ModuleDict()["missing"])


def test_parameter_list_and_dict():
    def program(M):
        plist = M.nn.ParameterList([M.nn.Parameter(M.ones(3)), M.zeros(2, 2)])
        plist.append(M.ones(1))
        plist += [M.nn.Parameter(M.full((2,), 2.0))]
        plist[0] = M.zeros(3)
        pdict = M.nn.ParameterDict({"a": M.nn.Parameter(M.ones(3)), "b": M.zeros(2)})
        pdict["c"] = M.ones(1, 2)
        popped = pdict.pop("a")
        return (repr(plist), list(plist.state_dict()), len(plist), type(plist[1]).__name__,
                plist[-1], len(plist[1:3]), [p.shape for p in plist],
                repr(pdict), list(pdict.state_dict()), list(pdict.keys()), len(pdict),
                "b" in pdict, popped, [p.shape for p in pdict.values()],
                [n for n, _ in M.nn.ModuleDict({"p": pdict}).named_parameters()])
    check(program)


def test_sequential_extras():
    def program(M):
        seq = M.nn.Sequential(M.nn.Linear(2, 3), M.nn.ReLU())
        seq.append(M.nn.Linear(3, 1))
        seq.insert(1, M.nn.Tanh())
        return repr(seq), len(seq), repr(seq[1:]), repr(seq[-1]), [n for n, _ in seq.named_parameters()]
    check(program)


def test_unflatten():
    def program(M):
        x = M.arange(24.0).reshape(4, 6).requires_grad_()
        layer = M.nn.Unflatten(1, (2, -1))
        y = layer(x)
        (y * y).sum().backward()
        return repr(layer), repr(M.nn.Unflatten(-1, (3, 2))), y, x.grad, M.nn.Unflatten(-1, (3, 2))(x).shape
    check(program)
    check_error(lambda M: M.nn.Unflatten(1, (2, 4))(M.ones(4, 6)))


# -- module hooks ----------------------------------------------------------------------------
def _clones(grads):
    return [None if g is None else g.clone() for g in grads]


def _linear(M):
    layer = M.nn.Linear(3, 2)
    with M.no_grad():
        layer.weight.copy_(M.arange(6.0).reshape(2, 3))
        layer.bias.fill_(0.5)
    return layer


def test_full_backward_hooks():
    def program(M):
        log = []
        layer = _linear(M)

        def pre(module, grad_output):
            log.append(("pre", module is layer, _clones(grad_output)))
            return (grad_output[0] * 2,)

        def hook(module, grad_input, grad_output):
            log.append(("full", _clones(grad_input), _clones(grad_output)))
            return (grad_input[0] + 1,)

        handles = [layer.register_full_backward_pre_hook(pre), layer.register_full_backward_hook(hook)]
        x = M.tensor(np.arange(12.0).reshape(4, 3), dtype=M.float32, requires_grad=True)
        y = layer(x)
        y.backward(M.ones_like(y) * 3)
        name = type(y.grad_fn).__name__
        for handle in handles:
            handle.remove()
        x2 = M.ones(4, 3, requires_grad=True)
        layer(x2).sum().backward()
        return log, x.grad, layer.weight.grad, name, x2.grad, len(log)
    check(program)


def test_full_backward_hook_without_input_gradient_and_several_arguments():
    class Mix(ng.nn.Module):
        def forward(self, a, scale, b):
            return a * scale + b, a - b

    class TorchMix(torch.nn.Module):
        forward = Mix.forward

    def program(M):
        log = []
        mix = (TorchMix if M is torch else Mix)()
        mix.register_full_backward_hook(lambda m, gi, go: log.append((_clones(gi), _clones(go))))
        a = M.ones(2, requires_grad=True)
        out, diff = mix(a, 3.0, M.full((2,), 2.0))
        (out.sum() + 2 * diff.sum()).backward()
        layer = _linear(M)
        layer.register_full_backward_hook(lambda m, gi, go: log.append((_clones(gi), _clones(go))))
        layer(M.ones(1, 3)).sum().backward()  # only the parameters need gradients
        return log, a.grad, layer.bias.grad
    check_warning(program, key="Full backward hook is firing when gradients are computed with "
                              "respect to module outputs since no inputs require gradients.")
    with pytest.warns(UserWarning, match="Full backward hook is firing"):
        check(program)


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")
def test_backward_hook_errors():
    def wrong_length(M):
        layer = _linear(M)
        layer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        layer(M.ones(1, 3, requires_grad=True)).sum().backward()
    check_error(wrong_length)

    def wrong_pre(M):
        layer = _linear(M)
        layer.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
        layer(M.ones(1, 3, requires_grad=True)).sum().backward()
    check_error(wrong_pre)

    def no_input_grad_returns(M):
        layer = _linear(M)
        layer.register_full_backward_hook(lambda m, gi, go: (M.ones(1, 3),))
        layer(M.ones(1, 3)).sum().backward()
    check_error(no_input_grad_returns)


def test_forward_hooks_with_kwargs_and_prepend():
    class Scale(ng.nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    class TorchScale(torch.nn.Module):
        forward = Scale.forward

    def program(M):
        log = []
        module = (TorchScale if M is torch else Scale)()
        module.register_forward_pre_hook(lambda m, args: log.append("plain") or (args[0] + 1,))
        module.register_forward_pre_hook(
            lambda m, args, kwargs: log.append(("kwargs", sorted(kwargs))) or (args, {"factor": 10.0}),
            with_kwargs=True, prepend=True)
        handle = module.register_forward_hook(
            lambda m, args, kwargs, out: log.append(("after", kwargs["factor"])) or out * 2,
            with_kwargs=True)
        first = module(M.ones(2), factor=3.0)
        handle.remove()
        second = module(M.ones(2))
        return first, second, log
    check(program)

    def bad(M):
        module = M.nn.Identity()
        module.register_forward_pre_hook(lambda m, a, k: 1, with_kwargs=True)
        module(M.ones(1))
    check_error(bad)
