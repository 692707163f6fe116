"""PyTorch parity of the math functions of issue 16's second part: addcmul and addcdiv,
copysign and logit, diff, cross (and linalg.cross), tensordot, cov and corrcoef, and the
functions of square matrices (det, slogdet, logdet, inverse, linalg.inv, linalg.solve).

The op table (``opinfo.py``) runs gradcheck, second-order gradcheck, parity of values,
gradients and nodes, and the saved-tensor checks on each of them at ordinary values;
these tests are the edges: dtypes, 0-d, empty, broadcast and batched operands, errors,
warnings, and randomised shapes.
"""

import math
import warnings

import numpy as np
import pytest
from parity import check, check_error, same_outcome, torch, value_and_grads

import nbgrad as ng
from nbgrad.autograd import gradcheck

NAN, INF = math.nan, math.inf


def invertible(rng, *shape):
    n = shape[-1]
    return 2 * np.eye(n) + 0.4 * rng.standard_normal(shape)


# -- addcmul, addcdiv ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("dtypes", [("int64", "float32", "float32"), ("float32", "float64", "float32"),
                                    ("int32", "int64", "float16"), ("float64", "float64", "float64")])
@pytest.mark.parametrize("value", [1, 0.5, -2, True])
def test_addc_promotes_its_three_operands(name, dtypes, value):
    def program(M):
        a, b, c = (M.tensor([[1, 2, 3], [4, 5, 6]]).to(getattr(M, d)) for d in dtypes)
        return getattr(M, name)(a, b, c[0], value=value)
    same_outcome(program, rtol=1e-3)


@pytest.mark.parametrize("program", [
    lambda M: M.addcmul(M.tensor([1, 2]), M.tensor([3, 4]), M.tensor([5, 6]), value=2.7),
    lambda M: M.addcmul(M.tensor([1, 2]), M.tensor([3, 4]), M.tensor([5, 6]), value=-2.7),
    lambda M: M.addcdiv(M.tensor([1, 2]), M.tensor([3.0, 4.0]), M.tensor([5, 0]), value=2),
    lambda M: M.addcdiv(M.tensor([1.0, 2.0, 0.0]), M.tensor([0.0, 1.0, -1.0]), M.tensor([0.0, 0.0, 0.0])),
    lambda M: M.addcmul(M.tensor(2.0), M.ones(0, 3), M.tensor([1.0, 2.0, 3.0])),
    lambda M: M.addcmul(M.tensor(2.0), M.tensor(3.0), M.tensor(4.0), value=0.25),
    lambda M: M.tensor([1.0, 2.0]).addcmul(M.tensor([3.0, 4.0]), M.tensor(2.0), value=3),
    lambda M: M.ones(3).addcdiv_(M.tensor([1.0, 2.0, 3.0]), M.tensor([4.0, 5.0, 6.0]), value=2.5),
    lambda M: M.ones(3, 4).addcmul_(M.ones(4), M.ones(3, 1), value=-1),
    lambda M: M.tensor([1, 2]).addcmul_(M.tensor([3, 4]), M.tensor([5, 6]), value=2),
], ids=["int_truncates_value", "int_truncates_negative_value", "int_input_float_t1", "div_by_zero",
        "empty_broadcast", "zero_dim", "method", "addcdiv_", "addcmul_broadcast_", "addcmul__int"])
def test_addc_values(program):
    check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.addcdiv(M.tensor([1.0]), M.tensor([1]), M.tensor([2])),
    lambda M: M.addcdiv(M.tensor([1]), M.tensor([True]), M.tensor([2])),
    lambda M: M.addcmul(M.tensor([True]), M.tensor([True]), M.tensor([True])),
    lambda M: M.addcmul(M.ones(3, 1), M.ones(4), M.ones(2, 1)),
    lambda M: M.addcmul(M.ones(3), 2.0, M.ones(3)),
    lambda M: M.addcmul(M.ones(3), M.ones(3), M.ones(3), value="a"),
    lambda M: M.addcmul(M.ones(3), M.ones(3), M.ones(3), value=None),
    lambda M: M.ones(3, 1).addcmul_(M.ones(4), M.ones(1)),
    lambda M: M.ones(3, dtype=M.int64).addcmul_(M.ones(3), M.ones(3)),
    lambda M: M.ones(2, requires_grad=True).addcdiv_(M.ones(2), M.ones(2)),
], ids=["addcdiv_integer_division", "addcdiv_bool_int", "addcmul_bool", "broadcast", "number_tensor1",
        "value_str", "value_none", "inplace_shape", "inplace_int_from_float", "inplace_leaf"])
def test_addc_errors(program):
    check_error(program)


