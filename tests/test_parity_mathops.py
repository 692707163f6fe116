"""PyTorch parity of the math operations of issue 16: the pointwise family beyond the op
table's rows (dtypes, domains, errors, in-place variants PyTorch gives no derivative),
products and scans (zeros and NaN in their gradients), medians and the paired reductions,
the ``axis=``/``keepdims=`` spellings, einsum, outer, kron, isin, the ``linalg`` norms,
``dist`` and the constants.

The op table (``opinfo.py``) already runs gradcheck, parity and the saved-tensor checks on
every new elementwise and reduction op at ordinary values; these tests are the edges.
"""

import math

import numpy as np
import pytest
from parity import check, check_error, same_outcome, value_and_grads

import nbgrad as ng
from nbgrad.autograd import gradcheck
from nbgrad.ops import special

NAN, INF = math.nan, math.inf


# -- pointwise: dtypes, domains, errors -------------------------------------------------------
UNARY = ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log1p", "expm1",
         "log2", "log10", "exp2", "rsqrt", "erf", "erfc", "erfinv", "arcsin", "arccos", "arctan",
         "arcsinh", "arccosh", "arctanh"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["int64", "bool", "float64", "float32"])
def test_unary_promotes_integers_and_keeps_floats(name, dtype):
    check(lambda M: getattr(M, name)(M.tensor([0, 1, 2, 3]).to(getattr(M, dtype))))


EDGES = [-INF, -3.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 3.0, 100.0, INF, NAN]


@pytest.mark.parametrize("name", [n for n in UNARY if not n.startswith("arc")] + ["frac", "nan_to_num"])
def test_unary_at_the_edges_of_its_domain(name):
    """Outside the domain: nan, at its ends: ±inf, as PyTorch, and no NumPy warning."""
    check(lambda M: getattr(M, name)(M.tensor(EDGES, dtype=M.float64)))


@pytest.mark.parametrize("name", UNARY + ["frac", "nan_to_num"])
def test_unary_of_0d_and_empty_tensors(name):
    check(lambda M: getattr(M, name)(M.tensor(0.25)))
    check(lambda M: getattr(M, name)(M.ones(0, 3) * 0.5))


def test_erf_family_without_scipy(monkeypatch):
    """Without SciPy, erf and erfc are computed element by element and erfinv by Newton's
    method: the same values as PyTorch's, edges included."""
    monkeypatch.setattr(special, "_scipy_special", lambda data: None)
    values = np.concatenate([np.linspace(-0.999, 0.999, 41), [-1.0, 1.0, -1.5, 1.5, 0.0, NAN]])
    for name in ("erf", "erfc", "erfinv"):
        check(lambda M, name=name: getattr(M, name)(M.tensor(values, dtype=M.float64)), rtol=1e-10, atol=1e-12)
        check(lambda M, name=name: getattr(M, name)(M.tensor(values[:-1], dtype=M.float32)))
    check(lambda M: M.erf(M.tensor(np.linspace(-6.0, 6.0, 25))))
    check(lambda M: M.erfinv(M.ones(0)))


@pytest.mark.parametrize("program", [
    lambda M: M.frac(M.tensor([1, 2])),
    lambda M: M.hypot(M.tensor([1, 2]), M.tensor([3, 4])),
    lambda M: M.logaddexp(M.tensor([1, 2]), M.tensor([3, 4])),
    lambda M: M.lerp(M.tensor([1, 2]), M.tensor([3, 4]), 0.5),
    lambda M: M.atan2(M.tensor([1.0]), 2.0),
    lambda M: M.hypot(M.tensor([1.0]), 2.0),
    lambda M: M.lerp(M.tensor([1.0], dtype=M.float64), M.tensor([2.0]), 0.5),
    lambda M: M.lerp(M.tensor([1.0]), M.tensor([2.0]), M.tensor([0.5], dtype=M.float64)),
    lambda M: M.tensor([1, 2]).sin_(),
    lambda M: M.tensor([1, 2]).log1p_(),
    lambda M: M.clamp_min(M.tensor([1.0]), None),
    lambda M: M.clamp_max(M.tensor([1.0]), "a"),
    lambda M: M.tensor([1.0, 2.0]).hypot(M.ones(3)),
], ids=["frac_int", "hypot_int", "logaddexp_int", "lerp_int", "atan2_number", "hypot_number",
        "lerp_end_dtype", "lerp_weight_dtype", "sin__int", "log1p__int", "clamp_min_none",
        "clamp_max_str", "hypot_broadcast"])
