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
    "masked_scatter": ([X, X * 2], lambda M, x, s: x.masked_scatter(M.tensor(X > 0), s)),
    "masked_scatter_broadcast_mask": ([X, X.ravel()[:6] * 3],
                                      lambda M, x, s: M.masked_scatter(x, t_(M, [True, False, True, False]), s)),
    "masked_scatter_broadcast_input": ([X[:1], X], lambda M, x, s: x.masked_scatter(M.tensor(X > 0), s)),
    "masked_scatter_inplace": ([X, X], lambda M, x, s: (x * 1).masked_scatter_(M.tensor(X < 0), s)),
    "masked_scatter_0d": ([X0, X[0]], lambda M, x, s: x.masked_scatter(t_(M, True), s)),
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
        "masked_scatter_too_few": lambda: x.masked_scatter(x == 0, M.zeros(2)),
        "masked_scatter_dtype": lambda: x.masked_scatter(x == 0, M.zeros(12, dtype=M.float64)),
        "masked_scatter_long_mask": lambda: x.masked_scatter(M.ones(3, 4, dtype=M.long), M.zeros(12)),
        "masked_scatter_broadcast": lambda: x.masked_scatter(M.ones(2, dtype=M.bool), M.zeros(12)),
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
    "take_negative_out_of_bounds", "masked_scatter_too_few", "masked_scatter_dtype",
    "masked_scatter_long_mask", "masked_scatter_broadcast",
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


def test_scatter_reduce_is_recorded_but_not_differentiable():
    def program(M):
        x = M.tensor(X, requires_grad=True)
        y = x.scatter(0, t_(M, ROWS), 1.0, reduce="add")
        assert type(y.grad_fn).__name__ == "NotImplemented"
        y.sum().backward()

    check_error(program)


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


