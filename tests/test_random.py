"""Randomness with PyTorch's API: ``Generator``, seeding, ``generator=`` on every random
function, the distributions (``normal``'s four forms, ``bernoulli``, ``multinomial``,
``poisson``) and the in-place fills (``normal_``, ``uniform_``, ...).

The numbers are not PyTorch's (NumPy's PCG64), so values are checked statistically: means
and standard deviations of large samples within a tolerance computed from n (a fixed seed,
so they cannot flake); shapes, dtypes, grad_fn names, gradients and errors against torch.
"""

import math

import numpy as np
import pytest
from parity import check, check_error, normalise, outcome, torch

import nbgrad as ng
from nbgrad import nn

SEED = 20261202


def values(t):
    return np.asarray(t.detach()._data, dtype=np.float64)


def assert_moments(t, mean, std, sigmas=5.0):
    """Sample mean and std within ``sigmas`` standard errors of the distribution's."""
    v = values(t).ravel()
    n = v.size
    assert abs(v.mean() - mean) <= sigmas * std / math.sqrt(n), (v.mean(), mean)
    # the standard error of a sample std is about std / sqrt(2n) (normal data; a wider
    # margin covers the heavier tails of the others)
    assert abs(v.std() - std) <= 2 * sigmas * std / math.sqrt(2 * n), (v.std(), std)


# -- Generator and seeding ------------------------------------------------------------------
def test_a_fresh_generator_has_pytorchs_default_seed_and_device():
    check(lambda M: M.Generator().initial_seed())
    check(lambda M: str(M.Generator().device))
    check(lambda M: str(M.Generator("cpu").device))
    assert ng.Generator().device == ng.device("cpu")


def test_the_default_generator_starts_from_the_same_fixed_seed():
    # PyTorch seeds its default generator from the OS; nbgrad from a fresh Generator's seed
    import subprocess
    import sys
    code = "import nbgrad; print(nbgrad.initial_seed(), nbgrad.rand(1).item())"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout for _ in range(2)}
    assert len(runs) == 1 and runs.pop().split()[0] == "67280421310721"


def test_manual_seed_returns_the_default_generator_and_reseeds_it():
    g = ng.manual_seed(3)
    assert g is ng.default_generator and ng.initial_seed() == 3
    a = ng.rand(5)
    ng.manual_seed(3)
    assert ng.equal(a, ng.rand(5))
    assert type(torch.manual_seed(3)).__name__ == type(g).__name__ == "Generator"


@pytest.mark.parametrize("seed", [-1, 2 ** 64 - 1, 0, "7", 1.7])
def test_seeds_are_taken_as_pytorch_takes_them(seed):
    check(lambda M: M.manual_seed(seed).initial_seed())


@pytest.mark.parametrize("seed", [2 ** 64, -2 ** 63 - 1, "a"])
def test_seeds_pytorch_refuses(seed):
    check_error(lambda M: M.manual_seed(seed))


@pytest.mark.parametrize("seed", [1.5, "3"])
def test_generator_manual_seed_takes_only_ints(seed):
    check_error(lambda M: M.Generator().manual_seed(seed))


def test_generator_manual_seed_returns_the_generator():
    g = ng.Generator()
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    check(lambda M: M.Generator().manual_seed(-1).initial_seed())


def test_seed_is_non_deterministic_and_becomes_the_initial_seed():
    s = ng.seed()
    assert s == ng.initial_seed() and 0 <= s < 2 ** 64
    assert ng.Generator().seed() != ng.Generator().seed()


def test_generators_are_independent_and_reproducible():
    g1, g2 = ng.Generator().manual_seed(SEED), ng.Generator().manual_seed(SEED)
    a = ng.randn(4, generator=g1)
    ng.randn(100)  # the default generator moves; g2 does not
    assert ng.equal(a, ng.randn(4, generator=g2))
    assert not ng.equal(ng.randn(4, generator=g1), a)


def test_get_state_and_set_state_restore_the_stream_and_the_seed():
    g = ng.Generator().manual_seed(11)
    ng.rand(3, generator=g)
    state = g.get_state()
    assert state.dtype == ng.uint8 and state.shape == (56,)
    after = ng.rand(7, generator=g)
    other = ng.Generator().manual_seed(99)
    other.set_state(state)
    assert other.initial_seed() == 11 and ng.equal(ng.rand(7, generator=other), after)
    ng.randn(3, generator=g)  # a cached normal draw is part of the state too
    state = g.get_state()
    assert ng.equal(ng.randn(5, generator=g), ng.randn(5, generator=g.set_state(state)))


def test_get_rng_state_and_set_rng_state_of_the_default_generator():
    ng.manual_seed(4)
    state = ng.get_rng_state()
    a = ng.randn(6)
    assert ng.set_rng_state(state) is None
    assert ng.equal(ng.randn(6), a)