def test_pointwise_errors(program):
    check_error(program)


@pytest.mark.parametrize("program", [
    lambda M: M.atan2(M.tensor([1, -2, 0]), M.tensor([3, 4, 0])),
    lambda M: M.atan2(M.tensor([1.0, -1.0, 0.0, -0.0]), M.tensor([0.0, 0.0, -1.0, -1.0])),
    lambda M: M.xlogy(M.tensor([1, 2]), M.tensor([3, 4])),
    lambda M: M.xlogy(M.tensor([1, 2]), 3),
    lambda M: M.xlogy(2, M.tensor([3.0, 0.0])),
    lambda M: M.xlogy(M.tensor([0.0, 0.0, 0.0, 1.0]), M.tensor([0.0, NAN, INF, 0.0])),
    lambda M: M.logaddexp(M.tensor([-INF, INF, 1000.0]), M.tensor([-INF, 1.0, 1000.0])),
    lambda M: M.hypot(M.tensor([3.0, 1e200, INF], dtype=M.float64), M.tensor([4.0, 1e200, NAN], dtype=M.float64)),
    lambda M: M.lerp(M.tensor([1.0, 2.0]), M.tensor([3.0, 5.0]), M.tensor([[0.0], [1.0]])),
    lambda M: M.nan_to_num(M.tensor([NAN, INF, -INF, 1.0], dtype=M.float16)),
    lambda M: M.nan_to_num(M.tensor([NAN, INF, -INF]), nan=1.0, posinf=2.0, neginf=-2.0),
    lambda M: M.nan_to_num(M.tensor([1, 2])),
    lambda M: M.tensor([NAN, INF]).nan_to_num_(0.5),
    lambda M: M.clamp_min(M.tensor([1, 4]), 2),
    lambda M: M.clamp_min(M.tensor([1, 4]), 2.5),
    lambda M: M.clamp_max(M.tensor([1.0, 4.0]), M.tensor([[2.0], [3.0]])),
    lambda M: M.tensor([0.25, 0.5]).atan2_(M.tensor([1.0, -1.0])),
    lambda M: M.tensor([0.25, 4.0]).xlogy_(2.0),
], ids=["atan2_int", "atan2_signed_zeros", "xlogy_int", "xlogy_int_number", "xlogy_number_left",
        "xlogy_zeros", "logaddexp_inf", "hypot_huge", "lerp_broadcast_weight", "nan_to_num_half",
        "nan_to_num_values", "nan_to_num_int", "nan_to_num_", "clamp_min_int", "clamp_min_float",
        "clamp_max_tensor", "atan2_", "xlogy_"])
def test_pointwise_values(program):
    check(program)


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
def test_in_place_inverse_hyperbolics_have_no_derivative(name):
    """PyTorch's asinh_, acosh_ and atanh_ compute, record ``<Name>Backward1``, and raise in
    backward; without grad they simply compute."""
    def forward(M):
        x = M.tensor([1.25, 1.5], requires_grad=True)
        return getattr(x * 1 if name != "atanh" else x * 0.5, name + "_")()

    t_out, n_out = check(forward)
    assert type(n_out.grad_fn).__name__ == type(t_out.grad_fn).__name__ == name.capitalize() + "Backward1"
    check_error(lambda M: forward(M).sum().backward())
    check(lambda M: getattr(M.tensor([1.25, 1.5]) * (0.5 if name == "atanh" else 1), name + "_")())