@pytest.mark.parametrize("seed", range(4))
def test_addc_gradients_with_random_broadcasting_match_torch(seed):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (4,), (3, 1), (1, 4), ()]
    picks = [shapes[i] for i in rng.integers(0, len(shapes), 3)]
    arrays = [rng.standard_normal(s) for s in picks]
    arrays[2] = np.where(np.abs(arrays[2]) < 0.3, 0.5, arrays[2])
    value = float(rng.uniform(-2, 2))
    for name in ("addcmul", "addcdiv"):
        check(value_and_grads(lambda M, a, b, c, name=name: getattr(M, name)(a, b, c, value=value), *arrays))
        check(value_and_grads(lambda M, a, b, c, name=name: getattr(M, name)(a, b, c, value=value), *arrays,
                              dtype="float32"), rtol=1e-4)
        leaves = [ng.tensor(a, dtype=ng.float64, requires_grad=True) for a in arrays]
        assert gradcheck(lambda a, b, c, name=name: getattr(ng, name)(a, b, c, value=value), leaves)


def test_addc_gradient_of_a_number_operand_cast_dtype():
    """An int input and a float tensor1: the gradients come back in each leaf's dtype."""
    def program(M):
        t1 = M.tensor([1.0, 2.0], dtype=M.float64, requires_grad=True)
        t2 = M.tensor([3.0, 4.0], requires_grad=True)
        out = M.addcmul(M.tensor([1, 2]), t1, t2, value=0.5)
        out.sum().backward()
        return out, t1.grad, t2.grad
    check(program)


# -- copysign, logit ------------------------------------------------------------------------------
SIGNS = [-INF, -2.0, -0.0, 0.0, 3.0, INF, NAN]


@pytest.mark.parametrize("program", [
    lambda M: M.copysign(M.tensor(SIGNS), M.tensor([[1.0], [-1.0], [-0.0], [0.0]])),
    lambda M: M.copysign(M.tensor([1, -2, 0]), M.tensor([-1, 1, -1])),
    lambda M: M.copysign(M.tensor([1, -2, 0]), -1),
    lambda M: M.copysign(M.tensor([1.0, 2.0], dtype=M.float16), -1.0),
    lambda M: M.copysign(M.tensor([True, False]), M.tensor([False, True])),
    lambda M: M.copysign(M.tensor([1.0, 2.0]), M.tensor([-1.0], dtype=M.float64)),
    lambda M: M.copysign(M.tensor(2.0), M.ones(0)),
    lambda M: M.tensor([1.0, -2.0]).copysign_(M.tensor([-1.0, -1.0])),
    lambda M: M.tensor([1.0, -2.0]).copysign(-0.0),
], ids=["edges", "ints", "int_number", "half", "bool", "promote", "empty", "inplace", "method_negative_zero"])
def test_copysign_values(program):
    check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.copysign(2, M.tensor([1.0])),
    lambda M: M.copysign(M.ones(3), M.ones(2)),
    lambda M: M.ones(3, dtype=M.int64).copysign_(M.ones(3)),
    lambda M: M.ones(1).copysign_(M.ones(3)),
], ids=["number_input", "broadcast", "inplace_int", "inplace_shape"])
def test_copysign_errors(program):
    check_error(program)


def test_copysign_gradient_at_zero_and_of_the_sign_is_torchs():
    """0 where the input is 0 (either sign), and a zero gradient (not None) for ``other``."""
    x, y = [-2.0, -0.0, 0.0, 3.0, 0.0, 1.5], [1.0, -1.0, 1.0, -1.0, -0.0, NAN]
    check(value_and_grads(lambda M, a, b: M.copysign(a, b), x, y))
    check(value_and_grads(lambda M, a, b: M.copysign(a, b), [[1.0, -2.0, 0.0]], [[-1.0], [2.0]]))
    check(value_and_grads(lambda M, a: M.copysign(a, -1.0), x))
    check(value_and_grads(lambda M, a: M.copysign(a, 0.0), x, dtype="float32"))


# -0.0 has a test of its own, below
LOGIT = [-1.0, 0.0, 0.05, 0.2, 0.5, 0.95, 1.0, 1.5, INF, NAN]


