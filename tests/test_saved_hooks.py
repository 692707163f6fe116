"""Saved-tensor hooks against PyTorch (``saved_variable.cpp``), and ``Tensor.output_nr`` /
``Tensor.data_ptr()``.

The rules pinned here:

* with ``saved_tensors_hooks(pack, unpack)`` the graph keeps only what ``pack`` returned:
  a pack hook that copies frees the original tensor and its array once the user drops
  them; an identity hook (or no hook) keeps it;
* ``pack`` runs under ``no_grad`` and may not change its input in place; nothing checks
  the saved tensor's version afterwards (the hooks own the value);
* what ``unpack`` returns becomes a new tensor joined to the graph where the saved one
  was (the leaf's ``AccumulateGrad``, the input's ``grad_fn``, or the node itself for a
  saved output), so double backward works through a detached or NumPy-copied value,
  over random ops and inputs;
* wrong results of ``unpack``: not a tensor, a wrong shape, an integer dtype for a leaf
  that requires grad: PyTorch's errors; a wider float dtype: the gradient keeps its dtype;
* ``grad_fn._raw_saved_<name>``: ``data``, ``unpack_hook``, ``unpack()``,
  ``register_hooks`` and their errors (twice, freed, nothing saved, not callable);
* ``output_nr``: 0 for leaves and single outputs, ``k`` for output ``k`` of ``unbind``,
  ``split``, ``chunk``, ``max(dim)``...; ``data_ptr()``: the same for views that start
  where their base starts, offset by the same bytes as PyTorch's for every view, new for
  copies, 0 when empty.
"""

import gc
import weakref

import numpy as np
import pytest

from parity import check, check_error, grad_of, leaf

import nbgrad as ng


def _hooks(M, style):
    """A (pack, unpack) pair: how the saved tensor is kept."""
    if style == "identity":
        return (lambda t: t), (lambda p: p)
    if style == "detach":
        return (lambda t: t.detach()), (lambda p: p)
    if style == "clone":
        return (lambda t: t.detach().clone()), (lambda p: p)
    if style == "numpy":
        return (lambda t: t.detach().numpy().copy()), (lambda p: M.from_numpy(p))
    if style == "handle":  # a number in a dict kept by the user, as an offloading scheme does
        store = {}

        def pack(t):
            store[len(store)] = t.detach().clone()
            return len(store) - 1

        return pack, (lambda key: store[key])
    raise ValueError(style)


STYLES = ["identity", "detach", "clone", "numpy", "handle"]
COPYING = {"clone", "numpy", "handle"}


# -- 1. the graph keeps only what pack returned ----------------------------------------------
@pytest.mark.parametrize("style", STYLES + [None])
def test_a_copying_pack_hook_frees_the_original(style):
    """``a`` is saved by ``sin`` only (``* 1`` saves nothing of it): once the user drops it,
    the tensor is gone unless the hook kept the tensor itself (or there is no hook: the
    graph keeps it). A detached alias keeps the array, not the tensor."""
    def program(M):
        x = leaf(M, [0.5, 1.0, 2.0])
        a = x.exp() * 1
        alive = weakref.ref(a)
        if style is None:
            y = a.sin()
        else:
            pack, unpack = _hooks(M, style)
            with M.autograd.graph.saved_tensors_hooks(pack, unpack):
                y = a.sin()
        del a
        gc.collect()
        freed = alive() is None
        y.sum().backward()
        return freed, grad_of(x)

    (freed, _), _ = check(program)
    assert freed == (style not in ("identity", None))


@pytest.mark.parametrize("style", ["identity", "detach", "clone", "numpy", "handle"])
def test_nbgrad_holds_no_array_of_the_original(style):
    """nbgrad's own view of it: the original's array is freed when the hook copied it (no
    ``SavedTensor`` keeps it); an identity or detaching hook keeps it."""
    x = ng.tensor([0.5, 1.0, 2.0], requires_grad=True)
    a = x.exp() * 1
    array = weakref.ref(a._data)
    pack, unpack = _hooks(ng, style)
    with ng.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = a.sin()
    del a
    gc.collect()
    assert (array() is None) == (style in COPYING)
    y.sum().backward()
    np.testing.assert_allclose(x.grad._data, (np.cos(np.exp([0.5, 1.0, 2.0])) *
                                              np.exp([0.5, 1.0, 2.0])).astype(np.float32),
                               rtol=1e-6)