def test_pointwise_gradients_at_their_conventions():
    """Where the formulas meet 0 * inf: xlogy at x = 0, nan_to_num at the replaced values,
    clamp_min's tie, hypot at the origin."""
    check(value_and_grads(lambda M, x, y: M.xlogy(x, y), [0.0, 0.0, 1.0, 2.0], [0.0, 2.0, 0.5, -1.0]))
    check(value_and_grads(lambda M, x: M.xlogy(x, 0.0), [0.0, 1.0]))
    check(value_and_grads(lambda M, x: M.nan_to_num(x * 1), [NAN, INF, -INF, 2.0]))
    check(value_and_grads(lambda M, x, m: M.clamp_min(x, m), [1.0, 2.0, 3.0], [1.0, 3.0, 0.0]))
    check(value_and_grads(lambda M, x, y: M.hypot(x, y), [0.0, 3.0], [0.0, 4.0]))
    check(value_and_grads(lambda M, x, y, w: M.lerp(x, y, w), [1.0, 2.0], [3.0, 4.0], [0.25, 1.0]))


# -- prod and the scans ---------------------------------------------------------------------
def random_with_zeros(rng, shape, zeros):
    values = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    flat = values.reshape(-1)
    flat[rng.choice(flat.size, zeros, replace=False)] = 0.0
    return values


@pytest.mark.parametrize("seed", range(6))
def test_prod_and_cumprod_gradients_with_zeros_match_torch(seed):
    """Zero, one or several zeros per slice: the product of the others, never 0 / 0."""
    rng = np.random.default_rng(seed)
    a = random_with_zeros(rng, (3, 4), zeros=seed % 4)
    check(value_and_grads(lambda M, x: x.prod(), a), rtol=1e-9, atol=1e-12)
    for dim in (0, 1, -1):
        check(value_and_grads(lambda M, x, dim=dim: x.prod(dim), a), rtol=1e-9, atol=1e-12)
        check(value_and_grads(lambda M, x, dim=dim: x.cumprod(dim), a), rtol=1e-9, atol=1e-12)
    assert gradcheck(lambda x: x.prod(1), (ng.tensor(a, requires_grad=True),))
    assert gradcheck(lambda x: x.cumprod(0), (ng.tensor(a, requires_grad=True),))


def test_prod_and_cumprod_gradients_with_nan_match_torch():
    a = [[1.0, NAN, 3.0, 2.0], [NAN, 2.0, 1.0, 0.0]]
    check(value_and_grads(lambda M, x: x.prod(1), a))
    check(value_and_grads(lambda M, x: x.prod(), a))
    check(value_and_grads(lambda M, x: x.cumsum(1), a))


@pytest.mark.parametrize("program", [
    lambda M: M.tensor([1, 2, 3]).prod(),
    lambda M: M.tensor([True, False]).prod(),
    lambda M: M.tensor([1, 2], dtype=M.int8).prod(0),
    lambda M: M.tensor([1, 2]).prod(dtype=M.float32),
    lambda M: M.tensor([1.5]).prod(0, dtype=M.int32),
    lambda M: M.ones(0).prod(),
    lambda M: M.ones(2, 0).prod(1),
    lambda M: M.ones(2, 0).prod(0, keepdim=True),
    lambda M: M.tensor(3.0).prod(0),
    lambda M: M.tensor(3.0).prod(-1, keepdim=True),
    lambda M: M.tensor([1.0, 2.0]).prod((0,)),
    lambda M: M.tensor([1.0, 2.0]).prod(1),
    lambda M: M.tensor([1, 2]).cumsum(0),
    lambda M: M.tensor([True, False, True]).cumsum(0),
    lambda M: M.tensor([1, 2], dtype=M.int8).cumsum(0),
    lambda M: M.tensor([1, 2], dtype=M.uint8).cumprod(0),
    lambda M: M.tensor([1.0, 2.0]).cumsum(0, dtype=M.float64),
    lambda M: M.tensor([1.0, 2.0]).cumsum(),
    lambda M: M.tensor([1.0]).cumsum(1),
    lambda M: M.tensor(3.0).cumsum(0),
    lambda M: M.ones(0, 2).cumsum(1),
    lambda M: M.ones(0).cummax(0),
    lambda M: M.tensor(2).cummax(0),
    lambda M: M.tensor([3, 1, 1, 2]).cummin(0),
    lambda M: M.tensor([[1.0, NAN, 3.0, NAN, 0.0]]).cummax(1),
    lambda M: M.tensor([[1.0, NAN, 3.0, NAN, 0.0]]).cummin(-1),
    lambda M: M.tensor([True, False]).cummax(0),
    lambda M: M.tensor([1, 2]).logcumsumexp(0),
    lambda M: M.tensor([-INF, -INF, 0.0, 1000.0, INF]).logcumsumexp(0),
    lambda M: M.tensor([1.0, 2.0]).cumsum_(0),
], ids=["prod_int", "prod_bool", "prod_int8", "prod_dtype", "prod_dtype_int", "prod_empty",
        "prod_empty_dim", "prod_empty_keepdim", "prod_0d", "prod_0d_keepdim", "prod_tuple",
        "prod_dim_out_of_range", "cumsum_int", "cumsum_bool", "cumsum_int8", "cumprod_uint8",
        "cumsum_dtype", "cumsum_no_dim", "cumsum_dim_out_of_range", "cumsum_0d", "cumsum_empty",
        "cummax_empty", "cummax_0d", "cummin_ties", "cummax_nan", "cummin_nan", "cummax_bool",
        "logcumsumexp_int", "logcumsumexp_inf", "cumsum_"])
