"""PyTorch parity of values and gradients at the edges: clamp and the choosing ops,
reductions (0-d, empty, NaN/inf, no degrees of freedom), norms, the softmax family, cat
and stack (issue 15, "values").

Each rule is pinned over many cases: random inputs drawn with NaN, infinities and ties
at random positions (seeded), or a table over every op it concerns. The program runs
under torch and nbgrad (``parity.py``) and values, dtypes, gradients, errors and
warnings are compared.
"""

import itertools
import math

import numpy as np
import pytest

from parity import (assert_same, check, check_error, check_no_warning, check_warning, grad_of, leaf,
                    outcome, torch)

NAN, INF = math.nan, math.inf
FLOATS = ("float32", "float64")


def draw(rng, shape, dtype="float64", specials=0.2):
    """Values from a small set (so ties are common), with NaN and +-inf at random places."""
    values = np.asarray(rng.integers(-3, 4, size=shape) * 0.5, dtype=np.float64)
    if dtype.startswith("int"):
        return values.astype(np.int64)
    odd = rng.random(shape) < specials
    values[odd] = rng.choice([NAN, INF, -INF], size=int(np.count_nonzero(odd)))
    return values


def tensor(M, values, dtype, requires_grad=None):
    """A leaf of ``values`` in ``dtype``; floating ones require grad unless told."""
    if requires_grad is None:
        requires_grad = dtype in FLOATS
    return M.tensor(values, dtype=getattr(M, dtype), requires_grad=requires_grad)


def backward_of(M, out, rng_seed, specials=False):
    """``(out * w).sum().backward()`` with a fixed random ``w``, the gradient reaching
    ``out``: every element's gradient is checked, not only their sum. ``specials``: ``w``
    has NaN and +-inf too (a selected gradient must not leak into the other elements)."""
    rng = np.random.default_rng(rng_seed)
    shape = tuple(out.shape)
    w = draw(rng, shape) if specials else rng.standard_normal(shape)
    (out * M.tensor(w, dtype=out.dtype)).sum().backward()


# -- 1. clamp with tensor bounds ------------------------------------------------------------
# x, min and max shapes that broadcast in every direction, 0-d ones included. Each pair
# broadcasts to the whole shape: PyTorch's clamp_backward combines the pairs' masks in
# place (logical_and_), which fails when one pair's shape is smaller than the other's.
CLAMP_SHAPES = [((4,), (4,), (4,)), ((3, 1), (1, 4), (3, 4)), ((4,), (3, 1), (3, 4)),
                ((2, 3, 1), (1, 3, 4), (2, 1, 4)), ((3, 4), (3, 1), (1, 4)), ((), (3,), (3,)),
                ((3,), (), (3,)), ((2, 3), (), ()), ((3,), None, (2, 3)), ((2, 3), (3,), None),
                ((1,), (), ())]


@pytest.mark.parametrize("seed", range(40))
def test_clamp_tensor_bounds(seed):
    """Value, dtype (PyTorch's promotion of x, min, max) and the gradients of x, min and
    max, each summed back to its own shape; min > max gives max (and its gradient)."""
    rng = np.random.default_rng(seed)
    x_shape, low_shape, high_shape = CLAMP_SHAPES[seed % len(CLAMP_SHAPES)]
    dtypes = rng.choice(["float32", "float64", "int64"], size=3, p=[0.4, 0.4, 0.2])
    values = [None if shape is None else draw(rng, shape, str(d))
              for shape, d in zip((x_shape, low_shape, high_shape), dtypes)]

    def program(M):
        x, low, high = (None if v is None else tensor(M, v, str(d)) for v, d in zip(values, dtypes))
        out = M.clamp(x, low, high)
        if out.requires_grad:
            backward_of(M, out, seed)
        return out, *(None if t is None else grad_of(t) for t in (x, low, high))

    check(program)


