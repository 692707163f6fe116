"""Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD and LBFGS against PyTorch: the same start,
the same gradients (LBFGS: the same closure), the same parameters and state after every
step, for a grid of options; their signatures, defaults and argument errors; state_dicts
that cross between the libraries; learning-rate schedules and parameter groups.
"""

import copy
import inspect
import io
import itertools
import pickle

import numpy as np
import pytest

from parity import torch  # skips this module when PyTorch is missing
from test_optim_more import assert_state_same, to_numpy

import nbgrad as ng
from nbgrad import interop

NAMES = ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"]

# every combination of these options of each optimizer (the learning rate is randomised)
OPTIONS = {
    "Adadelta": dict(rho=[0.9, 0.5], eps=[1e-6, 1e-2], weight_decay=[0, 0.1],
                     maximize=[False, True]),
    "Adamax": dict(betas=[(0.9, 0.999), (0.5, 0.8)], weight_decay=[0, 0.1],
                   maximize=[False, True]),
    "NAdam": dict(momentum_decay=[4e-3, 0.3], weight_decay=[0, 0.1],
                  decoupled_weight_decay=[False, True], maximize=[False, True]),
    # beta2 = 0.99 crosses rho_t > 5 (the rectified step) at the sixth step
    "RAdam": dict(betas=[(0.9, 0.999), (0.8, 0.99)], weight_decay=[0, 0.1],
                  decoupled_weight_decay=[False, True], maximize=[False, True]),
    "Rprop": dict(etas=[(0.5, 1.2), (0.3, 1.5)], step_sizes=[(1e-6, 50), (0.02, 0.08)],
                  maximize=[False, True]),
    # t0=3: averaging starts within the run
    "ASGD": dict(lambd=[1e-4, 0.5], alpha=[0.75, 0.5], t0=[1e6, 3], weight_decay=[0, 0.1],
                 maximize=[False, True]),
}
STATE_KEYS = {"Adadelta": {"step", "square_avg", "acc_delta"},
              "Adamax": {"step", "exp_avg", "exp_inf"},
              "NAdam": {"step", "mu_product", "exp_avg", "exp_avg_sq"},
              "RAdam": {"step", "exp_avg", "exp_avg_sq"},
              "Rprop": {"step", "prev", "step_size"},
              "ASGD": {"step", "eta", "mu", "ax"}}
STEPS = 8


def combinations():
    for name, options in OPTIONS.items():
        for values in itertools.product(*options.values()):
            yield name, dict(zip(options, values))


CASES = list(combinations())


def gradients(rng, shapes, steps):
    """Random gradients, a fifth of their entries zero (Rprop's "no sign" case)."""
    return [[rng.standard_normal(s) * (rng.uniform(size=s) > 0.2) for s in shapes]
            for _ in range(steps)]


def run_both(name, options, shapes, steps=STEPS, seed=0, dtype="float64"):
    """The parameters and state_dicts of torch's and nbgrad's optimizer after each step."""
    rng = np.random.default_rng(seed)
    starts = [rng.standard_normal(shape) for shape in shapes]
    grads = gradients(rng, shapes, steps)
    options = dict(options)
    options.setdefault("lr", float(rng.uniform(0.01, 0.2)))
    results = []
    for lib in (torch, ng):
        params = [lib.nn.Parameter(lib.tensor(s, dtype=getattr(lib, dtype))) for s in starts]
        opt = getattr(lib.optim, name)(params, **options)
        history = []
        for step_grads in grads:
            for p, g in zip(params, step_grads):
                p.grad = lib.tensor(g, dtype=getattr(lib, dtype))
            opt.step()
            history.append(([to_numpy(p).copy() for p in params], copy.deepcopy(opt.state_dict())))
        results.append(history)
    return results


def assert_histories_same(t_history, n_history, rtol):
    for step, ((t_params, t_state), (n_params, n_state)) in enumerate(zip(t_history,
                                                                          n_history)):
        for t, n in zip(t_params, n_params):
            np.testing.assert_allclose(n, t, rtol=rtol, atol=rtol, err_msg=f"step {step}")
        assert_state_same(t_state, n_state, rtol=rtol)


@pytest.mark.parametrize("name,options", CASES, ids=[f"{n}-{o}" for n, o in CASES])
def test_steps_match_torch_float64(name, options):
    seed = sum(map(ord, f"{name}{options}"))
    t_history, n_history = run_both(name, options, [(3, 4), (5,), ()], seed=seed)
    assert_histories_same(t_history, n_history, rtol=1e-6)
    assert set().union(*n_history[-1][1]["state"].values()) == STATE_KEYS[name]


