"""nbgrad.optim.lr_scheduler against PyTorch: the learning rates (and momentums) of every
group over 50 steps equal torch's to 1e-12, for every scheduler; state_dict, warnings and
errors as PyTorch's.
"""

import math
import pickle
import warnings

import numpy as np
import pytest

from parity import torch  # skips this module when PyTorch is missing

import nbgrad as ng
from nbgrad.optim import lr_scheduler

STEPS = 50


def optimizer(lib, name="SGD", lrs=(0.1, 0.02)):
    groups = [{"params": [lib.nn.Parameter(lib.ones(2))], "lr": lr} for lr in lrs]
    if name == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return getattr(lib.optim, name)(groups, lr=0.1)


# (name, optimizer, make scheduler from (lib, opt)); lambdas keep both libraries' calls equal
SCHEDULERS = [
    ("StepLR", "SGD", lambda m, o: m.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5)),
    ("MultiStepLR", "SGD",
     lambda m, o: m.optim.lr_scheduler.MultiStepLR(o, [3, 10, 10, 31], gamma=0.3)),
    ("ExponentialLR", "SGD", lambda m, o: m.optim.lr_scheduler.ExponentialLR(o, 0.93)),
    ("CosineAnnealingLR", "SGD",
     lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=12, eta_min=0.001)),
    ("LambdaLR", "SGD",
     lambda m, o: m.optim.lr_scheduler.LambdaLR(o, [lambda e: 0.97 ** e, lambda e: 1 / (e + 1)])),
    ("MultiplicativeLR", "SGD",
     lambda m, o: m.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.95)),
    ("LinearLR", "SGD",
     lambda m, o: m.optim.lr_scheduler.LinearLR(o, start_factor=0.2, end_factor=0.9,
                                                total_iters=17)),
    ("ConstantLR", "SGD",
     lambda m, o: m.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=9)),
    ("PolynomialLR", "SGD",
     lambda m, o: m.optim.lr_scheduler.PolynomialLR(o, total_iters=30, power=2.0)),
    ("OneCycleLR", "SGD",
     lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.5, 0.1], total_steps=STEPS + 1)),
    ("OneCycleLR-3phase-linear-Adam", "Adam",
     lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=0.3, epochs=6, steps_per_epoch=9,
                                                  three_phase=True, anneal_strategy="linear")),
    ("CyclicLR", "SGD",
     lambda m, o: m.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=6, step_size_down=4)),
    ("CyclicLR-triangular2", "SGD",
     lambda m, o: m.optim.lr_scheduler.CyclicLR(o, [0.01, 0.02], 0.1, step_size_up=5,
                                                mode="triangular2")),
    ("CyclicLR-exp_range-Adam", "Adam",
     lambda m, o: m.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=5, mode="exp_range",
                                                gamma=0.97)),
    ("CyclicLR-scale_fn", "RMSprop",
     lambda m, o: m.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                                scale_fn=lambda x: 0.5 * (1 + math.sin(x)),
                                                scale_mode="iterations")),
    ("CosineAnnealingWarmRestarts", "SGD",
     lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2,
                                                                   eta_min=0.002)),
    ("SequentialLR", "SGD",
     lambda m, o: m.optim.lr_scheduler.SequentialLR(
         o, [m.optim.lr_scheduler.LinearLR(o, 0.1, total_iters=5),
             m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=20),
             m.optim.lr_scheduler.ExponentialLR(o, 0.9)], milestones=[5, 25])),
    ("ChainedScheduler", "SGD",
     lambda m, o: m.optim.lr_scheduler.ChainedScheduler(
         [m.optim.lr_scheduler.ConstantLR(o, 0.5, total_iters=4),
          m.optim.lr_scheduler.ExponentialLR(o, 0.9),
          m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=8)])),
]
IDS = [case[0] for case in SCHEDULERS]


def momentums(opt):
    return [group["betas"][0] if "betas" in group else group.get("momentum")
            for group in opt.param_groups]


def schedule(lib, opt_name, make, steps=STEPS):
    opt = optimizer(lib, opt_name)
    scheduler = make(lib, opt)
    lrs, moms = [scheduler.get_last_lr()], [momentums(opt)]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr())
        moms.append(momentums(opt))
    return scheduler, lrs, moms