def test_set_state_refuses_what_is_not_a_state():
    check_error(lambda M: M.Generator().set_state(M.zeros(3)))
    check_error(lambda M: M.Generator().set_state([1, 2]), key="expected a")
    check_error(lambda M: M.Generator().set_state(M.zeros(3, dtype=M.uint8)),
                key="but found the input RNG state size to be 3")


def test_fork_rng_restores_the_default_generator():
    ng.manual_seed(8)
    with ng.random.fork_rng():
        ng.manual_seed(1)
        ng.rand(10)
    after = ng.rand(3)
    ng.manual_seed(8)
    assert ng.equal(after, ng.rand(3))
    with ng.random.fork_rng(enabled=False):
        ng.rand(1)
    assert not ng.equal(ng.rand(3), after)


def test_generator_must_be_a_generator():
    check_error(lambda M: M.rand(3, generator=3), key="")
    with pytest.raises(TypeError, match="must be nbgrad.Generator, not int"):
        ng.rand(3, generator=3)


# -- manual_seed and generator= reach every random function ---------------------------------
SAMPLERS = {
    "rand": lambda M, **g: M.rand(3, 2, **g),
    "randn": lambda M, **g: M.randn(3, 2, **g),
    "randint": lambda M, **g: M.randint(0, 100, (6,), **g),
    "randperm": lambda M, **g: M.randperm(8, **g),
    "rand_like": lambda M, **g: M.rand_like(M.ones(4), **g),
    "randn_like": lambda M, **g: M.randn_like(M.ones(4), **g),
    "randint_like": lambda M, **g: M.randint_like(M.ones(4), 10, **g),
    "normal_tt": lambda M, **g: M.normal(M.zeros(4), M.ones(4), **g),
    "normal_tf": lambda M, **g: M.normal(M.zeros(4), 2.0, **g),
    "normal_ft": lambda M, **g: M.normal(1.0, M.ones(4), **g),
    "normal_ff": lambda M, **g: M.normal(0.0, 1.0, (4,), **g),
    "bernoulli": lambda M, **g: M.bernoulli(M.full((8,), 0.5), **g),
    "bernoulli_p": lambda M, **g: M.bernoulli(M.ones(8), 0.5, **g),
    "multinomial": lambda M, **g: M.multinomial(M.ones(2, 5), 3, **g),
    "multinomial_r": lambda M, **g: M.multinomial(M.ones(5), 6, True, **g),
    "poisson": lambda M, **g: M.poisson(M.full((6,), 3.0), **g),
    "normal_": lambda M, **g: M.zeros(5).normal_(**g),
    "uniform_": lambda M, **g: M.zeros(5).uniform_(**g),
    "bernoulli_": lambda M, **g: M.zeros(8).bernoulli_(0.5, **g),
    "bernoulli_tensor": lambda M, **g: M.zeros(8).bernoulli_(M.full((8,), 0.5), **g),
    "random_": lambda M, **g: M.zeros(5).random_(**g),
    "random_to": lambda M, **g: M.zeros(5).random_(100, **g),
    "exponential_": lambda M, **g: M.zeros(5).exponential_(**g),
    "cauchy_": lambda M, **g: M.zeros(5).cauchy_(**g),
    "log_normal_": lambda M, **g: M.zeros(5).log_normal_(**g),
    "geometric_": lambda M, **g: M.zeros(5).geometric_(0.3, **g),
}
INITS = {
    "init.uniform_": lambda M, **g: M.nn.init.uniform_(M.empty(4, 3), **g),
    "init.normal_": lambda M, **g: M.nn.init.normal_(M.empty(4, 3), **g),
    "init.trunc_normal_": lambda M, **g: M.nn.init.trunc_normal_(M.empty(4, 3), **g),
    "init.xavier_uniform_": lambda M, **g: M.nn.init.xavier_uniform_(M.empty(4, 3), **g),
    "init.xavier_normal_": lambda M, **g: M.nn.init.xavier_normal_(M.empty(4, 3), **g),
    "init.kaiming_uniform_": lambda M, **g: M.nn.init.kaiming_uniform_(M.empty(4, 3), **g),
    "init.kaiming_normal_": lambda M, **g: M.nn.init.kaiming_normal_(M.empty(4, 3), **g),
    "init.orthogonal_": lambda M, **g: M.nn.init.orthogonal_(M.empty(4, 3), **g),
    "init.sparse_": lambda M, **g: M.nn.init.sparse_(M.empty(4, 3), 0.5, **g),
}
EVERY = {**SAMPLERS, **INITS}


@pytest.mark.parametrize("name", EVERY)
def test_the_same_seed_gives_the_same_numbers(name):
    draw = EVERY[name]
    ng.manual_seed(SEED)
    first = draw(ng)
    ng.manual_seed(SEED)
    assert ng.equal(draw(ng), first)
    ng.manual_seed(SEED + 1)
    assert not ng.equal(draw(ng), first)  # the seed matters: the test could fail


