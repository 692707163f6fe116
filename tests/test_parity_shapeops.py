"""Shape, indexing-along-a-dimension and reordering operations against PyTorch.

Each case runs forward and backward under both libraries (``shapeops_cases.run``):
values, dtypes, ``grad_fn`` names and the inputs' gradients must match, and ``gradcheck``
confirms the gradients in float64. Errors compare by type and PyTorch's key phrase.
"""

import numpy as np
import pytest
from parity import assert_same, check, check_error, check_warning
from shapeops_cases import gradchecks, run

# scatter(reduce=) with a tensor src warns (tested in test_scatter_reduce_warns)
REDUCE_WARNS = pytest.mark.filterwarnings("ignore:The reduce argument:UserWarning")

RNG = np.random.default_rng(16)
X = RNG.standard_normal((3, 4))
X0 = np.array(1.5)
ROWS = np.array([[0, 2, 1, 0], [2, 2, 0, 1]])  # gather/scatter index for X along 0
PERM = np.array([[2, 0, 1, 1], [0, 1, 2, 0]])  # distinct along 0 in each column


def t_(M, a):
    return M.tensor(a)


GATHER_CASES = {
    "gather_dim0": ([X], lambda M, x: x.gather(0, t_(M, ROWS))),
    "gather_dim_neg_smaller": ([X], lambda M, x: x.gather(-1, t_(M, [[3], [0]]))),
    "gather_function": ([X], lambda M, x: M.gather(x, 1, t_(M, [[1, 1, 1], [0, 3, 2], [0, 0, 0]]))),
    "gather_int32": ([X], lambda M, x: x.gather(0, M.tensor(ROWS, dtype=M.int32))),
    "gather_0d": ([X0], lambda M, x: x.gather(0, t_(M, 0))),
    "gather_0d_1d_index": ([X0], lambda M, x: x.gather(0, t_(M, [0, 0]))),
    "gather_empty_index": ([X], lambda M, x: x.gather(0, M.zeros(0, 4, dtype=M.long))),
    "gather_noncontiguous": ([X], lambda M, x: x.t().gather(1, t_(M, ROWS.T))),
    "scatter_src": ([X, X[:2] * 3], lambda M, x, s: x.scatter(0, t_(M, PERM), s)),
    "scatter_value": ([X], lambda M, x: x.scatter(1, t_(M, [[0], [3], [1]]), 2.5)),
    "scatter_value_kw": ([X], lambda M, x: M.scatter(x, 1, t_(M, [[0], [3], [1]]), value=-1)),
    "scatter_reduce_add": ([X], lambda M, x: x.detach().scatter(0, t_(M, ROWS), 1.0, reduce="add")),
    "scatter_reduce_mul": ([X], lambda M, x: x.detach().scatter(
        0, t_(M, ROWS), M.full((2, 4), 2.0, dtype=M.float64), reduce="multiply")),
    "scatter_int": ([np.arange(6).reshape(2, 3)],
                    lambda M, x: x.scatter(1, t_(M, [[2], [0]]), 9)),
    "scatter_add": ([X, X[:2] * 3], lambda M, x, s: x.scatter_add(0, t_(M, ROWS), s)),
    "scatter_inplace": ([X, X[:2]], lambda M, x, s: (x * 1).scatter_(0, t_(M, PERM), s)),
    "scatter_add_inplace": ([X, X[:2]], lambda M, x, s: (x * 1).scatter_add_(0, t_(M, ROWS), s)),
    "index_select": ([X], lambda M, x: x.index_select(0, t_(M, [2, 0, 2]))),
    "index_select_dim1": ([X], lambda M, x: M.index_select(x, -1, t_(M, [3, 1]))),
    "index_select_0d_index": ([X], lambda M, x: x.index_select(1, t_(M, 2))),
    "index_select_0d": ([X0], lambda M, x: x.index_select(0, t_(M, [0]))),
    "index_select_empty": ([X], lambda M, x: x.index_select(0, M.zeros(0, dtype=M.long))),
    "index_select_noncontiguous": ([X], lambda M, x: x.t().index_select(1, t_(M, [1, 1]))),
    "index_add": ([X, X[:2] * 2], lambda M, x, s: x.index_add(0, t_(M, [1, 1]), s)),
    "index_add_alpha": ([X, X[:, :2]], lambda M, x, s: x.index_add(1, t_(M, [3, 0]), s, alpha=-2.5)),
    "index_add_inplace": ([X, X[:2]], lambda M, x, s: (x * 1).index_add_(0, t_(M, [2, 0]), s)),
    "index_add_0d": ([X0, X0], lambda M, x, s: x.index_add(0, t_(M, 0), s)),
    "index_add_int": ([np.arange(6).reshape(2, 3)],
                      lambda M, x: x.index_add(1, t_(M, [0, 0]), M.ones(2, 2, dtype=M.long), alpha=3)),
    "index_copy": ([X, X[:2] * 2], lambda M, x, s: x.index_copy(0, t_(M, [2, 0]), s)),
    "index_copy_inplace": ([X, X[:, :1]], lambda M, x, s: (x * 1).index_copy_(1, t_(M, [1]), s)),
    "index_fill": ([X], lambda M, x: x.index_fill(1, t_(M, [0, 2]), -1.0)),
    "index_fill_tensor": ([X, X0], lambda M, x, v: x.index_fill(0, t_(M, [1, 1, 2]), v)),
    "index_fill_inplace": ([X], lambda M, x: (x * 1).index_fill_(0, t_(M, 1), 7)),
    "index_fill_int_float": ([np.arange(4)], lambda M, x: x.index_fill(0, t_(M, [0, 1]), 1.5)),
    "masked_select": ([X], lambda M, x: x.masked_select(x > 0)),
    "masked_select_mask_broadcast": ([X], lambda M, x: x.masked_select(t_(M, [True, False, True, True]))),
    "masked_select_input_broadcast": ([X[:1]], lambda M, x: M.masked_select(x, M.tensor(X > 0))),
    "masked_select_0d": ([X0], lambda M, x: x.masked_select(t_(M, True))),
    "take": ([X], lambda M, x: x.take(t_(M, [[0, -1], [11, 0]]))),
    "take_function_0d": ([X0], lambda M, x: M.take(x, t_(M, 0))),
    "take_noncontiguous": ([X], lambda M, x: x.t().take(t_(M, [1, 2, 3]))),
}


