"""Indexing as PyTorch reads it: ``x[index]`` and ``x[index] = value``, against torch.

PyTorch applies the basic parts of an index first, left to right, as views (an int as
``select``, a slice as ``slice``, ``None`` as ``unsqueeze``, a bool as ``unsqueeze`` and an
index), then the arrays and masks left, at once, on that view (``applySlicing`` in
``torch/csrc/autograd/python_variable_indexing.cpp``). The randomised tests draw index
tuples mixing every kind of part and compare shapes, values, gradients, the graph and the
errors; the tables pin the errors, the dtype rules of assignment and the second backward.
"""

import collections

import numpy as np
import pytest

from opinfo import structure
from parity import (assert_same, check, check_error, check_no_warning, check_warning, key_phrase, ng,
                    normalise, outcome, torch)

SECOND_TIME = "Trying to backward through the graph a second time"


# -- random indices ----------------------------------------------------------------------------
def random_shape(rng):
    """0 to 4 dimensions of sizes 0 to 4 (a size 0 one time in sixteen)."""
    return tuple(int(rng.choice([0, 1, 2, 3, 4], p=[1 / 16, 15 / 64, 15 / 64, 15 / 64, 15 / 64]))
                 for _ in range(rng.integers(0, 5)))


def distinct_indices(rng, size, shape):
    """Distinct positions below ``size`` (some written negative): no element is assigned
    twice, so that ``x[index] = v`` has one answer."""
    count = int(np.prod(shape))
    values = rng.permutation(size)[:count]
    negative = rng.random(count) < 0.3
    return np.where(negative, values - size, values).reshape(shape)


def random_part(rng, kind, sizes, length):
    """One part of an index for the dimensions ``sizes`` it is to index, as a spec
    ``(kind, value)`` that ``materialise`` turns into a torch or an nbgrad index."""
    size = sizes[0] if sizes else 0
    if kind == "int":
        return "int", int(rng.integers(-size, size))
    if kind == "int_tensor_0d":
        return "tensor", np.array(rng.integers(-size, size))
    if kind == "slice":
        bound = lambda: None if rng.random() < 0.5 else int(rng.integers(-size - 1, size + 2))
        return "slice", slice(bound(), bound(), [None, 1, 2, 3][rng.integers(4)])
    if kind in ("list", "tensor"):
        shape = (min(length, size),) if kind == "list" or rng.random() < 0.7 else (1, min(length, size))
        return kind, distinct_indices(rng, size, shape)
    if kind in ("mask", "mask_list"):
        return ("tensor" if kind == "mask" else "list"), rng.random(sizes) < 0.7
    if kind == "bool":
        return "plain", bool(rng.random() < 0.85)
    if kind == "bool_tensor_0d":
        return "tensor", np.array(rng.random() < 0.85)
    if kind == "range":  # ascending, so distinct; past the end now and then (an error)
        start, step = int(rng.integers(0, max(size, 1))), int(rng.integers(1, 3))
        return "plain", range(start, start + step * length, step)
    if kind in ("array", "deque"):  # other sequences PyTorch reads as an index tensor
        return kind, distinct_indices(rng, size, (min(length, size),))
    return "plain", None


CONSUMING = ["int", "int_tensor_0d", "slice", "slice", "list", "tensor", "mask", "mask_list"]
# the parts above and the other sequences an index may hold: a range, an array, a deque
SEQUENCES = [*CONSUMING, "range", "array", "deque"]
FREE = ["none", "bool", "bool_tensor_0d"]


