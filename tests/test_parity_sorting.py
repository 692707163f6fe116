"""sort, argsort, msort, topk and kthvalue against PyTorch: values, indices, the named
tuples, grad_fn names, gradients (also where values tie: the gradient goes to the returned
index) and errors. Random shapes and dims; ties drawn on purpose."""

import numpy as np
import pytest
from parity import check, check_error, ng, torch
from shapeops_cases import gradchecks, run, weights_for

RNG = np.random.default_rng(61)
X = RNG.standard_normal((3, 5))
TIES = np.array([[3.0, 1, 2, 1, 2], [np.nan, 0, 5, 5, -np.inf], [1, 1, 1, 1, 1]])
X0 = np.array(2.5)

CASES = {
    "sort": ([X], lambda M, x: x.sort()),
    "sort_dim0_descending": ([X], lambda M, x: x.sort(0, True)),
    "sort_keywords": ([X], lambda M, x: M.sort(x, dim=-2, descending=False, stable=True)),
    "sort_stable_false": ([X], lambda M, x: x.sort(stable=False)),
    "sort_stable_ties": ([TIES], lambda M, x: x.sort(stable=True)),
    "sort_stable_ties_descending": ([TIES], lambda M, x: M.sort(x, stable=True, descending=True)),
    "sort_stable_dim0_ties": ([TIES], lambda M, x: x.sort(dim=0, stable=True)),
    "sort_0d": ([X0], lambda M, x: x.sort()),
    "sort_empty": ([np.zeros((2, 0))], lambda M, x: x.sort()),
    "sort_noncontiguous": ([X], lambda M, x: x.t().sort(stable=True)),
    "sort_int": ([np.array([3, -1, 2, 2])], lambda M, x: x.sort(stable=True, descending=True)),
    "sort_bool": ([np.array([True, False, True])], lambda M, x: x.sort(stable=True)),
    "argsort": ([X], lambda M, x: x.argsort()),
    "argsort_ties": ([TIES], lambda M, x: M.argsort(x, dim=1, descending=True, stable=True)),
    "argsort_0d": ([X0], lambda M, x: x.argsort()),
    "msort": ([X], lambda M, x: x.msort()),
    "msort_function": ([X[:2]], lambda M, x: M.msort(x)),
    "msort_ties": ([TIES], lambda M, x: x.msort()),
    "topk": ([X], lambda M, x: x.topk(2)),
    "topk_smallest_dim0": ([X], lambda M, x: M.topk(x, 2, dim=0, largest=False)),
    "topk_keywords": ([X], lambda M, x: x.topk(k=3, dim=-1, largest=True, sorted=True)),
    "topk_zero": ([X], lambda M, x: x.topk(0)),
    "topk_all": ([X], lambda M, x: x.topk(5)),
    "topk_nan_largest": ([TIES[1:2]], lambda M, x: x.topk(1)),
    "topk_0d": ([X0], lambda M, x: x.topk(1)),
    "topk_noncontiguous": ([X], lambda M, x: x.t().topk(2, dim=0)),
    "topk_int": ([np.array([1, 3, 2])], lambda M, x: x.topk(2)),
    "kthvalue": ([X], lambda M, x: x.kthvalue(2)),
    "kthvalue_keepdim_dim0": ([X], lambda M, x: M.kthvalue(x, 3, 0, True)),
    "kthvalue_0d": ([X0], lambda M, x: x.kthvalue(1)),
    "kthvalue_negative_dim": ([X], lambda M, x: x.kthvalue(1, dim=-2)),
}


@pytest.mark.parametrize("name", CASES)
def test_sorting(name):
    arrays, fn = CASES[name]
    check(lambda M: run(M, arrays, fn))


@pytest.mark.parametrize("name", [n for n in CASES if "int" not in n and "bool" not in n
                                  and "ties" not in n and "nan" not in n])
def test_sorting_gradcheck(name):
    arrays, fn = CASES[name]
    assert gradchecks(arrays, fn)