@pytest.mark.parametrize("name", EVERY)
def test_generator_keyword_gives_the_generators_numbers(name):
    draw = EVERY[name]
    first = draw(ng, generator=ng.Generator().manual_seed(SEED))
    ng.manual_seed(0)
    assert ng.equal(draw(ng, generator=ng.Generator().manual_seed(SEED)), first)
    with ng.random.fork_rng():
        state = ng.get_rng_state()
        draw(ng, generator=ng.Generator())
        assert ng.equal(ng.get_rng_state(), state)  # the default generator was not used


@pytest.mark.parametrize("name", SAMPLERS)
def test_samplers_take_generator_as_torch_does(name):
    """Shape and dtype as torch's, with a generator given."""
    def program(M):
        t = SAMPLERS[name](M, generator=M.Generator())
        return t.shape, t.dtype
    check(program)


# -- rand, randn, randint, randperm: size=, shapes, dtypes ----------------------------------
@pytest.mark.parametrize("program", [
    lambda M: M.rand(size=(2, 3)).shape,
    lambda M: M.randn(size=[4]).shape,
    lambda M: M.rand(size=()).shape,
    lambda M: M.randn(0, 3).shape,
    lambda M: M.rand(2, 3, dtype=M.float64).dtype,
    lambda M: M.randint(high=10, size=(3,)).dtype,
    lambda M: M.randint(3, 10, size=(3,)).shape,
    lambda M: M.randint(10, (3,), dtype=M.float32).dtype,
    lambda M: M.randint_like(M.ones(2, 2), 2, 5).dtype,
    lambda M: M.randint_like(M.ones(2, dtype=M.int32), 5).dtype,
    lambda M: M.randn_like(M.ones(2, dtype=M.float64)).dtype,
    lambda M: M.rand(3, requires_grad=True).requires_grad,
])
def test_creation_keywords_as_torch(program):
    check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.rand(size=3),
    lambda M: M.randn(3, dtype=M.int64),
    lambda M: M.rand(2, dtype=M.int32),
    lambda M: M.randint(5, 2, (3,)),
    lambda M: M.randperm(2.5),
])
def test_creation_errors_as_torch(program):
    check_error(program)


def test_rand_with_sizes_and_size_refuses():
    check_error(lambda M: M.rand(2, size=(3,)), key="rand() received an invalid combination")
    check_error(lambda M: M.randint(5), key="")  # a TypeError
    check_error(lambda M: M.rand(), key="rand() received an invalid combination of arguments - got ()")
    check_error(lambda M: M.randn(), key="randn() received an invalid combination of arguments - got ()")


def test_randint_and_randperm_values():
    ng.manual_seed(SEED)
    v = values(ng.randint(-3, 4, (20000,)))
    assert v.min() == -3 and v.max() == 3 and set(np.unique(v)) == set(range(-3, 4))
    assert sorted(values(ng.randperm(50))) == list(range(50))
    assert_moments(ng.rand(40000), 0.5, math.sqrt(1 / 12))
    assert_moments(ng.randn(40000, dtype=ng.float64), 0.0, 1.0)


# -- normal ---------------------------------------------------------------------------------
def test_normal_tensor_tensor_broadcasts_and_records_normalbackward3():
    def program(M):
        mean = M.zeros(3, 1, requires_grad=True)
        std = M.ones(1, 4, requires_grad=True)
        y = M.normal(mean, std)
        y.sum().backward()
        return y.shape, y.dtype, type(y.grad_fn).__name__, mean.grad, std.grad
    check(program)


@pytest.mark.parametrize("form, node", [
    (lambda M, m, s: M.normal(m, 2.0), "NormalBackward1"),
    (lambda M, m, s: M.normal(1.0, s), "NormalBackward2"),
    (lambda M, m, s: M.normal(mean=m, std=s), "NormalBackward3"),
])
def test_normal_tensor_forms_give_zero_gradients(form, node):
    def program(M):
        m = M.zeros(2, 3, dtype=M.float64, requires_grad=True)
        s = M.ones(2, 3, dtype=M.float64, requires_grad=True)
        y = form(M, m, s)
        (y * y).sum().backward()
        return type(y.grad_fn).__name__, y.dtype, y.shape, m.grad, s.grad
    _, got = check(program)
    assert got[0] == node


def test_normal_numbers_form_makes_a_leaf():
    def program(M):
        t = M.normal(0.0, 1.0, size=(2, 3), dtype=M.float64, requires_grad=True)
        return t.shape, t.dtype, t.requires_grad, t.is_leaf
    check(program)
    check(lambda M: M.normal(0, 1, (3,)).dtype)