def test_pack_receives_the_tensor_itself_under_no_grad():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        seen = []

        def pack(t):
            seen.append((t is x, t.requires_grad, M.is_grad_enabled()))
            return t

        with M.autograd.graph.saved_tensors_hooks(pack, lambda p: p):
            x * x
            x.exp()
        return seen

    check(program)


# -- versions -----------------------------------------------------------------------------
@pytest.mark.parametrize("style", ["identity", "clone"])
def test_no_version_check_once_packed(style):
    """PyTorch checks no version with hooks (``SavedVariable::unpack``: "Only check version
    counter in the case without hooks"): the identity hook sees the changed values, the
    copy the old ones; neither raises."""
    def program(M):
        x = leaf(M, [1.0, 2.0])
        a = x * 1
        pack, unpack = _hooks(M, style)
        with M.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = a * a
        a.add_(1)
        y.sum().backward()
        return grad_of(x)

    check(program)


def test_without_hooks_the_version_check_stays():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        a = x * 1
        y = a * a
        a.add_(1)
        y.sum().backward()

    check_error(program)


def test_hooks_on_one_saved_tensor_leave_the_other_checked():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        a = x * 1
        y = a * a  # saves a twice: self and other
        a.add_(1)
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t.clone(), lambda p: p)
        y.sum().backward()

    check_error(program)


@pytest.mark.parametrize("how", ["saved_tensors_hooks", "register_hooks"])
def test_a_pack_hook_may_not_change_its_input_in_place(how):
    def program(M):
        x = leaf(M, [1.0, 2.0])
        a = x * 1
        if how == "saved_tensors_hooks":
            with M.autograd.graph.saved_tensors_hooks(lambda t: t.add_(1), lambda p: p):
                a * a
        else:
            (a * a).grad_fn._raw_saved_self.register_hooks(lambda t: t.add_(1), lambda p: p)

    check_error(program)


# -- 2. unpacked tensors rejoin the graph: double backward ---------------------------------------
UNARY = {
    "square": lambda M, x: x * x,
    "exp": lambda M, x: x.exp(),
    "sin": lambda M, x: x.sin(),
    "tanh": lambda M, x: x.tanh(),
    "sigmoid": lambda M, x: x.sigmoid(),
    "log": lambda M, x: x.log(),
    "sqrt": lambda M, x: x.sqrt(),
    "pow3": lambda M, x: x ** 3,
    "reciprocal": lambda M, x: 1 / x,
    "through_nonleaf": lambda M, x: (x * 2).sin() * (x * 2),
}


@pytest.mark.parametrize("seed", range(6))
def test_double_backward_through_unpacked_tensors_random(seed):
    """Random chains of ops, a random way of packing: first and second derivatives are
    PyTorch's (and those without hooks)."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(0.5, 2.0, size=4).round(3).tolist()
    names = [str(n) for n in rng.choice(list(UNARY), size=int(rng.integers(1, 4)))]
    style = str(rng.choice(STYLES))

    def program(M, hooked=True):
        x = leaf(M, values, dtype=M.float64)
        pack, unpack = _hooks(M, style)
        with M.autograd.graph.saved_tensors_hooks(pack, unpack) if hooked else _nothing():
            y = x
            for name in names:
                y = UNARY[name](M, y)
            (g,) = M.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = M.autograd.grad(g.sum(), x)
        return g, h

    expected, _ = check(program)
    plain = program(ng, hooked=False)
    np.testing.assert_allclose(plain[1]._data, expected[1].numpy(), rtol=1e-6)


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("style", ["detach", "numpy"])
def test_double_backward_with_a_detaching_hook(style):
    """The brief's case: ``y = x * x`` with ``pack=detach``: ``d2y/dx2 = 2``."""
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        pack, unpack = _hooks(M, style)
        with M.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * x).sum()
        (g,) = M.autograd.grad(y, x, create_graph=True)
        (h,) = M.autograd.grad(g.sum(), x)
        return g, g.grad_fn is not None, h

    check(program)


def test_unpacked_saved_tensors_are_new_and_joined_where_the_originals_were():
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        a = x * 2
        with M.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: p):
            y = x * a
            z = x.exp()
        s, o, r = y.grad_fn._saved_self, y.grad_fn._saved_other, z.grad_fn._saved_result
        return (s is x, s.requires_grad, s.is_leaf, s.grad_fn is None,
                o is a, o.is_leaf, o.grad_fn is a.grad_fn,
                r is z, r.grad_fn is z.grad_fn, s, o, r)

    check(program)