@pytest.mark.parametrize("eps", [None, 0.1, 0.0, -0.1, 0.5, 1e-6])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logit_values_and_gradients_with_and_without_eps(eps, dtype):
    check(value_and_grads(lambda M, a: M.logit(a, eps), LOGIT, dtype=dtype))
    check(value_and_grads(lambda M, a: M.logit(a, eps=eps), LOGIT, dtype=dtype))
    check(value_and_grads(lambda M, a: a.logit(eps), LOGIT, dtype=dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logit_at_negative_zero_is_minus_inf_with_the_gradient_of_pytorchs_scalar_kernel(dtype):
    """At x = -0.0 PyTorch's sign of the infinite gradient depends on its kernel: its
    element-by-element loop gives +inf, its AVX2 float64 loop (8 elements or more) -inf. nbgrad
    gives +inf always, the value of ``grad / (x (1 - x))`` with the zero's sign dropped."""
    check(value_and_grads(lambda M, a: M.logit(a), [-0.0], dtype=dtype))
    x = ng.tensor([-0.0] * 16, dtype=getattr(ng, dtype), requires_grad=True)
    y = ng.logit(x)
    y.sum().backward()
    assert np.all(y.detach().numpy() == -INF) and np.all(x.grad.numpy() == INF)


@pytest.mark.parametrize("program", [
    lambda M: M.logit(M.tensor([0, 1, 2])),
    lambda M: M.logit(M.tensor([True, False])),
    lambda M: M.logit(M.tensor([0.25, 0.5], dtype=M.float16), 0.3),
    lambda M: M.logit(M.tensor(0.25)),
    lambda M: M.logit(M.ones(0, 2)),
    lambda M: M.tensor([0.25, 0.75]).logit_(0.3),
    lambda M: M.logit(M.tensor([0.25]), 1),
], ids=["int", "bool", "half_eps", "zero_dim", "empty", "inplace", "int_eps"])
def test_logit_values(program):
    check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.logit(M.tensor([0.5]), "a"),
    lambda M: M.logit([0.5]),
    lambda M: M.tensor([1, 2]).logit_(),
], ids=["eps_str", "list", "inplace_int"])
def test_logit_errors(program):
    check_error(program)


def test_logit_gradcheck():
    x = ng.tensor([0.1, 0.3, 0.6, 0.85], dtype=ng.float64, requires_grad=True)
    assert gradcheck(lambda t: ng.logit(t), (x,))
    assert gradcheck(lambda t: ng.logit(t, 0.2), (x,))


# -- diff -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("program", [
    lambda M: M.diff(M.arange(12.0).reshape(3, 4) ** 2),
    lambda M: M.diff(M.arange(12.0).reshape(3, 4) ** 2, n=2, dim=0),
    lambda M: M.diff(M.arange(12.0).reshape(3, 4), n=0),
    lambda M: M.diff(M.arange(12.0).reshape(3, 4), n=4),
    lambda M: M.diff(M.arange(12.0).reshape(3, 4), n=9),
    lambda M: M.diff(M.tensor([True, False, False, True])),
    lambda M: M.diff(M.tensor([True, False, False, True]), n=2),
    lambda M: M.diff(M.tensor([1, 4, 9], dtype=M.int32)),
    lambda M: M.diff(M.tensor([1, 4, 9], dtype=M.uint8)),
    lambda M: M.diff(M.arange(12.0).reshape(3, 4), prepend=M.zeros(3, 1)),
    lambda M: M.diff(M.arange(12.0).reshape(3, 4), prepend=M.zeros(3, 1, dtype=M.float64), append=M.ones(3, 2)),
    lambda M: M.diff(M.arange(12).reshape(3, 4), dim=0, append=M.ones(1, 4)),
    lambda M: M.diff(M.arange(12).reshape(3, 4), append=M.ones(3, 1)),
    lambda M: M.diff(M.ones(0)),
    lambda M: M.diff(M.ones(2, 0), dim=0),
    lambda M: M.diff(M.tensor([1.0, INF, NAN, 2.0])),
    lambda M: M.arange(5.0).diff(2, 0),
], ids=["last", "twice_dim0", "n0", "n_size", "n_beyond", "bool", "bool_twice", "int32", "uint8", "prepend",
        "prepend_append_promote", "append_int_float", "append_int_float_last", "empty", "empty_dim", "inf_nan",
        "method"])
def test_diff_values(program):
    check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.diff(M.tensor(1.0)),
    lambda M: M.diff(M.ones(3), n=-1),
    lambda M: M.diff(M.ones(3), n=1.5),
    lambda M: M.diff(M.ones(3), n=True),
    lambda M: M.diff(M.ones(3, 4), dim=2),
    lambda M: M.diff(M.ones(3, 4), prepend=M.zeros(1)),
    lambda M: M.diff(M.ones(3, 4), append=2.0),
    lambda M: M.diff(M.ones(3, 4), prepend=[1.0]),
], ids=["zero_dim", "negative_n", "float_n", "bool_n", "dim", "prepend_dims", "append_number", "prepend_list"])
def test_diff_errors(program):
    check_error(program)


