"""nbgrad.optim: Optimizer bookkeeping, SGD and Adam update rules; PyTorch as the oracle.

The update rules are compared with PyTorch step by step: the same starting values and
the same gradient sequence go into both optimizers, and parameters and optimizer state
are compared after every step (float64: to rounding; float32: to a few ulps).
"""

import copy
import math
import pickle
import warnings

import numpy as np
import pytest

import nbgrad as ng
from nbgrad import nn, optim


def same_text(text):
    return text.replace("torch.", "nbgrad.")


def assert_same_error(call_torch, call_nbgrad):
    with pytest.raises(Exception) as t_err:
        call_torch()
    with pytest.raises(Exception) as n_err:
        call_nbgrad()
    assert type(n_err.value) is type(t_err.value), (t_err.value, n_err.value)
    assert same_text(str(n_err.value)) == same_text(str(t_err.value))


def param(values=(1.0, -2.0, 3.0), dtype=ng.float32):
    return nn.Parameter(ng.tensor(values, dtype=dtype))


# -- construction -------------------------------------------------------------------------
CONSTRUCTOR_ERRORS = [
    lambda lib, p: lib.optim.SGD(p),
    lambda lib, p: lib.optim.SGD([]),
    lambda lib, p: lib.optim.SGD([p * 2]),
    lambda lib, p: lib.optim.SGD([p], lr=-1),
    lambda lib, p: lib.optim.SGD([p], momentum=-1),
    lambda lib, p: lib.optim.SGD([p], weight_decay=-1),
    lambda lib, p: lib.optim.SGD([p], nesterov=True),
    lambda lib, p: lib.optim.SGD([p], momentum=0.9, dampening=0.1, nesterov=True),
    lambda lib, p: lib.optim.SGD([{"params": [p]}, {"params": [p]}]),
    lambda lib, p: lib.optim.SGD([1.0]),
    lambda lib, p: lib.optim.SGD([{"params": {p}}]),
    lambda lib, p: lib.optim.Adam([p], lr=-0.1),
    lambda lib, p: lib.optim.Adam([p], betas=(1.0, 0.9)),
    lambda lib, p: lib.optim.Adam([p], betas=(0.9, 1.0)),
    lambda lib, p: lib.optim.Adam([p], betas=(0, 0.9)),
    lambda lib, p: lib.optim.Adam([p], eps=-1),
    lambda lib, p: lib.optim.Adam([p], weight_decay=-1),
]


@pytest.mark.parametrize("index", range(len(CONSTRUCTOR_ERRORS)))
def test_constructor_errors_match_torch(torch, index):
    make = CONSTRUCTOR_ERRORS[index]
    assert_same_error(lambda: make(torch, torch.nn.Parameter(torch.ones(3))),
                      lambda: make(ng, param()))


def test_duplicate_parameters_warn():
    p = param()
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([p, p], lr=0.1)


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_a_parameter_over_a_read_only_array_is_refused(name):
    """PyTorch would write into the read-only memory at every step; nbgrad says so at once
    instead of failing inside NumPy at the first step."""
    array = np.ones(3, dtype=np.float32)
    array.flags.writeable = False
    with warnings.catch_warnings():  # from_numpy's warning about it: test_parity.py
        warnings.simplefilter("ignore")
        weight = ng.from_numpy(array).requires_grad_()
    with pytest.raises(ValueError, match="can't optimize a Tensor whose memory is a NumPy array "
                                         "that is not writable"):
        getattr(optim, name)([weight], lr=0.1)