@pytest.mark.parametrize("name,opt_name,make", SCHEDULERS, ids=IDS)
def test_fifty_steps_match_torch(name, opt_name, make):
    _, t_lrs, t_moms = schedule(torch, opt_name, make)
    _, n_lrs, n_moms = schedule(ng, opt_name, make)
    np.testing.assert_allclose(np.array(n_lrs), np.array(t_lrs), rtol=1e-12, atol=0)
    np.testing.assert_allclose(np.array(n_moms, dtype=float), np.array(t_moms, dtype=float),
                               rtol=1e-12, atol=0)
    assert all(isinstance(lr, float) for lr in n_lrs[-1])


@pytest.mark.parametrize("name,opt_name,make", SCHEDULERS, ids=IDS)
def test_state_dict_matches_torch_and_resumes(name, opt_name, make):
    t_sched, _, _ = schedule(torch, opt_name, make, steps=13)
    n_sched, _, _ = schedule(ng, opt_name, make, steps=13)
    t_state, n_state = t_sched.state_dict(), n_sched.state_dict()
    assert set(n_state) == set(t_state)
    for key in ("last_epoch", "base_lrs", "_last_lr", "_step_count"):
        if key in t_state:
            assert n_state[key] == pytest.approx(t_state[key], rel=1e-12), key

    # a fresh scheduler loaded from the state dict goes on exactly like the original
    saved = pickle.loads(pickle.dumps(n_state))  # functions are kept out of it
    opt_state = n_sched.optimizer.state_dict()
    fresh_opt = optimizer(ng, opt_name)
    fresh = make(ng, fresh_opt)
    fresh_opt.load_state_dict(opt_state)
    fresh.load_state_dict(saved)
    for _ in range(7):
        n_sched.optimizer.step()
        n_sched.step()
        fresh_opt.step()
        fresh.step()
        assert fresh.get_last_lr() == n_sched.get_last_lr()


def plateau(lib, metrics, **kwargs):
    opt = optimizer(lib)
    scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    lrs = []
    for metric in metrics:
        opt.step()
        scheduler.step(metric)
        lrs.append(scheduler.get_last_lr())
    return scheduler, lrs


PLATEAU_OPTIONS = [
    {}, {"mode": "max", "patience": 2}, {"factor": 0.5, "patience": 1, "cooldown": 3},
    {"threshold_mode": "abs", "threshold": 0.05, "patience": 0},
    {"mode": "max", "threshold_mode": "abs", "threshold": 0.01, "patience": 1},
    {"min_lr": [0.01, 0.015], "factor": 0.3, "patience": 0},
    {"patience": 0, "factor": 0.9, "eps": 0.005},
]


@pytest.mark.parametrize("options", PLATEAU_OPTIONS, ids=[str(o) for o in PLATEAU_OPTIONS])
def test_reduce_on_plateau_matches_torch(options):
    rng = np.random.default_rng(len(str(options)))
    metrics = list(np.cumsum(rng.normal(0, 1, STEPS)) * 0.1 + 5)
    t_sched, t_lrs = plateau(torch, metrics, **options)
    n_sched, n_lrs = plateau(ng, metrics, **options)
    np.testing.assert_allclose(np.array(n_lrs), np.array(t_lrs), rtol=1e-12, atol=0)
    for key in ("best", "num_bad_epochs", "cooldown_counter", "last_epoch"):
        assert getattr(n_sched, key) == getattr(t_sched, key), key


def test_reduce_on_plateau_takes_a_tensor_metric():
    _, lrs = plateau(ng, [ng.tensor(1.0)] * 4, patience=1)
    assert lrs[-1] == pytest.approx([0.01, 0.002])