@pytest.mark.parametrize("seed", range(3))
def test_diff_gradients_match_torch(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 5, 3))
    dim = int(rng.integers(-3, 3))
    n = int(rng.integers(0, 4))
    x = rng.standard_normal(shape)
    before = rng.standard_normal(tuple(2 if d == dim % 3 else s for d, s in enumerate(shape)))
    check(value_and_grads(lambda M, a: M.diff(a, n, dim), x))
    check(value_and_grads(lambda M, a, p: M.diff(a, n, dim, prepend=p), x, before))
    check(value_and_grads(lambda M, a, p: M.diff(a, n, dim, append=p), x, before))
    t = ng.tensor(x, requires_grad=True, dtype=ng.float64)
    assert gradcheck(lambda a: ng.diff(a, n, dim, append=a), (t,))


# -- cross --------------------------------------------------------------------------------------
@pytest.mark.parametrize("program", [
    lambda M: M.cross(M.tensor([1.0, 0.0, 0.0]), M.tensor([0.0, 1.0, 0.0]), dim=0),
    lambda M: M.cross(M.arange(12.0).reshape(3, 4), M.ones(3, 4), dim=0),
    lambda M: M.cross(M.arange(12.0).reshape(4, 3), M.ones(1, 3), dim=-1),
    lambda M: M.cross(M.arange(18.0).reshape(2, 3, 3), M.ones(2, 3, 3), 1),
    lambda M: M.linalg.cross(M.arange(18.0).reshape(2, 3, 3), M.ones(2, 3, 3)),
    lambda M: M.linalg.cross(M.arange(12.0).reshape(3, 4), M.ones(3, 4), dim=0),
    lambda M: M.linalg.cross(M.tensor([1, 2, 3]), M.tensor([4, 5, 6])),
    lambda M: M.linalg.cross(M.ones(0, 3), M.ones(0, 3)),
    lambda M: M.linalg.cross(M.ones(2, 0, 3), M.ones(1, 1, 3)),
    lambda M: M.linalg.cross(M.tensor([1.0, INF, NAN]), M.tensor([1.0, 2.0, 3.0])),
    lambda M: M.tensor([1.0, 2.0, 3.0]).cross(M.tensor([3.0, 2.0, 1.0]), dim=0),
], ids=["unit", "dim0", "broadcast", "batched", "linalg_last", "linalg_dim", "int", "empty",
        "empty_broadcast", "inf_nan", "method"])
def test_cross_values(program):
    check(program)


@pytest.mark.filterwarnings("ignore:Using .*cross without specifying the dim arg")
@pytest.mark.parametrize("program", [
    lambda M: M.cross(M.ones(4, 4), M.ones(4, 4)),
    lambda M: M.cross(M.ones(3), M.ones(3), dim=1),
    lambda M: M.cross(M.ones(3, 1), M.ones(1, 3)),
    lambda M: M.linalg.cross(M.ones(3, 4), M.ones(3, 4)),
    lambda M: M.linalg.cross(M.ones(3, 4), M.ones(4)),
    lambda M: M.linalg.cross(M.ones(3), M.ones(3, dtype=M.float64)),
    lambda M: M.linalg.cross(M.tensor([1, 2, 3]), M.tensor([4.0, 5.0, 6.0])),
    lambda M: M.linalg.cross(M.tensor([True, False, True]), M.tensor([True, True, False])),
    lambda M: M.linalg.cross(M.ones(2, 3), M.ones(4, 3)),
    lambda M: M.linalg.cross(M.tensor(1.0), M.tensor(1.0)),
], ids=["no_size_3", "dim_range", "default_dim_other", "linalg_size", "ndim", "dtype", "int_float",
        "bool", "broadcast", "zero_dim"])
def test_cross_errors(program):
    check_error(program)


def test_cross_without_dim_warns_once_and_takes_the_first_dimension_of_size_3():
    for M in (torch, ng):
        M.set_warn_always(True)
    try:
        for M in (torch, ng):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                M.cross(M.ones(4, 3), M.ones(4, 3))
            messages = [str(w.message).split(" (Triggered")[0].replace("torch.", "nbgrad.") for w in caught]
            assert messages and "without specifying the dim arg is deprecated" in messages[0]
            if M is torch:
                expected = messages
            else:
                assert messages == expected
    finally:
        for M in (torch, ng):
            M.set_warn_always(False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda M: M.cross(M.arange(12.0).reshape(4, 3), M.ones(4, 3)))
        check(lambda M: M.cross(M.arange(27.0).reshape(3, 3, 3), M.ones(3, 3, 3).exp()))
        check(value_and_grads(lambda M, a, b: M.cross(a, b), np.arange(12.0).reshape(3, 4), np.ones((3, 4))))