@REDUCE_WARNS
@pytest.mark.parametrize("name", GATHER_CASES)
def test_gather_family(name):
    arrays, fn = GATHER_CASES[name]
    check(lambda M: run(M, arrays, fn))


@pytest.mark.parametrize("name", [n for n in GATHER_CASES if "reduce" not in n and "int" not in n])
def test_gather_family_gradcheck(name):
    arrays, fn = GATHER_CASES[name]
    assert gradchecks(arrays, fn)


def test_second_order_through_gather_and_scatter():
    def program(M):
        x = M.tensor(X, dtype=M.float64, requires_grad=True)
        y = (x.gather(0, t_(M, ROWS)) ** 3).sum() + (x.index_select(1, t_(M, [0, 0])) ** 2).sum()
        (g,) = M.autograd.grad(y, x, create_graph=True)
        (gg,) = M.autograd.grad((g * g).sum(), x)
        return g, gg

    check(program)


def test_random_gather_scatter_add():
    rng = np.random.default_rng(3)
    for _ in range(30):
        shape = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(1, 4)))
        dim = int(rng.integers(-len(shape), len(shape)))
        index_shape = tuple(int(rng.integers(0, n + 1)) for n in shape)
        index_shape = tuple(int(rng.integers(0, 5)) if i == dim % len(shape) else n
                            for i, n in enumerate(index_shape))
        index = rng.integers(0, shape[dim], size=index_shape)
        x, src = rng.standard_normal(shape), rng.standard_normal(index_shape)
        check(lambda M, x=x, d=dim, i=index: run(M, [x], lambda M, x: x.gather(d, t_(M, i))))
        check(lambda M, x=x, s=src, d=dim, i=index: run(
            M, [x, s], lambda M, x, s: x.scatter_add(d, t_(M, i), s)))