def test_epoch_argument_warns_and_uses_the_closed_form():
    def run(lib):
        opt = optimizer(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        opt.step()
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step"):
            scheduler.step(10)
        return scheduler.get_last_lr(), scheduler.last_epoch

    assert run(ng) == run(torch)


def order_warnings(lib, optimizer_first):
    opt = optimizer(lib)
    scheduler = lib.optim.lr_scheduler.ExponentialLR(opt, 0.9)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if optimizer_first:
            opt.step()
        scheduler.step()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("optimizer_first", [False, True])
def test_the_warning_when_the_scheduler_steps_before_the_optimizer(optimizer_first):
    expected = order_warnings(torch, optimizer_first)
    assert order_warnings(ng, optimizer_first) == expected
    assert bool(expected) is not optimizer_first


def test_the_warning_when_optimizer_step_is_replaced():
    def run(lib):
        opt = optimizer(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(opt, 2)
        opt.step = lambda closure=None: None
        with pytest.warns(UserWarning) as caught:
            scheduler.step()
        return str(caught[0].message)

    assert run(ng) == run(torch)


def test_get_lr_outside_step_warns():
    opt = optimizer(ng)
    scheduler = lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        scheduler.get_lr()


def test_initial_lr_and_last_epoch_like_torch():
    t_opt, n_opt = optimizer(torch), optimizer(ng)
    t_sched = torch.optim.lr_scheduler.StepLR(t_opt, 3)
    n_sched = lr_scheduler.StepLR(n_opt, 3)
    assert [g["initial_lr"] for g in n_opt.param_groups] == [g["initial_lr"]
                                                             for g in t_opt.param_groups]
    assert n_sched.last_epoch == t_sched.last_epoch == 0
    assert n_sched.base_lrs == t_sched.base_lrs


ERRORS = [
    lambda m, o: m.optim.lr_scheduler.StepLR("not an optimizer", 3),
    lambda m, o: m.optim.lr_scheduler.StepLR(o, 3, last_epoch=4),
    lambda m, o: m.optim.lr_scheduler.LambdaLR(o, [lambda e: 1.0]),
    lambda m, o: m.optim.lr_scheduler.MultiplicativeLR(o, 0.5),
    lambda m, o: m.optim.lr_scheduler.ConstantLR(o, factor=1.5),
    lambda m, o: m.optim.lr_scheduler.LinearLR(o, start_factor=0),
    lambda m, o: m.optim.lr_scheduler.LinearLR(o, end_factor=2),
    lambda m, o: m.optim.lr_scheduler.ReduceLROnPlateau(o, factor=1.0),
    lambda m, o: m.optim.lr_scheduler.ReduceLROnPlateau(o, mode="up"),
    lambda m, o: m.optim.lr_scheduler.ReduceLROnPlateau(o, threshold_mode="ratio"),
    lambda m, o: m.optim.lr_scheduler.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda m, o: m.optim.lr_scheduler.CyclicLR(o, 0.1, 1.0, mode="square"),
    lambda m, o: m.optim.lr_scheduler.CyclicLR(o, [0.1], 1.0),
    lambda m, o: m.optim.lr_scheduler.CyclicLR(m.optim.Adagrad(o.param_groups[0]["params"]),
                                               0.1, 1.0),
    lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, 0.1),
    lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=0),
    lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, 0.1, epochs=2, steps_per_epoch=0),
    lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=5, pct_start=1),
    lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=5, anneal_strategy="x"),
    lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"),
    lambda m, o: m.optim.lr_scheduler.SequentialLR(o, [], []),
    lambda m, o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.StepLR(o, 2)], [3]),
    lambda m, o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.ReduceLROnPlateau(o)], []),
    lambda m, o: m.optim.lr_scheduler.ChainedScheduler([]),
    lambda m, o: m.optim.lr_scheduler.ChainedScheduler([m.optim.lr_scheduler.StepLR(o, 2), 3]),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index):
    make = ERRORS[index]
    with pytest.raises(Exception) as t_err:
        make(torch, optimizer(torch))
    with pytest.raises(Exception) as n_err:
        make(ng, optimizer(ng))
    assert type(n_err.value) is type(t_err.value)
    assert str(n_err.value) == str(t_err.value)


def test_one_cycle_refuses_a_step_past_its_end():
    opt = optimizer(ng)
    scheduler = lr_scheduler.OneCycleLR(opt, 0.1, total_steps=3)
    for _ in range(3):
        opt.step()
        scheduler.step()
    with pytest.raises(ValueError, match="Tried to step 4 times"):
        scheduler.step()


def test_warm_restarts_with_fractional_epochs_match_torch():
    def run(lib):
        opt = optimizer(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        out = []
        for epoch in np.arange(0, 20, 0.25):
            opt.step()
            scheduler.step(float(epoch))
            out.append(scheduler.get_last_lr())
        return out

    np.testing.assert_allclose(np.array(run(ng)), np.array(run(torch)), rtol=1e-12, atol=1e-15)


def test_public_names_and_missing_ones():
    assert set(lr_scheduler.__all__) <= set(dir(torch.optim.lr_scheduler))
    assert ng.optim.lr_scheduler is lr_scheduler
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchLR'"):
        lr_scheduler.NoSuchLR  # noqa: B018