def test_custom_function_saved_tensors_are_rejoined():
    """``save_for_backward`` of an input and of an output, packed by a detaching hook:
    ``ctx.saved_tensors`` are joined to the graph again (the output to the Function's own
    node), so the Function's gradient can be differentiated again."""
    def program(M):
        class Square(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * x
                ctx.save_for_backward(x, y)
                return y

            @staticmethod
            def backward(ctx, grad):
                x, y = ctx.saved_tensors
                seen.append((x.requires_grad, x.is_leaf, y.requires_grad, y.grad_fn is node))
                return 2 * x * grad

        seen = []
        x = leaf(M, [1.0, 2.0])
        with M.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: p):
            y = Square.apply(x)
        node = y.grad_fn
        (g,) = M.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = M.autograd.grad(g.sum(), x)
        return g, h, seen

    check(program)


def test_unpacked_leaf_accumulates_into_the_leaf():
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        with M.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: p):
            y = x * x
        (y.grad_fn._saved_self * 3).sum().backward()
        return grad_of(x)

    check(program)


def test_unpacked_keeps_what_the_tensor_was_when_saved():
    """``detach_()`` / ``requires_grad_(False)`` after saving change nothing for the
    packed tensor: PyTorch read ``grad_fn`` and ``requires_grad`` at pack time."""
    def program(M):
        x = leaf(M, [1.0, 2.0])
        a = x * 1
        b = leaf(M, [3.0, 4.0])
        with M.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: p):
            y = a * a
            w = b * x
        fn = a.grad_fn
        a.detach_()
        b.requires_grad_(False)
        s, o = y.grad_fn._saved_self, w.grad_fn._saved_self
        return s.grad_fn is fn, s.requires_grad, o.requires_grad, o.is_leaf

    check(program)


def test_saved_result_is_joined_under_no_grad():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        z = x.exp()
        with M.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: p):
            w = x.exp()
        with M.no_grad():
            r, q = z.grad_fn._saved_result, w.grad_fn._saved_result
        return r.requires_grad, r.grad_fn is z.grad_fn, q.requires_grad, q.grad_fn is w.grad_fn

    check(program)


# -- what unpack may return ------------------------------------------------------------------
def test_unpack_must_return_a_tensor():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        with M.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 3):
            y = x * x
        return y.grad_fn._saved_self

    check_error(program)


def test_unpack_of_a_wrong_length_fails_in_the_formula():
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        with M.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: M.ones(4)):
            y = (x * x).sum()
        y.backward()

    check_error(program)


def test_unpack_of_an_integer_dtype_for_a_leaf_that_requires_grad():
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        with M.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p.long()):
            y = (x * x).sum()
        y.backward()

    check_error(program)


@pytest.mark.parametrize("case", ["wider float, saved leaf", "wider float, saved result",
                                  "integer, leaf without grad", "integer, saved result"])
def test_unpack_of_another_dtype(case):
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        c = M.tensor([1.0, 2.0, 3.0])
        unpack = (lambda p: p.double()) if case.startswith("wider") else (lambda p: p.long())
        with M.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y = (x * c).sum() if "without" in case else \
                (x.exp() if "result" in case else x * x).sum()
        y.backward()
        return grad_of(x)

    check(program)


@pytest.mark.xfail(strict=True, reason="nbgrad's engine does not check the shape of a built-in "
                   "node's gradient (PyTorch's validate_outputs sums a broadcastable one to the "
                   "input's shape); only a hook that unpacks a wrong shape shows it")
def test_unpack_of_a_broadcastable_wrong_shape():
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        with M.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: M.ones(2, 3)):
            y = (x * x).sum()
        y.backward()
        return grad_of(x)

    check(program)


def test_saved_tensors_hooks_need_callables():
    def program(M):
        with M.autograd.graph.saved_tensors_hooks(1, 2):
            pass

    check_error(program)


# -- 3. _raw_saved_<name> -----------------------------------------------------------------------
def test_raw_saved_data_and_unpack_hook():
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        y = x * x
        z = x.exp()
        raw, out = y.grad_fn._raw_saved_self, z.grad_fn._raw_saved_result
        before = (raw.data is x, out.data, out.data.requires_grad, raw.unpack_hook is None)

        def unpack(p):
            return p[1]

        raw.register_hooks(lambda t: ("kept", t * 10), unpack)
        after = (raw.data[0], raw.data[1], raw.unpack_hook is unpack, raw.unpack())
        y.sum().backward()
        return before, after, raw.data is None, y.grad_fn._raw_saved_self.data is None

    check(program)