@pytest.mark.parametrize("program", [
    lambda M: M.normal(M.zeros(3), M.ones(4)),
    lambda M: M.normal(M.zeros(3), -1.0),
    lambda M: M.normal(0.0, -M.ones(3)),
    lambda M: M.normal(0.0, -1.0, (3,)),
    lambda M: M.normal(M.zeros(3), M.tensor([1.0, -1.0, 1.0])),
    lambda M: M.normal(M.zeros(3, dtype=M.int64), 1.0),
])
def test_normal_errors_as_torch(program):
    check_error(program)


@pytest.mark.parametrize("program", [lambda M: M.normal(0.0, 1.0),
                                     lambda M: M.normal(M.zeros(2), 1.0, (3,))])
def test_normal_refuses_a_wrong_combination(program):
    check_error(program, key="normal() received an invalid combination of arguments")


def test_normal_promotes_the_parameters_dtypes():
    check(lambda M: M.normal(M.zeros(3, dtype=M.float64), M.ones(3)).dtype)
    check(lambda M: M.normal(M.zeros(3), M.ones(3, dtype=M.float64)).dtype)


def test_normal_moments():
    ng.manual_seed(SEED)
    assert_moments(ng.normal(3.0, 2.0, (50000,)), 3.0, 2.0)
    mean = ng.full((50000,), -1.0)
    assert_moments(ng.normal(mean, 0.5), -1.0, 0.5)
    assert_moments(ng.normal(2.0, ng.full((50000,), 3.0)), 2.0, 3.0)
    assert_moments(ng.zeros(50000).normal_(1.0, 4.0), 1.0, 4.0)


def test_normal_on_a_non_contiguous_and_an_empty_mean():
    base = ng.zeros(4, 6)
    m = base.t()[::2]
    check(lambda M: M.normal(M.zeros(4, 6).t()[::2], 1.0).shape)
    assert ng.normal(m, 1.0).shape == (3, 4)
    check(lambda M: M.normal(M.zeros(0, 2), M.ones(0, 2)).shape)
    check(lambda M: M.normal(M.zeros(()), 1.0).shape)


# -- bernoulli, multinomial, poisson --------------------------------------------------------
def test_bernoulli_gives_zero_gradient_and_its_node():
    def program(M):
        p = M.full((3, 2), 0.5, dtype=M.float64, requires_grad=True)
        y = M.bernoulli(p)
        y.sum().backward()
        return type(y.grad_fn).__name__, y.dtype, y.shape, p.grad
    check(program)


def test_bernoulli_with_p_records_no_derivative():
    def program(M):
        x = M.ones(3, requires_grad=True)
        y = M.bernoulli(x, 0.3)
        return type(y.grad_fn).__name__, y.requires_grad, y.dtype
    check(program)
    check_error(lambda M: M.bernoulli(M.ones(3, requires_grad=True), 0.3).sum().backward())


@pytest.mark.parametrize("program", [
    lambda M: M.bernoulli(M.tensor([0.5]), 1.5),
    lambda M: M.bernoulli(M.tensor([1, 0])),
    lambda M: M.bernoulli([0.5]),
])
def test_bernoulli_errors_as_torch(program):
    check_error(program)


P_IN = "Expected p_in >= 0 && p_in <= 1 to be true, but got false."


def test_bernoulli_refuses_probabilities_outside_0_1():
    check_error(lambda M: M.bernoulli(M.tensor([0.5, 1.5])), key=P_IN)
    check_error(lambda M: M.bernoulli(M.tensor([-0.5, 0.5])), key=P_IN)


def test_bernoulli_frequencies():
    ng.manual_seed(SEED)
    p = ng.tensor([0.0, 0.2, 0.7, 1.0]).expand(20000, 4)
    freq = values(ng.bernoulli(p)).mean(axis=0)
    assert freq[0] == 0 and freq[3] == 1
    for f, q in zip(freq[1:3], (0.2, 0.7)):
        assert abs(f - q) <= 5 * math.sqrt(q * (1 - q) / 20000)
    assert abs(values(ng.ones(20000).bernoulli(0.3)).mean() - 0.3) <= 5 * math.sqrt(0.21 / 20000)