@pytest.mark.parametrize("seed", range(20))
def test_clamp_number_bounds(seed):
    """Number bounds (and 0-d tensors, which PyTorch reads as numbers): NaN bounds give
    NaN, min > max gives max, a float bound makes an integer input float."""
    rng = np.random.default_rng(100 + seed)
    dtype = str(rng.choice(["float32", "float64", "int64"]))
    values = draw(rng, (3, 4), dtype)
    choices = [None, -1.0, 0, 1, 0.5, NAN, INF, -INF]
    low, high = (choices[i] for i in rng.integers(0, len(choices), size=2))
    if low is None and high is None:
        low = 0.5

    def program(M):
        x = tensor(M, values, dtype)
        out = x.clamp(low, high) if seed % 2 else M.clip(x, min=low, max=high)
        if out.requires_grad:
            backward_of(M, out, seed)
        return out, grad_of(x)

    check(program)


@pytest.mark.parametrize("requires_grad", [False, True])
def test_clamp_zero_dim_tensor_bound_with_a_number(requires_grad):
    """PyTorch reads a 0-d tensor as a number next to a number bound (no gradient reaches
    it), unless it requires grad: then the call is a TypeError."""
    def program(M):
        x = M.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        low = M.tensor(0.0, requires_grad=requires_grad)
        out = M.clamp(x, low, 1.0)
        out.sum().backward()
        return out, grad_of(x), type(out.grad_fn).__name__

    if requires_grad:
        check_error(program, key="received an invalid combination of arguments")
    else:
        check(program)


def test_clamp_issue_example_broadcast_input_gradient():
    def program(M):
        x = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
        M.clamp(x, M.zeros(2, 3)).sum().backward()
        return grad_of(x)

    check(program)


@pytest.mark.parametrize("call", [
    lambda M, x: M.clamp(x, min="a"),
    lambda M, x: M.clamp(x, "a"),
    lambda M, x: M.clamp(x, None, [1.0]),
    lambda M, x: x.clamp(max="b"),
    lambda M, x: x.clamp_(min="a"),
    lambda M, x: M.clamp(x, M.tensor([0.0]), 1.5),  # a 1-d tensor with a number
])
def test_clamp_bad_bound_is_pytorchs_type_error(call):
    check_error(lambda M: call(M, M.tensor([1.0, 2.0])),
                key="received an invalid combination of arguments")


@pytest.mark.parametrize("shapes", [((3,), (2,), None), ((3,), (3,), (2, 1, 4)), ((2, 1), (3,), (4, 1, 2))])
def test_clamp_bounds_that_do_not_broadcast(shapes):
    def program(M):
        x, low, high = (None if s is None else M.zeros(s) for s in shapes)
        return M.clamp(x, low, high)

    check_error(program)


@pytest.mark.parametrize("program", [
    lambda M: M.tensor([1, 2]).clamp_(M.tensor(1.5)),
    lambda M: M.tensor([1.0, 2.0]).clamp_(M.zeros(2, 2)),
])
def test_clamp_in_place_refuses_what_it_cannot_write(program):
    check_error(program)


# -- 2. max, min and the choosing ops with NaN, inf and ties --------------------------------
EXTREMES = {
    "max": lambda M, x: x.max(),
    "min": lambda M, x: M.min(x),
    "max_dim": lambda M, x: x.max(-1),
    "min_dim_keepdim": lambda M, x: M.min(x, 0, keepdim=True),
    "amax": lambda M, x: x.amax(),
    "amax_dim": lambda M, x: x.amax(1),
    "amin_dims": lambda M, x: M.amin(x, (0, 1), keepdim=True),
}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("name", EXTREMES)
def test_extremes_with_nan_inf_and_ties(name, seed):
    """A NaN is the extreme (and, for a whole-tensor max/min, takes the gradient as the
    result's equals do, PyTorch's evenly_distribute_backward); max(dim) gives it to the
    returned index only; amax/amin share it among ties (NaN then spreads, as in PyTorch)."""
    rng = np.random.default_rng(200 + seed)
    values = draw(rng, (3, 4), specials=0.15 if seed % 3 else 0.0)

    def program(M):
        x = tensor(M, values, "float64")
        out = EXTREMES[name](M, x)
        outs = tuple(out) if isinstance(out, tuple) else (out,)
        backward_of(M, outs[0], seed, specials=seed % 2 == 1)
        return outs, grad_of(x)

    check(program)