@pytest.mark.parametrize("name", NAMES)
def test_float32_and_the_step_counter_dtype(name):
    t_history, n_history = run_both(name, {}, [(4,), (2, 3)], dtype="float32", seed=3)
    assert n_history[-1][0][0].dtype == np.float32
    assert_histories_same(t_history, n_history, rtol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_empty_parameters_step_like_torch(name):
    t_history, n_history = run_both(name, {}, [(0,), (2, 0)], steps=2)
    assert [p.shape for p in n_history[-1][0]] == [(0,), (2, 0)]
    assert_state_same(t_history[-1][1], n_history[-1][1], rtol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_nan_and_inf_gradients_spread_like_torch(name):
    def run(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.5, 3.0], dtype=lib.float64))
        opt = getattr(lib.optim, name)([p], lr=0.1)
        for g in ([0.5, float("nan"), -1.0, float("inf")], [1.0, 1.0, -1.0, 2.0]):
            p.grad = lib.tensor(g, dtype=lib.float64)
            opt.step()
        return to_numpy(p)

    np.testing.assert_allclose(run(ng), run(torch), rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", [*NAMES, "LBFGS"])
def test_signature_defaults_and_param_groups_match_torch(name):
    t_sig = inspect.signature(getattr(torch.optim, name).__init__)
    n_sig = inspect.signature(getattr(ng.optim, name).__init__)
    assert [(p.name, p.kind, p.default) for p in n_sig.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in t_sig.parameters.values()]
    t_opt, n_opt = make(torch, name), make(ng, name)
    assert n_opt.defaults == t_opt.defaults
    assert n_opt.state_dict()["param_groups"] == t_opt.state_dict()["param_groups"]
    assert repr(n_opt) == repr(t_opt)


def make(lib, name, **kwargs):
    p = lib.nn.Parameter(lib.ones(3))
    return getattr(lib.optim, name)([p], **kwargs)


ERRORS = [(name, dict(lr=-1.0)) for name in [*NAMES, "LBFGS"]] + [
    ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(rho=-0.1)), ("Adadelta", dict(eps=-1)),
    ("Adadelta", dict(weight_decay=-1)),
    ("Adamax", dict(eps=-1)), ("Adamax", dict(betas=(1.0, 0.9))),
    ("Adamax", dict(betas=(0.9, -0.1))), ("Adamax", dict(weight_decay=-1)),
    ("NAdam", dict(eps=-1)), ("NAdam", dict(betas=(-0.5, 0.9))),
    ("NAdam", dict(betas=(0.9, 1.0))), ("NAdam", dict(weight_decay=-1)),
    ("NAdam", dict(momentum_decay=-1)),
    ("RAdam", dict(eps=-1)), ("RAdam", dict(betas=(1.5, 0.9))),
    ("RAdam", dict(betas=(0.9, 1.0))), ("RAdam", dict(weight_decay=-1)),
    ("Rprop", dict(etas=(1.0, 1.2))), ("Rprop", dict(etas=(0.5, 1.0))),
    ("Rprop", dict(etas=(0.0, 2.0))),
    ("ASGD", dict(weight_decay=-1)),
    ("ASGD", dict(lr=ng.tensor([0.1, 0.2]))),
]


@pytest.mark.parametrize("name,kwargs", ERRORS, ids=[f"{n}-{k}" for n, k in ERRORS])
def test_argument_errors_match_torch(name, kwargs):
    t_kwargs = {k: torch.tensor(v.tolist()) if isinstance(v, ng.Tensor) else v
                for k, v in kwargs.items()}
    with pytest.raises(Exception) as t_err:
        make(torch, name, **t_kwargs)
    with pytest.raises(Exception) as n_err:
        make(ng, name, **kwargs)
    assert type(n_err.value) is type(t_err.value)
    assert str(n_err.value) == str(t_err.value)


@pytest.mark.parametrize("name", NAMES)
def test_differentiable_is_refused(name):
    with pytest.raises(NotImplementedError, match="differentiable"):
        make(ng, name, differentiable=True)


@pytest.mark.parametrize("name", NAMES)
def test_kernel_flags_are_accepted_and_kept(name):
    opt = make(ng, name, foreach=True, capturable=True)
    assert opt.param_groups[0]["foreach"] is True and opt.param_groups[0]["capturable"]