@pytest.mark.parametrize("seed", range(3))
def test_cross_gradients_match_torch(seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((2, 1, 3, 4))
    b = rng.standard_normal((1, 5, 3, 1))
    check(value_and_grads(lambda M, x, y: M.linalg.cross(x, y, dim=2), a, b))
    check(value_and_grads(lambda M, x, y: M.cross(x, y, dim=-2), a, b, dtype="float32"), rtol=1e-4)


# -- tensordot ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dims", [2, 0, 1, ([1, 2], [0, 1]), [[1, 2], [0, 1]], ([1], [0]), ([-1], [-2]),
                                  ((2, 1), (1, 0)), ([], [])])
def test_tensordot_matches_torch(dims):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((4, 5, 2))
    if dims == ([-1], [-2]):
        b = rng.standard_normal((4, 5, 2))
    same_outcome(value_and_grads(lambda M, x, y: M.tensordot(x, y, dims=dims), a, b))


@pytest.mark.parametrize("program", [
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5), dims=M.tensor([[1], [0]])),
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5), dims=M.tensor(1)),
    lambda M: M.tensordot(M.tensor(2.0), M.tensor(3.0), dims=0),
    lambda M: M.tensordot(M.ones(2, 3, dtype=M.int64), M.ones(3, dtype=M.int64), dims=1),
    lambda M: M.tensordot(M.ones(0, 3), M.ones(3, 0), dims=1),
    lambda M: M.tensordot(M.ones(3, 1), M.ones(4, 5), dims=([1], [0])),
    lambda M: M.tensordot(M.ones(3, 4), M.ones(1, 5), dims=([1], [0])),
], ids=["tensor_lists", "tensor_int", "zero_dim", "int", "empty", "size_1_left", "size_1_right"])
def test_tensordot_values(program):
    check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5), dims=-1),
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5), dims=3),
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5), dims=2),
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5), dims=([1, 0], [0])),
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5, dtype=M.float64), dims=1),
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5), dims="a"),
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5), dims=(1, 0)),
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5), dims=([5], [0])),
    lambda M: M.tensordot(M.ones(3, 4), M.ones(4, 5), dims=([1], [1])),
], ids=["negative", "too_many", "mismatch", "lengths", "dtype", "str", "ints", "dim_range", "sizes"])
def test_tensordot_errors(program):
    check_error(program)


def test_tensordot_is_mm_then_a_view_and_has_no_method():
    check(value_and_grads(lambda M, x, y: M.tensordot(x, y, 1), np.ones((2, 3)), np.ones((3, 4))))
    assert not hasattr(ng.Tensor, "tensordot") and not hasattr(torch.Tensor, "tensordot")


# -- cov, corrcoef -----------------------------------------------------------------------------
COV_X = np.array([[0.3, -1.2, 2.0, 0.7, -0.4], [1.1, 0.2, -0.6, 1.9, 0.8], [-0.5, 0.4, 0.9, -1.3, 0.1]])


@pytest.mark.parametrize("kwargs", [
    {}, {"correction": 0}, {"correction": 2}, {"fweights": np.array([1, 2, 0, 1, 3])},
    {"aweights": np.array([1.0, 0.5, 2.0, 0.25, 1.0])},
    {"fweights": np.array([1, 2, 1, 1, 3]), "aweights": np.array([1.0, 0.5, 2.0, 0.25, 1.0])},
    {"fweights": np.array([1, 2, 1, 1, 3]), "aweights": np.array([1.0, 0.5, 2.0, 0.25, 1.0]), "correction": 0},
], ids=["default", "correction0", "correction2", "fweights", "aweights", "both", "both_correction0"])
def test_cov_values_and_gradients(kwargs):
    def program(M, x):
        given = {k: M.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        return M.cov(x, **given)
    check(value_and_grads(program, COV_X))
    check(value_and_grads(program, COV_X[1]))
    check(value_and_grads(program, COV_X, dtype="float32"), rtol=1e-4)


@pytest.mark.parametrize("program", [
    lambda M: M.cov(M.tensor([[1, 2, 4], [3, 1, 0]])),
    lambda M: M.cov(M.tensor([[1, 2, 4], [3, 1, 0]], dtype=M.int32), fweights=M.tensor([1, 1, 2], dtype=M.int32)),
    lambda M: M.cov(M.tensor(COV_X, dtype=M.float32), aweights=M.tensor([1.0, 0.5, 2.0, 0.25, 1.0], dtype=M.float64)),
    lambda M: M.cov(M.ones(0, 3)),
    lambda M: M.tensor(COV_X).cov(correction=1),
    lambda M: M.corrcoef(M.tensor(COV_X)),
    lambda M: M.corrcoef(M.tensor(COV_X[0])),
    lambda M: M.corrcoef(M.tensor([[1, 2, 4], [3, 1, 0]])),
    lambda M: M.corrcoef(M.ones(2, 3)),
    lambda M: M.corrcoef(M.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]], dtype=M.float64)),
    lambda M: M.tensor(COV_X).corrcoef(),
], ids=["int", "int32_fweights", "float64_aweights", "no_variables", "method", "corrcoef", "corrcoef_one",
        "corrcoef_int", "corrcoef_constant", "corrcoef_clipped", "corrcoef_method"])