@pytest.mark.parametrize("seed", range(24))
@pytest.mark.parametrize("name", ["maximum", "minimum", "max_other", "min_other"])
def test_maximum_minimum_with_nan_inf_and_ties(name, seed):
    """derivatives.yaml: ``where(a == b, grad / 2, grad).masked_fill_(a < b, 0)`` for
    maximum's a (``a > b`` for minimum's): where either is NaN, both get the gradient."""
    rng = np.random.default_rng(300 + seed)
    shapes = [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (2, 3))][seed % 3]
    a_values, b_values = (draw(rng, shape, specials=0.25) for shape in shapes)

    def program(M):
        a, b = tensor(M, a_values, "float64"), tensor(M, b_values, "float32")
        op, keyword = name.split("_") if "_" in name else (name, None)
        out = getattr(a, op)(other=b) if keyword else getattr(M, op)(a, b)
        backward_of(M, out, seed, specials=seed % 2 == 1)
        return out, grad_of(a), grad_of(b)

    check(program)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_dim_of_a_zero_dim_tensor(op, keepdim):
    def program(M):
        x = M.tensor(2.0, requires_grad=True)
        values, indices = getattr(x, op)(0, keepdim=keepdim)
        values.backward()
        return values, indices, grad_of(x)

    check(program)


# -- 5. masked_fill with a tensor value --------------------------------------------------------
@pytest.mark.parametrize("seed", range(12))
def test_masked_fill_tensor_value_gets_the_masked_gradient(seed):
    """The value (a 0-d tensor, any float dtype) gets the sum of the gradient where the
    mask is on, the input the rest; the mask may broadcast up to the input."""
    rng = np.random.default_rng(400 + seed)
    shape, mask_shape = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4,), (4,)), ((), ())][seed % 4]
    x_values, mask = draw(rng, shape), rng.random(mask_shape) < 0.5
    x_dtype, value_dtype = rng.choice(FLOATS, size=2)
    fill = float(draw(rng, ()))
    x_grad, value_grad = [(True, True), (False, True), (True, False)][seed % 3]

    def program(M):
        x = tensor(M, x_values, str(x_dtype), requires_grad=x_grad)
        value = tensor(M, fill, str(value_dtype), requires_grad=value_grad)
        out = x.masked_fill(M.tensor(mask), value)
        backward_of(M, out, seed)
        return out, grad_of(x), grad_of(value), type(out.grad_fn).__name__

    check(program)


def test_masked_fill_issue_example():
    def program(M):
        x = M.ones(3, requires_grad=True)
        v = M.tensor(5.0, requires_grad=True)
        x.masked_fill(M.tensor([True, False, True]), v).sum().backward()
        return grad_of(x), grad_of(v)

    check(program)


def test_masked_fill_in_place_with_a_value_that_requires_grad():
    def program(M):
        a = M.tensor([1.0, 2.0, 3.0])
        v = M.tensor(5.0, requires_grad=True)
        a.masked_fill_(a > 1, v)
        a.sum().backward()
        return a, grad_of(v), type(a.grad_fn).__name__

    check(program)


@pytest.mark.parametrize("value", ["a", None, [1.0]])
@pytest.mark.parametrize("in_place", [False, True])
def test_masked_fill_bad_value_is_pytorchs_type_error(value, in_place):
    def program(M):
        x = M.ones(3)
        return (x.masked_fill_ if in_place else x.masked_fill)(x > 0, value)

    check_error(program, key="received an invalid combination of arguments")


@pytest.mark.parametrize("shape", [(1,), (1, 1), (3,)])
def test_masked_fill_value_tensor_must_be_zero_dim(shape):
    check_error(lambda M: M.ones(3).masked_fill(M.ones(3) > 0, M.ones(shape)))