@pytest.mark.parametrize("name", NAMES)
def test_param_groups_use_their_own_options(name):
    def run(lib):
        a = lib.nn.Parameter(lib.tensor([1.0, 2.0], dtype=lib.float64))
        b = lib.nn.Parameter(lib.tensor([-1.0, 0.5], dtype=lib.float64))
        opt = getattr(lib.optim, name)([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.05)
        for _ in range(4):
            opt.zero_grad()
            ((a * a).sum() + (b ** 3).sum()).backward()
            opt.step()
        return to_numpy(a), to_numpy(b)

    for t, n in zip(run(torch), run(ng)):
        np.testing.assert_allclose(n, t, rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_lr_scheduler_drives_them_like_torch(name):
    def run(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64))
        opt = getattr(lib.optim, name)([p], lr=0.1)
        scheduler = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        for _ in range(7):
            opt.zero_grad()
            (p ** 4).sum().backward()
            opt.step()
            scheduler.step()
        return to_numpy(p), opt.param_groups[0]["lr"]

    (t_p, t_lr), (n_p, n_lr) = run(torch), run(ng)
    assert n_lr == t_lr
    np.testing.assert_allclose(n_p, t_p, rtol=1e-12)


def through_torch_file(state):
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_crosses_between_the_libraries(name):
    """Three steps in one library, its state_dict saved and loaded into the other's
    optimizer, three more there: the same as torch loading its own state_dict (loading
    casts the 0-d float state but ``step`` to the parameter's dtype, in both)."""
    rng = np.random.default_rng(5)
    start = rng.standard_normal(4)
    grads = gradients(rng, [(4,)], 6)

    def optimizer(lib, value):
        p = lib.nn.Parameter(lib.tensor(value, dtype=lib.float64))
        return p, getattr(lib.optim, name)([p], lr=0.05)

    def run(lib, p, opt, sequence):
        for (g,) in sequence:
            p.grad = lib.tensor(g, dtype=lib.float64)
            opt.step()

    def resumed(first, second):
        p, opt = optimizer(first, start)
        run(first, p, opt, grads[:3])
        state = pickle.loads(pickle.dumps(opt.state_dict())) if first is ng else opt.state_dict()
        if first is ng:
            state = interop.to_torch(state)
        state = through_torch_file(state)
        if second is ng:
            state = interop.from_torch(state)
        q, opt2 = optimizer(second, to_numpy(p))
        opt2.load_state_dict(state)
        run(second, q, opt2, grads[3:])
        return to_numpy(q)

    expected = resumed(torch, torch)
    for first, second in ((torch, ng), (ng, torch), (ng, ng)):
        np.testing.assert_allclose(resumed(first, second), expected, rtol=1e-12,
                                   err_msg=f"{first.__name__} to {second.__name__}")


@pytest.mark.parametrize("name", NAMES)
def test_step_bumps_versions_skips_missing_grads_and_returns_the_closure_loss(name):
    a, b = ng.nn.Parameter(ng.ones(2)), ng.nn.Parameter(ng.ones(2))
    opt = getattr(ng.optim, name)([a, b])

    def closure():
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    before = a._version
    loss = opt.step(closure)
    assert float(loss.detach()) == 2.0 and a._version > before
    assert not opt.state.get(b) and float(opt.state[a]["step"]) == 1.0
    np.testing.assert_array_equal(to_numpy(b), [1.0, 1.0])


# -- LBFGS: one step() is many iterations, each calling the closure -----------------------------
LBFGS_CASES = [dict(line_search_fn=ls, history_size=h, max_iter=m, lr=lr)
               for ls, h, m, lr in itertools.product([None, "strong_wolfe"], [100, 2], [20, 4],
                                                     [1, 0.3])]


def lbfgs_problem(lib, seed, **options):
    """An optimizer over two parameters (one 0-d) of a convex quartic, and its closure."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((6, 6))
    matrix = lib.tensor(a @ a.T + np.eye(6), dtype=lib.float64)
    vector = lib.tensor(rng.standard_normal(6), dtype=lib.float64)
    w = lib.nn.Parameter(lib.tensor(rng.standard_normal((2, 3)), dtype=lib.float64))
    v = lib.nn.Parameter(lib.tensor(0.5, dtype=lib.float64))
    opt = lib.optim.LBFGS([w, v], **options)

    def closure():
        opt.zero_grad()
        x = w.reshape(-1)
        loss = 0.5 * (x @ (matrix @ x)) - vector @ x + (v - 1) ** 4 + 0.1 * (x ** 4).sum()
        loss.backward()
        return loss

    return [w, v], opt, closure


def assert_same_values(t_value, n_value, where):
    """LBFGS's state entries: tensors, lists of them (or None), ints and floats. Near the
    minimum, differences of nearly equal gradients (``al``, ``ro``) amplify the dot
    products' rounding (NumPy sums in another order), hence rtol 1e-6."""
    if isinstance(t_value, torch.Tensor):
        assert str(n_value.dtype) == str(t_value.dtype).replace("torch", "nbgrad"), where
        np.testing.assert_allclose(to_numpy(n_value), to_numpy(t_value), rtol=1e-6,
                                   atol=1e-12, err_msg=where)
    elif isinstance(t_value, list):
        assert len(n_value) == len(t_value), where
        for i, (t, n) in enumerate(zip(t_value, n_value)):
            assert_same_values(t, n, f"{where}[{i}]")
    else:
        assert type(n_value) is type(t_value), where
        assert n_value == pytest.approx(t_value, rel=1e-6) if t_value is not None \
            else n_value is None, where


@pytest.mark.parametrize("options", LBFGS_CASES, ids=map(str, LBFGS_CASES))
def test_lbfgs_steps_match_torch(options):
    results = []
    for lib in (torch, ng):
        params, opt, closure = lbfgs_problem(lib, seed=len(str(options)), **options)
        losses = [float(opt.step(closure).detach()) for _ in range(3)]
        results.append((losses, [to_numpy(p) for p in params], opt.state_dict()))
    (t_losses, t_params, t_state), (n_losses, n_params, n_state) = results
    np.testing.assert_allclose(n_losses, t_losses, rtol=1e-10)
    for t, n in zip(t_params, n_params):
        np.testing.assert_allclose(n, t, rtol=1e-6, atol=1e-9)
    assert n_state["param_groups"] == t_state["param_groups"]
    assert list(n_state["state"]) == list(t_state["state"]) == [0]
    assert list(n_state["state"][0]) == list(t_state["state"][0])
    for key in ("func_evals", "n_iter"):
        assert n_state["state"][0][key] == t_state["state"][0][key]
    if options["max_iter"] == 20:
        # 60 iterations reach the minimum, where the history (al, ro, old_dirs) holds
        # differences of gradients at rounding level: their values are noise
        return
    for key, t_value in t_state["state"][0].items():
        assert_same_values(t_value, n_state["state"][0][key], key)


def test_lbfgs_state_dict_crosses_between_the_libraries():
    def resumed(first, second):
        params, opt, closure = lbfgs_problem(first, 1, max_iter=3, history_size=4)
        opt.step(closure)
        state = opt.state_dict()
        if first is ng:
            state = interop.to_torch(state)
        state = through_torch_file(state)
        if second is ng:
            state = interop.from_torch(state)
        start = [to_numpy(p) for p in params]
        params, opt, closure = lbfgs_problem(second, 1, max_iter=3, history_size=4)
        with second.no_grad():
            for p, value in zip(params, start):
                p.copy_(second.tensor(value, dtype=second.float64))
        opt.load_state_dict(state)
        opt.step(closure)
        return [to_numpy(p) for p in params]

    expected = resumed(torch, torch)
    for first, second in ((torch, ng), (ng, torch)):
        for t, n in zip(expected, resumed(first, second)):
            np.testing.assert_allclose(n, t, rtol=1e-6, atol=1e-9)


def test_lbfgs_stops_at_once_when_the_gradient_is_zero():
    for lib in (torch, ng):
        p = lib.nn.Parameter(lib.zeros(3, dtype=lib.float64))
        opt = lib.optim.LBFGS([p])

        def closure(p=p, opt=opt):
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss

        assert float(opt.step(closure).detach()) == 0.0
        assert opt.state[p] == {"func_evals": 1, "n_iter": 0}


@pytest.mark.parametrize("case", ["groups", "line_search_fn"])
def test_lbfgs_errors_match_torch(case):
    def attempt(lib):
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
        if case == "groups":
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        opt = lib.optim.LBFGS([a], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = (a ** 3).sum()
            loss.backward()
            return loss

        opt.step(closure)

    with pytest.raises(Exception) as t_err:
        attempt(torch)
    with pytest.raises(Exception) as n_err:
        attempt(ng)
    assert type(n_err.value) is type(t_err.value)
    assert str(n_err.value) == str(t_err.value)


@pytest.mark.parametrize("name", [*NAMES, "LBFGS", "Adam", "AdamW"])
def test_a_tensor_lr_and_copies_step_like_torch(name):
    def run(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64))
        opt = getattr(lib.optim, name)([p], lr=lib.tensor(0.05))

        def closure():
            opt.zero_grad()
            loss = (p ** 4).sum()
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        copied = copy.deepcopy(opt)
        assert pickle.loads(pickle.dumps(opt)).state_dict()["param_groups"][0]["params"] == [0]
        assert list(copied.state_dict()["state"][0]) == list(opt.state_dict()["state"][0])
        return to_numpy(p), opt.state_dict()["state"][0]

    # PyTorch computes with the 0-d float32 lr: the coefficients round to float32
    (n_p, n_state), (t_p, t_state) = run(ng), run(torch)
    np.testing.assert_allclose(n_p, t_p, rtol=1e-12)
    for key, t_value in t_state.items():
        assert_same_values(t_value, n_state[key], key)