def test_param_groups_defaults_and_repr_match_torch(torch):
    tp = [torch.nn.Parameter(torch.ones(2)) for _ in range(3)]
    npar = [param((1.0, 1.0)) for _ in range(3)]
    for make in (lambda lib, ps: lib.optim.SGD([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.5}],
                                               lr=0.1, momentum=0.9),
                 lambda lib, ps: lib.optim.Adam(ps, lr=0.01, amsgrad=True),
                 lambda lib, ps: lib.optim.AdamW(ps)):
        t_opt, n_opt = make(torch, tp), make(ng, npar)
        assert repr(n_opt) == repr(t_opt)
        t_groups = [{k: v for k, v in g.items() if k != "params"} for g in t_opt.param_groups]
        n_groups = [{k: v for k, v in g.items() if k != "params"} for g in n_opt.param_groups]
        assert n_groups == t_groups
        assert n_opt.defaults == t_opt.defaults
        assert [len(g["params"]) for g in n_opt.param_groups] == \
               [len(g["params"]) for g in t_opt.param_groups]


def test_add_param_group_and_named_params():
    a, b = param(), param()
    opt = optim.SGD([a], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": b, "lr": 0.01})
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[1]["lr"] == 0.01
    assert opt.param_groups[1]["momentum"] == 0.5  # filled in from the defaults
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})
    model = nn.Linear(2, 1)
    named = optim.Adam(model.named_parameters())
    assert named.param_groups[0]["param_names"] == ["weight", "bias"]
    assert named.param_groups[0]["params"] == [model.weight, model.bias]


def test_zero_grad_and_parameters_without_grad_are_skipped():
    a, b = param(), param()
    opt = optim.SGD([a, b], lr=0.1, momentum=0.9)
    (a * a).sum().backward()
    before = b.detach().numpy().copy()
    version = b._version
    opt.step()
    assert np.array_equal(b.detach().numpy(), before) and b._version == version
    assert b not in opt.state and "momentum_buffer" in opt.state[a]
    grad = a.grad
    opt.zero_grad(set_to_none=False)
    assert a.grad is grad and not a.grad.numpy().any()
    opt.zero_grad()
    assert a.grad is None


def test_step_is_in_place_outside_the_graph_and_bumps_versions():
    model = nn.Linear(3, 2)
    opt = optim.Adam(model.parameters(), lr=0.1)
    weight = model.weight
    before = weight.detach().numpy().copy()
    version = weight._version
    model(ng.randn(4, 3)).sum().backward()
    assert ng.is_grad_enabled()
    opt.step()
    assert model.weight is weight and weight.is_leaf and weight.grad_fn is None
    assert weight.requires_grad and weight._version == version + 1
    assert not np.array_equal(weight.detach().numpy(), before)
    state = opt.state[weight]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq"]
    assert state["step"].item() == 1.0 and state["step"].dtype == ng.float32
    assert not any(v.requires_grad for v in state.values())


def test_step_with_closure_returns_its_loss():
    w = param((2.0,))
    opt = optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        assert ng.is_grad_enabled()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with ng.no_grad():  # the closure still records: step turns grad mode on for it
        loss = opt.step(closure)
    assert loss.item() == 4.0 and w.item() == pytest.approx(2.0 - 0.25 * 4.0)


# -- update rules against PyTorch ---------------------------------------------------------------
def _run_side_by_side(torch, make, dtype=np.float64, steps=6, shapes=((3, 4), (4,)),
                      with_state=True):
    """Feed the same gradients to a torch and an nbgrad optimizer; compare every step."""
    rng = np.random.default_rng(0)
    starts = [rng.standard_normal(s).astype(dtype) for s in shapes]
    t_params = [torch.nn.Parameter(torch.tensor(v)) for v in starts]
    n_params = [nn.Parameter(ng.tensor(v)) for v in starts]
    t_opt, n_opt = make(torch, t_params), make(ng, n_params)
    rtol, atol = (1e-13, 1e-15) if dtype == np.float64 else (1e-5, 1e-6)
    for step in range(steps):
        for tp, npar in zip(t_params, n_params):
            grad = rng.standard_normal(tp.shape).astype(dtype) * (10.0 if step == 2 else 1.0)
            tp.grad = torch.tensor(grad)
            npar.grad = ng.tensor(grad)
        t_opt.step()
        n_opt.step()
        for tp, npar in zip(t_params, n_params):
            np.testing.assert_allclose(npar.detach().numpy(), tp.detach().numpy(),
                                       rtol=rtol, atol=atol, err_msg=f"step {step}")
            if not with_state:
                continue
            t_state, n_state = t_opt.state[tp], n_opt.state[npar]
            assert list(n_state) == list(t_state)
            for key in t_state:
                np.testing.assert_allclose(n_state[key].numpy(), t_state[key].numpy(),
                                           rtol=rtol, atol=atol, err_msg=f"{key} step {step}")
    return t_opt, n_opt, t_params, n_params