# -- 3. std where it is 0, norms at 0 ------------------------------------------------------
@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("call", [lambda x: x.std(), lambda x: x.std(1), lambda x: x.std(0, keepdim=True),
                                  lambda x: x.std((0, 1), correction=0)],
                         ids=["all", "dim1", "dim0_keepdim", "dims_correction0"])
def test_std_of_constant_slices_has_zero_gradient(call, seed):
    """PyTorch's std_backward masks ``grad / (2 std)`` where std is 0: a constant slice
    gets a zero gradient, not NaN."""
    rng = np.random.default_rng(500 + seed)
    values = draw(rng, (3, 4), specials=0.0)
    values[rng.random(3) < 0.6] = rng.integers(-2, 3)  # some rows constant
    if seed % 3 == 0:
        values[:] = 1.5  # all constant

    def program(M):
        x = tensor(M, values, "float32")
        out = call(x)
        backward_of(M, out, seed)
        return out, grad_of(x)

    check(program)


def test_std_issue_example():
    def program(M):
        x = M.tensor([1.0, 1.0, 1.0], requires_grad=True)
        x.std().backward()
        return grad_of(x)

    check(program)


# -- 4. no degrees of freedom; empty means ----------------------------------------------------
DOF_CASES = [((2,), {"correction": 2}), ((2,), {"correction": 3}), ((1,), {}), ((2, 2), {"dim": 1, "correction": 2}),
             ((2, 3), {"dim": 1, "correction": 5}), ((3, 2), {"dim": 0, "correction": 3.5}), ((0,), {}),
             ((0, 3), {"dim": 0}), ((), {}), ((), {"dim": 0}), ((2, 2), {"dim": (0, 1), "correction": 4})]


@pytest.mark.parametrize("op", ["var", "std"])
@pytest.mark.parametrize("shape, kwargs", DOF_CASES)
def test_no_degrees_of_freedom_warns_and_gives_inf_or_nan(op, shape, kwargs):
    """correction >= N: PyTorch divides by max(N - correction, 0), so inf (nan for 0/0),
    warns "degrees of freedom is <= 0", and its backward follows var_backward's rules."""
    rng = np.random.default_rng(len(shape) * 10 + sum(shape))
    values = rng.integers(-2, 3, size=shape).astype(np.float64)
    if shape == (2, 2):
        values[1] = 3.0  # a constant row: 0 / 0

    def program(M):
        x = tensor(M, values, "float32")
        out = getattr(x, op)(**kwargs)
        backward_of(M, out, 7)
        return out, grad_of(x)

    assert_same(*check_warning(program, UserWarning))


@pytest.mark.parametrize("program", [
    lambda M: M.zeros(0).mean(),
    lambda M: M.zeros(0, 3).mean(0),
    lambda M: M.zeros(2, 0).mean(1, keepdim=True),
    lambda M: M.zeros(0, 3).mean(1),
    lambda M: M.zeros(0, 3, requires_grad=True).mean(),
])
def test_mean_of_no_elements_is_a_silent_nan(program):
    check(program)
    check_no_warning(program)


def test_var_with_degrees_of_freedom_does_not_warn():
    check_no_warning(lambda M: (M.ones(3).var(), M.ones(2, 3).std(1, correction=2)))


# -- 6. norms with zeros, NaN and inf, every order ------------------------------------------
ORDERS = [0, 0.5, 1, 1.5, 2, 3, -1, -0.5, INF, -INF]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("p", ORDERS)
def test_norm_every_order_with_zeros_nan_and_inf(p, seed):
    """PyTorch's linalg.vector_norm and norm_backward, case by case in p (p = 0 gives no
    gradient at all). NaN inputs are left out for p = 1 and +-inf, whose gradient is
    sign(x): sign(nan) is 0 in PyTorch, which is sign's rule, not the norm's."""
    rng = np.random.default_rng(600 + seed)
    values = draw(rng, (3, 4), specials=0.15 if seed % 2 else 0.0)
    values[rng.random((3, 4)) < 0.2] = 0.0
    if p in (1, INF, -INF):
        values[np.isnan(values)] = 1.0
    dim = [None, 1, 0, (0, 1)][seed % 4]

    def program(M):
        x = tensor(M, values, "float64")
        out = x.norm(p, dim=dim, keepdim=seed % 3 == 0)
        backward_of(M, out, seed)
        return out, grad_of(x)

    check(program)
    check_no_warning(program)