def test_prod_and_scan_values_and_errors(program):
    same_outcome(program)


def test_scan_gradients_match_torch():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 5))
    ties = [[1.0, 3.0, 3.0, 2.0, 3.0], [3.0, 1.0, 1.0, 2.0, 0.5]]
    for program in (lambda M, x: x.cumsum(1), lambda M, x: x.cumsum(0, dtype=M.float32),
                    lambda M, x: x.cummax(1).values, lambda M, x: x.cummin(0)[0],
                    lambda M, x: x.logcumsumexp(1), lambda M, x: x.logcumsumexp(0) * 3):
        check(value_and_grads(program, a))
    check(value_and_grads(lambda M, x: x.cummax(1).values, ties))
    check(value_and_grads(lambda M, x: x.cummin(1).values, ties))
    big = np.linspace(-500.0, 500.0, 10)
    check(value_and_grads(lambda M, x: x.logcumsumexp(0), big))
    for f in (lambda x: x.logcumsumexp(1), lambda x: x.cummax(0).values, lambda x: x.cumsum(-1)):
        assert gradcheck(f, (ng.tensor(a, requires_grad=True),))


# -- medians, var_mean, std_mean, aminmax, nansum, nanmean, count_nonzero -----------------------
MEDIAN_CASES = [
    [[1.0, 0.0, 3.0, 2.0], [2.0, 0.0, 0.0, 5.0]],
    [[1.0, 2.0, 2.0, 0.5], [3.0, 1.0, 4.0, 2.0]],
    [[1.0, NAN, 3.0, 2.0], [5.0, 2.0, 1.0, 0.0]],
]


@pytest.mark.parametrize("values", MEDIAN_CASES, ids=["zeros", "ties", "nan"])
@pytest.mark.parametrize("program", [
    lambda M, x: x.median(), lambda M, x: x.median(1).values, lambda M, x: x.median(0, keepdim=True)[0],
    lambda M, x: x.nanmedian(), lambda M, x: x.nanmedian(1).values, lambda M, x: M.var_mean(x),
    lambda M, x: M.var_mean(x, 1), lambda M, x: M.std_mean(x, 0, keepdim=True),
    lambda M, x: M.std_mean(x, correction=0), lambda M, x: M.var_mean(x, (0, 1), unbiased=False),
    lambda M, x: tuple(x.aminmax()), lambda M, x: tuple(x.aminmax(dim=1)),
    lambda M, x: tuple(x.aminmax(dim=0, keepdim=True)), lambda M, x: x.nansum(1), lambda M, x: x.nanmean(),
], ids=["median", "median_dim", "median_keepdim", "nanmedian", "nanmedian_dim", "var_mean", "var_mean_dim",
        "std_mean_keepdim", "std_mean_correction", "var_mean_unbiased", "aminmax", "aminmax_dim",
        "aminmax_keepdim", "nansum", "nanmean"])
def test_statistics_values_gradients_and_nodes(program, values):
    check(value_and_grads(program, values))


