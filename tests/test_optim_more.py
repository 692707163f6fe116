"""RMSprop, Adagrad, and AdamW / Adam's amsgrad against PyTorch: the same start, the same
gradients, the same parameters and state after every step, for every option combination.
"""

import itertools
import pickle

import numpy as np
import pytest

from parity import torch  # skips this module when PyTorch is missing

import nbgrad as ng
from nbgrad import optim

# every option combination of each optimizer (randomised values for the numeric ones)
OPTIONS = {
    "RMSprop": dict(momentum=[0, 0.9], centered=[False, True], weight_decay=[0, 0.1],
                    maximize=[False, True]),
    "Adagrad": dict(lr_decay=[0, 0.05], weight_decay=[0, 0.1],
                    initial_accumulator_value=[0, 0.3], maximize=[False, True]),
    "AdamW": dict(amsgrad=[False, True], weight_decay=[0, 0.1], maximize=[False, True]),
    "Adam": dict(amsgrad=[False, True], weight_decay=[0, 0.1], maximize=[False, True]),
}
STATE_KEYS = {"RMSprop": ["step", "square_avg", "momentum_buffer", "grad_avg"],
              "Adagrad": ["step", "sum"],
              "AdamW": ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"],
              "Adam": ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]}


def combinations():
    for name, options in OPTIONS.items():
        for values in itertools.product(*options.values()):
            yield name, dict(zip(options, values))


CASES = list(combinations())


def run_both(name, options, shapes, steps=5, seed=0, dtype="float64", lr=None):
    """The parameters and states of torch's and nbgrad's optimizer after each step."""
    rng = np.random.default_rng(seed)
    starts = [rng.standard_normal(shape) for shape in shapes]
    grads = [[rng.standard_normal(shape) for shape in shapes] for _ in range(steps)]
    kwargs = dict(options)
    kwargs["lr"] = lr if lr is not None else float(rng.uniform(0.01, 0.2))
    if name == "RMSprop":
        kwargs["alpha"] = float(rng.uniform(0.5, 0.99))
    results = []
    for lib in (torch, ng):
        params = [lib.nn.Parameter(lib.tensor(s, dtype=getattr(lib, dtype))) for s in starts]
        opt = getattr(lib.optim, name)(params, **kwargs)
        history = []
        for step_grads in grads:
            for p, g in zip(params, step_grads):
                p.grad = lib.tensor(g, dtype=getattr(lib, dtype))
            opt.step()
            history.append(([p.detach().numpy().copy() if lib is torch
                              else np.asarray(p.detach()._data).copy() for p in params],
                             opt.state_dict()))
        results.append(history)
    return results


def to_numpy(value):
    return value.detach().numpy() if isinstance(value, torch.Tensor) else np.asarray(value._data)


def assert_state_same(t_state, n_state, rtol):
    assert sorted(n_state["state"]) == sorted(t_state["state"])
    for index, t_entry in t_state["state"].items():
        n_entry = n_state["state"][index]
        assert sorted(n_entry) == sorted(t_entry), (index, sorted(n_entry), sorted(t_entry))
        for key, t_value in t_entry.items():
            n_value = n_entry[key]
            assert str(n_value.dtype) == str(t_value.dtype).replace("torch", "nbgrad"), key
            assert tuple(n_value.shape) == tuple(t_value.shape), key
            np.testing.assert_allclose(to_numpy(n_value), to_numpy(t_value), rtol=rtol,
                                       atol=rtol, err_msg=key)
    for t_group, n_group in zip(t_state["param_groups"], n_state["param_groups"]):
        assert n_group == t_group


@pytest.mark.parametrize("name,options", CASES, ids=[f"{n}-{o}" for n, o in CASES])
def test_five_steps_match_torch_float64(name, options):
    seed = hash((name, tuple(options.items()))) % 2**32
    t_history, n_history = run_both(name, options, [(3, 4), (5,), ()], seed=seed)
    for step, ((t_params, t_state), (n_params, n_state)) in enumerate(zip(t_history,
                                                                          n_history)):
        for t, n in zip(t_params, n_params):
            np.testing.assert_allclose(n, t, rtol=1e-6, atol=1e-6, err_msg=f"step {step}")
        assert_state_same(t_state, n_state, rtol=1e-6)
        assert set().union(*map(set, n_state["state"].values())) <= set(STATE_KEYS[name])


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad"])
def test_float32_and_the_step_counter_dtype(name):
    t_history, n_history = run_both(name, {}, [(4,)], dtype="float32", seed=3)
    (t_params, t_state), (n_params, n_state) = t_history[-1], n_history[-1]
    assert n_params[0].dtype == np.float32
    np.testing.assert_allclose(n_params[0], t_params[0], rtol=1e-5, atol=1e-6)
    assert_state_same(t_state, n_state, rtol=1e-5)


def test_empty_parameters_step_like_torch():
    for name, options in [("RMSprop", dict(momentum=0.5, centered=True)), ("Adagrad", {})]:
        t_history, n_history = run_both(name, options, [(0,), (2, 0)], steps=2)
        assert [p.shape for p in n_history[-1][0]] == [(0,), (2, 0)]
        assert_state_same(t_history[-1][1], n_history[-1][1], rtol=1e-6)