def random_index(rng, shape, consuming=CONSUMING):
    """A list of part specs for a tensor of ``shape``, each part drawn for the dimensions
    it indexes; an ``...`` stands for those that the parts after it leave out."""
    specs, dim, ellipsis = [], 0, False
    while True:
        remaining = len(shape) - dim
        if ellipsis:  # after it, the parts index exactly the dimensions it leaves
            if remaining == 0 and rng.random() < 0.5:
                break
            kinds = consuming if remaining else FREE
        else:
            if len(specs) >= 5 or rng.random() < 0.2:
                break
            kinds = FREE + (consuming if remaining else []) + ["ellipsis"]
        kind = kinds[rng.integers(len(kinds))]
        if kind == "ellipsis":
            ellipsis = True
            dim = len(shape) - int(rng.integers(0, remaining + 1))
            specs.append(("plain", Ellipsis))
            continue
        if kind in ("int", "int_tensor_0d") and shape[dim] == 0:
            kind = "slice"
        n = int(rng.integers(1, min(remaining, 2) + 1)) if kind in ("mask", "mask_list") else \
            int(kind in consuming)
        specs.append(random_part(rng, kind, shape[dim:dim + n], length=int(rng.integers(1, 3))))
        dim += n
    return specs


def materialise(M, specs, bare):
    """The index the specs describe, for the module ``M``; ``bare``: a one-part index is
    passed as it is rather than in a tuple (PyTorch takes short cuts then)."""
    parts = []
    nested_list = specs and specs[0][0] == "list" and specs[0][1].ndim > 1
    bare = bare and len(specs) == 1 and not nested_list  # PyTorch reads [[..]] as a tuple
    for kind, value in specs:
        if kind == "tensor":
            parts.append(M.tensor(value))
        elif kind == "list":
            parts.append(value.tolist())
        elif kind == "deque":
            parts.append(collections.deque(value.tolist()))
        else:
            parts.append(value)
    return parts[0] if bare else tuple(parts)


def random_case(seed, consuming=CONSUMING):
    rng = np.random.default_rng(seed)
    shape = random_shape(rng)
    specs = random_index(rng, shape, consuming)
    values = rng.standard_normal(shape)
    return rng, shape, specs, values, bool(rng.random() < 0.5)


def case_of(seed):
    """``random_case``: of the usual parts for a plain seed, of the other sequences too
    for ``("sequences", n)`` (seeds of their own, so the plain ones draw as before)."""
    if isinstance(seed, tuple):
        return random_case(10_000 + seed[1], SEQUENCES)
    return random_case(seed)


def same_outcome(program):
    """Both raise alike (type and PyTorch's key phrase), or both give the same results."""
    t_result, t_error = outcome(program, torch)
    n_result, n_error = outcome(program, ng)
    if t_error is not None:
        assert n_error is not None, f"nbgrad does not raise; torch raises {type(t_error).__name__}: {t_error}"
        assert type(n_error).__name__ == type(t_error).__name__, f"nbgrad: {n_error!r}, torch: {t_error!r}"
        assert key_phrase(str(t_error)) in normalise(str(n_error)), f"nbgrad: {n_error}\ntorch: {t_error}"
        return None
    assert n_error is None, f"nbgrad raises {n_error!r}; torch gives a result"
    assert_same(t_result, n_result, rtol=1e-12, atol=1e-12)
    return t_result


def weights(M, shape):
    return M.tensor(np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape), dtype=M.float64)


def graph(t):
    return structure(t.grad_fn, depth=6)


@pytest.mark.parametrize("seed", [*range(300), *(("sequences", s) for s in range(150))],
                         ids=str)
def test_getitem_matches_torch_on_random_indices(seed):
    """Shape, values, the gradient and the graph of ``x[index]``, for random indices (also
    holding ranges, arrays and deques: ``("sequences", n)``)."""
    _, _, specs, values, bare = case_of(seed)

    def program(M):
        x = M.tensor(values, dtype=M.float64, requires_grad=True)
        y = x[materialise(M, specs, bare)]
        (y * weights(M, tuple(y.shape))).sum().backward()
        return y, x.grad, graph(y)

    same_outcome(program)


def value_shape(rng, shape):
    """A shape that broadcasts to ``shape`` the ways assignment allows: as it is, with
    leading dimensions dropped, some dimensions 1, or leading 1s added."""
    shape = list(shape)
    how = rng.integers(4)
    if how == 1:
        shape = shape[rng.integers(0, len(shape) + 1):]
    elif how == 2:
        shape = [1 if rng.random() < 0.4 else n for n in shape]
    elif how == 3:
        shape = [1] * int(rng.integers(1, 3)) + shape
    return tuple(shape)


