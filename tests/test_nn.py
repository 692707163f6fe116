"""nbgrad.nn: modules, layers, initialisation, functional losses; PyTorch as the oracle.

Tests that take the ``torch`` fixture are skipped (with a reason) when PyTorch is not
installed; the rest check nbgrad on its own. Parity tests copy the same weights into a
torch model and an nbgrad model and compare values, gradients and error messages. The
one deliberate textual difference is the library name (``torch.Size`` is
``nbgrad.Size``), normalised by ``same_text``.
"""

import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import nbgrad as ng
import nbgrad.nn.functional as F
from nbgrad import nn


def same_text(text):
    return text.replace("torch.nn.", "nbgrad.nn.").replace("torch.", "nbgrad.")


def to_np(t):
    return t.detach().cpu().numpy() if hasattr(t, "cpu") else t.detach().numpy()


def torch_model(torch, *sizes, dtype=None):
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        if i:
            layers.append(torch.nn.Tanh())
        layers.append(torch.nn.Linear(a, b))
    return torch.nn.Sequential(*layers).to(dtype or torch.float64)


def nbgrad_copy(tmodel, dtype=ng.float64):
    """The same architecture in nbgrad, holding copies of the torch model's weights."""
    layers = []
    for m in tmodel:
        if type(m).__name__ == "Linear":
            layers.append(nn.Linear(m.in_features, m.out_features, bias=m.bias is not None))
        else:
            layers.append(getattr(nn, type(m).__name__)())
    model = nn.Sequential(*layers).to(dtype)
    model.load_state_dict({k: ng.tensor(v.detach().numpy()) for k, v in
                           tmodel.state_dict().items()})
    return model


def errors_of(call_torch, call_nbgrad):
    """The exceptions both calls raise (each must raise)."""
    with pytest.raises(Exception) as t_err:
        call_torch()
    with pytest.raises(Exception) as n_err:
        call_nbgrad()
    return t_err.value, n_err.value


def assert_same_error(call_torch, call_nbgrad):
    t_err, n_err = errors_of(call_torch, call_nbgrad)
    assert type(n_err) is type(t_err), (t_err, n_err)
    assert same_text(str(n_err)) == same_text(str(t_err))


# -- Module: registration and traversal ---------------------------------------------------
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(ng.ones(3))
        self.fc = nn.Linear(3, 3)
        self.body = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2, bias=False))
        self.note = "not registered"

    def forward(self, x):
        return self.body(self.fc(x * self.scale))


def test_registration_names_order_and_attribute_access(torch):
    class TBlock(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = torch.nn.Parameter(torch.ones(3))
            self.fc = torch.nn.Linear(3, 3)
            self.body = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(),
                                            torch.nn.Linear(4, 2, bias=False))

    t, n = TBlock(), Block()
    assert [k for k, _ in n.named_parameters()] == [k for k, _ in t.named_parameters()]
    assert [k for k, _ in n.named_parameters()] == ["scale", "fc.weight", "fc.bias",
                                                    "body.0.weight", "body.0.bias",
                                                    "body.2.weight"]
    assert [k for k, _ in n.named_modules()] == [k for k, _ in t.named_modules()]
    assert [k for k, _ in n.named_children()] == ["fc", "body"]
    assert [k for k, _ in n.named_parameters(recurse=False)] == ["scale"]
    assert [k for k, _ in n.named_parameters(prefix="m")][:2] == ["m.scale", "m.fc.weight"]
    assert len(list(n.modules())) == 6 and len(list(n.children())) == 2
    assert n.fc.weight is n.fc._parameters["weight"]
    assert n.note == "not registered" and "note" not in n._parameters and "note" not in n._modules
    assert isinstance(n.scale, nn.Parameter) and nn.Parameter is ng.Parameter
    assert n.get_submodule("body.0") is n.body[0]
    assert n.get_parameter("body.2.weight") is n.body[2].weight
    assert sum(p.numel() for p in n.parameters()) == sum(p.numel() for p in t.parameters())


def test_shared_parameters_and_modules_are_listed_once():
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, nn.ReLU(), shared)
    assert [k for k, _ in model.named_parameters()] == ["0.weight", "0.bias"]
    assert len(list(model.named_parameters(remove_duplicate=False))) == 4
    assert len(list(model.modules())) == 3  # the Sequential, the Linear once, the ReLU
    tied = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    tied[1].weight = tied[0].weight  # one parameter in two modules
    assert [k for k, _ in tied.named_parameters()] == ["0.weight", "0.bias", "1.bias"]
    assert len(list(tied.parameters())) == 3