def test_cov_and_corrcoef_values(program):
    check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.cov(M.tensor(2.0)),
    lambda M: M.cov(M.ones(3, 1)),
    lambda M: M.cov(M.ones(3, 0)),
    lambda M: M.cov(M.tensor(COV_X), correction=5),
    lambda M: M.corrcoef(M.tensor(2.0)),
], ids=["zero_dim", "one_observation", "no_observations", "correction_too_large", "corrcoef_zero_dim"])
def test_cov_without_degrees_of_freedom_warns_as_torch(program):
    for M in (torch, ng):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            program(M)
        messages = [str(w.message).split(" (Triggered")[0] for w in caught]
        expected = ("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                    "number of observations.")
        assert messages == [expected], (M.__name__, messages)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(program)


@pytest.mark.parametrize("program", [
    lambda M: M.cov(M.ones(2, 2, 2)),
    lambda M: M.cov(M.tensor([[True, False]])),
    lambda M: M.cov(M.ones(3, 5), correction=2.5),
    lambda M: M.cov(M.ones(3, 5), correction=True),
    lambda M: M.cov(M.ones(3, 5), fweights=M.tensor([1.0, 2, 0, 1, 1])),
    lambda M: M.cov(M.ones(3, 5), fweights=M.tensor([1, -2, 0, 1, 1])),
    lambda M: M.cov(M.ones(3, 5), fweights=M.tensor([1, 2, 0, 1])),
    lambda M: M.cov(M.ones(3, 5), fweights=M.tensor([[1, 2, 0, 1, 1]])),
    lambda M: M.cov(M.ones(3, 5), fweights=[1, 2, 0, 1, 1]),
    lambda M: M.cov(M.ones(3, 5), fweights=M.zeros(5, dtype=M.int64)),
    lambda M: M.cov(M.ones(3, 5), aweights=M.tensor([1, 2, 0, 1, 1])),
    lambda M: M.cov(M.ones(3, 5), aweights=M.tensor([1.0, -2, 0.5, 1, 1])),
    lambda M: M.cov(M.ones(3, 5), aweights=M.zeros(5)),
    lambda M: M.corrcoef(M.ones(2, 2, 2)),
], ids=["3d", "bool", "float_correction", "bool_correction", "float_fweights", "negative_fweights",
        "fweights_numel", "fweights_2d", "fweights_list", "fweights_zero", "int_aweights", "negative_aweights",
        "aweights_zero", "corrcoef_3d"])
def test_cov_and_corrcoef_errors(program):
    check_error(program)


def test_cov_and_corrcoef_gradcheck():
    x = ng.tensor(COV_X, requires_grad=True)
    w = ng.tensor([1.0, 0.5, 2.0, 0.25, 1.0], dtype=ng.float64, requires_grad=True)
    assert gradcheck(lambda t, a: ng.cov(t, aweights=a, fweights=ng.tensor([1, 2, 1, 1, 3])), (x, w))
    assert gradcheck(ng.corrcoef, (x,))
    check(value_and_grads(lambda M, t: M.corrcoef(t), COV_X))


# -- det, slogdet, logdet, inverse, solve --------------------------------------------------------
SQUARE_ERRORS = [
    lambda M, f: f(M)(M.ones(3, 4)),
    lambda M, f: f(M)(M.ones(3)),
    lambda M, f: f(M)(M.ones(3, 3, dtype=M.int64)),
    lambda M, f: f(M)(M.eye(3, dtype=M.float16)),
    lambda M, f: f(M)([[1.0]]),
]
MATRIX_FUNCTIONS = {
    "det": lambda M: M.det, "linalg.det": lambda M: M.linalg.det, "Tensor.det": lambda M: M.Tensor.det,
    "slogdet": lambda M: M.slogdet, "linalg.slogdet": lambda M: M.linalg.slogdet, "logdet": lambda M: M.logdet,
    "inverse": lambda M: M.inverse, "linalg.inv": lambda M: M.linalg.inv, "Tensor.inverse": lambda M: M.Tensor.inverse,
}


@pytest.mark.parametrize("name", MATRIX_FUNCTIONS)
@pytest.mark.parametrize("k", range(len(SQUARE_ERRORS)), ids=["not_square", "1d", "int", "half", "list"])
def test_matrix_functions_refuse_what_torch_refuses(name, k):
    if name.startswith("Tensor.") and k == 4:
        pytest.skip("a list is no Tensor's self")
    check_error(lambda M: SQUARE_ERRORS[k](M, MATRIX_FUNCTIONS[name]))


@pytest.mark.parametrize("name", MATRIX_FUNCTIONS)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 1, 2, 2), (1, 1), (0, 0), (2, 0, 0), (0, 3, 3)])
def test_matrix_functions_values_batched_and_empty(name, shape):
    rng = np.random.default_rng(sum(shape))
    a = invertible(rng, *shape) if shape[-1] else np.ones(shape)
    check(lambda M: MATRIX_FUNCTIONS[name](M)(M.tensor(a)), rtol=1e-4, atol=1e-5)
    check(lambda M: MATRIX_FUNCTIONS[name](M)(M.tensor(a, dtype=M.float64)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_matrix_function_gradients_match_torch(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5))
    batch = tuple(int(b) for b in rng.integers(1, 3, int(rng.integers(0, 3))))
    a = invertible(rng, *batch, n, n) * rng.choice([-1.0, 1.0], (*batch, 1, 1))
    for name, f in MATRIX_FUNCTIONS.items():
        if name == "logdet":
            a_pos = a @ np.swapaxes(a, -1, -2) + np.eye(n)  # positive determinant: a finite logdet
            check(value_and_grads(lambda M, x: M.logdet(x), a_pos), rtol=1e-8)
        else:
            check(value_and_grads(lambda M, x, f=f: f(M)(x), a), rtol=1e-8)
    leaf = ng.tensor(a, requires_grad=True)
    for f in (ng.det, ng.inverse, lambda x: ng.slogdet(x).logabsdet):
        assert gradcheck(f, (leaf,))
        assert ng.autograd.gradgradcheck(f, (leaf,))


def test_det_of_singular_matrices_and_its_gradient_are_torchs():
    """0, and a zero gradient where det is exactly 0 (PyTorch's formula has det as a factor)."""
    singular = [[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [3.0, 4.0]]]
    check(value_and_grads(lambda M, x: M.det(x), singular))
    check(value_and_grads(lambda M, x: M.linalg.det(x), [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]))
    check(lambda M: M.slogdet(M.tensor(singular[:2])))
    check(lambda M: M.logdet(M.tensor(singular)))
    check(lambda M: M.logdet(M.tensor([[-1.0, 2.0], [2.0, 3.0]])))


def test_slogdet_returns_torchs_named_tuples():
    for name in ("slogdet", "linalg.slogdet"):
        result = MATRIX_FUNCTIONS[name](ng)(ng.tensor([[2.0, 1.0], [1.0, -3.0]]))
        expected = MATRIX_FUNCTIONS[name](torch)(torch.tensor([[2.0, 1.0], [1.0, -3.0]]))
        assert type(result).__name__ == type(expected).__name__
        assert result._fields == ("sign", "logabsdet") and repr(result).replace("nbgrad", "torch") == repr(expected)
    assert ng.return_types.slogdet is type(ng.slogdet(ng.eye(2)))


@pytest.mark.parametrize("program", [
    lambda M: M.linalg.inv(M.zeros(3, 3)),
    lambda M: M.linalg.inv(M.tensor([[1.0, 2.0], [2.0, 4.0]])),
    lambda M: M.inverse(M.stack([M.eye(3), M.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]])])),
    lambda M: M.linalg.solve(M.zeros(3, 3), M.ones(3, 2)),
    lambda M: M.linalg.solve(M.stack([M.eye(3), M.zeros(3, 3)]), M.ones(2, 3)),
], ids=["inv_zeros", "inv_rank_1", "inverse_batch_element", "solve", "solve_batch_element"])
def test_singular_matrices_raise_torchs_linalg_error(program):
    _, error = check_error(program)
    assert isinstance(error, ng.linalg.LinAlgError) and isinstance(error, RuntimeError)