def test_named_tuples():
    def program(M):
        x = M.tensor(X)
        out = []
        for result in (x.sort(), x.topk(2), x.kthvalue(1)):
            values, indices = result
            out += [type(result).__name__, values, indices, result.values, result.indices,
                    result[0], len(result)]
        return out

    check(program)
    assert repr(ng.tensor([2.0, 1.0]).sort()).startswith("nbgrad.return_types.sort(")


def test_random_sorts_against_torch():
    rng = np.random.default_rng(5)
    for _ in range(40):
        shape = tuple(int(n) for n in rng.integers(1, 5, size=rng.integers(1, 4)))
        dim = int(rng.integers(-len(shape), len(shape)))
        ties = rng.random() < 0.5
        x = rng.integers(-2, 3, size=shape).astype(float) if ties else rng.standard_normal(shape)
        descending = bool(rng.integers(2))
        k = int(rng.integers(0, shape[dim] + 1))
        check(lambda M, x=x, d=dim, s=descending: run(
            M, [x], lambda M, x: x.sort(dim=d, descending=s, stable=True)))
        check(lambda M, x=x, d=dim, s=descending: run(
            M, [x], lambda M, x: x.argsort(dim=d, descending=s, stable=True)))
        if not ties:  # the order of tied elements in topk and kthvalue is unspecified
            check(lambda M, x=x, d=dim, k=k, s=descending: run(
                M, [x], lambda M, x: x.topk(k, d, largest=s)))
            kth = max(k, 1)
            check(lambda M, x=x, d=dim, k=kth: run(M, [x], lambda M, x: x.kthvalue(k, d)))


@pytest.mark.parametrize("op", ["topk", "kthvalue"])
def test_ties_send_the_gradient_to_the_returned_index(op):
    x = ng.tensor(TIES[2:] * np.ones((2, 1)), requires_grad=True)
    values, indices = x.topk(3) if op == "topk" else x.kthvalue(2, keepdim=True)
    w = weights_for(ng, values)
    (values * w).sum().backward()
    expected = np.zeros(x.shape)
    np.put_along_axis(expected, indices.numpy(), w.numpy(), axis=1)
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    assert np.count_nonzero(x.grad.numpy()) == w.numel()  # never split among the ties


def test_second_order_through_sort():
    def program(M):
        x = M.tensor(X, dtype=M.float64, requires_grad=True)
        y = (x.sort(0).values ** 3 * M.arange(5.0, dtype=M.float64)).sum()
        (g,) = M.autograd.grad(y, x, create_graph=True)
        (gg,) = M.autograd.grad(g.sum(), x)
        return g, gg

    check(program)


ERRORS = {
    "topk_too_big": lambda M: M.zeros(3, 4).topk(5),
    "topk_negative": lambda M: M.zeros(3, 4).topk(-1),
    "topk_0d_k2": lambda M: M.tensor(3.0).topk(2),
    "topk_bad_dim": lambda M: M.zeros(3, 4).topk(1, dim=2),
    "kthvalue_zero": lambda M: M.zeros(3, 4).kthvalue(0),
    "kthvalue_too_big": lambda M: M.zeros(3, 4).kthvalue(5),
    "sort_bad_dim": lambda M: M.zeros(3, 4).sort(dim=2),
    "argsort_bad_dim": lambda M: M.zeros(3).argsort(dim=-2),
    "sort_not_tensor": lambda M: M.sort([3, 1]),
}


@pytest.mark.parametrize("name", ERRORS)
def test_sorting_errors(name):
    check_error(ERRORS[name], key="" if name == "sort_not_tensor" else None)


def test_indices_do_not_require_grad():
    x = ng.tensor(X, requires_grad=True)
    for _, indices in (x.sort(), x.topk(2), x.kthvalue(1)):
        assert indices.dtype == ng.int64 and not indices.requires_grad and indices.grad_fn is None
    assert torch.tensor(X, requires_grad=True).argsort().grad_fn is None
    assert x.argsort().grad_fn is None