@pytest.mark.parametrize("program", [
    lambda M: M.multinomial(M.tensor([0.1, 0.0, 0.9]), 2).shape,
    lambda M: M.multinomial(M.tensor([0.1, 0.0, 0.9]), 4, True).shape,
    lambda M: M.multinomial(M.ones(2, 3, requires_grad=True), 2).requires_grad,
    lambda M: M.multinomial(M.zeros(0, 3), 2).shape,
    lambda M: M.ones(3).multinomial(2).dtype,
    lambda M: M.multinomial(M.tensor([1.0, 2.0, 3.0]), 3).sort()[0] if hasattr(M.Tensor, "sort")
    else M.tensor([0, 1, 2]),
])
def test_multinomial_as_torch(program):
    check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.multinomial(M.tensor([0.1, 0.0, 0.9]), 4),
    lambda M: M.multinomial(M.ones(3), 0),
    lambda M: M.multinomial(M.ones(3), -1),
    lambda M: M.multinomial(M.ones(2, 2, 2), 1),
    lambda M: M.multinomial(M.tensor(1.0), 1),
    lambda M: M.multinomial(M.tensor([-1.0, 2.0]), 1),
    lambda M: M.multinomial(M.tensor([0.0, 0.0]), 1),
    lambda M: M.multinomial(M.tensor([float("nan"), 1.0]), 1),
    lambda M: M.multinomial(M.tensor([float("inf"), 1.0]), 1, True),
    lambda M: M.multinomial(M.tensor([1, 2]), 1),
    lambda M: M.multinomial(M.ones(3), 2.0),
    lambda M: M.multinomial(M.ones(2, 2, 2, dtype=M.int64), 5),
    lambda M: M.multinomial(M.ones(2, 2, dtype=M.int64), 0),
    lambda M: M.multinomial(-M.ones(2), 5),
    lambda M: M.multinomial(M.ones(2 ** 24 + 1), 1),
])
def test_multinomial_errors_as_torch(program):
    check_error(program)


def test_multinomial_without_replacement_draws_distinct_categories():
    ng.manual_seed(SEED)
    w = ng.rand(50, 10) * (ng.rand(50, 10) > 0.3)
    w[:, 0] = 1.0  # every row has weight somewhere
    picks = values(ng.multinomial(w, 3)).astype(int)
    nonzero = (values(w) > 0).sum(axis=1)
    for row, k, ws in zip(picks, nonzero, values(w)):
        assert len(set(row)) == 3
        assert all(ws[i] > 0 for i in row[:min(3, k)])  # weight zero only once the rest is used
    full = values(ng.multinomial(ng.ones(7), 7)).astype(int)
    assert sorted(full) == list(range(7))


def test_multinomial_frequencies():
    ng.manual_seed(SEED)
    weights = np.array([1.0, 0.0, 3.0, 6.0])
    n = 30000
    for picks in (ng.multinomial(ng.tensor(weights), n, replacement=True),
                  ng.multinomial(ng.tensor(weights).expand(n, 4).contiguous(), 1).view(-1)):
        counts = np.bincount(values(picks).astype(int), minlength=4) / n
        q = weights / weights.sum()
        assert counts[1] == 0
        assert np.all(np.abs(counts - q) <= 5 * np.sqrt(q * (1 - q) / n))


def test_multinomial_first_draw_without_replacement_follows_the_weights():
    ng.manual_seed(SEED)
    n = 20000
    w = ng.tensor([[1.0, 2.0, 7.0]]).expand(n, 3).contiguous()
    second = values(ng.multinomial(w, 2)[:, 1]).astype(int)
    # P(second = 0) = P(1 first) * 1/8 + P(2 first) * 1/3
    p0 = 0.2 * (1 / 8) + 0.7 * (1 / 3)
    assert abs((second == 0).mean() - p0) <= 5 * math.sqrt(p0 * (1 - p0) / n)


def test_poisson_as_torch():
    def program(M):
        rates = M.full((4,), 2.0, requires_grad=True)
        y = M.poisson(rates)
        y.sum().backward()
        return type(y.grad_fn).__name__, y.dtype, rates.grad
    check(program)
    check_error(lambda M: M.poisson(-M.ones(3)))
    check_error(lambda M: M.poisson(M.ones(3, dtype=M.int64)))
    ng.manual_seed(SEED)
    assert_moments(ng.poisson(ng.full((40000,), 4.0)), 4.0, 2.0)


# -- the in-place fills ---------------------------------------------------------------------
FILLS = [
    ("normal_", (), "NormalBackward0"),
    ("uniform_", (-1.0, 1.0), "UniformBackward0"),
    ("bernoulli_", (0.3,), "BernoulliBackward2"),
    ("random_", (), "RandomBackward2"),
    ("random_", (7,), "RandomBackward1"),
    ("random_", (2, 7), "RandomBackward0"),
    ("exponential_", (2.0,), "ExponentialBackward0"),
    ("cauchy_", (), "CauchyBackward0"),
    ("log_normal_", (), "LogNormalBackward0"),
    ("geometric_", (0.5,), "GeometricBackward0"),
]