@pytest.mark.parametrize("seed", [*range(300), *(("sequences", s) for s in range(150))],
                         ids=str)
def test_setitem_matches_torch_on_random_indices(seed):
    """``x.clone()[index] = v``: the values, both gradients and the graph, for random
    indices and values shaped to broadcast (or a number)."""
    rng, _, specs, values, bare = case_of(seed)
    result = outcome(lambda M: tuple(M.tensor(values)[materialise(M, specs, bare)].shape), torch)[0]
    number = result is None or rng.random() < 0.2  # an index torch refuses: compare the errors
    v_values = None if number else rng.standard_normal(value_shape(rng, result))

    def program(M):
        x = M.tensor(values, dtype=M.float64, requires_grad=True)
        v = 2.5 if number else M.tensor(v_values, dtype=M.float64, requires_grad=True)
        c = x.clone()
        c[materialise(M, specs, bare)] = v
        (c * weights(M, tuple(c.shape))).sum().backward()
        return c, x.grad, None if number else v.grad, graph(c)

    same_outcome(program)


# -- the rule on the examples of issue 15 ------------------------------------------------------
@pytest.mark.parametrize("index", [
    (1, slice(None), [1, 0]),  # PyTorch (3, 2), NumPy (2, 3)
    ([0, 1], slice(None), [1, 0]),  # separated arrays: their dimension first, in both
    (0, [0, 1]),  # Select, then Index
    (slice(None), [0, 1]),  # a whole slice makes no view
    (Ellipsis, [2, 3]),
    (slice(1, None), [0, 0, 2]),
    (None, slice(1, None), [2, 0]),
    ([1, 0], 2, [0, 3]),  # an int between two arrays does not separate them
    (True, 0),
    (0, False),
])
def test_getitem_applies_basic_parts_first(index):
    def program(M):
        x = M.arange(24.0, dtype=M.float64).reshape(2, 3, 4).requires_grad_()
        y = x[index]
        y.sum().backward()
        return y, x.grad, graph(y)

    check(program)


@pytest.mark.parametrize("index", [
    (1, slice(None), [1, 0]),
    (0, [0, 1]),
    (slice(None), [0, 2]),
    ([1, 0], 2, [0, 3]),
    (Ellipsis, [1]),
    (slice(0, 1), 1),
    slice(None),  # the whole tensor: copied into itself, no view
    Ellipsis,
])
def test_setitem_applies_basic_parts_first(index):
    def program(M):
        x = M.arange(24.0, dtype=M.float64).reshape(2, 3, 4).requires_grad_()
        v = M.tensor(3.0, dtype=M.float64, requires_grad=True)
        c = x.clone()
        c[index] = v * M.ones(tuple(x.clone()[index].shape), dtype=M.float64)
        c.sum().backward()
        return c, x.grad, v.grad, graph(c)

    check(program)


@pytest.mark.parametrize("value", ["number", "0d", "same", "leading_ones", "broadcast"])
@pytest.mark.parametrize("index", [0, (0, slice(None)), [0, 2], (0, [1, 3]), "mask"])
def test_setitem_value_graph(index, value):
    """How the value joins the graph: as it is, viewed without its leading 1s
    (ViewBackward0), expanded for a basic index (ExpandBackward0), or filled (0-d)."""
    shapes = {"0d": (), "same": None, "leading_ones": (1, 1, -1), "broadcast": (1,)}

    def program(M):
        x = M.arange(12.0, dtype=M.float64).reshape(3, 4).requires_grad_()
        where = M.tensor([True, False, True]) if index == "mask" else index
        target = tuple(x.clone()[where].shape)
        shape = shapes.get(value)
        shape = target if shape is None else (1, 1, target[-1]) if shape == (1, 1, -1) else shape
        v = 2.0 if value == "number" else M.full(shape, 2.0, dtype=M.float64, requires_grad=True)
        c = x.clone()
        c[where] = v
        (c * weights(M, (3, 4))).sum().backward()
        return c, x.grad, None if value == "number" else v.grad, graph(c)

    check(program)