# -- rearranging: flip, roll, rot90, repeat, tile, tril, triu, diagonals, movedim, stacks -----
Z = RNG.standard_normal((2, 3, 4))
V = RNG.standard_normal(3)
REARRANGE = {
    "flip": ([X], lambda M, x: x.flip(0)),
    "flip_varargs": ([Z], lambda M, z: z.flip(0, -1)),
    "flip_list": ([Z], lambda M, z: M.flip(z, [1, 2])),
    "flip_none": ([X], lambda M, x: x.flip([])),
    "flip_0d": ([X0], lambda M, x: x.flip(0)),
    "flip_noncontiguous": ([X], lambda M, x: x.t().flip(1)),
    "fliplr": ([Z], lambda M, z: z.fliplr()),
    "flipud": ([V], lambda M, v: M.flipud(v)),
    "roll": ([X], lambda M, x: x.roll(1)),
    "roll_negative_flat": ([X], lambda M, x: M.roll(x, -5)),
    "roll_dim": ([X], lambda M, x: x.roll(1, 0)),
    "roll_dims": ([Z], lambda M, z: z.roll((1, -2), (0, 2))),
    "roll_dims_keywords": ([Z], lambda M, z: z.roll(shifts=[7], dims=[-1])),
    "roll_0d": ([X0], lambda M, x: x.roll(1)),
    "roll_empty": ([np.zeros((0, 3))], lambda M, x: x.roll(1, 0)),
    "rot90": ([X], lambda M, x: x.rot90()),
    "rot90_k": ([Z], lambda M, z: M.rot90(z, -3, [2, 0])),
    "rot90_twice_reversed_dims": ([X], lambda M, x: x.rot90(2, (1, 0))),
    "rot90_zero": ([X], lambda M, x: x.rot90(0)),
    "repeat": ([X], lambda M, x: x.repeat(2, 1)),
    "repeat_leading": ([X], lambda M, x: x.repeat(2, 1, 3)),
    "repeat_list": ([V], lambda M, v: v.repeat([2, 2])),
    "repeat_zero": ([X], lambda M, x: x.repeat(0, 2)),
    "repeat_0d": ([X0], lambda M, x: x.repeat(2, 3)),
    "repeat_noncontiguous": ([X], lambda M, x: x.t().repeat(1, 2)),
    "tile": ([X], lambda M, x: x.tile(2)),
    "tile_longer": ([X], lambda M, x: M.tile(x, (2, 1, 1))),
    "tile_empty_dims": ([X], lambda M, x: x.tile(())),
    "tile_0d": ([X0], lambda M, x: x.tile((3,))),
    "tril": ([X], lambda M, x: x.tril()),
    "tril_batched_negative": ([Z], lambda M, z: M.tril(z, -1)),
    "tril_inplace": ([X], lambda M, x: (x * 1).tril_(1)),
    "triu": ([X], lambda M, x: x.triu(diagonal=1)),
    "triu_batched": ([Z], lambda M, z: z.triu()),
    "triu_inplace": ([X], lambda M, x: (x * 1).triu_(-2)),
    "diagonal": ([X], lambda M, x: x.diagonal()),
    "diagonal_offset": ([X], lambda M, x: x.diagonal(1)),
    "diagonal_negative_offset_swapped": ([X], lambda M, x: M.diagonal(x, -1, 1, 0)),
    "diagonal_past_the_end": ([X], lambda M, x: x.diagonal(5)),
    "diagonal_3d": ([Z], lambda M, z: z.diagonal(offset=1, dim1=-1, dim2=0)),
    "diagonal_noncontiguous": ([X], lambda M, x: x.t().diagonal(-1)),
    "diag_of_vector": ([V], lambda M, v: v.diag()),
    "diag_of_vector_offset": ([V], lambda M, v: M.diag(v, -2)),
    "diag_of_matrix": ([X], lambda M, x: x.diag(1)),
    "diag_of_matrix_past_the_end": ([X], lambda M, x: x.diag(7)),
    "diag_embed": ([X], lambda M, x: x.diag_embed()),
    "diag_embed_dims": ([X], lambda M, x: M.diag_embed(x, 1, 0, 2)),
    "diag_embed_negative_offset": ([V], lambda M, v: v.diag_embed(-1)),
    "movedim": ([Z], lambda M, z: z.movedim(0, 2)),
    "movedim_tuples": ([Z], lambda M, z: M.movedim(z, (0, -1), (2, 0))),
    "moveaxis": ([Z], lambda M, z: M.moveaxis(z, 1, 0)),
    "swapdims": ([Z], lambda M, z: z.swapdims(0, -1)),
    "swapdims_function": ([Z], lambda M, z: M.swapdims(z, 1, 2)),
    "movedim_0d": ([X0], lambda M, x: x.movedim(0, 0)),
    "take_along_dim": ([X], lambda M, x: x.take_along_dim(M.tensor([[0], [3], [1]]), 1)),
    "take_along_dim_broadcast": ([X], lambda M, x: M.take_along_dim(x, M.tensor([[0], [2]]), 0)),
    "take_along_dim_broadcast_input": ([X[:, :1]], lambda M, x: x.take_along_dim(M.tensor([[0, 0]]), 1)),
    "take_along_dim_flat": ([X], lambda M, x: x.take_along_dim(M.tensor([[11, 0]]))),
    "take_along_dim_argsort": ([X], lambda M, x: x.take_along_dim(x.argsort(1), dim=1)),
    "hstack": ([X, X[:, :1]], lambda M, a, b: M.hstack([a, b])),
    "hstack_1d_and_0d": ([V, X0], lambda M, a, b: M.hstack((a, b))),
    "vstack": ([V, X[:1, :3]], lambda M, a, b: M.vstack([a, b])),
    "vstack_0d": ([X0, X0], lambda M, a, b: M.vstack([a, b])),
    "row_stack": ([V, V], lambda M, a, b: M.row_stack([a, b])),
    "dstack": ([V, V], lambda M, a, b: M.dstack([a, b])),
    "dstack_2d": ([X, X], lambda M, a, b: M.dstack([a, b])),
    "column_stack": ([V, X[:3, :2]], lambda M, a, b: M.column_stack([a, b])),
    "column_stack_0d": ([X0], lambda M, a: M.column_stack([a])),
    "atleast_1d": ([X0], lambda M, a: M.atleast_1d(a)),
    "atleast_2d_several": ([X0, V], lambda M, a, b: M.atleast_2d(a, b)),
    "atleast_3d_list": ([V, X, Z], lambda M, a, b, c: M.atleast_3d([a, b, c])),
}