SGD_CONFIGS = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.5),
    dict(lr=0.1, momentum=0.9, nesterov=True),
    dict(lr=0.1, momentum=0.8, weight_decay=0.1, nesterov=True),
    dict(lr=0.1, weight_decay=0.1),
    dict(lr=0.1, momentum=0.9, weight_decay=0.01, maximize=True),
]


def _config_id(config):
    return "-".join(f"{k}={v}" for k, v in config.items())


@pytest.mark.parametrize("config", SGD_CONFIGS, ids=_config_id)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sgd_matches_torch(torch, config, dtype):
    _run_side_by_side(torch, lambda lib, ps: lib.optim.SGD(ps, **config), dtype)


ADAM_CONFIGS = [
    dict(lr=0.01),
    dict(lr=0.01, amsgrad=True),
    dict(lr=0.01, weight_decay=0.1),
    dict(lr=0.01, weight_decay=0.1, amsgrad=True),
    dict(lr=0.05, betas=(0.3, 0.5)),  # the other branch of lerp (weight >= 0.5)
    dict(lr=0.01, eps=1e-3, maximize=True),
    dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
]


@pytest.mark.parametrize("config", ADAM_CONFIGS, ids=_config_id)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_adam_matches_torch(torch, config, dtype):
    _run_side_by_side(torch, lambda lib, ps: lib.optim.Adam(ps, **config), dtype)


def test_adamw_matches_torch(torch):
    t_opt, n_opt, _, _ = _run_side_by_side(
        torch, lambda lib, ps: lib.optim.AdamW(ps, lr=0.01, amsgrad=True))
    assert n_opt.param_groups[0]["decoupled_weight_decay"] is True


def test_per_group_options_match_torch(torch):
    def make(lib, ps):
        return lib.optim.SGD([{"params": ps[:1], "lr": 0.5, "nesterov": True},
                              {"params": ps[1:]}], lr=0.1, momentum=0.9)

    _run_side_by_side(torch, make)


def test_first_momentum_step_starts_from_the_gradient():
    w = param((0.0,), dtype=ng.float64)
    opt = optim.SGD([w], lr=1.0, momentum=0.9, dampening=0.5)
    w.grad = ng.tensor([1.0], dtype=ng.float64)
    opt.step()
    # buffer = grad on the first step (dampening not applied yet)
    assert opt.state[w]["momentum_buffer"].tolist() == [1.0] and w.tolist() == [-1.0]
    opt.step()
    assert opt.state[w]["momentum_buffer"].tolist() == [0.9 + 0.5] and w.tolist() == [-2.4]
    assert opt.state[w]["momentum_buffer"] is not w.grad  # a copy, not the gradient


def test_adam_bias_correction_first_step():
    # after one step from m = v = 0, the update is lr * g / (|g| + eps'): a unit step
    w = param((1.0, 1.0), dtype=ng.float64)
    opt = optim.Adam([w], lr=0.1, eps=0.0)
    w.grad = ng.tensor([3.0, -0.001], dtype=ng.float64)
    opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [0.9, 1.1], rtol=1e-12)


# -- state_dict -------------------------------------------------------------------------------
@pytest.mark.parametrize("name, kwargs", [("SGD", dict(lr=0.1, momentum=0.9)),
                                          ("Adam", dict(lr=0.01, amsgrad=True))])