def test_median_indices_match_torch():
    """The lower median's index along dim (distinct values, and a NaN, which wins)."""
    rng = np.random.default_rng(0)
    a = rng.permutation(24).reshape(4, 6).astype(float)
    for dim in (0, 1, -1):
        check(lambda M, dim=dim: M.tensor(a).median(dim))
        check(lambda M, dim=dim: M.tensor(a).nanmedian(dim))
    check(lambda M: M.tensor([[1.0, NAN, 3.0, 2.0]]).median(1))
    check(lambda M: M.tensor([[1.0, NAN, 3.0, NAN, 2.0]]).nanmedian(1))


@pytest.mark.parametrize("program", [
    lambda M: M.tensor([3, 1, 2]).median(),
    lambda M: M.tensor([3, 1, 2, 4]).median(0),
    lambda M: M.tensor([]).median(),
    lambda M: M.tensor([]).median(0),
    lambda M: M.ones(2, 0).median(1),
    lambda M: M.ones(0, 2).median(1),
    lambda M: M.tensor(2.0).median(0),
    lambda M: M.tensor(2.0).median(),
    lambda M: M.tensor([NAN, NAN]).nanmedian(),
    lambda M: M.tensor([]).nanmedian(),
    lambda M: M.tensor([[1.0, 2.0], [3, 0]]).count_nonzero(),
    lambda M: M.tensor([[1.0, 2.0], [3, 0]]).count_nonzero(dim=(0, 1)),
    lambda M: M.tensor([[1, 2], [3, 0]]).count_nonzero(1),
    lambda M: M.tensor([[True, False]]).count_nonzero(-1),
    lambda M: M.ones(0).aminmax(),
    lambda M: M.ones(2, 0).aminmax(dim=1),
    lambda M: M.tensor([1, 5, 3]).aminmax(),
    lambda M: M.var_mean(M.tensor([1, 2])),
    lambda M: M.std_mean(M.tensor([1, 2])),
    lambda M: M.std_mean(M.tensor([[1.0, 2.0, 4.0]]), 1, unbiased=False),
    lambda M: M.tensor([1, 2]).nanmean(),
    lambda M: M.tensor([1, 2]).nansum(),
    lambda M: M.tensor([True, True]).nansum(),
    lambda M: M.tensor([NAN, NAN]).nanmean(),
    lambda M: M.tensor([1.0, NAN]).nansum(dtype=M.float64),
], ids=["median_int", "median_int_dim", "median_empty", "median_empty_dim", "median_empty_reduced",
        "median_empty_kept", "median_0d_dim", "median_0d", "nanmedian_all_nan", "nanmedian_empty",
        "count_nonzero", "count_nonzero_dims", "count_nonzero_int", "count_nonzero_bool",
        "aminmax_empty", "aminmax_empty_dim", "aminmax_int", "var_mean_int", "std_mean_int",
        "std_mean_unbiased", "nanmean_int", "nansum_int", "nansum_bool", "nanmean_all_nan",
        "nansum_dtype"])
def test_statistics_edges(program):
    same_outcome(program)


def test_var_mean_warns_without_degrees_of_freedom_and_is_no_method():
    from parity import check_warning
    check_warning(lambda M: M.var_mean(M.tensor([1.0])))
    check_error(lambda M: M.tensor([1.0, 2.0]).var_mean())


def test_statistics_gradcheck():
    rng = np.random.default_rng(5)
    x = ng.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda t: ng.var_mean(t, 1), (x,))
    assert gradcheck(lambda t: ng.std_mean(t, (0, 1), correction=0), (x,))
    assert gradcheck(lambda t: tuple(t.aminmax(dim=0)), (x,))
    assert gradcheck(lambda t: t.median(1).values, (x,))
    assert gradcheck(lambda t: t.median(), (x,))
    assert gradcheck(lambda t: t.nanmean(0), (x,))


# -- axis= and keepdims= --------------------------------------------------------------------
ALIASES = ["sum", "mean", "var", "std", "prod", "nansum", "nanmean", "amax", "amin", "logsumexp",
           "any", "all", "argmax", "argmin", "median", "nanmedian"]