def make(lib, name, **kwargs):
    p = lib.nn.Parameter(lib.ones(3))
    return getattr(lib.optim, name)([p], **kwargs)


ERRORS = [("RMSprop", dict(lr=-1)), ("RMSprop", dict(eps=-1)), ("RMSprop", dict(momentum=-1)),
          ("RMSprop", dict(weight_decay=-1)), ("RMSprop", dict(alpha=-0.5)),
          ("Adagrad", dict(lr=-1)), ("Adagrad", dict(lr_decay=-1)),
          ("Adagrad", dict(weight_decay=-1)), ("Adagrad", dict(initial_accumulator_value=-1)),
          ("Adagrad", dict(eps=-1)), ("AdamW", dict(lr=-1)), ("AdamW", dict(betas=(1.0, 0.9))),
          ("AdamW", dict(weight_decay=-0.1))]


@pytest.mark.parametrize("name,kwargs", ERRORS, ids=[f"{n}-{k}" for n, k in ERRORS])
def test_argument_errors_match_torch(name, kwargs):
    with pytest.raises(Exception) as t_err:
        make(torch, name, **kwargs)
    with pytest.raises(Exception) as n_err:
        make(ng, name, **kwargs)
    assert type(n_err.value) is type(t_err.value)
    assert str(n_err.value) == str(t_err.value)


def test_invalid_learning_rate_message():
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        make(ng, "RMSprop", lr=-1)


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad"])
def test_defaults_and_param_groups_match_torch(name):
    t_opt, n_opt = make(torch, name), make(ng, name)
    assert n_opt.defaults == t_opt.defaults
    assert n_opt.state_dict()["param_groups"] == t_opt.state_dict()["param_groups"]


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad"])
def test_param_groups_use_their_own_options(name):
    def run(lib):
        a = lib.nn.Parameter(lib.tensor([1.0, 2.0], dtype=lib.float64))
        b = lib.nn.Parameter(lib.tensor([-1.0, 0.5], dtype=lib.float64))
        opt = getattr(lib.optim, name)([{"params": [a]}, {"params": [b], "lr": 0.5,
                                                           "weight_decay": 0.2}], lr=0.05)
        for _ in range(3):
            opt.zero_grad()
            ((a * a).sum() + (b ** 3).sum()).backward()
            opt.step()
        return to_numpy(a), to_numpy(b)

    for t, n in zip(run(torch), run(ng)):
        np.testing.assert_allclose(n, t, rtol=1e-12)


@pytest.mark.parametrize("name,options", [("RMSprop", dict(momentum=0.9, centered=True)),
                                          ("Adagrad", dict(lr_decay=0.1))])
def test_load_state_dict_continues_like_the_original(name, options):
    rng = np.random.default_rng(7)
    grads = [rng.standard_normal(4) for _ in range(6)]

    def fresh():
        p = ng.nn.Parameter(ng.tensor([0.5, -1.0, 2.0, 0.0], dtype=ng.float64))
        return p, getattr(optim, name)([p], lr=0.1, **options)

    p, opt = fresh()
    for g in grads[:3]:
        p.grad = ng.tensor(g)
        opt.step()
    saved_params = p.detach().clone()
    saved = pickle.loads(pickle.dumps(opt.state_dict()))
    for g in grads[3:]:
        p.grad = ng.tensor(g)
        opt.step()

    q, opt2 = fresh()
    with ng.no_grad():
        q.copy_(saved_params)
    opt2.load_state_dict(saved)
    for g in grads[3:]:
        q.grad = ng.tensor(g)
        opt2.step()
    np.testing.assert_array_equal(to_numpy(q), to_numpy(p))


def test_parameters_without_grad_are_skipped_and_keep_no_state():
    a, b = ng.nn.Parameter(ng.ones(2)), ng.nn.Parameter(ng.ones(2))
    opt = optim.RMSprop([a, b])
    a.grad = ng.ones(2)
    opt.step()
    assert not opt.state.get(b)
    assert float(opt.state[a]["step"]) == 1.0
    np.testing.assert_array_equal(to_numpy(b), [1.0, 1.0])


def test_adagrad_makes_its_state_in_the_constructor_like_torch():
    t_opt, n_opt = make(torch, "Adagrad", initial_accumulator_value=0.25), \
        make(ng, "Adagrad", initial_accumulator_value=0.25)
    assert_state_same(t_opt.state_dict(), n_opt.state_dict(), rtol=0)


def test_step_bumps_the_version_and_returns_the_closure_loss():
    p = ng.nn.Parameter(ng.ones(2))
    opt = optim.RMSprop([p], momentum=0.5)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    before = p._version
    loss = opt.step(closure)
    assert float(loss.detach()) == 2.0 and p._version > before


def test_differentiable_is_refused():
    with pytest.raises(NotImplementedError, match="differentiable"):
        make(ng, "RMSprop", differentiable=True)