# -- unique --------------------------------------------------------------------------------------
UNIQUE = {
    "unique": lambda M: M.tensor([3.0, 1, 3, 2]).unique(),
    "unique_all": lambda M: M.unique(M.tensor([[3, 1], [3, 2]]), return_inverse=True, return_counts=True),
    "unique_inverse": lambda M: M.tensor([2, 2, 0]).unique(sorted=False, return_inverse=True),
    "unique_counts": lambda M: M.tensor([True, False, True]).unique(return_counts=True),
    "unique_nan_each_distinct": lambda M: M.tensor([np.nan, np.nan, 1.0]).unique(return_counts=True),
    "unique_0d": lambda M: M.tensor(3.0).unique(return_inverse=True, return_counts=True),
    "unique_empty": lambda M: M.zeros(0).unique(return_counts=True),
    "unique_dim": lambda M: M.tensor([[1, 2], [1, 2], [0, 5]]).unique(dim=0, return_inverse=True,
                                                                          return_counts=True),
    "unique_dim_negative": lambda M: M.tensor([[1, 2, 1], [1, 2, 1]]).unique(dim=-1, return_inverse=True),
    "unique_grad_fn": lambda M: [type(M.tensor([1.0, 1.0], requires_grad=True).unique(dim=d).grad_fn).__name__
                                 for d in (None, 0)],
}


@pytest.mark.parametrize("name", UNIQUE)
def test_unique(name):
    check(UNIQUE[name])


def test_random_unique_against_torch():
    rng = np.random.default_rng(9)
    for _ in range(20):
        shape = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(1, 4)))
        x = rng.integers(0, 3, size=shape)
        dim = None if rng.random() < 0.5 else int(rng.integers(-len(shape), len(shape)))
        check(lambda M, x=x, d=dim: M.tensor(x).unique(return_inverse=True, return_counts=True, dim=d))


@pytest.mark.parametrize("dim", [None, 0])
def test_unique_has_no_derivative(dim):
    check_error(lambda M: M.tensor([1.0, 2.0], requires_grad=True).unique(dim=dim).sum().backward())


def test_unique_errors():
    check_error(lambda M: M.tensor(3.0).unique(dim=0))
    check_error(lambda M: M.zeros(2, 2).unique(dim=2))


# -- searchsorted, bucketize ---------------------------------------------------------------------
SEQ, VALUES = np.array([1.0, 3, 5, 7]), np.array([[3.0, 6], [0, 9]])
SEARCH = {
    "searchsorted": lambda M: M.searchsorted(M.tensor(SEQ), M.tensor(VALUES)),
    "searchsorted_right": lambda M: M.searchsorted(M.tensor(SEQ), M.tensor(VALUES), right=True),
    "searchsorted_side": lambda M: M.searchsorted(M.tensor(SEQ), M.tensor(VALUES), side="right"),
    "searchsorted_number": lambda M: M.searchsorted(M.tensor(SEQ), 4.0),
    "searchsorted_int32": lambda M: M.searchsorted(M.tensor(SEQ), M.tensor(VALUES), out_int32=True),
    "searchsorted_rows": lambda M: M.searchsorted(M.tensor([[1.0, 3], [2, 4]]), M.tensor([[2.0], [3]])),
    "bucketize": lambda M: M.bucketize(M.tensor(VALUES), M.tensor(SEQ)),
    "bucketize_right": lambda M: M.bucketize(M.tensor(VALUES), M.tensor(SEQ), right=True),
}


@pytest.mark.parametrize("name", SEARCH)
def test_searchsorted(name):
    check(SEARCH[name])


def test_searchsorted_errors():
    check_error(lambda M: M.searchsorted(M.tensor([[1.0, 3], [2, 4]]), M.tensor([2.0])))
    check_error(lambda M: M.bucketize(M.tensor(VALUES), M.tensor([[1.0]])))