def _index_error(M, name):
    x = M.zeros(3, 4)
    return {
        "gather_out_of_bounds": lambda: x.gather(0, t_(M, [[0, 5]])),
        "gather_negative": lambda: x.gather(0, t_(M, [[0, -1]])),
        "gather_float_index": lambda: x.gather(0, t_(M, [[0.0, 1.0]])),
        "gather_ndim": lambda: x.gather(0, t_(M, [0, 1])),
        "gather_too_big": lambda: x.gather(0, M.zeros(2, 5, dtype=M.long)),
        "gather_bad_dim": lambda: x.gather(2, M.zeros(2, 2, dtype=M.long)),
        "gather_list_index": lambda: x.gather(0, [[0]]),
        "scatter_add_list_src": lambda: x.scatter_add(0, t_(M, [[0]]), [[1.0]]),
        "scatter_out_of_bounds": lambda: x.scatter(0, t_(M, [[0, 5]]), 1.0),
        "scatter_src_small": lambda: x.scatter(0, t_(M, [[0, 1]]), M.zeros(1, 1)),
        "scatter_src_dtype": lambda: x.scatter(0, t_(M, [[0, 1]]), M.zeros(1, 2, dtype=M.float64)),
        "scatter_bad_reduce": lambda: x.scatter(0, t_(M, [[0, 1]]), 1.0, reduce="mean"),
        "scatter_add_dtype": lambda: x.scatter_add(0, t_(M, [[0, 1]]), M.zeros(1, 2, dtype=M.float64)),
        "scatter_add_out_of_bounds": lambda: x.scatter_add(0, t_(M, [[0, 7]]), M.zeros(1, 2)),
        "scatter_add_index_too_big": lambda: x.scatter_add(0, t_(M, [[0, 1, 1, 1, 1]]), M.zeros(1, 2)),
        "index_select_out_of_bounds": lambda: x.index_select(0, t_(M, [0, 5])),
        "index_select_negative": lambda: x.index_select(0, t_(M, [0, -1])),
        "index_select_2d_index": lambda: x.index_select(0, t_(M, [[0, 1]])),
        "index_select_float": lambda: x.index_select(0, t_(M, [0.0])),
        "index_add_out_of_bounds": lambda: x.index_add(0, t_(M, [0, 5]), M.ones(2, 4)),
        "index_add_shape": lambda: x.index_add(0, t_(M, [0, 1]), M.ones(2, 3)),
        "index_add_count": lambda: x.index_add(0, t_(M, [0, 1]), M.ones(3, 4)),
        "index_add_dtype": lambda: x.index_add(0, t_(M, [0, 1]), M.ones(2, 4, dtype=M.float64)),
        "index_add_2d_index": lambda: x.index_add(0, t_(M, [[0, 1]]), M.ones(2, 4)),
        "index_add_float_index": lambda: x.index_add(0, t_(M, [0.0, 1.0]), M.ones(2, 4)),
        "index_add_0d_shape": lambda: M.tensor(4.0).index_add(0, t_(M, [0]), t_(M, [1.0])),
        "index_copy_dtype": lambda: x.index_copy(0, t_(M, [0, 1]), M.ones(2, 4, dtype=M.float64)),
        "index_copy_out_of_bounds": lambda: x.index_copy(0, t_(M, [0, 7]), M.ones(2, 4)),
        "index_fill_out_of_bounds": lambda: x.index_fill(0, t_(M, [0, 7]), 1.0),
        "index_fill_1d_value": lambda: x.index_fill(0, t_(M, [0, 1]), t_(M, [1.0, 2.0])),
        "index_fill_2d_index": lambda: x.index_fill(0, t_(M, [[0, 1]]), 1.0),
        "masked_select_broadcast": lambda: x.masked_select(M.ones(2, dtype=M.bool)),
        "take_out_of_bounds": lambda: x.take(t_(M, [12])),
        "take_negative_out_of_bounds": lambda: x.take(t_(M, [-13])),
    }[name]()


GATHER_ERRORS = [
    "gather_out_of_bounds", "gather_negative", "gather_float_index", "gather_ndim",
    "gather_too_big", "gather_bad_dim", "scatter_out_of_bounds",
    "scatter_src_small", "scatter_src_dtype", "scatter_bad_reduce", "scatter_add_dtype",
    "scatter_add_out_of_bounds", "scatter_add_index_too_big", "index_select_out_of_bounds",
    "index_select_negative", "index_select_2d_index", "index_select_float",
    "index_add_out_of_bounds", "index_add_shape", "index_add_count", "index_add_dtype",
    "index_add_2d_index", "index_add_float_index", "index_add_0d_shape", "index_copy_dtype",
    "index_copy_out_of_bounds", "index_fill_out_of_bounds", "index_fill_1d_value",
    "index_fill_2d_index", "masked_select_broadcast", "take_out_of_bounds",
    "take_negative_out_of_bounds",
]