@pytest.mark.parametrize("name, args, node", FILLS, ids=[f"{n}{a}" for n, a, _ in FILLS])
def test_fills_follow_the_inplace_rules(name, args, node):
    def program(M):
        x = M.ones(2, 3, dtype=M.float64, requires_grad=True)
        y = x * 2
        version = y._version
        out = getattr(y, name)(*args)
        (y * 3).sum().backward()
        return out is y, y._version - version, type(y.grad_fn).__name__, x.grad
    _, got = check(program)
    assert got[2] == node
    check_error(lambda M: getattr(M.ones(3, requires_grad=True), name)(*args))


def test_bernoulli_with_a_tensor_p_gives_p_a_zero_gradient():
    def program(M):
        p = M.full((3,), 0.5, requires_grad=True)
        y = M.zeros(2, 3).bernoulli_(p)
        y.sum().backward()
        return type(y.grad_fn).__name__, p.grad
    check(program)
    check_error(lambda M: M.zeros(3).bernoulli_(M.tensor([0.5, 0.5])))
    check_error(lambda M: M.zeros(3).bernoulli_(M.tensor([2.0, 0.0, 0.0])), key=P_IN)


def test_fills_under_no_grad_and_on_views():
    x = ng.ones(4, requires_grad=True)
    with ng.no_grad():
        x.normal_()
    assert x._version == 1 and x.is_leaf and x.requires_grad
    base = ng.zeros(4, 5)
    view = base[:, 1]
    view.uniform_(5.0, 6.0)
    v = values(base)
    assert (v[:, 1] >= 5).all() and (v[:, [0, 2, 3, 4]] == 0).all()
    t = ng.zeros(3, 4).t()  # non-contiguous
    t.normal_()
    assert (values(t) != 0).all()


@pytest.mark.parametrize("program", [
    lambda M: M.zeros(3, dtype=M.int64).normal_(),
    lambda M: M.zeros(3, dtype=M.bool).uniform_(),
    lambda M: M.zeros(3, dtype=M.int64).exponential_(),
    lambda M: M.zeros(3, dtype=M.int64).cauchy_(),
    lambda M: M.zeros(3, dtype=M.int32).log_normal_(),
    lambda M: M.zeros(3, dtype=M.bool).geometric_(0.5),
    lambda M: M.zeros(3).normal_(0, -1),
    lambda M: M.zeros(3).uniform_(2, 1),
    lambda M: M.zeros(3).uniform_(0, float("inf")),
    lambda M: M.zeros(3).exponential_(-1),
    lambda M: M.zeros(3).exponential_(0),
    lambda M: M.zeros(3).geometric_(0),
    lambda M: M.zeros(3).geometric_(1.5),
    lambda M: M.zeros(3).cauchy_(0, -1),
    lambda M: M.zeros(3).log_normal_(0, -1),
    lambda M: M.zeros(3).random_(5, 2),
    lambda M: M.zeros(3).random_(-1),
    lambda M: M.zeros(3, dtype=M.uint8).random_(300),
    lambda M: M.zeros(3).bernoulli_(1.5),
])
def test_fill_errors_as_torch(program):
    check_error(program)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "bool", "float16", "float32",
                                   "float64"])
def test_random_fills_the_dtypes_range(dtype):
    ng.manual_seed(SEED)
    t = ng.zeros(20000, dtype=getattr(ng, dtype)).random_()
    v = values(t)
    assert t.dtype == getattr(ng, dtype)
    high = {"bool": 1, "uint8": 255, "int32": 2 ** 31 - 1, "int64": 2 ** 63 - 1,
            "float16": 2 ** 11, "float32": 2 ** 24, "float64": 2 ** 53}[dtype]
    assert v.min() >= 0 and v.max() <= high and v.max() > high / 2
    assert (v == np.round(v)).all()


def test_random_bounds_and_keyword_forms():
    ng.manual_seed(SEED)
    v = values(ng.zeros(10000).random_(3, 6))
    assert set(np.unique(v)) == {3, 4, 5}
    assert set(np.unique(values(ng.zeros(10000).random_(to=4)))) == {0, 1, 2, 3}
    v = values(ng.zeros(1000, dtype=ng.uint8).random_(250, None))
    assert v.min() >= 250 and v.max() <= 255


def test_fill_moments():
    ng.manual_seed(SEED)
    n = 50000
    assert_moments(ng.zeros(n).uniform_(2.0, 5.0), 3.5, 3 / math.sqrt(12))
    assert_moments(ng.zeros(n, dtype=ng.float64).exponential_(4.0), 0.25, 0.25)
    assert_moments(ng.zeros(n).geometric_(0.25), 4.0, math.sqrt(0.75) / 0.25)
    assert_moments(ng.zeros(n).bernoulli_(0.3), 0.3, math.sqrt(0.21))
    logs = ng.zeros(n, dtype=ng.float64).log_normal_(0.5, 0.25).log()
    assert_moments(logs, 0.5, 0.25)
    c = values(ng.zeros(n).cauchy_(1.0, 2.0))
    assert abs(np.median(c) - 1.0) < 0.1 and abs(np.percentile(c, 75) - 3.0) < 0.15
    assert values(ng.zeros(n).geometric_(0.5)).min() == 1