@pytest.mark.parametrize("p", [-1, -0.5, INF, -INF, -1.0])
@pytest.mark.parametrize("shape, dim", [((0,), None), ((0, 3), 0), ((3, 0), (0, 1)), ((2, 0), -1)])
def test_norm_without_identity_over_no_elements(p, shape, dim):
    check_error(lambda M: M.zeros(shape).norm(p, dim=dim))


@pytest.mark.parametrize("p", [0, 1, 2, 3, 0.5])
def test_norm_with_identity_over_no_elements(p):
    check(lambda M: (M.zeros(0, 3).norm(p, dim=0), M.zeros(0).norm(p)))


def test_norm_issue_examples():
    check(lambda M: (M.tensor([-INF, 1.0]).norm(), M.tensor([1.0, 2.0]).norm(p=-1)))


def test_norm_of_integers_is_refused():
    check_error(lambda M: M.zeros(3, dtype=M.long).norm())


# -- 7. a 0-d tensor and dim 0 / -1 ------------------------------------------------------------
ZERO_DIM_REDUCTIONS = {
    "sum": lambda x, dim, keepdim: x.sum(dim, keepdim=keepdim),
    "mean": lambda x, dim, keepdim: x.mean(dim, keepdim),
    "var": lambda x, dim, keepdim: x.var(dim, keepdim=keepdim, correction=0),
    "std": lambda x, dim, keepdim: x.std(dim, keepdim=keepdim, correction=0),
    "amax": lambda x, dim, keepdim: x.amax(dim, keepdim),
    "amin": lambda x, dim, keepdim: x.amin(dim, keepdim),
    "norm": lambda x, dim, keepdim: x.norm(dim=dim, keepdim=keepdim),
    "norm_1": lambda x, dim, keepdim: x.norm(1, dim, keepdim),
    "logsumexp": lambda x, dim, keepdim: x.logsumexp(dim, keepdim),
    "max": lambda x, dim, keepdim: x.max(dim, keepdim),
    "min": lambda x, dim, keepdim: x.min(dim, keepdim=keepdim),
    "softmax": lambda x, dim, keepdim: x.softmax(dim),
    "log_softmax": lambda x, dim, keepdim: x.log_softmax(dim),
}
SINGLE_DIM_ONLY = {"max", "min", "softmax", "log_softmax"}  # one int dim, no sequence


def zero_dim_cases(dims):
    return [(name, dim) for name in ZERO_DIM_REDUCTIONS for dim in dims
            if isinstance(dim, int) or name not in SINGLE_DIM_ONLY]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name, dim", zero_dim_cases([0, -1, (0,), (-1,), [0]]), ids=str)
def test_zero_dim_tensor_reduces_over_dim_0_or_minus_1(name, dim, keepdim):
    """PyTorch's maybe_wrap_dim with wrap_scalar: a 0-d tensor has one dimension to name,
    0 or -1, and reducing over it gives the element back (and its gradient)."""
    def program(M):
        x = M.tensor(-1.5, requires_grad=True)
        out = ZERO_DIM_REDUCTIONS[name](x, dim, keepdim)
        first = out[0] if isinstance(out, tuple) else out
        first.backward()
        return out, grad_of(x)

    check(program)


@pytest.mark.parametrize("name, dim", zero_dim_cases([1, -2, (0, 1), (2,)]), ids=str)
def test_zero_dim_tensor_refuses_other_dims(name, dim):
    check_error(lambda M: ZERO_DIM_REDUCTIONS[name](M.tensor(2.0), dim, False))


def test_repeated_dim_is_named():
    check_error(lambda M: M.tensor(2.0).sum((0, -1)))
    check_error(lambda M: M.zeros(2, 3).mean((1, -1)))