@pytest.mark.parametrize("name", ["gather_list_index", "scatter_add_list_src"])
def test_gather_family_type_errors(name):
    check_error(lambda M: _index_error(M, name), key="must be Tensor, not list")


# Where ``index`` is smaller than ``src``, PyTorch's formula (``grad.gather(dim, index)``)
# gives ``src`` a gradient of the wrong shape, and its engine says so: nbgrad's does too.
BAD_BACKWARD = {
    "scatter_src_bigger": ([X, RNG.standard_normal((3, 5))],
                           lambda M, x, s: x.scatter(0, t_(M, PERM[:1, :3]), s)),
    "scatter_add_smaller_index": ([X, X], lambda M, x, s: M.scatter_add(x, 1, t_(M, [[0, 0, 0, 0]]), s)),
    "scatter_add_empty": ([X, X], lambda M, x, s: x.scatter_add(0, M.zeros(0, 4, dtype=M.long), s)),
}


@pytest.mark.parametrize("name", BAD_BACKWARD)
def test_scatter_backward_shape_error(name):
    arrays, fn = BAD_BACKWARD[name]
    check_error(lambda M: run(M, arrays, fn))


@pytest.mark.parametrize("name", GATHER_ERRORS)
def test_gather_family_errors(name):
    check_error(lambda M: _index_error(M, name))


def test_inplace_scatter_bumps_version_and_checks_saved():
    def program(M):
        x = M.tensor(X, requires_grad=True)
        y = x * 1
        z = y.sin()
        y.scatter_(0, t_(M, PERM), 0.0)
        z.sum().backward()

    check_error(program)


def test_scatter_reduce_refuses_grad():
    def program(M):
        x = M.tensor(X, requires_grad=True)
        return x.scatter(0, t_(M, ROWS), 1.0, reduce="add").sum().backward()

    # PyTorch records a node whose backward is not implemented; nbgrad refuses at once
    _, t_err = None, None
    try:
        program(__import__("torch"))
    except RuntimeError as e:
        t_err = e
    assert t_err is not None and "not implemented" in str(t_err)
    with pytest.raises(NotImplementedError, match="not implemented"):
        program(__import__("nbgrad"))


def test_gather_result_is_a_copy():
    def program(M):
        x = M.tensor(X)
        y = x.index_select(0, t_(M, [0]))
        y += 1
        return x

    expected, got = check(program)
    assert_same(expected, got)


def test_scatter_reduce_warns():
    """Once per process, as PyTorch's (TORCH_WARN_ONCE), or always under set_warn_always."""
    def program(M):
        M.set_warn_always(True)
        try:
            return M.zeros(3).scatter(0, t_(M, [0, 0]), M.ones(2), reduce="add")
        finally:
            M.set_warn_always(False)

    check_warning(program)


# -- pieces: split, chunk, tensor_split, narrow ------------------------------------------------
Y = RNG.standard_normal((5, 3))
PIECES = {
    "split": ([Y], lambda M, y: y.split(2)),
    "split_dim1": ([Y], lambda M, y: M.split(y, 2, dim=1)),
    "split_bigger_than_size": ([Y], lambda M, y: y.split(7)),
    "split_sizes": ([Y], lambda M, y: y.split([1, 0, 4])),
    "split_sizes_tuple_negative_dim": ([Y], lambda M, y: M.split(y, (2, 1), -1)),
    "split_empty_dim_zero_size": ([np.zeros((0, 2))], lambda M, y: y.split(0)),
    "split_one_piece_used": ([Y], lambda M, y: y.split(2)[1]),
    "split_noncontiguous": ([Y], lambda M, y: y.t().split(2, 1)),
    "chunk": ([Y], lambda M, y: y.chunk(2)),
    "chunk_fewer": ([Y[:4]], lambda M, y: M.chunk(y, 3)),
    "chunk_more_than_size": ([Y], lambda M, y: y.chunk(9, 1)),
    "chunk_empty": ([np.zeros(0)], lambda M, y: y.chunk(3)),
    "tensor_split": ([Y], lambda M, y: y.tensor_split(3)),
    "tensor_split_indices": ([Y], lambda M, y: M.tensor_split(y, [1, 1, 7])),
    "tensor_split_unordered": ([Y], lambda M, y: y.tensor_split((3, 1), dim=0)),
    "tensor_split_tensor": ([Y], lambda M, y: y.tensor_split(M.tensor([1, 2]), 1)),
    "tensor_split_tensor_0d": ([Y], lambda M, y: y.tensor_split(M.tensor(2))),
    "narrow": ([Y], lambda M, y: y.narrow(0, 1, 3)),
    "narrow_negative_start": ([Y], lambda M, y: M.narrow(y, -1, -2, 2)),
    "narrow_tensor_start": ([Y], lambda M, y: y.narrow(0, M.tensor(4), 1)),
    "narrow_empty": ([Y], lambda M, y: y.narrow(0, 5, 0)),
}