def test_registered_entries_are_plain_attributes_kept_in_step(torch):
    """Every registered entry is also in the module's __dict__ (so ``self.weight`` needs no
    __getattr__ call), and every way of changing a registry, through the module or directly,
    changes what the attribute reads, as it does in PyTorch."""
    import copy
    import pickle

    def program(lib, tnn):
        lin = tnn.Linear(2, 3)
        seen = [lin.weight is lin._parameters["weight"]]
        w2 = tnn.Parameter(lib.zeros(3, 2))
        lin._parameters["weight"] = w2            # a direct write
        seen.append(lin.weight is w2)
        del lin._parameters["bias"]               # a direct delete
        seen.append(hasattr(lin, "bias"))
        lin._parameters.update(bias=tnn.Parameter(lib.ones(3)))
        seen.append(lin.bias.detach().numpy().tolist())
        lin._parameters.pop("bias")
        seen.append(hasattr(lin, "bias"))
        lin.bias = lib.ones(3)                    # now a plain attribute, not a parameter
        seen.append([k for k, _ in lin.named_parameters()])
        del lin.weight
        lin.weight = lib.full((3, 2), 2.0)        # functional-call style: a plain tensor
        seen.append((float(lin.weight.sum()), [k for k, _ in lin.named_parameters()]))
        seq = tnn.Sequential(tnn.Linear(2, 2), tnn.ReLU(), tnn.Linear(2, 1))
        last = seq[2]
        del seq[1]                                # Sequential renumbers its registry
        seen.append((getattr(seq, "1") is last, hasattr(seq, "2")))
        seq._modules.clear()
        seen.append((hasattr(seq, "0"), len(seq)))
        return seen

    assert program(ng, nn) == program(torch, torch.nn)

    lin = nn.Linear(2, 3)
    assert lin.__dict__["weight"] is lin.weight and "weight" in dir(lin)
    assert len(dir(lin)) == len(set(dir(lin)))
    for restored in (copy.copy(lin), copy.deepcopy(lin), pickle.loads(pickle.dumps(lin))):
        restored.weight = nn.Parameter(ng.zeros(3, 2))  # changes the copy only
        assert restored.weight is restored._parameters["weight"]
        assert lin.weight is lin._parameters["weight"] and lin.weight is not restored.weight
        restored._parameters["bias"] = nn.Parameter(ng.zeros(3))
        assert restored.bias is restored._parameters["bias"] and lin.bias is not restored.bias
    old = lin._parameters
    lin._parameters = {"weight": nn.Parameter(ng.ones(1))}  # a whole registry replaced
    assert lin.weight is lin._parameters["weight"] and not hasattr(lin, "bias")
    old["bias"] = nn.Parameter(ng.ones(1))  # the replaced registry no longer reaches lin
    assert not hasattr(lin, "bias")


def test_setattr_delattr_and_errors(torch):
    n, t = nn.Linear(2, 3), torch.nn.Linear(2, 3)

    def set_plain(m, lib):
        m.weight = lib.randn(3, 2)

    assert_same_error(lambda: set_plain(t, torch), lambda: set_plain(n, ng))
    assert_same_error(lambda: t.missing, lambda: n.missing)
    assert_same_error(lambda: t.train(1), lambda: n.train(1))
    assert_same_error(lambda: t.register_parameter("a.b", None),
                      lambda: n.register_parameter("a.b", None))
    assert_same_error(lambda: t.add_module("in_features", torch.nn.ReLU()),
                      lambda: n.add_module("in_features", nn.ReLU()))
    assert_same_error(lambda: torch.nn.Module()(1), lambda: nn.Module()(1))
    assert_same_error(lambda: t.to(torch.int64), lambda: n.to(ng.int64))

    # a parameter registered as None is not a parameter and not saved
    n.bias = None
    assert [k for k, _ in n.named_parameters()] == ["weight"]
    assert list(n.state_dict()) == ["weight"]
    # replacing a submodule and deleting attributes
    seq = nn.Sequential(nn.Linear(2, 2))
    seq.extra = nn.ReLU()
    assert [k for k, _ in seq.named_children()] == ["0", "extra"]
    del seq.extra
    assert [k for k, _ in seq.named_children()] == ["0"]
    computed = nn.Parameter(ng.ones(2))
    computed._grad_fn = (nn.Parameter(ng.ones(2)) * 2).grad_fn  # a Parameter with a history
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'w'"):
        nn.Module().register_parameter("w", computed)


def test_train_eval_requires_grad_and_apply():
    model = Block()
    assert model.training and all(m.training for m in model.modules())
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())
    model.requires_grad_(False)
    assert not any(p.requires_grad for p in model.parameters())
    model.requires_grad_()
    assert all(p.requires_grad for p in model.parameters())
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Linear", "ReLU", "Linear", "Sequential", "Block"]