# -- 8. max-like reductions over no elements --------------------------------------------------
EMPTY = {
    "softmax_0": lambda M, x: x.softmax(0),
    "softmax_1": lambda M, x: M.softmax(x, 1),
    "log_softmax_0": lambda M, x: x.log_softmax(0),
    "log_softmax_1": lambda M, x: M.nn.functional.log_softmax(x, 1),
    "logsumexp_0": lambda M, x: x.logsumexp(0),
    "logsumexp_1": lambda M, x: x.logsumexp(1, keepdim=True),
    "logsumexp_all": lambda M, x: x.logsumexp((0, 1)),
    "amax_1": lambda M, x: x.amax(1),
    "max_1": lambda M, x: x.max(1),
    "norm_inf_1": lambda M, x: x.norm(INF, dim=1),
}


@pytest.mark.parametrize("name", EMPTY)
def test_max_based_reductions_of_an_empty_tensor(name):
    def program(M):
        x = M.zeros(0, 3, requires_grad=True)
        out = EMPTY[name](M, x)
        first = out[0] if isinstance(out, tuple) else out
        first.sum().backward()
        return out, grad_of(x)

    check(program)
    check_no_warning(program)


@pytest.mark.parametrize("program", [
    lambda M: M.zeros(0, 3).max(),
    lambda M: M.zeros(0, 3).max(0),
    lambda M: M.zeros(0, 3).min(0, keepdim=True),
    lambda M: M.zeros(0, 3).amax(),
    lambda M: M.zeros(0, 3).amax(0),
    lambda M: M.zeros(3, 0).amin((0, 1)),
    lambda M: M.zeros(0).amin(dim=()),
    lambda M: M.zeros(0, 3).norm(INF, dim=0),
    lambda M: M.zeros(3, 0).amax(-1),  # named as given
    lambda M: M.zeros(3, 0).max(-1),  # named wrapped
])
def test_max_based_reductions_refuse_an_empty_dim(program):
    check_error(program)


# -- 9. the softmax family refuses integers -------------------------------------------------
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("call", [lambda M, x: x.softmax(-1), lambda M, x: x.log_softmax(0),
                                  lambda M, x: M.softmax(x, 1), lambda M, x: M.nn.functional.log_softmax(x, 0),
                                  lambda M, x: M.nn.functional.softmax(x, dim=1)])
def test_softmax_of_integers_is_not_implemented(call, dtype):
    check_error(lambda M: call(M, M.ones(2, 3, dtype=getattr(M, dtype))))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_of_integers_with_a_float_dtype(name):
    def program(M):
        x = M.tensor([[1, 2, 3], [0, 0, 1]])
        return getattr(x, name)(1, dtype=M.float64), getattr(M.nn.functional, name)(x, 0, dtype=M.float32)

    check(program)


# -- 10. cat and stack: 0-d tensors, legacy empty tensors, empty lists ------------------------
LEGACY_EMPTY = "legacy"  # stands for a (0,) tensor in the cases below


@pytest.mark.parametrize("shapes, dim", [
    ((LEGACY_EMPTY, (2, 2)), 1), (((2, 2), LEGACY_EMPTY, (2, 3)), -1), ((LEGACY_EMPTY, (2,)), 0),
    ((LEGACY_EMPTY, LEGACY_EMPTY), 1), ((LEGACY_EMPTY, (3, 1, 2), LEGACY_EMPTY, (3, 4, 2)), 1),
    (((0, 3), (2, 3)), 0), (((2, 3), (2, 0)), 1),
], ids=str)
def test_cat_skips_legacy_empty_tensors(shapes, dim):
    """PyTorch's legacy rule: a 1-d tensor of size 0 takes no part in cat (not in the dim
    check, not in the shapes); its gradient is an empty tensor of its own shape."""
    rng = np.random.default_rng(len(shapes) + dim)
    values = [np.zeros(0) if s is LEGACY_EMPTY else rng.standard_normal(s) for s in shapes]
    dtypes = ["float64" if i % 2 else "float32" for i in range(len(shapes))]

    def program(M):
        leaves = [tensor(M, v, d) for v, d in zip(values, dtypes)]
        out = M.cat(leaves, dim)
        backward_of(M, out, 11)
        return out, [grad_of(t) for t in leaves]

    check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.cat([M.tensor(1.0), M.tensor(2.0)]),
    lambda M: M.cat([M.ones(2), M.tensor(1.0)]),
    lambda M: M.cat([M.zeros(0), M.tensor(1.0)]),
    lambda M: M.cat([M.tensor(1.0)], 0),
    lambda M: M.cat([M.zeros(0), M.ones(2, 2)], 2),
    lambda M: M.cat([M.zeros(0, 3), M.ones(2, 2)], 1),
    lambda M: M.cat([M.ones(2, 2), M.ones(2)]),
    lambda M: M.cat([]),
    lambda M: M.stack([]),
    lambda M: M.stack(()),
])
def test_cat_and_stack_errors(program):
    check_error(program)