@pytest.mark.parametrize("name", ALIASES + ["max", "min"])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("keepdims", [None, True, False])
def test_axis_and_keepdims_are_dim_and_keepdim(name, axis, keepdims):
    a = np.random.default_rng(axis + 5).standard_normal((3, 4))
    kwargs = {"axis": axis} if keepdims is None else {"axis": axis, "keepdims": keepdims}
    check(lambda M: getattr(M.tensor(a), name)(**kwargs))
    check(lambda M: getattr(M, name)(M.tensor(a), **kwargs))


@pytest.mark.parametrize("name", ["sum", "mean", "var", "any", "all", "amax", "nansum"])
def test_axis_takes_a_tuple_where_dim_does(name):
    check(lambda M: getattr(M.ones(2, 3, 4), name)(axis=(0, 2), keepdims=True))


@pytest.mark.parametrize("name", ALIASES + ["max", "min", "cumsum", "cumprod", "cummax", "count_nonzero"])
def test_dim_and_axis_together_is_torchs_type_error(name):
    """A TypeError naming ``axis`` (PyTorch words it by how many signatures the op has)."""
    check_error(lambda M: getattr(M.ones(2, 3), name)(0, axis=0), key="axis")
    check_error(lambda M: getattr(M.ones(2, 3), name)(dim=1, axis=1), key="axis")


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "count_nonzero"])
def test_scans_and_counts_take_axis(name):
    check(lambda M: getattr(M.tensor([[1.0, 0.0, 3.0], [2.0, 5.0, 1.0]]), name)(axis=1))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_takes_axis_as_torch_and_tensor_methods_do(name):
    check(lambda M: getattr(M, name)(M.tensor([[1.0, 2.0], [0.5, 3.0]]), axis=0))
    check(lambda M: getattr(M.tensor([[1.0, 2.0], [0.5, 3.0]]), name)(axis=-1))
    check_error(lambda M: getattr(M.ones(2, 3), name)(0, axis=0), key="axis")


def test_return_types_are_exported_as_in_torch():
    check(lambda M: isinstance(M.ones(2, 3).cummax(1), M.return_types.cummax))
    check(lambda M: isinstance(M.ones(2, 3).median(0), M.return_types.median))
    check(lambda M: M.tensor([[1.0, 5.0]]).aminmax(dim=1).max)


def test_keepdim_and_keepdims_together_is_torchs_type_error():
    check_error(lambda M: M.ones(2, 3).mean(0, keepdim=True, keepdims=True))


# -- outer, kron, einsum --------------------------------------------------------------------
def test_outer_and_kron_match_torch():
    rng = np.random.default_rng(2)
    check(value_and_grads(lambda M, a, b: M.outer(a, b), rng.standard_normal(3), rng.standard_normal(4)))
    check(value_and_grads(lambda M, a, b: a.ger(b), rng.standard_normal(2), rng.standard_normal(5)))
    for a_shape, b_shape in [((2, 3), (4, 1)), ((3,), (2, 2)), ((2, 1, 3), (2, 2)), ((), (3,))]:
        check(value_and_grads(lambda M, a, b: M.kron(a, b), rng.standard_normal(a_shape), rng.standard_normal(b_shape)))
    check(lambda M: M.outer(M.tensor([1, 2]), M.tensor([1.0, 2.0])))
    check(lambda M: M.kron(M.tensor([1, 2]), M.tensor([[1, 2]])))
    check_error(lambda M: M.outer(M.ones(3, 1), M.ones(4)))
    check_error(lambda M: M.outer(M.ones(3), M.ones(())))
    assert gradcheck(lambda a, b: ng.kron(a, b), (ng.tensor(rng.standard_normal((2, 3)), requires_grad=True),
                                                    ng.tensor(rng.standard_normal((3, 2)), requires_grad=True)))


EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("i,i", [(3,), (3,)]),
    ("i,j->ij", [(3,), (4,)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij->j", [(2, 2, 3)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk", [(5, 2, 3, 4), (1, 4, 5)]), ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]), ("ij", [(2, 3)]),
    ("ijk,ikl,lm->jm", [(2, 3, 4), (2, 4, 5), (5, 6)]), ("i,i,i->", [(3,), (3,), (3,)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]), ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,kj->ik", [(2, 3), (1, 3)]), ("ab...,b->a...", [(2, 3, 4, 5), (3,)]), ("i j , j k -> i k", [(2, 3), (3, 2)]),
    ("ij,j->i", [(0, 3), (3,)]), ("i,i->", [(0,), (0,)]), ("", [()]), (",->", [(), ()]), ("ba,ab->", [(3, 2), (2, 3)]),
]