def test_zero_grad_set_to_none_and_zero():
    model = Block()
    model(ng.randn(5, 3)).sum().backward()
    grads = [p.grad for p in model.parameters()]
    assert all(g is not None for g in grads)
    model.zero_grad(set_to_none=False)
    assert all(p.grad is g for p, g in zip(model.parameters(), grads))  # same tensors, zeroed
    assert all(float(p.grad.abs().sum()) == 0.0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_forward_hooks():
    layer = nn.Linear(2, 2)
    calls = []
    pre = layer.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = layer.register_forward_hook(lambda m, args, out: calls.append(out) or out + 1)
    y = layer(ng.ones(1, 2))
    assert np.allclose(y.detach().numpy(), layer.bias.detach().numpy() + 1)
    assert len(calls) == 1
    pre.remove()
    post.remove()
    y = layer(ng.ones(1, 2))
    assert len(calls) == 1
    expected = layer.weight.detach().numpy().sum(1) + layer.bias.detach().numpy()
    assert np.allclose(y.detach().numpy()[0], expected)


def test_to_dtype_keeps_parameter_objects_and_converts_grads():
    model = nn.Sequential(nn.Linear(2, 3))
    params = list(model.parameters())
    model(ng.ones(4, 2)).sum().backward()
    assert model.double() is model
    assert [p is q for p, q in zip(params, model.parameters())] == [True, True]
    assert all(p.dtype == ng.float64 and p.grad.dtype == ng.float64 for p in params)
    model.to(ng.float32)
    assert all(p.dtype == ng.float32 for p in params)
    assert model(ng.ones(1, 2)).dtype == ng.float32
    model.to("cpu")
    assert all(p.device == ng.device("cpu") for p in params)


# -- repr -------------------------------------------------------------------------------
def test_repr_matches_torch(torch):
    def build(lib):
        nn_ = lib.nn

        class Net(nn_.Module):
            def __init__(self):
                super().__init__()
                self.features = nn_.Sequential(nn_.Flatten(), nn_.Linear(4, 8),
                                               nn_.ReLU(inplace=True), nn_.Linear(8, 3, bias=False))
                self.heads = nn_.ModuleList([nn_.Softmax(dim=1), nn_.LogSoftmax(dim=-1),
                                             nn_.Sigmoid(), nn_.Tanh(), nn_.Identity()])
                self.loss = nn_.CrossEntropyLoss(reduction="sum")
                self.mse = nn_.MSELoss()
                self.bce = nn_.BCEWithLogitsLoss()
                self.nll = nn_.NLLLoss()

        return Net()

    assert repr(build(ng)) == repr(build(torch))
    text = repr(nn.Sequential(nn.Linear(2, 3), nn.ReLU()))
    assert text == ("Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n"
                    "  (1): ReLU()\n)")
    assert repr(nn.Softmax()) == repr(torch.nn.Softmax()) == "Softmax(dim=None)"

    def with_extra(lib):
        class Custom(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = lib.nn.Sequential(lib.nn.ReLU())

            def extra_repr(self):
                return "first line\n\nafter a blank line"

        return lib.nn.Sequential(Custom(), lib.nn.Tanh())

    assert repr(with_extra(ng)) == repr(with_extra(torch))
    assert repr(nn.Module()) == "Module()"


# -- state_dict ---------------------------------------------------------------------------
def test_state_dict_matches_torch_and_round_trips(torch):
    tmodel = torch_model(torch, 3, 5, 2)
    model = nbgrad_copy(tmodel)
    sd, tsd = model.state_dict(), tmodel.state_dict()
    assert isinstance(sd, OrderedDict) and list(sd) == list(tsd) == ["0.weight", "0.bias",
                                                                     "2.weight", "2.bias"]
    for k in sd:
        assert np.array_equal(sd[k].numpy(), tsd[k].numpy())
        assert not sd[k].requires_grad and sd[k].grad_fn is None
    # detached but sharing storage: an in-place change of the parameter shows
    with ng.no_grad():
        model[0].bias.add_(1.0)
    assert np.array_equal(sd["0.bias"].numpy(), model[0].bias.detach().numpy())
    assert all(not v.requires_grad for v in model.state_dict(keep_vars=False).values())
    assert model.state_dict(keep_vars=True)["0.weight"] is model[0].weight

    other = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).double()
    weight = other[0].weight
    version = weight._version
    result = other.load_state_dict(model.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert other[0].weight is weight and weight._version > version  # copied in place
    assert weight.requires_grad and weight.is_leaf
    x = ng.randn(4, 3, dtype=ng.float64)
    assert np.array_equal(other(x).detach().numpy(), model(x).detach().numpy())
    with ng.no_grad():  # a copy, not an alias of the source
        model[0].weight.mul_(0)
    assert not np.array_equal(other[0].weight.detach().numpy(), model[0].weight.detach().numpy())


def test_load_state_dict_errors_match_torch(torch):
    tmodel = torch_model(torch, 3, 5, 2)
    model = nbgrad_copy(tmodel)

    def variants(sd):
        missing = OrderedDict((k, v) for k, v in sd.items() if k != "2.bias")
        extra = OrderedDict(sd, **{"2.gamma": sd["2.bias"], "9.weight": sd["2.bias"]})
        return missing, extra

    for t_sd, n_sd in zip(variants(tmodel.state_dict()), variants(model.state_dict())):
        assert_same_error(lambda: tmodel.load_state_dict(t_sd), lambda: model.load_state_dict(n_sd))
        t_result = tmodel.load_state_dict(t_sd, strict=False)
        n_result = model.load_state_dict(n_sd, strict=False)
        assert n_result.missing_keys == t_result.missing_keys
        assert n_result.unexpected_keys == t_result.unexpected_keys
    t_bad = OrderedDict(tmodel.state_dict(), **{"0.weight": torch.zeros(2, 2)})
    n_bad = OrderedDict(model.state_dict(), **{"0.weight": ng.zeros(2, 2)})
    assert_same_error(lambda: tmodel.load_state_dict(t_bad), lambda: model.load_state_dict(n_bad))
    with pytest.raises(RuntimeError, match=r"size mismatch for 0.weight: copying a param with "
                       r"shape nbgrad.Size\(\[2, 2\]\) from checkpoint"):
        model.load_state_dict(n_bad)
    assert_same_error(lambda: tmodel.load_state_dict([1]), lambda: model.load_state_dict([1]))


# -- containers ---------------------------------------------------------------------------
def test_sequential_indexing_and_editing(torch):
    layers = [nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)]
    seq = nn.Sequential(*layers)
    assert len(seq) == 3 and list(seq) == layers
    assert seq[0] is layers[0] and seq[-1] is layers[2]
    assert isinstance(seq[1:], nn.Sequential) and list(seq[1:]) == layers[1:]
    assert [k for k, _ in seq[1:].named_children()] == ["1", "2"]  # slices keep the names
    assert_same_error(lambda: torch.nn.Sequential(torch.nn.ReLU())[3],
                      lambda: nn.Sequential(nn.ReLU())[3])
    x = ng.randn(4, 2)
    assert np.allclose(seq(x).detach().numpy(),
                       layers[2](layers[1](layers[0](x))).detach().numpy())
    del seq[1]
    assert [k for k, _ in seq.named_children()] == ["0", "1"] and seq[1] is layers[2]
    seq.insert(1, layers[1])
    assert list(seq) == layers
    seq.append(nn.Sigmoid())
    assert len(seq) == 4 and isinstance(seq[3], nn.Sigmoid)
    seq[3] = nn.Tanh()
    assert isinstance(seq[-1], nn.Tanh)
    assert len(seq + nn.Sequential(nn.ReLU())) == 5
    named = nn.Sequential(OrderedDict([("encoder", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [k for k, _ in named.named_parameters()] == ["encoder.weight", "encoder.bias"]


def test_module_list():
    blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(blocks) == 3 and blocks[-1] is list(blocks)[2]
    assert [k for k, _ in blocks.named_parameters()][:2] == ["0.weight", "0.bias"]
    blocks.append(nn.ReLU())
    assert len(list(blocks.parameters())) == 6 and len(blocks) == 4


# -- Linear and init ----------------------------------------------------------------------
def test_linear_default_init_bounds_and_reproducibility():
    ng.manual_seed(0)
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert w.shape == (300, 400) and b.shape == (300,)
    assert w.dtype == np.float32 and layer.weight.requires_grad and layer.weight.is_leaf
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.99 * bound  # fills the range...
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound  # ...uniformly
    assert abs(w.mean()) < 0.01 * bound
    assert layer.weight._version > 0 and layer.weight.grad_fn is None
    ng.manual_seed(0)
    again = nn.Linear(400, 300)
    assert np.array_equal(again.weight.detach().numpy(), w)
    assert not np.array_equal(nn.Linear(400, 300).weight.detach().numpy(), w)
    assert nn.Linear(3, 2, dtype=ng.float64).weight.dtype == ng.float64
    assert nn.Linear(3, 2, bias=False).bias is None


@pytest.mark.parametrize("fan_in", [1, 2, 5])
def test_linear_init_bound_is_one_over_sqrt_fan_in(fan_in):
    ng.manual_seed(1)
    layer = nn.Linear(fan_in, 4000)
    bound = 1 / math.sqrt(fan_in)
    for values in (layer.weight.detach().numpy(), layer.bias.detach().numpy()):
        assert bound * 0.995 < np.abs(values).max() <= bound


def test_linear_init_bounds_match_torch(torch):
    for fan_in, fan_out in [(1, 1), (7, 3), (64, 128)]:
        t = torch.nn.Linear(fan_in, fan_out)
        n = nn.Linear(fan_in, fan_out)
        t_bound = max(t.weight.abs().max().item(), t.bias.abs().max().item())
        n_bound = max(n.weight.abs().max().item(), n.bias.abs().max().item())
        assert t_bound <= 1 / math.sqrt(fan_in) and n_bound <= 1 / math.sqrt(fan_in)


def test_calculate_gain_and_fans_match_torch(torch):
    for args in [("linear",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
                 ("leaky_relu", 0.2), ("leaky_relu", math.sqrt(5)), ("selu",), ("conv2d",)]:
        assert nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    assert_same_error(lambda: torch.nn.init.calculate_gain("swish"),
                      lambda: nn.init.calculate_gain("swish"))
    assert_same_error(lambda: torch.nn.init.calculate_gain("leaky_relu", True),
                      lambda: nn.init.calculate_gain("leaky_relu", True))
    for shape in [(3, 5), (4, 2, 3, 3)]:
        assert (nn.init._calculate_fan_in_and_fan_out(ng.empty(*shape))
                == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape)))
    assert_same_error(lambda: torch.nn.init.xavier_uniform_(torch.empty(3)),
                      lambda: nn.init.xavier_uniform_(ng.empty(3)))
    assert_same_error(lambda: torch.nn.init.kaiming_normal_(torch.empty(3, 3), mode="fan"),
                      lambda: nn.init.kaiming_normal_(ng.empty(3, 3), mode="fan"))


@pytest.mark.parametrize("name, kwargs, expected_std", [
    ("uniform_", dict(a=-2.0, b=2.0), 4 / math.sqrt(12)),
    ("normal_", dict(mean=1.0, std=0.5), 0.5),
    ("xavier_uniform_", dict(gain=2.0), 2.0 * math.sqrt(2 / (300 + 200))),
    ("xavier_normal_", dict(), math.sqrt(2 / (300 + 200))),
    ("kaiming_uniform_", dict(nonlinearity="relu"), math.sqrt(2) / math.sqrt(200)),
    ("kaiming_normal_", dict(mode="fan_out", nonlinearity="relu"), math.sqrt(2) / math.sqrt(300)),
])
def test_init_distributions(name, kwargs, expected_std):
    w = nn.Parameter(ng.empty(300, 200))
    out = getattr(nn.init, name)(w, **kwargs)
    assert out is w and w.is_leaf and w.requires_grad and w.grad_fn is None
    values = w.detach().numpy()
    assert abs(values.std() - expected_std) < 0.02 * expected_std
    if name == "normal_":
        assert abs(values.mean() - 1.0) < 0.01
    if "uniform" in name:
        bound = kwargs.get("b", math.sqrt(3) * expected_std)
        assert np.abs(values).max() <= bound


def test_init_constants_and_zero_element_warning():
    w = nn.Parameter(ng.randn(3, 4))
    version = w._version
    nn.init.zeros_(w)
    assert w._version > version and not w.detach().numpy().any()
    nn.init.ones_(w)
    assert (w.detach().numpy() == 1).all()
    nn.init.constant_(w, 0.25)
    assert (w.detach().numpy() == 0.25).all() and w.grad_fn is None
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        nn.init.kaiming_uniform_(ng.empty(0, 3))


# -- functional: linear and activations -----------------------------------------------------
@pytest.mark.parametrize("x_shape, bias", [((4, 3), True), ((4, 3), False), ((3,), True),
                                           ((2, 5, 3), True), ((2, 5, 3), False)])
def test_linear_values_and_grads_match_torch(torch, x_shape, bias):
    rng = np.random.default_rng(1)
    xv, wv, bv = rng.standard_normal(x_shape), rng.standard_normal((2, 3)), rng.standard_normal(2)
    results, layouts = [], []
    for lib in (torch, ng):
        x, w = lib.tensor(xv, requires_grad=True), lib.tensor(wv, requires_grad=True)
        b = lib.tensor(bv, requires_grad=True) if bias else None
        mod = torch.nn.functional if lib is torch else F
        y = mod.linear(x, w, b)
        (y * y).sum().backward()
        results.append([to_np(y), to_np(x.grad), to_np(w.grad)] + ([to_np(b.grad)] if bias else []))
        layouts.append((x.grad.is_contiguous(), w.grad.is_contiguous()))
        if lib is ng and len(x_shape) == 2 and bias:
            assert y.grad_fn.name() == "AddmmBackward0"
            assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == [
                "AccumulateGrad", "AccumulateGrad", "TBackward0"]
    for a, b_ in zip(*results):
        np.testing.assert_allclose(b_, a, rtol=1e-12, atol=1e-12)
    assert layouts[1] == layouts[0] == (True, True)


@pytest.mark.parametrize("transposed", [True, False])
def test_mm_weight_grad_is_laid_out_like_torch(torch, transposed):
    """``x @ W.t()``: W's gradient is computed so that it arrives contiguous, as in PyTorch."""
    rng = np.random.default_rng(3)
    xv, wv = rng.standard_normal((4, 3)), rng.standard_normal((2, 3) if transposed else (3, 2))
    results = []
    for lib in (torch, ng):
        x, w = lib.tensor(xv, requires_grad=True), lib.tensor(wv, requires_grad=True)
        y = x.mm(w.t() if transposed else w)
        (y * y).sum().backward()
        results.append((to_np(w.grad), w.grad.is_contiguous(), x.grad.is_contiguous()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    assert results[1][1:] == results[0][1:] == (True, True)


def test_linear_double_backward_matches_torch(torch):
    rng = np.random.default_rng(2)
    xv, wv, bv = rng.standard_normal((4, 3)), rng.standard_normal((2, 3)), rng.standard_normal(2)
    results = []
    for lib, mod in ((torch, torch.nn.functional), (ng, F)):
        x, w = lib.tensor(xv, requires_grad=True), lib.tensor(wv, requires_grad=True)
        b = lib.tensor(bv, requires_grad=True)
        y = mod.linear(x, w, b).tanh().sum()
        (gx, gw) = (torch.autograd.grad if lib is torch else ng.autograd.grad)(
            y, (x, w), create_graph=True)
        ((gx * gx).sum() + (gw ** 3).sum()).backward()
        results.append([to_np(x.grad), to_np(w.grad), to_np(b.grad)])
    for a, b_ in zip(*results):
        np.testing.assert_allclose(b_, a, rtol=1e-12, atol=1e-12)


def test_linear_errors_match_torch(torch):
    tF = torch.nn.functional
    assert_same_error(lambda: tF.linear(torch.randn(3, 2), torch.randn(4, 5)),
                      lambda: F.linear(ng.randn(3, 2), ng.randn(4, 5)))
    assert_same_error(lambda: tF.linear(torch.randn(3, 2), torch.randn(4, 5), torch.randn(4)),
                      lambda: F.linear(ng.randn(3, 2), ng.randn(4, 5), ng.randn(4)))
    assert_same_error(lambda: tF.linear(torch.randn(3, 2), torch.randn(4, 2), torch.randn(3)),
                      lambda: F.linear(ng.randn(3, 2), ng.randn(4, 2), ng.randn(3)))
    assert_same_error(lambda: tF.linear(torch.randn(3, 2), torch.randn(4, 2).double()),
                      lambda: F.linear(ng.randn(3, 2), ng.randn(4, 2).double()))
    assert_same_error(lambda: tF.linear(torch.randn(5, 3, 2), torch.randn(4, 5), torch.randn(4)),
                      lambda: F.linear(ng.randn(5, 3, 2), ng.randn(4, 5), ng.randn(4)))
    assert_same_error(lambda: torch.nn.Linear(2, 3)(torch.randn(4, 5)),
                      lambda: nn.Linear(2, 3)(ng.randn(4, 5)))


@pytest.mark.parametrize("name, args", [("ReLU", ()), ("Sigmoid", ()), ("Tanh", ()),
                                        ("Softmax", (1,)), ("LogSoftmax", (1,)),
                                        ("Softmax", (0,)), ("Flatten", ()), ("Identity", ())])
def test_activation_modules_match_torch(torch, name, args):
    xv = np.random.default_rng(3).standard_normal((4, 3)) * 3
    outs = []
    for lib in (torch, ng):
        x = lib.tensor(xv, requires_grad=True)
        y = getattr(lib.nn, name)(*args)(x)
        (y * lib.tensor(np.arange(12.0).reshape(4, 3))).sum().backward()
        outs.append((to_np(y), to_np(x.grad)))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-12, atol=1e-14)


def test_functional_activations_and_implicit_softmax_dim(torch):
    x = ng.randn(2, 3)
    assert np.allclose(F.relu(x).numpy(), np.maximum(x.numpy(), 0))
    y = ng.tensor([-1.0, 2.0])
    assert F.relu(y, inplace=True) is y and y.tolist() == [0.0, 2.0]
    for f in ("softmax", "log_softmax"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = getattr(F, f)(x)
            getattr(torch.nn.functional, f)(torch.tensor(x.numpy()))
        n_msg, t_msg = str(caught[0].message), str(caught[1].message)
        assert n_msg == t_msg and caught[0].filename == __file__  # points at the caller
        np.testing.assert_allclose(out.numpy(), getattr(torch.nn.functional, f)(
            torch.tensor(x.numpy()), dim=1).numpy(), rtol=1e-6)


# -- losses ----------------------------------------------------------------------------------
def _loss_parity(torch, fn_name, input_value, target_value, rtol=1e-12, **kwargs):
    """Loss value and input gradient (through a weighted sum for 'none') vs torch."""
    results = []
    for lib, mod in ((torch, torch.nn.functional), (ng, F)):
        x = lib.tensor(input_value, requires_grad=True)
        t = lib.tensor(target_value)
        kw = {k: (lib.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        loss = getattr(mod, fn_name)(x, t, **kw)
        probe = lib.tensor(np.linspace(0.5, 1.5, max(loss.numel(), 1)).reshape(loss.shape))
        (loss * probe).sum().backward()
        results.append((to_np(loss), to_np(x.grad), loss))
    (t_loss, t_grad, t_out), (n_loss, n_grad, n_out) = results
    assert n_loss.shape == t_loss.shape and n_loss.dtype == t_loss.dtype
    np.testing.assert_allclose(n_loss, t_loss, rtol=rtol, atol=1e-14)
    np.testing.assert_allclose(n_grad, t_grad, rtol=rtol, atol=1e-14)
    return t_out, n_out


CE_SHAPES = [((5, 4), (5,)), ((4,), ()), ((3, 4, 6), (3, 6)), ((2, 3, 4, 5), (2, 4, 5))]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shapes", CE_SHAPES)
def test_cross_entropy_matches_torch(torch, shapes, reduction):
    input_shape, target_shape = shapes
    rng = np.random.default_rng(4)
    n_classes = input_shape[1] if len(input_shape) > 1 else input_shape[0]
    x = rng.standard_normal(input_shape) * 3
    t = rng.integers(0, n_classes, target_shape)
    t_out, n_out = _loss_parity(torch, "cross_entropy", x, t, reduction=reduction)
    if len(input_shape) <= 2:  # (PyTorch reshapes higher-dimensional inputs first)
        assert n_out.grad_fn.name() == t_out.grad_fn.name() == "NllLossBackward0"
    weight = rng.uniform(0.1, 2.0, n_classes)
    _loss_parity(torch, "cross_entropy", x, t, reduction=reduction, weight=weight)
    ignored = np.where(rng.random(target_shape) < 0.3, -100, t)
    _loss_parity(torch, "cross_entropy", x, ignored, reduction=reduction, weight=weight)
    _loss_parity(torch, "cross_entropy", x, np.where(t == 1, 1, t), reduction=reduction,
                 ignore_index=1)
    _loss_parity(torch, "cross_entropy", x, ignored, reduction=reduction, label_smoothing=0.2)
    _loss_parity(torch, "cross_entropy", x, ignored, reduction=reduction, label_smoothing=0.2,
                 weight=weight)
    probabilities = rng.dirichlet(np.ones(n_classes), size=target_shape)
    probabilities = np.moveaxis(probabilities, -1, 1 if len(input_shape) > 1 else 0)
    _loss_parity(torch, "cross_entropy", x, probabilities, reduction=reduction, weight=weight,
                 label_smoothing=0.1)


def test_cross_entropy_graph_matches_torch(torch):
    x = ng.randn(3, 4, requires_grad=True)
    loss = F.cross_entropy(x, ng.tensor([0, 3, 1]))
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"
    none = F.nll_loss(x, ng.tensor([0, 1, 2]), reduction="none")
    assert none.grad_fn.name() == "NllLossBackward0"


def test_nll_loss_all_ignored_and_uint8_target(torch):
    x = np.random.default_rng(5).standard_normal((3, 4))
    _loss_parity(torch, "nll_loss", x, np.array([2, 0, 3], dtype=np.uint8))
    for reduction in ("mean", "sum", "none"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no NumPy division warning
            _loss_parity(torch, "nll_loss", x, np.full(3, -100), reduction=reduction)


def test_cross_entropy_double_backward_matches_torch(torch):
    rng = np.random.default_rng(6)
    xv, tv = rng.standard_normal((5, 4)), rng.integers(0, 4, 5)
    wv = rng.uniform(0.5, 2, 4)
    results = []
    for lib, mod in ((torch, torch.nn.functional), (ng, F)):
        x = lib.tensor(xv, requires_grad=True)
        loss = mod.cross_entropy(x * x, lib.tensor(tv), weight=lib.tensor(wv))
        (g,) = (torch.autograd.grad if lib is torch else ng.autograd.grad)(
            loss, (x,), create_graph=True)
        (g * g).sum().backward()
        results.append(to_np(x.grad))
    np.testing.assert_allclose(results[1], results[0], rtol=1e-10, atol=1e-14)


def test_cross_entropy_float32(torch):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 10)).astype(np.float32)
    t = rng.integers(0, 10, 64)
    _loss_parity(torch, "cross_entropy", x, t, rtol=1e-5)


def test_cross_entropy_module_and_nll_module(torch):
    rng = np.random.default_rng(8)
    xv, tv, wv = rng.standard_normal((6, 3)), rng.integers(0, 3, 6), rng.uniform(0.5, 2, 3)
    results = []
    for lib in (torch, ng):
        x = lib.tensor(xv, requires_grad=True)
        ce = lib.nn.CrossEntropyLoss(weight=lib.tensor(wv), label_smoothing=0.1)
        nll = lib.nn.NLLLoss(reduction="sum")
        loss = ce(x, lib.tensor(tv)) + nll(lib.nn.LogSoftmax(dim=1)(x), lib.tensor(tv))
        loss.backward()
        results.append((loss.item(), to_np(x.grad)))
        assert [k for k, _ in ce.named_buffers()] == ["weight"]
    assert results[1][0] == pytest.approx(results[0][0], rel=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)


CE_ERRORS = [
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.randn(3)),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.randn(3, 5)),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 5, 1])),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, -1, 1])),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 1])),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 1, 1]),
                                                reduction="foo"),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 1, 1]),
                                                label_smoothing=1.5),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4),
                                                lib.tensor([0, 1, 1], dtype=lib.int32)),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.ones(3, 4, dtype=lib.long)),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.ones(3, 4), ignore_index=1),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.ones(3, 4),
                                                weight=lib.ones(3)),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(3, 4), lib.tensor([0, 1, 1]),
                                           weight=lib.ones(3)),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(3, 4), lib.tensor([0, 1, 1]),
                                           weight=lib.ones(4).double()),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(2, 3, 4), lib.zeros(2, 5, dtype=lib.long)),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(2, 3, 4), lib.full((2, 4), 7)),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(2, 3, 4), lib.zeros(2, 4)),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(2, 3, 4), lib.zeros(2, 4, dtype=lib.long),
                                           weight=lib.ones(4)),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(3), lib.tensor([1, 2])),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(3, 4), lib.tensor(1)),
    lambda lib: lib.nn.functional.mse_loss(lib.randn(3), lib.randn(4)),
    lambda lib: lib.nn.functional.mse_loss(lib.randn(3), lib.randn(3), reduction="x"),
    lambda lib: lib.nn.functional.mse_loss(lib.ones(3, dtype=lib.long),
                                           lib.ones(3, dtype=lib.long)),
    lambda lib: lib.nn.functional.mse_loss(lib.randn(3), lib.randn(3), weight=lib.ones(2)),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.randn(3, 1), lib.randn(3)),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.randn(3), lib.ones(3, dtype=lib.long)),
]


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("index", range(len(CE_ERRORS)))
def test_loss_errors_match_torch(torch, index):
    make = CE_ERRORS[index]
    assert_same_error(lambda: make(torch), lambda: make(ng))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_matches_torch(torch, reduction):
    rng = np.random.default_rng(9)
    x, t = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    _loss_parity(torch, "mse_loss", x, t, reduction=reduction)
    _loss_parity(torch, "mse_loss", x, t, reduction=reduction, weight=rng.uniform(0, 1, (4, 3)))
    with pytest.warns(UserWarning) as caught:
        _loss_parity(torch, "mse_loss", x, t[0], reduction=reduction)
    texts = {same_text(str(w.message)) for w in caught}
    assert texts == {"Using a target size (nbgrad.Size([3])) that is different to the input "
                     "size (nbgrad.Size([4, 3])). This will likely lead to incorrect results "
                     "due to broadcasting. Please ensure they have the same size."}
    loss = nn.MSELoss(reduction=reduction)(ng.tensor(x), ng.tensor(t))
    assert np.allclose(loss.numpy(), {"mean": np.mean, "sum": np.sum,
                                      "none": lambda a: a}[reduction]((x - t) ** 2))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_matches_torch(torch, reduction):
    rng = np.random.default_rng(10)
    x = np.concatenate([rng.standard_normal(6) * 3, [0.0, 80.0, -80.0, 800.0, -800.0]])
    t = np.concatenate([rng.uniform(0, 1, 6), [1.0, 0.0, 1.0, 0.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warnings from exp
        _loss_parity(torch, "binary_cross_entropy_with_logits", x, t, reduction=reduction)
        _loss_parity(torch, "binary_cross_entropy_with_logits", x, t, reduction=reduction,
                     weight=rng.uniform(0, 2, x.shape), pos_weight=rng.uniform(0.5, 3, x.shape))
    module = nn.BCEWithLogitsLoss(pos_weight=ng.tensor([2.0]))
    assert [k for k, _ in module.named_buffers()] == ["pos_weight"]
    tmod = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))
    assert module(ng.tensor(x), ng.tensor(t)).item() == pytest.approx(
        tmod(torch.tensor(x), torch.tensor(t)).item(), rel=1e-12)


def test_legacy_size_average_reduce(torch):
    x, t = np.random.default_rng(11).standard_normal((3, 4)), np.array([0, 1, 2])
    with pytest.warns(UserWarning, match="reduction='sum'"):
        _loss_parity(torch, "cross_entropy", x, t, size_average=False)
    with pytest.warns(UserWarning, match="reduction='none'"):
        _loss_parity(torch, "nll_loss", x, t, reduce=False)


# -- training -----------------------------------------------------------------------------------
def _blobs(n=200, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    centers = np.array([[-2.0, -1.0], [2.0, 1.0]])
    points = centers[labels] + rng.standard_normal((n, 2))
    return ng.tensor(points, dtype=ng.float32), ng.tensor(labels)


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_small_training_run_learns_two_blobs(optimizer):
    ng.manual_seed(0)
    x, y = _blobs()
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = (ng.optim.SGD(model.parameters(), lr=0.1, momentum=0.9) if optimizer == "SGD"
           else ng.optim.Adam(model.parameters(), lr=0.05))
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = nn.CrossEntropyLoss()(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.25 * losses[0]
    assert all(math.isfinite(v) for v in losses)
    with ng.no_grad():
        accuracy = (model(x).argmax(1) == y).float().mean().item()
    assert accuracy > 0.95
    x_test, y_test = _blobs(seed=1)
    with ng.no_grad():
        assert (model(x_test).argmax(1) == y_test).float().mean().item() > 0.9


def _train_side_by_side(torch, make_optimizers, dtype, steps=8):
    """The same MLP and data in torch and nbgrad; per step: losses, grads, parameters."""
    rng = np.random.default_rng(12)
    xv, yv = rng.standard_normal((32, 5)), rng.integers(0, 3, 32)
    torch.manual_seed(0)
    tdt = torch.float64 if dtype == ng.float64 else torch.float32
    tmodel = torch_model(torch, 5, 8, 8, 3, dtype=tdt)
    model = nbgrad_copy(tmodel, dtype)
    t_opt, n_opt = make_optimizers(tmodel.parameters(), model.parameters())
    tx, ty = torch.tensor(xv, dtype=tdt), torch.tensor(yv)
    x, y = ng.tensor(xv, dtype=dtype), ng.tensor(yv)
    history = []
    for _ in range(steps):
        t_opt.zero_grad()
        n_opt.zero_grad()
        t_loss = torch.nn.functional.cross_entropy(tmodel(tx), ty)
        n_loss = F.cross_entropy(model(x), y)
        t_loss.backward()
        n_loss.backward()
        grads = [(to_np(p.grad), to_np(q.grad)) for p, q in zip(tmodel.parameters(),
                                                                 model.parameters())]
        t_opt.step()
        n_opt.step()
        params = [(to_np(p), to_np(q)) for p, q in zip(tmodel.parameters(), model.parameters())]
        history.append(((t_loss.item(), n_loss.item()), grads, params))
    return history


OPTIMIZERS = {
    "sgd_momentum_wd_nesterov": lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9,
                                                             weight_decay=1e-2, nesterov=True),
    "adam_amsgrad_wd": lambda lib, ps: lib.optim.Adam(ps, lr=0.02, weight_decay=1e-2,
                                                      amsgrad=True),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dtype, rtol", [(ng.float64, 1e-10), (ng.float32, 2e-4)])
def test_training_parity_with_torch(torch, name, dtype, rtol):
    make = OPTIMIZERS[name]
    history = _train_side_by_side(
        torch, lambda tp, np_: (make(torch, tp), make(ng, np_)), dtype)
    atol = 1e-12 if dtype == ng.float64 else 1e-6
    for (t_loss, n_loss), grads, params in history:
        assert n_loss == pytest.approx(t_loss, rel=rtol)
        for t_value, n_value in grads + params:
            assert n_value.dtype == t_value.dtype
            np.testing.assert_allclose(n_value, t_value, rtol=rtol, atol=atol)
    assert history[-1][0][1] < history[0][0][1]