@pytest.mark.parametrize("name", REARRANGE)
def test_rearrange(name):
    arrays, fn = REARRANGE[name]
    check(lambda M: run(M, arrays, fn))


@pytest.mark.parametrize("name", [n for n in REARRANGE if "empty" not in n and "argsort" not in n])
def test_rearrange_gradcheck(name):
    arrays, fn = REARRANGE[name]
    assert gradchecks(arrays, fn)


def test_diagonal_is_a_writable_view():
    def program(M):
        x = M.tensor(X, requires_grad=True)
        y = x * 1
        d = y.diagonal(1)
        d.mul_(10)  # through the view, to the base: CopySlices
        (y * M.tensor(X)).sum().backward()
        return y, x.grad, type(y.grad_fn).__name__, d._base is y

    check(program)


def test_second_order_through_the_rearrangements():
    def program(M):
        x = M.tensor(X, requires_grad=True)
        y = (x.diagonal(1) ** 3).sum() + (x.diag_embed().flip(0).roll(1, 2).repeat(1, 2, 1) ** 3).sum()
        y = y + (x.tril(1).rot90() ** 3).sum()
        (g,) = M.autograd.grad(y, x, create_graph=True)
        (gg,) = M.autograd.grad((g * g).sum(), x)
        return g, gg

    check(program)


REARRANGE_ERRORS = {
    "flip_repeated": lambda M: M.zeros(3, 4).flip(0, 0),
    "flip_bad_dim": lambda M: M.zeros(3, 4).flip(2),
    "fliplr_1d": lambda M: M.zeros(3).fliplr(),
    "flipud_0d": lambda M: M.tensor(1.0).flipud(),
    "roll_misaligned": lambda M: M.zeros(3, 4).roll(1, (0, 1)),
    "roll_misaligned_shifts": lambda M: M.zeros(3, 4).roll((1, 2), 0),
    "roll_no_shifts": lambda M: M.zeros(3, 4).roll([]),
    "roll_bad_dim": lambda M: M.zeros(3, 4).roll(1, 2),
    "roll_0d_dim": lambda M: M.tensor(1.0).roll(1, 0),
    "rot90_one_dim": lambda M: M.zeros(3, 4).rot90(1, [0]),
    "rot90_same_dims": lambda M: M.zeros(3, 4).rot90(1, [0, 0]),
    "rot90_same_dims_wrapped": lambda M: M.zeros(3, 4).rot90(1, [0, -2]),
    "rot90_1d": lambda M: M.zeros(3).rot90(),
    "repeat_too_few": lambda M: M.zeros(3, 4).repeat(2),
    "repeat_negative": lambda M: M.zeros(3, 4).repeat(-1, 1),
    "repeat_nothing": lambda M: M.zeros(3, 4).repeat(),
    "tile_negative": lambda M: M.zeros(3, 4).tile(-1),
    "tril_1d": lambda M: M.zeros(3).tril(),
    "triu_0d": lambda M: M.tensor(1.0).triu(),
    "diagonal_1d": lambda M: M.zeros(3).diagonal(),
    "diagonal_same_dims": lambda M: M.zeros(3, 4).diagonal(0, 0, 0),
    "diagonal_bad_dim": lambda M: M.zeros(3, 4).diagonal(dim1=2),
    "diag_3d": lambda M: M.zeros(2, 2, 2).diag(),
    "diag_0d": lambda M: M.tensor(1.0).diag(),
    "diag_embed_0d": lambda M: M.tensor(1.0).diag_embed(),
    "diag_embed_same_dims": lambda M: M.zeros(3, 4).diag_embed(0, 0, 0),
    "diag_embed_bad_dim": lambda M: M.zeros(3, 4).diag_embed(dim1=3),
    "movedim_repeated": lambda M: M.zeros(3, 4).movedim((0, 1), (1, 1)),
    "movedim_lengths": lambda M: M.zeros(3, 4).movedim((0, 1), (1,)),
    "movedim_bad_dim": lambda M: M.zeros(3, 4).movedim(0, 2),
    "take_along_dim_float": lambda M: M.zeros(3, 4).take_along_dim(M.tensor([[0.0]]), 1),
    "take_along_dim_ndim": lambda M: M.zeros(3, 4).take_along_dim(M.tensor([0]), 1),
    "take_along_dim_broadcast": lambda M: M.zeros(3, 4).take_along_dim(M.tensor([[0], [1]]), 1),
    "hstack_empty": lambda M: M.hstack([]),
    "hstack_tensor": lambda M: M.hstack(M.zeros(3, 4)),
    "vstack_sizes": lambda M: M.vstack([M.zeros(2), M.zeros(3)]),
}