def test_state_dict_matches_torch(torch, name, kwargs):
    t_opt, n_opt, _, _ = _run_side_by_side(
        torch, lambda lib, ps: getattr(lib.optim, name)(ps, **kwargs), steps=2)
    t_sd, n_sd = t_opt.state_dict(), n_opt.state_dict()
    assert n_sd["param_groups"] == t_sd["param_groups"]
    assert list(n_sd["state"]) == list(t_sd["state"]) == [0, 1]
    for index, t_state in t_sd["state"].items():
        assert list(n_sd["state"][index]) == list(t_state)
        for key, value in t_state.items():
            np.testing.assert_allclose(n_sd["state"][index][key].numpy(), value.numpy(),
                                       rtol=1e-13)


@pytest.mark.parametrize("name, kwargs", [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
                                          ("Adam", dict(lr=0.01, amsgrad=True))])
def test_state_dict_round_trip_continues_the_same_trajectory(name, kwargs):
    rng = np.random.default_rng(1)
    start = rng.standard_normal(5)
    grads = [rng.standard_normal(5) for _ in range(6)]

    def run(params, opt, sequence):
        for g in sequence:
            params[0].grad = ng.tensor(g)
            opt.step()

    a = [nn.Parameter(ng.tensor(start))]
    opt_a = getattr(optim, name)(a, **kwargs)
    run(a, opt_a, grads)

    b = [nn.Parameter(ng.tensor(start))]
    opt_b = getattr(optim, name)(b, **kwargs)
    run(b, opt_b, grads[:3])
    saved = pickle.loads(pickle.dumps(opt_b.state_dict()))  # a real checkpoint, no sharing
    c = [nn.Parameter(ng.tensor(b[0].detach().numpy().copy()))]
    opt_c = getattr(optim, name)(c, lr=123.0)
    opt_c.load_state_dict(saved)
    assert opt_c.param_groups[0]["lr"] == kwargs["lr"]
    assert opt_c.param_groups[0]["params"] == c
    run(c, opt_c, grads[3:])
    np.testing.assert_array_equal(c[0].detach().numpy(), a[0].detach().numpy())


def test_load_state_dict_errors_and_dtype_cast():
    opt = optim.SGD([param(), param()], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    other = optim.SGD([param()], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(other.state_dict())
    p64 = nn.Parameter(ng.ones(3, dtype=ng.float64))
    target = optim.SGD([p64], lr=0.1, momentum=0.9)
    source_param = param((1.0, 1.0, 1.0))
    source = optim.SGD([source_param], lr=0.1, momentum=0.9)
    source_param.grad = ng.ones(3)
    source.step()
    target.load_state_dict(source.state_dict())
    assert target.state[p64]["momentum_buffer"].dtype == ng.float64  # cast to the parameter's


def test_optimizer_can_be_deep_copied_and_pickled():
    model = nn.Linear(2, 2)
    opt = optim.Adam(model.parameters(), lr=0.1)
    model(ng.ones(1, 2)).sum().backward()
    opt.step()
    clone = copy.deepcopy(opt)
    assert clone.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    restored = pickle.loads(pickle.dumps(opt))
    assert restored.param_groups[0]["lr"] == 0.1 and len(restored.state) == 2


# -- end to end ----------------------------------------------------------------------------------
def test_sgd_minimises_a_quadratic():
    w = nn.Parameter(ng.tensor([5.0, -3.0], dtype=ng.float64))
    target = ng.tensor([1.0, 2.0], dtype=ng.float64)
    opt = optim.SGD([w], lr=0.1, momentum=0.5)
    for _ in range(100):
        opt.zero_grad()
        ((w - target) ** 2).sum().backward()
        opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [1.0, 2.0], atol=1e-6)


def test_adam_minimises_rosenbrock():
    xy = nn.Parameter(ng.tensor([-1.5, 2.0], dtype=ng.float64))
    opt = optim.Adam([xy], lr=0.05)

    def loss():
        x, y = xy[0], xy[1]
        return (1 - x) ** 2 + 100 * (y - x * x) ** 2

    first = loss().item()
    for _ in range(2000):
        opt.zero_grad()
        value = loss()
        value.backward()
        opt.step()
    assert loss().item() < 1e-3 * first
    assert math.isfinite(xy.detach().numpy().sum())