# -- a second backward -------------------------------------------------------------------------
SECOND_BACKWARD = {
    "index": lambda M, a, b: a[[0, 2, 2]] * 1,
    "index_mask": lambda M, a, b: a[M.tensor([True, False, True])] * 1,
    "index_after_select": lambda M, a, b: a[0, [1, 1]] * 1,
    "index_put": lambda M, a, b: put(a, [1, 2], b[[1, 1]]),
    "index_put_mask": lambda M, a, b: put(a, M.tensor([False, True, True]), b[:2]),
    "index_put_number": lambda M, a, b: put(a, [0], 1.0) * b[:1],
    "copy_slices_copy": lambda M, a, b: put(a, 0, b[0]),
    "copy_slices_fill": lambda M, a, b: put(a, (slice(None), 1), 2.0) * b[0],
    "copy_slices_index_put": lambda M, a, b: put(a, (0, [0, 1]), b[0, :2]),
}


def put(a, index, value):
    c = a.clone()
    c[index] = value
    return c


@pytest.mark.parametrize("name", SECOND_BACKWARD)
def test_second_backward_refused(name):
    """Every node that saves something, indices too, frees it after backward: a second
    backward through it raises, as PyTorch's does (``b.grad`` is not doubled)."""
    def program(M):
        a = M.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        b = M.tensor(np.arange(12.0).reshape(3, 4) / 10, requires_grad=True)
        out = SECOND_BACKWARD[name](M, a, b)
        out.sum().backward()
        out.sum().backward()

    check_error(program, SECOND_TIME)


@pytest.mark.parametrize("name", SECOND_BACKWARD)
def test_second_backward_with_retain_graph_accumulates(name):
    def program(M):
        a = M.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        b = M.tensor(np.arange(12.0).reshape(3, 4) / 10, requires_grad=True)
        out = SECOND_BACKWARD[name](M, a, b)
        out.sum().backward(retain_graph=True)
        out.sum().backward()
        return a.grad, b.grad

    check(program)


# -- assignment: dtypes and shapes -------------------------------------------------------------
ASSIGNMENTS = {
    # a basic index copies, casting the value
    "basic_double": (0, lambda M: M.ones(4, dtype=M.float64)),
    "basic_long": ((slice(None), 1), lambda M: M.arange(3)),
    "basic_bool": (1, lambda M: M.tensor([True, False, True, False])),
    "basic_0d_long": (0, lambda M: M.tensor(7)),
    # a number takes the tensor's dtype, whatever the index
    "advanced_int_number": ([0, 2], lambda M: 3),
    "advanced_bool_number": ([0, 2], lambda M: True),
    "advanced_float_number": ([0, 2], lambda M: 2.5),
    # one CPU value at a single mask is filled in (masked_fill_ casts it)
    "mask_0d_long": ("mask", lambda M: M.tensor(7)),
    "mask_1_double": ("mask", lambda M: M.ones(1, dtype=M.float64)),
}


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_assignment_casts(name):
    index, value = ASSIGNMENTS[name]

    def program(M):
        c = M.zeros(3, 4)
        c[M.tensor([True, False, True]) if index == "mask" else index] = value(M)
        return c

    check(program)


ASSIGNMENT_ERRORS = {
    "advanced_double": ([0, 1], lambda M: M.ones(4, dtype=M.float64)),
    "advanced_long": ([0, 1], lambda M: M.ones(2, 4, dtype=M.int64)),
    "advanced_0d_double": ([0, 1], lambda M: M.tensor(1.0, dtype=M.float64)),
    "mixed_double": ((0, [1, 2]), lambda M: M.ones(2, dtype=M.float64)),
    "mask_double": ("mask", lambda M: M.ones(4, dtype=M.float64)),
    "mask_and_array_0d_double": (("mask", [0]), lambda M: M.tensor(1.0, dtype=M.float64)),
    # the shape is checked before the dtype
    "advanced_shape_before_dtype": ([0, 1], lambda M: M.ones(3, dtype=M.float64)),
    "advanced_shape": ([0, 1], lambda M: M.ones(3)),
    "advanced_shape_2d": ([0, 1], lambda M: M.ones(2, 2)),
    "mixed_shape": ((0, [0, 1]), lambda M: M.ones(3)),
    "mask_shape": ("mask", lambda M: M.ones(3)),
    "leading_ones_kept_too_many": ((0, [0, 1]), lambda M: M.ones(2, 1, 4)),
    "mask_length": ("short_mask", lambda M: M.ones(4)),
    "basic_shape": (0, lambda M: M.ones(5)),
    "basic_str": (0, lambda M: "1"),
    "advanced_list": ([0], lambda M: [1.0, 2.0, 3.0, 4.0]),
    "complex_number": ([0], lambda M: 1 + 2j),
    "complex_number_basic": (0, lambda M: 1 + 2j),
    "out_of_range": ([0, 5], lambda M: 1.0),
    "out_of_range_after_shape_check": ((slice(None), [9]), lambda M: M.ones(3, 1)),
}