@pytest.mark.parametrize("name", REARRANGE_ERRORS)
def test_rearrange_errors(name):
    check_error(REARRANGE_ERRORS[name])


# -- nonzero, argwhere, where(condition) -------------------------------------------------------
NONZERO = {
    "nonzero": lambda M: M.tensor([[0.0, 1.5], [np.nan, 0.0]]).nonzero(),
    "nonzero_as_tuple": lambda M: M.nonzero(M.tensor([[0, 3], [2, 0]]), as_tuple=True),
    "nonzero_0d": lambda M: (M.tensor(5).nonzero(), M.tensor(0).nonzero(),
                             M.tensor(5.0).nonzero(as_tuple=True)),
    "nonzero_empty": lambda M: (M.zeros(0, 3).nonzero(), M.zeros(0, 3).nonzero(as_tuple=True)),
    "nonzero_bool_noncontiguous": lambda M: M.tensor([[True, False], [True, True]]).t().nonzero(),
    "argwhere": lambda M: M.argwhere(M.tensor([[0.0, 1.0], [2.0, 0.0]])),
    "where_one_argument": lambda M: M.where(M.tensor([[True, False], [False, True]])),
    "where_one_argument_float": lambda M: M.where(M.tensor([1.0, 0.0, -2.0])),
    "where_one_argument_0d": lambda M: M.where(M.tensor(True)),
    "nonzero_indexes": lambda M: M.tensor(X)[M.tensor(X > 0).nonzero(as_tuple=True)],
}


@pytest.mark.parametrize("name", NONZERO)
def test_nonzero(name):
    check(NONZERO[name])


def test_nonzero_does_not_join_the_graph():
    check(lambda M: [t.requires_grad for t in M.where(M.tensor([1.0, 0.0], requires_grad=True))])


def test_where_with_one_of_two_values_is_a_type_error():
    check_error(lambda M: M.where(M.tensor([True]), M.tensor([1.0])),
                key="where() received an invalid combination of arguments")


# -- where(condition, input, other): broadcasting and promotion, Python numbers included ------
OPERANDS = {
    "float32": lambda M, rng, shape: M.tensor(rng.standard_normal(shape), dtype=M.float32, requires_grad=True),
    "float64": lambda M, rng, shape: M.tensor(rng.standard_normal(shape), dtype=M.float64, requires_grad=True),
    "int64": lambda M, rng, shape: M.tensor(rng.integers(-3, 3, shape)),
    "bool": lambda M, rng, shape: M.tensor(rng.random(shape) < 0.5),
    "int": lambda M, rng, shape: 2,
    "float": lambda M, rng, shape: -1.5,
    "0d_float64": lambda M, rng, shape: M.tensor(0.25, dtype=M.float64, requires_grad=True),
}