SOLVE_SHAPES = [((3, 3), (3, 2), True), ((3, 3), (3,), True), ((2, 3, 3), (2, 3), True),
                ((2, 3, 3), (3,), True), ((2, 3, 3), (3, 4), True), ((3, 3), (5, 2, 3, 4), True),
                ((2, 1, 3, 3), (4, 3, 1), True), ((3, 3), (4, 3), False), ((2, 3, 3), (1, 2, 3), False),
                ((3, 3), (3, 0), True), ((0, 3, 3), (3, 2), True)]


@pytest.mark.parametrize("a_shape, b_shape, left", SOLVE_SHAPES)
def test_solve_broadcasts_and_its_gradients_match_torch(a_shape, b_shape, left):
    rng = np.random.default_rng(len(a_shape) + len(b_shape))
    a, b = invertible(rng, *a_shape), rng.standard_normal(b_shape)
    check(value_and_grads(lambda M, x, y: M.linalg.solve(x, y, left=left), a, b), rtol=1e-8)
    check(value_and_grads(lambda M, x, y: M.linalg.solve(x, y, left=left), a, b, dtype="float32"), rtol=1e-4, atol=1e-5)
    if 0 not in a_shape + b_shape:
        leaves = (ng.tensor(a, requires_grad=True), ng.tensor(b, requires_grad=True))
        assert gradcheck(lambda x, y: ng.linalg.solve(x, y, left=left), leaves)
        assert ng.autograd.gradgradcheck(lambda x, y: ng.linalg.solve(x, y, left=left), leaves)