@pytest.mark.parametrize("name", PIECES)
def test_pieces(name):
    arrays, fn = PIECES[name]
    check(lambda M: run(M, arrays, fn))


@pytest.mark.parametrize("name", [n for n in PIECES if "empty" not in n])
def test_pieces_gradcheck(name):
    arrays, fn = PIECES[name]
    assert gradchecks(arrays, fn)


@pytest.mark.parametrize("op", ["split", "chunk", "tensor_split", "narrow"])
def test_pieces_are_views(op):
    def program(M):
        y = M.tensor(Y)
        pieces = {"split": lambda: y.split(2), "chunk": lambda: y.chunk(2),
                  "tensor_split": lambda: y.tensor_split(2), "narrow": lambda: (y.narrow(0, 1, 2),)}[op]()
        assert all(p._base is y for p in pieces)
        pieces[0].add_(10)  # outside any graph: allowed, and reaches y
        return y, [p._version for p in pieces]

    check(program)


@pytest.mark.parametrize("op", ["split", "chunk"])
def test_inplace_on_a_piece_of_split_is_refused_while_recording(op):
    check_error(lambda M: getattr(M.tensor(Y, requires_grad=True) * 1, op)(2)[0].mul_(2))


def test_inplace_on_a_tensor_split_piece_rebases_onto_the_base():
    def program(M):
        y = M.tensor(Y, requires_grad=True)
        z = y * 1
        first, _ = z.tensor_split(2)
        first.mul_(3)
        (z * M.arange(3.0, dtype=M.float64)).sum().backward()
        return y.grad, type(z.grad_fn).__name__

    check(program)


PIECE_ERRORS = {
    "split_zero": lambda M: M.zeros(4, 3).split(0),
    "split_negative": lambda M: M.zeros(4, 3).split(-1),
    "split_sizes_sum": lambda M: M.zeros(4, 3).split([1, 2]),
    "split_sizes_negative": lambda M: M.zeros(4, 3).split([1, -1, 4]),
    "split_0d": lambda M: M.tensor(1.0).split(1),
    "split_bad_dim": lambda M: M.zeros(4, 3).split(1, 2),
    "chunk_zero": lambda M: M.zeros(4, 3).chunk(0),
    "chunk_0d": lambda M: M.tensor(1.0).chunk(1),
    "tensor_split_zero": lambda M: M.zeros(4, 3).tensor_split(0),
    "tensor_split_0d": lambda M: M.tensor(1.0).tensor_split(1),
    "tensor_split_2d_tensor": lambda M: M.zeros(4, 3).tensor_split(M.tensor([[1]])),
    "narrow_start": lambda M: M.zeros(4, 3).narrow(0, 5, 1),
    "narrow_negative_start": lambda M: M.zeros(4, 3).narrow(0, -5, 1),
    "narrow_too_long": lambda M: M.zeros(4, 3).narrow(0, 2, 3),
    "narrow_negative_length": lambda M: M.zeros(4, 3).narrow(0, 1, -1),
    "narrow_0d": lambda M: M.tensor(1.0).narrow(0, 0, 1),
}


@pytest.mark.parametrize("name", PIECE_ERRORS)
def test_piece_errors(name):
    check_error(PIECE_ERRORS[name])


def test_tensor_split_float_is_a_type_error():
    check_error(lambda M: M.zeros(4).tensor_split(2.0), key="tensor_split() received an invalid "
                "combination of arguments - got (float), but expected one of:")