@pytest.mark.parametrize("equation, shapes", EINSUM, ids=[e or "empty" for e, _ in EINSUM])
def test_einsum_matches_torch(equation, shapes):
    rng = np.random.default_rng(len(equation))
    arrays = [rng.standard_normal(s) for s in shapes]
    check(_without_node(value_and_grads(lambda M, *ts: M.einsum(equation, *ts), *arrays)))
    if all(a.size for a in arrays):
        leaves = tuple(ng.tensor(a, requires_grad=True) for a in arrays)
        assert gradcheck(lambda *ts: ng.einsum(equation, *ts), leaves)


def _without_node(program):
    """einsum's ``grad_fn`` depends on how each library composes it: compare the rest."""
    def run(M):
        return tuple(v for v in program(M) if not isinstance(v, str))
    return run


@pytest.mark.parametrize("program", [
    lambda M: M.einsum("ii", M.ones(2, 3)),
    lambda M: M.einsum("ij,jk", M.ones(2, 3), M.ones(2, 3)),
    lambda M: M.einsum("ij,jk->ik", M.ones(2, 3)),
    lambda M: M.einsum("i", M.ones(2), M.ones(2)),
    lambda M: M.einsum("i,i", M.ones(2), M.ones(2, dtype=M.float64)),
    lambda M: M.einsum("ij", [M.ones(2, 3)]),
    lambda M: M.einsum("ij->ji", (M.ones(2, 3),)),
], ids=["repeated_sizes", "no_broadcast", "too_few", "too_many", "dtypes", "list", "tuple"])
def test_einsum_errors_and_operand_lists(program):
    same_outcome(program)


# -- isin ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("program", [
    lambda M: M.isin(M.tensor([1, 2, 3]), M.tensor([2, 5])),
    lambda M: M.isin(M.tensor([1.0, 2, 3]), 2.0),
    lambda M: M.isin(3, M.tensor([2, 3])),
    lambda M: M.isin(M.tensor([[1, 2], [3, 4]]), M.tensor([[2], [5]]), invert=True),
    lambda M: M.isin(M.tensor([1, 2, 3]), M.tensor([2.0, 5])),
    lambda M: M.isin(M.tensor([1.5, 2, 3]), M.tensor([1, 2])),
    lambda M: M.isin(M.tensor([NAN, 1.0]), M.tensor([NAN, 1.0])),
    lambda M: M.isin(M.ones(0), M.ones(3)),
    lambda M: M.isin(M.tensor([1, 2]), M.tensor([2]), assume_unique=True),
    lambda M: M.isin(M.tensor([1.0, 2.0], requires_grad=True), M.tensor([2.0])),
    lambda M: M.isin(1, 2),
], ids=["ints", "number_test", "number_elements", "invert", "promoted", "floats", "nan", "empty",
        "assume_unique", "no_grad_fn", "two_numbers"])
def test_isin(program):
    same_outcome(program)


# -- linalg norms, dist, constants ----------------------------------------------------------
NORMS = [
    lambda M, x, y: M.dist(x, y), lambda M, x, y: M.dist(x, y, p=1), lambda M, x, y: M.dist(x, y, 3),
    lambda M, x, y: M.dist(x, y, float("inf")), lambda M, x, y: M.dist(x, y, 0),
    lambda M, x, y: M.linalg.vector_norm(x), lambda M, x, y: M.linalg.vector_norm(x, 3, dim=1),
    lambda M, x, y: M.linalg.vector_norm(x, float("inf"), dim=(0, 1), keepdim=True),
    lambda M, x, y: M.linalg.matrix_norm(x), lambda M, x, y: M.linalg.matrix_norm(x, 1),
    lambda M, x, y: M.linalg.matrix_norm(x, -1, keepdim=True),
    lambda M, x, y: M.linalg.matrix_norm(x, float("inf")), lambda M, x, y: M.linalg.matrix_norm(x, -float("inf")),
    lambda M, x, y: M.linalg.matrix_norm(x.reshape(2, 3, 2), 1, dim=(0, 2)),
    lambda M, x, y: M.linalg.norm(x), lambda M, x, y: M.linalg.norm(x, dim=1), lambda M, x, y: M.linalg.norm(x, 1),
    lambda M, x, y: M.linalg.norm(y, 3), lambda M, x, y: M.linalg.norm(x, dim=(1, 0)),
    lambda M, x, y: M.linalg.norm(x, "fro", keepdim=True), lambda M, x, y: M.norm(x, dim=1),
]