def test_stack_of_zero_dim_tensors():
    def program(M):
        a, b = M.tensor(1.0, requires_grad=True), M.tensor(2.0, dtype=M.float64, requires_grad=True)
        out = M.stack([a, b])
        (out * M.tensor([3.0, 4.0], dtype=M.float64)).sum().backward()
        return out, grad_of(a), grad_of(b)

    check(program)


@pytest.mark.parametrize("p", [2, 1, 3.5, float("inf")])
@pytest.mark.parametrize("dtype_in,dtype", [("float16", "float32"), ("float32", "float64"),
                                            ("float32", "float32"), ("float64", "float64")])
def test_norm_computes_in_the_dtype_asked_for(p, dtype_in, dtype):
    """``norm(dtype=...)`` computes in (and returns) that dtype; the input's gradient keeps
    the input's dtype."""
    def program(M):
        x = M.tensor([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype=getattr(M, dtype_in),
                     requires_grad=True)
        y = x.norm(p, dim=1, dtype=getattr(M, dtype))
        y.sum().backward()
        return y, x.grad
    check(program, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("dtype_in,dtype", [("float64", "float32"), ("float32", "float16")])
def test_norm_refuses_a_narrower_dtype(dtype_in, dtype):
    check_error(lambda M: M.ones(3, dtype=getattr(M, dtype_in)).norm(dtype=getattr(M, dtype)))


# -- F.linear: PyTorch's three paths ------------------------------------------------------------
@pytest.mark.parametrize("seed", range(40))
def test_linear_takes_pytorchs_path_for_each_layout_and_bias(seed):
    """PyTorch's linear: addmm for a 2-D input with a bias; the leading dimensions folded into
    one addmm for a contiguous input with a 1-D bias (_flatten_nd_linear); matmul then add
    otherwise. The path shows in the graph and in the errors (a 1-D weight
    with a 1-D bias reaches addmm, which wants a matrix)."""
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(1, 5))
    shape = tuple(int(n) for n in rng.integers(0 if seed % 7 == 0 else 1, 4, size=ndim))
    features, out = shape[-1], int(rng.integers(1, 4))
    weight_shape = (features,) if seed % 5 == 0 else (out, features)
    bias_shape = [None, (), (out,), (1,)][seed % 4]
    transposed = ndim >= 2 and seed % 3 == 0

    def values(n, shape):
        return np.random.default_rng(seed + n).standard_normal(shape).tolist()

    def program(M):
        x = leaf(M, values(0, shape[::-1] if transposed else shape), M.float64)
        x_in = x.transpose(0, -1) if transposed else x  # the same shape, not contiguous
        w = leaf(M, values(1, weight_shape), M.float64)
        b = None if bias_shape is None else leaf(M, values(2, bias_shape), M.float64)
        y = M.nn.functional.linear(x_in, w, b)
        (y * y).sum().backward()
        return y, type(y.grad_fn).__name__, grad_of(x), grad_of(w), None if b is None else grad_of(b)

    if isinstance(outcome(program, torch)[1], RuntimeError):  # PyTorch refuses this one
        check_error(program)
    else:
        check(program)