# -- nn.init --------------------------------------------------------------------------------
def test_init_refuses_a_generator_of_another_kind():
    with pytest.raises(TypeError, match="must be nbgrad.Generator"):
        nn.init.normal_(ng.empty(3), generator=np.random.default_rng(0))


def test_trunc_normal_stays_within_its_bounds():
    ng.manual_seed(SEED)
    w = nn.init.trunc_normal_(ng.empty(200, 100), mean=0.5, std=1.0, a=-0.5, b=1.0)
    v = values(w)
    assert v.min() >= -0.5 and v.max() <= 1.0 and abs(v.mean() - 0.3) < 0.1
    check(lambda M: M.nn.init.trunc_normal_(M.empty(2, 3)).shape)
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        nn.init.trunc_normal_(ng.empty(10), mean=5.0, std=1.0, a=-2.0, b=2.5)


def test_init_scales_from_the_generator():
    ng.manual_seed(SEED)
    w = nn.init.kaiming_normal_(ng.empty(400, 250), generator=ng.Generator().manual_seed(1))
    assert_moments(w, 0.0, math.sqrt(2.0 / 250))


# -- randomised: every fill keeps shape, dtype and storage, and stays in its support ---------
SUPPORT = {
    "normal_": ((), lambda v: np.isfinite(v).all()),
    "uniform_": ((-2.0, 3.0), lambda v: ((v >= -2) & (v <= 3)).all()),
    "bernoulli_": ((0.4,), lambda v: np.isin(v, (0, 1)).all()),
    "random_": ((1, 9), lambda v: np.isin(v, range(1, 9)).all()),
    "exponential_": ((3.0,), lambda v: (v >= 0).all()),
    "cauchy_": ((), lambda v: not np.isnan(v).any()),
    "log_normal_": ((0.0, 0.5), lambda v: (v > 0).all()),
    "geometric_": ((0.4,), lambda v: ((v >= 1) & (v == np.round(v))).all()),
}


@pytest.mark.parametrize("case", range(12))
def test_fills_on_random_shapes_and_layouts(case):
    rng = np.random.default_rng(case)
    shape = tuple(int(s) for s in rng.integers(0, 5, rng.integers(0, 4)))
    dtype = [ng.float32, ng.float64][case % 2]
    for name, (args, in_support) in SUPPORT.items():
        base = ng.zeros(*shape, 2, dtype=dtype)
        t = base[..., 1] if case % 3 else base.transpose(0, -1) if base.dim() > 1 else base
        out = getattr(t, name)(*args)
        assert out is t and t.dtype == dtype and t._version == 1
        assert in_support(values(t)), name
        if case % 3:
            assert (values(base)[..., 0] == 0).all()  # only the view was written


# -- devices: the numbers are drawn on the CPU, so a seed gives the same ones everywhere -----
ON_DEVICE = {
    "rand": lambda d, g: ng.rand(3, 2, device=d, generator=g),
    "randn": lambda d, g: ng.randn(4, device=d, generator=g),
    "randint": lambda d, g: ng.randint(0, 9, (5,), device=d, generator=g),
    "randperm": lambda d, g: ng.randperm(6, device=d, generator=g),
    "rand_like": lambda d, g: ng.rand_like(ng.ones(3, device=d), generator=g),
    "normal_tf": lambda d, g: ng.normal(ng.zeros(4, device=d), 2.0, generator=g),
    "normal_tt": lambda d, g: ng.normal(ng.zeros(4, device=d), ng.ones(4, device=d),
                                        generator=g),
    "normal_ff": lambda d, g: ng.normal(0.0, 1.0, (4,), device=d, generator=g),
    "bernoulli": lambda d, g: ng.bernoulli(ng.full((8,), 0.5, device=d), generator=g),
    "multinomial": lambda d, g: ng.multinomial(ng.ones(2, 5, device=d), 3, generator=g),
    "poisson": lambda d, g: ng.poisson(ng.full((4,), 2.0, device=d), generator=g),
    "normal_": lambda d, g: ng.zeros(4, device=d).normal_(generator=g),
    "uniform_": lambda d, g: ng.zeros(4, device=d).uniform_(generator=g),
    "random_": lambda d, g: ng.zeros(4, device=d).random_(10, generator=g),
    "bernoulli_": lambda d, g: ng.zeros(8, device=d).bernoulli_(
        ng.full((8,), 0.5, device=d), generator=g),
    "init.kaiming_uniform_": lambda d, g: nn.init.kaiming_uniform_(ng.empty(3, 4, device=d),
                                                                   generator=g),
}