def assignment_index(M, index):
    masks = {"mask": M.tensor([True, False, True]), "short_mask": M.tensor([True, False])}
    if isinstance(index, tuple):
        return tuple(masks.get(p, p) if isinstance(p, str) else p for p in index)
    return masks.get(index, index) if isinstance(index, str) else index


@pytest.mark.parametrize("name", ASSIGNMENT_ERRORS)
def test_assignment_errors(name):
    index, value = ASSIGNMENT_ERRORS[name]

    def program(M):
        c = M.zeros(3, 4)
        c[assignment_index(M, index)] = value(M)

    check_error(program)


def test_assignment_to_an_empty_result_checks_no_index():
    """Nothing is written, so no index is read: PyTorch does not check them (NumPy does)."""
    def program(M):
        c = M.zeros(0, 3)
        c[:, [7]] = 1.0
        return c, M.zeros(0, 3)[:, [7]]

    check(program)


# -- errors of reading -------------------------------------------------------------------------
BAD_INDICES = {
    "too_many_ints": lambda M, x: x[0, 0, 0],
    "too_many_with_list": lambda M, x: x[0, [0], 1],
    "too_many_with_mask": lambda M, x: x[M.ones(3, 4, dtype=M.bool), 0],
    "too_many_0d": lambda M, x: x[0][0][0],
    "too_many_0d_tuple": lambda M, x: M.tensor(1.0)[0, ],
    "list_on_0d": lambda M, x: M.tensor(1.0)[[0]],
    "int_out_of_range": lambda M, x: x[5],
    "negative_out_of_range": lambda M, x: x[-4],
    "int_out_of_range_second": lambda M, x: x[1, 4],
    "int_after_none": lambda M, x: x[None, 5],
    "int_after_ellipsis": lambda M, x: x[..., 7],
    "list_out_of_range": lambda M, x: x[[0, 5]],
    "negative_list_out_of_range": lambda M, x: x[[-4]],
    "tensor_out_of_range": lambda M, x: x[M.tensor([1, 3])],
    "second_array_out_of_range": lambda M, x: x[[0, 1], [1, 9]],
    "array_after_slice_out_of_range": lambda M, x: x[:, [7]],
    "array_after_select_out_of_range": lambda M, x: x[0, [-5]],
    "first_position_first": lambda M, x: x[[[0], [7]], [[1, 5]]],
    "size_0_dimension": lambda M, x: M.zeros(2, 0)[:, [0]],
    "select_in_size_0": lambda M, x: M.zeros(0, 3)[0],
    "0d_tensor_out_of_range": lambda M, x: x[M.tensor(3)],
    "float_index": lambda M, x: x[1.5],
    "float_in_tuple": lambda M, x: x[0, 1.5],
    "numpy_float_index": lambda M, x: x[np.float64(1.0)],
    "float_tensor_index": lambda M, x: x[M.tensor([0.0, 1.0])],
    "0d_float_tensor_index": lambda M, x: x[M.tensor(1.0)],
    "int8_tensor_index": lambda M, x: x[M.tensor([0, 1], dtype=M.int8)],
    "string_index": lambda M, x: x[0, "a"],
    "dict_index": lambda M, x: x[{}],
    "object_index": lambda M, x: x[object()],
    "float_slice_bound": lambda M, x: x[1.5:],
    "zero_step": lambda M, x: x[::0],
    "negative_step": lambda M, x: x[::-1],
    "slice_of_0d": lambda M, x: M.tensor(1.0)[:],
    "mask_length": lambda M, x: x[M.tensor([True, False])],
    "mask_list_length": lambda M, x: x[[True, False, True, True]],
    "mask_after_slice": lambda M, x: x[:, M.tensor([True, False])],
    "mask_after_select": lambda M, x: x[0, [True, False, True]],
    "mask_2d_shape": lambda M, x: x[M.ones(3, 3, dtype=M.bool)],
    "arrays_do_not_broadcast": lambda M, x: x[[0, 1], [0, 1, 2]],
    "mask_and_array_do_not_broadcast": lambda M, x: x[M.tensor([True, True, False]), [0, 1, 2]],
    "select_function_0d": lambda M, x: M.select(M.tensor(1.0), 0, 0),
    "select_function_out_of_range": lambda M, x: x.select(1, -5),
}