@pytest.mark.parametrize("a", OPERANDS)
@pytest.mark.parametrize("b", OPERANDS)
def test_where_promotes_and_broadcasts_as_torch(a, b):
    def program(M):
        rng = np.random.default_rng(4)  # the same draws under both libraries
        cond = M.tensor(rng.random((2, 3)) < 0.5)
        x, y = OPERANDS[a](M, rng, (3,)), OPERANDS[b](M, rng, (2, 1))
        out = M.where(cond, x, y)
        grads = []
        if out.requires_grad:
            (out * M.tensor(np.arange(6.0).reshape(2, 3), dtype=out.dtype)).sum().backward()
            grads = [t.grad for t in (x, y) if isinstance(t, M.Tensor) and t.requires_grad]
        return out, grads

    check(program)


# -- compositions: hsplit/vsplit/dsplit, broadcast_to/broadcast_tensors, ravel, unflatten -----
COMPOSED = {
    "hsplit": ([X], lambda M, x: x.hsplit(2)),
    "hsplit_list": ([X], lambda M, x: M.hsplit(x, [1])),
    "hsplit_1d": ([V], lambda M, v: v.hsplit(3)),
    "vsplit": ([X], lambda M, x: x.vsplit([1, 2])),
    "dsplit": ([Z], lambda M, z: M.dsplit(z, 2)),
    "broadcast_to": ([X], lambda M, x: x.broadcast_to((3, 3, 4))),
    "broadcast_to_same": ([X], lambda M, x: M.broadcast_to(x, (3, 4))),
    "broadcast_tensors": ([X, X[0], X0], lambda M, a, b, c: M.broadcast_tensors(a, b, c)),
    "broadcast_tensors_one": ([X], lambda M, a: M.broadcast_tensors(a)),
    "ravel": ([X], lambda M, x: x.ravel()),
    "ravel_noncontiguous": ([X], lambda M, x: x.t().ravel()),
    "ravel_0d": ([X0], lambda M, x: M.ravel(x)),
    "unflatten": ([X], lambda M, x: x.unflatten(1, (2, 2))),
    "unflatten_inferred": ([X], lambda M, x: x.unflatten(-1, (-1, 2))),
    "unflatten_function": ([X], lambda M, x: M.unflatten(x, 0, [1, 3])),
}


@pytest.mark.parametrize("name", COMPOSED)
def test_composed(name):
    arrays, fn = COMPOSED[name]
    check(lambda M: run(M, arrays, fn))


COMPOSED_ERRORS = {
    "hsplit_not_divisible": lambda M: M.zeros(2, 4).hsplit(3),
    "hsplit_zero": lambda M: M.hsplit(M.zeros(2, 4), 0),
    "hsplit_0d": lambda M: M.tensor(1.0).hsplit(1),
    "vsplit_1d": lambda M: M.zeros(4).vsplit(2),
    "dsplit_2d": lambda M: M.zeros(2, 4).dsplit(2),
    "broadcast_tensors": lambda M: M.broadcast_tensors(M.zeros(2, 4), M.zeros(3)),
    "broadcast_to": lambda M: M.zeros(2, 4).broadcast_to((3,)),
    "unflatten_sizes": lambda M: M.zeros(2, 4).unflatten(1, (3, 2)),
    "unflatten_empty": lambda M: M.zeros(2, 4).unflatten(1, ()),
}


@pytest.mark.parametrize("name", COMPOSED_ERRORS)
def test_composed_errors(name):
    check_error(COMPOSED_ERRORS[name])