@pytest.mark.parametrize("name", ON_DEVICE)
def test_random_functions_on_each_device(name, device):
    draw = ON_DEVICE[name]
    out = draw(device, ng.Generator(device).manual_seed(SEED))
    assert out.device.type == device
    assert ng.equal(out.cpu(), draw("cpu", ng.Generator().manual_seed(SEED)))
    ng.manual_seed(SEED)
    first = draw(device, None)
    ng.manual_seed(SEED)
    assert ng.equal(first, draw(device, None))  # the default generator serves every device


def test_a_generator_of_another_device_is_refused(device):
    if device == "cpu":
        pytest.skip("needs a second device type")
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but "
                                           "found 'cpu'"):
        ng.rand(3, device=device, generator=ng.Generator())
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but "
                                           "found 'cuda'"):
        ng.rand(3, generator=ng.Generator(device))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (2, 3, 2)])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape):
    ng.manual_seed(SEED)
    w = values(nn.init.orthogonal_(ng.empty(*shape, dtype=ng.float64), gain=2.0))
    m = w.reshape(shape[0], -1) / 2.0
    small = min(m.shape)
    gram = m @ m.T if m.shape[0] == small else m.T @ m
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-12)


def test_sparse_zeroes_a_fraction_of_each_column():
    ng.manual_seed(SEED)
    w = values(nn.init.sparse_(ng.empty(10, 6), sparsity=0.25, std=0.5))
    assert ((w == 0).sum(axis=0) == 3).all()
    assert_moments(ng.tensor(w[w != 0]), 0.0, 0.5, sigmas=6)


@pytest.mark.parametrize("program", [
    lambda M: M.nn.init.orthogonal_(M.empty(3)),
    lambda M: M.nn.init.sparse_(M.empty(3, 2, 2), 0.1),
    lambda M: M.nn.init.sparse_(M.empty(3), 0.1),
])
def test_init_shape_errors_as_torch(program):
    check_error(program)


def test_orthogonal_of_an_empty_tensor_is_a_no_op():
    check(lambda M: M.nn.init.orthogonal_(M.empty(0, 3)).shape)


# -- arguments of the wrong type: PyTorch's TypeError, never NumPy's ------------------------
@pytest.mark.parametrize("program", [
    lambda M: M.zeros(3).normal_("a"),
    lambda M: M.zeros(3).normal_(0, "b"),
    lambda M: M.zeros(3).uniform_(None),
    lambda M: M.zeros(3).exponential_("x"),
    lambda M: M.zeros(3).geometric_("x"),
    lambda M: M.zeros(3).cauchy_("x"),
    lambda M: M.zeros(3).log_normal_(1, "x"),
    lambda M: M.poisson([1.0]),
    lambda M: M.multinomial([1.0], 1),
    lambda M: M.bernoulli([0.5]),
])
def test_argument_type_errors_as_torch(program):
    check_error(program)


@pytest.mark.parametrize("program, op", [
    (lambda M: M.zeros(3).random_(1.5), "random_"),
    (lambda M: M.zeros(3).random_(1, 2.5), "random_"),
    (lambda M: M.zeros(3).bernoulli_("x"), "bernoulli_"),
    (lambda M: M.normal(M.zeros(2), "a"), "normal"),
    (lambda M: M.normal("a", M.ones(2)), "normal"),
    (lambda M: M.normal(0.0, 1.0, 3), "normal"),
    (lambda M: M.bernoulli(M.ones(2), "a"), "bernoulli"),
])
def test_no_matching_form_is_a_typeerror_as_torch(program, op):
    """The key phrase names the types given (the forms expected are listed differently)."""
    _, error = outcome(program, torch)
    key = normalise(str(error)).split(", but expected")[0]
    assert key.startswith(f"{op}() received an invalid combination of arguments - got (")
    check_error(program, key=key)


def test_fills_refuse_a_generator_that_is_not_one():
    check_error(lambda M: M.zeros(3).normal_(generator=1),
                key="normal_(): argument 'generator' must be nbgrad.Generator, not int")


@pytest.mark.parametrize("program", [
    lambda M: M.nn.init.eye_(M.empty(3, 5)),
    lambda M: M.nn.init.eye_(M.empty(4, 2, dtype=M.float64)),
    lambda M: M.nn.init.dirac_(M.empty(4, 2, 3)),
    lambda M: M.nn.init.dirac_(M.empty(4, 6, 3, 3), groups=2),
    lambda M: M.nn.init.dirac_(M.empty(2, 3, 2, 3, 4)),
])
def test_deterministic_inits_as_torch(program):
    check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.nn.init.eye_(M.empty(3)),
    lambda M: M.nn.init.dirac_(M.empty(3, 3)),
    lambda M: M.nn.init.dirac_(M.empty(3, 2, 2), groups=2),
])
def test_deterministic_init_errors_as_torch(program):
    check_error(program)