@pytest.mark.parametrize("name", BAD_INDICES)
def test_bad_index_raises_as_torch(name):
    check_error(lambda M: BAD_INDICES[name](M, M.arange(12.0).reshape(3, 4)))


GOOD_ODD_INDICES = {
    "float_list": lambda M, x: x[[1.7, 0.2]],  # read as a long tensor: truncated
    "numpy_float_array": lambda M, x: x[np.array([2.9])],
    "empty_list": lambda M, x: x[[]],
    "empty_tuple": lambda M, x: x[()],
    "numpy_int": lambda M, x: x[np.int64(1)],
    "int32_tensor": lambda M, x: x[M.tensor([0, 2], dtype=M.int32)],
    "0d_bool_tensor": lambda M, x: x[M.tensor(True)],
    "0d_false_tensor": lambda M, x: x[M.tensor(False), 1],
    "tensor_slice_bound": lambda M, x: x[M.tensor(1):],
    "two_ellipses": lambda M, x: x[..., ...],
    "slice_past_the_end": lambda M, x: x[1:100, [0]],
    "empty_result_skips_the_bounds": lambda M, x: M.zeros(0, 2)[[], [5]],
    "0d_none_true": lambda M, x: M.tensor(2.0)[None, True],
    "0d_false": lambda M, x: M.tensor(2.0)[False],
}


@pytest.mark.parametrize("name", GOOD_ODD_INDICES)
def test_unusual_index_reads_as_torch(name):
    def program(M):
        x = M.arange(12.0).reshape(3, 4).requires_grad_()
        y = GOOD_ODD_INDICES[name](M, x)
        return y, graph(y)

    check(program)


# -- PyTorch's deprecated readings, with its warnings ------------------------------------------
LIST_AS_TUPLE = "Using a non-tuple sequence for multidimensional indexing is deprecated"
LISTS_READ_AS_TUPLES = {
    "lists": lambda x: x[[[0, 1], [1, 0]]],
    "int_and_list": lambda x: x[[0, [1]]],
    "int_and_slice": lambda x: x[[0, slice(1, None)]],
    "with_none": lambda x: x[[None, 0]],
    "assignment": lambda x: x.clone().__setitem__([[0, 1], [1, 0]], 5.0),
}


@pytest.mark.parametrize("name", LISTS_READ_AS_TUPLES)
def test_short_list_of_sequences_is_read_as_a_tuple(name):
    """A list (shorter than 32) that holds a sequence, a tensor, a slice, ``...`` or
    ``None`` is read as a tuple of parts, with a deprecation warning."""
    def program(M):
        x = M.arange(24.0).reshape(2, 3, 4)
        return LISTS_READ_AS_TUPLES[name](x)

    assert_same(*check_warning(program, UserWarning, LIST_AS_TUPLE))


@pytest.mark.parametrize("index", [[0, 1], [[0, 1]] * 32, np.array([[0, 1], [1, 0]])])
def test_other_sequences_are_one_index(index):
    def program(M):
        return M.arange(24.0).reshape(2, 3, 4)[index]

    check_no_warning(program)
    check(program)