def test_register_hooks_pack_gets_a_detached_alias():
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        y = x * x
        z = x.exp()
        seen = []

        def pack(t):
            seen.append((t is x, t.requires_grad, t.grad_fn is None, t._version))
            return t

        y.grad_fn._raw_saved_self.register_hooks(pack, lambda p: p)
        z.grad_fn._raw_saved_result.register_hooks(pack, lambda p: p)
        y.sum().backward()
        return seen, grad_of(x)

    check(program)


def test_register_hooks_after_a_retained_backward():
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        y = x * x
        y.sum().backward(retain_graph=True)
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 2, lambda p: p)
        y.sum().backward()
        return grad_of(x)

    check(program)


def test_raw_saved_unpack_after_backward_raises():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        y = x * x
        raw = y.grad_fn._raw_saved_self
        y.sum().backward()
        raw.unpack()

    check_error(program)


def test_raw_saved_is_there_after_backward():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        y, z = x * x, x.exp()
        (y + z).sum().backward()
        return (y.grad_fn._raw_saved_other.data is None, z.grad_fn._raw_saved_result.data is None)

    check(program)


RAW_ERRORS = {
    "twice": lambda M, x: _register(_register((x * x).grad_fn._raw_saved_self)),
    "after saved_tensors_hooks": lambda M, x: _register(_hooked(M, x).grad_fn._raw_saved_self),
    "after backward": lambda M, x: _register(_backward(x * x).grad_fn._raw_saved_self),
    "after backward, hooked": lambda M, x: _register(_backward(_hooked(M, x)).grad_fn._raw_saved_self),
    "nothing saved": lambda M, x: _register((x * M.tensor([1.0, 2.0])).grad_fn._raw_saved_self),
    "not callable": lambda M, x: (x * x).grad_fn._raw_saved_self.register_hooks(1, 2),
}


def _register(raw):
    raw.register_hooks(lambda t: t, lambda p: p)
    return raw


def _hooked(M, x):
    with M.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
        return x * x


def _backward(y):
    y.sum().backward()
    return y


@pytest.mark.parametrize("case", RAW_ERRORS)
def test_register_hooks_errors(case):
    def program(M):
        RAW_ERRORS[case](M, leaf(M, [1.0, 2.0]))

    check_error(program)


def test_saved_self_after_backward_with_hooks_raises():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        y = _backward(_hooked(M, x))
        return y.grad_fn._saved_self

    check_error(program)


# -- 4. output_nr and data_ptr -------------------------------------------------------------------
OUTPUTS = {
    "leaf": lambda M, x: [x],
    "detached": lambda M, x: [x.detach()],
    "single output": lambda M, x: [x * 2, x.sum()],
    "view": lambda M, x: [x[1:], x.view(-1)],
    "unbind": lambda M, x: list(x.unbind()),
    "unbind dim 1": lambda M, x: list(x.unbind(1)),
    "split": lambda M, x: list(x.split(1)),
    "chunk": lambda M, x: list(x.chunk(3, dim=1)),
    "max dim": lambda M, x: list(x.max(dim=1)),
    "sort": lambda M, x: list(x.sort(dim=1)),
    "no grad": lambda M, x: list(x.detach().unbind()),
}


@pytest.mark.parametrize("case", OUTPUTS)
def test_output_nr(case):
    def program(M):
        x = leaf(M, [[1.0, 5.0, 2.0], [3.0, 0.0, 4.0]])
        outs = OUTPUTS[case](M, x)
        return [t.output_nr for t in outs], [t.grad_fn is None for t in outs]

    check(program)


@pytest.mark.parametrize("seed", range(4))
def test_output_nr_of_random_unbinds(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 5, size=3))
    dim = int(rng.integers(0, 3))

    def program(M):
        x = M.zeros(shape, requires_grad=True) * 1
        outs = x.unbind(dim)
        return [t.output_nr for t in outs], [t.output_nr for t in x.split(1, dim)]

    check(program)


def test_output_nr_is_read_only():
    def program(M):
        M.ones(2).output_nr = 1

    check_error(program, key="")


def _ptr_program(view):
    def program(M):
        x = M.arange(24.0).reshape(2, 3, 4)
        v = view(x)
        return v.data_ptr() - x.data_ptr(), type(v.data_ptr()).__name__

    return program