@pytest.mark.parametrize("k", range(len(NORMS)))
def test_norms_and_dist_match_torch(k):
    rng = np.random.default_rng(k)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal(4)
    if k == 4:  # dist with p = 0 counts: no gradient (PyTorch's backward raises there, nbgrad's gives None)
        check(lambda M: NORMS[k](M, M.tensor(x), M.tensor(y)))
        return
    check(value_and_grads(NORMS[k], x, y))
    leaves = (ng.tensor(x, requires_grad=True), ng.tensor(y, requires_grad=True))
    assert gradcheck(lambda x, y: NORMS[k](ng, x, y), leaves)


@pytest.mark.parametrize("program", [
    lambda M: M.linalg.matrix_norm(M.ones(3)),
    lambda M: M.linalg.norm(M.ones(2, 3, 4), ord=2),
    lambda M: M.linalg.norm(M.ones(3), ord="fro"),
    lambda M: M.linalg.vector_norm(M.tensor([1, 2])),
    lambda M: M.linalg.vector_norm(M.ones(3), ord="fro"),
    lambda M: M.linalg.matrix_norm(M.ones(2, 3), ord=5),
    lambda M: M.linalg.matrix_norm(M.ones(2, 3), dim=(1, 1)),
    lambda M: M.dist(M.ones(2), M.zeros(3, 2), p=1),
    lambda M: M.dist(M.ones(2), M.zeros(3)),
], ids=["matrix_norm_1d", "norm_3d_ord", "norm_fro_1d", "vector_norm_int", "vector_norm_str",
        "matrix_norm_order", "matrix_norm_same_dims", "dist_broadcast", "dist_shapes"])
def test_norm_edges(program):
    same_outcome(program)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, float("inf")])
@pytest.mark.parametrize("shapes", [((3, 4), (5, 4)), ((2, 3, 4), (2, 1, 4))])
def test_cdist_matches_torch(p, shapes):
    rng = np.random.default_rng(len(str(p)))
    a, b = (rng.standard_normal(s) for s in shapes)
    check(value_and_grads(lambda M, x, y: M.cdist(x, y, p=p), a, b), rtol=1e-7, atol=1e-9)
    assert gradcheck(lambda x, y: ng.cdist(x, y, p), (ng.tensor(a, requires_grad=True), ng.tensor(b, requires_grad=True)))


def test_cdist_of_equal_rows_has_a_zero_gradient():
    check(value_and_grads(lambda M, x, y: M.cdist(x, y), [[1.0, 2.0], [0.0, 1.0]], [[1.0, 2.0]]))


@pytest.mark.parametrize("program", [
    lambda M: M.cdist(M.ones(3), M.ones(2, 3)),
    lambda M: M.cdist(M.ones(2, 3), M.ones(2, 4)),
    lambda M: M.cdist(M.ones(2, 3), M.ones(2, 3), p=-1),
], ids=["1d", "columns", "negative_p"])
def test_cdist_errors(program):
    check_error(program)


def test_spectral_and_nuclear_norms_say_they_are_missing():
    for order in ("nuc", 2, -2):
        with pytest.raises(NotImplementedError, match="nbgrad does not implement"):
            ng.linalg.matrix_norm(ng.ones(2, 3), order)


def test_constants():
    check(lambda M: (M.inf, M.nan, M.pi, M.e))
    assert ng.linalg.__all__ == ["LinAlgError", "cholesky", "cross", "det", "inv", "matrix_norm", "norm",
                                 "slogdet", "solve", "vector_norm"]