# -- meshgrid, tril_indices, triu_indices --------------------------------------------------------
GRIDS = {
    "meshgrid": ([V, V[:2]], lambda M, a, b: M.meshgrid(a, b, indexing="ij")),
    "meshgrid_xy": ([V, V[:2]], lambda M, a, b: M.meshgrid(a, b, indexing="xy")),
    "meshgrid_list_xy_0d": ([V, V[:2], X0], lambda M, a, b, c: M.meshgrid([a, b, c], indexing="xy")),
    "meshgrid_one_xy": ([V], lambda M, a: M.meshgrid(a, indexing="xy")),
    "tril_indices": ([], lambda M: M.tril_indices(3, 3)),
    "tril_indices_offset": ([], lambda M: M.tril_indices(4, 3, -1)),
    "tril_indices_empty": ([], lambda M: M.tril_indices(0, 3)),
    "tril_indices_int32": ([], lambda M: M.tril_indices(3, 3, dtype=M.int32)),
    "triu_indices": ([], lambda M: M.triu_indices(3, 4, 1)),
}


@pytest.mark.parametrize("name", GRIDS)
def test_grids(name):
    arrays, fn = GRIDS[name]
    check(lambda M: run(M, arrays, fn))


def test_meshgrid_without_indexing_warns_once_as_torch():
    def program(M):
        M.set_warn_always(True)
        try:
            return M.meshgrid(M.tensor([1.0, 2.0]), M.tensor([3.0]))
        finally:
            M.set_warn_always(False)

    check_warning(program)


def test_grid_errors():
    check_error(lambda M: M.meshgrid(M.zeros(3), indexing="foo"))
    check_error(lambda M: M.meshgrid(M.zeros(3, 1), indexing="ij"),
                key="meshgrid: Expected 0D or 1D tensor in the tensor list but got:")
    check_error(lambda M: M.tril_indices(-1, 3))
    check_error(lambda M: M.triu_indices(2, -3))


# -- scatter_reduce ------------------------------------------------------------------------------
SR_X = RNG.standard_normal((3, 4))
SR_SRC = RNG.standard_normal((2, 4))
SR_INDEX = np.array([[0, 0, 1, 2], [0, 2, 1, 2]])
SR_X_ZEROS = np.where(np.arange(12).reshape(3, 4) == 0, 0.0, SR_X)
SR_SRC_ZEROS = np.where(np.arange(8).reshape(2, 4) % 5 == 1, 0.0, SR_SRC)  # one and two zeros
SR_INPUTS = {"plain": (SR_X, SR_SRC), "zeros": (SR_X_ZEROS, SR_SRC_ZEROS),
             "ties": (np.round(SR_X), np.round(SR_SRC))}


@pytest.mark.parametrize("inputs", SR_INPUTS)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce(reduce, include_self, inputs):
    def fn(M, x, s):
        return x.scatter_reduce(0, t_(M, SR_INDEX), s, reduce, include_self=include_self)

    check(lambda M: run(M, list(SR_INPUTS[inputs]), fn))
    if inputs == "plain":
        assert gradchecks(list(SR_INPUTS[inputs]), fn)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_integers_and_other_dims(reduce):
    def program(M):
        x = M.tensor([[1, 2, 3], [4, 5, 7]])
        src = M.tensor([[1, -2, 3], [-4, 5, 6]])
        index = t_(M, [[0, 0, 1], [0, 0, 0]])
        return [M.scatter_reduce(x, 0, index, src, reduce), x.scatter_reduce(-1, index, src, reduce,
                                                                             include_self=False)]

    check(program)


def test_scatter_reduce_errors():
    check_error(lambda M: M.zeros(2, 3).scatter_reduce(0, t_(M, [[0]]), M.ones(1, 1), "foo"))
    check_error(lambda M: M.zeros(2, 3).scatter_reduce(0, t_(M, [[0]]), M.ones(1, 1, dtype=M.float64),
                                                       "sum"))
    check_error(lambda M: M.zeros(2, 3).scatter_reduce(0, t_(M, [[5]]), M.ones(1, 1), "sum"))