SHARING = {
    "itself": lambda t: t,
    "detach": lambda t: t.detach(),
    ".data": lambda t: t.data,
    "view": lambda t: t.view(-1),
    "transpose": lambda t: t.transpose(0, 2),
    "permute": lambda t: t.permute(2, 0, 1),
    "select": lambda t: t[1],
    "select last dim": lambda t: t[..., 3],
    "slice": lambda t: t[:, 1:],
    "slice step": lambda t: t[:, :, 1::2],
    "narrow": lambda t: t.narrow(2, 1, 2),
    "expand": lambda t: t[:1].expand(3, 3, 4),
    "unbind": lambda t: t.unbind(1)[2],
    "split": lambda t: t.split(2, dim=2)[1],
    "diagonal": lambda t: t[0].diagonal(),
}


@pytest.mark.parametrize("case", SHARING)
def test_data_ptr_offset_of_views(case):
    check(_ptr_program(SHARING[case]))


@pytest.mark.parametrize("seed", range(6))
def test_data_ptr_offset_of_random_slices(seed):
    rng = np.random.default_rng(seed)
    dtype = str(rng.choice(["float32", "float64", "int64", "int16"]))
    index = []
    for size in (2, 3, 4):
        start = int(rng.integers(0, size))
        index.append(slice(start, None, int(rng.integers(1, 3))))

    def program(M):
        x = M.zeros((2, 3, 4), dtype=getattr(M, dtype))
        v = x[tuple(index)][0]
        return v.data_ptr() - x.data_ptr(), v.element_size()

    check(program)


COPIES = {
    "clone": lambda t: t.clone(),
    "contiguous of a transpose": lambda t: t.t().contiguous(),
    "to another dtype": lambda t: t.double(),
    "arithmetic": lambda t: t + 0,
}


@pytest.mark.parametrize("case", COPIES)
def test_data_ptr_of_copies_differs(case):
    def program(M):
        x = M.arange(6.0).reshape(2, 3)
        y = COPIES[case](x)
        return y.data_ptr() != x.data_ptr(), y.data_ptr() != 0

    check(program)


def test_data_ptr_of_empty_tensors_is_zero():
    def program(M):
        x = M.ones(3)
        return M.empty(0).data_ptr(), x[3:].data_ptr(), M.tensor(2.0).data_ptr() != 0

    check(program)


def test_data_ptr_after_in_place_change_is_the_same():
    def program(M):
        x = M.ones(3)
        before = x.data_ptr()
        x.add_(1)
        x[0] = 5
        return x.data_ptr() == before

    check(program)


def test_data_ptr_is_numpys_address():
    x = ng.arange(6.0).reshape(2, 3)
    assert x.data_ptr() == x._data.ctypes.data
    assert x[1].data_ptr() == x._data[1].__array_interface__["data"][0]


def _no_hooks_in_force(M):
    """A saved tensor made now takes hooks of its own: none are in force (PyTorch's check)."""
    y = M.tensor(1.0, requires_grad=True).exp()
    return y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)


def test_a_hooks_block_entered_during_backward_does_not_outlive_it():
    """An ``unpack`` hook that enters its own block again and never leaves it: the pass
    leaves the hooks as it found them, so the hook is freed and later backwards work."""
    def program(M):
        def scope():
            def unpack(x):
                weak_ctx().__enter__()
                return x

            ctx = M.autograd.graph.saved_tensors_hooks(lambda x: x, unpack)
            weak_ctx = weakref.ref(ctx)
            x = leaf(M, [[0.5, 1.0], [1.5, 2.0]])
            with ctx:
                x.sin().sum().backward()
            return weakref.ref(unpack), x.grad

        gc.disable()
        try:
            unpack_ref, grad = scope()
            freed = unpack_ref() is None
        finally:
            gc.enable()
        w = leaf(M, [1.0, 2.0])
        (w * w).sum().backward()
        return freed, grad, w.grad, _no_hooks_in_force(M)
    check(program)


def test_a_hooks_block_left_during_backward_does_not_crash():
    """The opposite misuse: ``unpack`` leaves a block that was entered outside backward."""
    def program(M):
        def unpack(x):
            ctx_1.__exit__()
            return x

        ctx_1 = M.autograd.graph.saved_tensors_hooks(lambda x: x, unpack)
        ctx_2 = M.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x)
        grads = []
        for _ in range(3):
            with ctx_2:
                ctx_1.__enter__()
                x = leaf(M, [0.5, 1.0])
                x.sin().sum().backward()
                grads.append(x.grad)
        for _ in range(3):
            ctx_1.__exit__()
        return grads, _no_hooks_in_force(M)
    check(program)