def test_byte_tensor_index_is_a_deprecated_mask():
    def program(M):
        return M.arange(12.0).reshape(3, 4)[M.tensor([1, 0, 1], dtype=M.uint8)]

    assert_same(*check_warning(program, UserWarning))


# -- fill_ with a 0-d tensor (what x[i] = value does with a 0-d value) -------------------------
@pytest.mark.parametrize("target", ["whole", "view"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fill_with_a_0d_tensor_passes_it_the_gradient(target, dtype):
    """``fill_(value)`` with a 0-d tensor is FillBackward3: ``value`` gets the sum of the
    gradient, cast to its own dtype."""
    def program(M):
        a = M.arange(12.0).reshape(3, 4).requires_grad_()
        value = M.tensor(2.0, dtype=getattr(M, dtype), requires_grad=True)
        c = a.clone()
        (c if target == "whole" else c[1]).fill_(value * 3)
        (c * weights(M, (3, 4)).float()).sum().backward()
        return c, a.grad, value.grad, graph(c)

    check(program)


# -- assignment in a graph ---------------------------------------------------------------------
def into_zeros(M):
    z = M.zeros(3, 4)
    b = M.ones(2, requires_grad=True)
    z[0, [1, 2]] = b * 2  # z (no grad) becomes the output of CopySlices
    z.sum().backward()
    return z, b.grad, graph(z), z.is_leaf


def through_a_view(M):
    a = M.ones(3, 4, requires_grad=True)
    c = a * 1
    v = c[1]
    v[[0, 3]] = M.tensor([5.0, 6.0])
    (c * weights(M, (3, 4)).float()).sum().backward()
    return c, a.grad, graph(c)


def leaf_under_no_grad(M):
    a = M.ones(3, 4, requires_grad=True)
    with M.no_grad():
        a[0, [1, 2]] = 7.0
    return a, a.is_leaf


def saved_then_changed(M):
    a = M.ones(3, 4, requires_grad=True)
    c = a * 2
    y = c[[0, 1], [1, 2]]
    c.mul_(2)
    (y * c[0, 0]).sum().backward()
    return a.grad


def double_backward(M):
    a = M.arange(12.0).reshape(3, 4).requires_grad_()
    y = a[[0, 2, 2]] * a[[1, 1, 0]]
    (g,) = M.autograd.grad(y.sum(), a, create_graph=True)
    (g * a).sum().backward()
    return a.grad


@pytest.mark.parametrize("program", [into_zeros, through_a_view, leaf_under_no_grad, saved_then_changed,
                                     double_backward], ids=lambda p: p.__name__)
def test_indexing_in_a_graph(program):
    check(program)


@pytest.mark.parametrize("index", [(0, [1]), [0], (0, 1), 0])
def test_assignment_into_a_leaf_that_requires_grad_raises(index):
    def program(M):
        a = M.ones(3, 4, requires_grad=True)
        a[index] = 2.0

    check_error(program)


def test_assigned_int_out_of_the_dtype_range_raises():
    def program(M):
        x = M.zeros(3, dtype=M.uint8)
        x[0] = 300

    check_error(program, "value cannot be converted to type")


@pytest.mark.parametrize("seed", range(100))
def test_out_of_range_index_arrays_report_as_torch(seed):
    """Index arrays of random shapes with values partly out of range, at random dimensions:
    the same error (arrays that do not broadcast; else the first index out of range in
    reading order, its "dimension" counting the arrays), or the same result."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 4, size=3))
    shapes = [tuple(rng.choice([1, 2, 3], size=rng.integers(1, 3))) for _ in range(rng.integers(1, 4))]
    arrays = [rng.integers(-5, 6, size=s) for s in shapes]
    dims = sorted(rng.choice(3, size=len(arrays), replace=False))

    def program(M):
        key = [slice(None)] * 3
        for dim, array in zip(dims, arrays):
            key[dim] = M.tensor(array)
        return M.arange(float(np.prod(shape))).reshape(shape)[tuple(key)]

    same_outcome(program)