@pytest.mark.parametrize("program", [
    lambda M: M.linalg.solve(M.eye(3), M.ones(3), left=False),
    lambda M: M.linalg.solve(M.eye(3), M.ones(4)),
    lambda M: M.linalg.solve(M.eye(3), M.ones(4, 4)),
    lambda M: M.linalg.solve(M.eye(3), M.ones(3, 4, dtype=M.float64)),
    lambda M: M.linalg.solve(M.ones(3, 4), M.ones(3, 4)),
    lambda M: M.linalg.solve(M.ones(3, 3, dtype=M.int64), M.ones(3, 4, dtype=M.int64)),
    lambda M: M.linalg.solve(M.eye(3), 2.0),
    lambda M: M.linalg.solve(M.eye(3), M.tensor(2.0)),
    lambda M: M.linalg.solve(M.ones(2, 3, 3), M.ones(3, 3, 4)),
    lambda M: M.linalg.solve([[1.0]], M.ones(1)),
], ids=["vector_right", "vector_size", "matrix_size", "dtype", "not_square", "int", "number", "zero_dim",
        "batch", "list"])
def test_solve_errors(program):
    check_error(program)


def test_the_aliases_are_the_same_functions():
    x = ng.tensor([[2.0, 1.0], [1.0, 3.0]])
    assert ng.equal(ng.det(x), ng.linalg.det(x)) and ng.equal(x.det(), ng.det(x))
    assert ng.equal(ng.inverse(x), ng.linalg.inv(x)) and ng.equal(x.inverse(), ng.inverse(x))
    assert ng.equal(x.slogdet().logabsdet, ng.logdet(x)) and ng.equal(x.logdet(), ng.logdet(x))
    assert ng.allclose(ng.linalg.solve(x, ng.eye(2)), ng.linalg.inv(x))


# -- cholesky ------------------------------------------------------------------------------------
def positive_definite(rng, *shape):
    b = invertible(rng, *shape)
    return b @ np.swapaxes(b, -1, -2)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 1, 2, 2), (1, 1), (0, 0), (2, 0, 0)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_values_and_gradients_match_torch(shape, upper):
    rng = np.random.default_rng(sum(shape))
    a = positive_definite(rng, *shape) if shape[-1] else np.ones(shape)

    def program(M, x):
        return M.linalg.cholesky((x + x.transpose(-2, -1)) * 0.5, upper=upper)
    check(value_and_grads(program, a), rtol=1e-8)
    check(value_and_grads(program, a, dtype="float32"), rtol=1e-4, atol=1e-5)


def test_cholesky_reads_the_lower_triangle_only():
    check(lambda M: M.linalg.cholesky(M.tensor([[4.0, 100.0], [1.0, 3.0]])))
    check(value_and_grads(lambda M, x: M.linalg.cholesky(x), [[4.0, 100.0], [1.0, 3.0]]))


@pytest.mark.parametrize("program", [
    lambda M: M.linalg.cholesky(M.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda M: M.linalg.cholesky(M.tensor([[-1.0, 0.0], [0.0, 1.0]])),
    lambda M: M.linalg.cholesky(M.stack([M.eye(3), -M.eye(3)])),
    lambda M: M.linalg.cholesky(M.ones(3, 4)),
    lambda M: M.linalg.cholesky(M.ones(3)),
    lambda M: M.linalg.cholesky(M.eye(3, dtype=M.int64)),
    lambda M: M.linalg.cholesky(M.eye(3, dtype=M.float16)),
    lambda M: M.linalg.cholesky([[1.0]]),
], ids=["minor_2", "minor_1", "batch_element", "not_square", "1d", "int", "half", "list"])
def test_cholesky_errors(program):
    check_error(program)


def test_the_warnings_point_at_the_callers_line():
    ng.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ng.cov(ng.ones(1))
            ng.ones(3).cross(ng.ones(3))
    finally:
        ng.set_warn_always(False)
    assert [w.filename for w in caught] == [__file__, __file__]
