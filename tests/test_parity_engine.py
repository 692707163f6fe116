"""Parity of the engine with PyTorch: gradient dtypes, ``inputs=``, hooks, grad mode,
custom Functions, gradcheck, reentrant backward, and the version checks of the losses."""

import re

import numpy as np
import pytest

from parity import check, check_error, check_warning, grad_of, leaf, torch

import nbgrad as ng

FLOATS = ["float16", "float32", "float64"]


# -- 1. a gradient has the dtype of the tensor it is the gradient of -------------------------
def _random_dtype_chain(M, seed):
    """A chain of operations mixing float dtypes (promotion, in-place, casts, sum(dtype=)):
    every leaf's .grad and every retained gradient must have its tensor's dtype."""
    rng = np.random.default_rng(seed)
    dtype = lambda: getattr(M, FLOATS[rng.integers(len(FLOATS))])  # noqa: E731
    leaves = [M.tensor(rng.uniform(0.5, 1.5, 3).tolist(), dtype=dtype(), requires_grad=True)
              for _ in range(3)]
    a = leaves[0] * 1
    retained = [a]
    for _ in range(6):
        other = leaves[rng.integers(len(leaves))]
        kind = rng.integers(5)
        if kind == 0:
            a = a * other
        elif kind == 1:
            a = a + other
        elif kind == 2:
            a = a * 1
            a += other  # in place: the result keeps a's dtype, other's gradient keeps other's
        elif kind == 3:
            a = a.to(dtype())
        else:
            a = other.type_as(a) * a
        a.retain_grad()
        retained.append(a)
    a.sum(dtype=dtype()).backward()
    return [None if t.grad is None else (t.grad.dtype, t.grad) for t in leaves + retained]


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("seed", range(40))
def test_gradient_dtype_is_the_tensor_dtype(seed):
    check(lambda M: _random_dtype_chain(M, seed), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("source", FLOATS)
@pytest.mark.parametrize("target", FLOATS)
def test_sum_with_dtype_sends_back_the_input_dtype(source, target):
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0], getattr(M, source))
        x.sum(dtype=getattr(M, target)).backward()
        return x.grad

    check(program)


@pytest.mark.parametrize("self_dtype", FLOATS)
@pytest.mark.parametrize("other_dtype", FLOATS)
def test_in_place_operand_gets_its_own_dtype(self_dtype, other_dtype):
    def program(M):
        a = leaf(M, [1.0, 2.0], getattr(M, self_dtype))
        b = leaf(M, [3.0, 4.0], getattr(M, other_dtype))
        a2 = a * 1
        a2 += b * b
        seen = []
        b.register_hook(lambda g: seen.append(g.dtype))
        a2.sum().backward()
        return a.grad, b.grad, seen

    check(program)


def test_gradients_of_several_dtypes_are_cast_before_they_add_up():
    def program(M):
        x = leaf(M, [1.0, 2.0], M.float32)
        y = x * 1
        y.retain_grad()
        (y.double() * 3 + y.sum(dtype=M.float64) + y).sum().backward()
        return y.grad, x.grad

    check(program)


def test_grad_of_a_float32_input_through_a_float64_sum_is_float32():
    def program(M):
        x = leaf(M, [1.0, 2.0], M.float32)
        (g,) = M.autograd.grad(x.sum(dtype=M.float64), x)
        y = x * 2
        (h,) = M.autograd.grad((y.double() ** 2).sum(), y)
        return g, h

    check(program)


@pytest.mark.parametrize("inner", FLOATS[1:])
@pytest.mark.parametrize("outer", FLOATS[1:])
def test_the_cast_of_a_gradient_is_differentiated_again(inner, outer):
    def program(M):
        x = leaf(M, [0.5, 1.5], getattr(M, inner))
        y = (x.to(getattr(M, outer)) ** 3).sum(dtype=M.float64)
        (g,) = M.autograd.grad(y, x, create_graph=True)
        (h,) = M.autograd.grad((g * g).sum(), x)
        return g, h

    check(program)


# -- 2. an input named twice is one edge -------------------------------------------------------
ALIASES = {
    "same": lambda M, x: x,
    "type_as": lambda M, x: x.type_as(x),
    "to": lambda M, x: x.to(M.float32),
    "flatten(0,0)": lambda M, x: x.flatten(0, 0),
}


@pytest.mark.parametrize("alias", ALIASES)
@pytest.mark.parametrize("non_leaf", [False, True])
def test_backward_inputs_named_twice_accumulate_once(alias, non_leaf):
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        t = x * 3 if non_leaf else x
        (t * 2).sum().backward(inputs=[t, ALIASES[alias](M, t)])
        return grad_of(t), t.retains_grad, x.grad

    check(program)


def test_grad_inputs_named_twice_each_get_the_gradient():
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        return M.autograd.grad((x * x).sum(), [x, x.type_as(x), x])

    check(program)


# -- 3. hooks and inputs= ----------------------------------------------------------------------
def _hooked(M, calls):
    """x, z leaves and y = x * z, every hook that PyTorch offers appending its name."""
    x, z = leaf(M, [1.0, 2.0]), leaf(M, [3.0, 4.0])
    y = x * z
    accumulator = y.grad_fn.next_functions[0][0]
    x.register_hook(lambda g: calls.append("x tensor"))
    z.register_hook(lambda g: calls.append("z tensor"))
    x.register_post_accumulate_grad_hook(lambda t: calls.append("x post-accumulate"))
    accumulator.register_prehook(lambda g: calls.append("x accumulator pre"))
    accumulator.register_hook(lambda gi, go: calls.append("x accumulator post"))
    y.register_hook(lambda g: calls.append("y tensor"))
    y.grad_fn.register_prehook(lambda g: calls.append("y node pre"))
    y.grad_fn.register_hook(lambda gi, go: calls.append("y node post"))
    return x, z, y


def _per_tensor(calls):
    """The calls of each tensor's hooks, in order. The order between two leaves is not
    compared: PyTorch runs accumulators as a tie of its ready queue."""
    return [[c for c in calls if c.startswith(name)] for name in "xyz"]


INPUTS = {
    "none": lambda x, z, y: None,
    "x": lambda x, z, y: [x],
    "z": lambda x, z, y: [z],
    "y": lambda x, z, y: (y,),
    "y, z": lambda x, z, y: [y, z],
    "x, x": lambda x, z, y: [x, x],
}


@pytest.mark.parametrize("inputs", INPUTS)
def test_which_hooks_run_for_backward_inputs(inputs):
    def program(M):
        calls = []
        x, z, y = _hooked(M, calls)
        (y * 2).sum().backward(inputs=INPUTS[inputs](x, z, y))
        return _per_tensor(calls), grad_of(x), grad_of(z), y.retains_grad

    check(program)


@pytest.mark.parametrize("inputs", ["x", "z", "y", "y, z", "x, x"])
def test_which_hooks_run_for_autograd_grad(inputs):
    def program(M):
        calls = []
        x, z, y = _hooked(M, calls)
        grads = M.autograd.grad((y * 2).sum(), INPUTS[inputs](x, z, y))
        return _per_tensor(calls), grads, x.grad, z.grad

    check(program)


def test_post_accumulate_hook_must_return_none():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        x.register_post_accumulate_grad_hook(lambda t: t.grad.mul_(-1))
        (x * 2).sum().backward()

    check_error(program)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("shared", ["add", "expand", "root"])
def test_post_accumulate_hook_modifies_the_grad_that_stays(create_graph, shared):
    """The hook's tensor.grad is the .grad that remains, never an array shared with another
    leaf or with a broadcast: changing it in place changes that leaf's gradient only."""

    def program(M):
        x, z = leaf(M, [1.0, 2.0, 3.0]), leaf(M, [1.0, 1.0, 1.0])

        def negate(t):
            t.grad.sub_(5)

        x.register_post_accumulate_grad_hook(negate)
        if shared == "add":
            out = (x + z).sum()
        elif shared == "expand":
            out = (x.expand(2, 3) + z).sum()
        else:
            out = M.stack([x, z]).sum()
        out.backward(create_graph=create_graph)
        return x.grad.detach(), z.grad.detach(), x.grad.requires_grad

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_graph's reference-cycle warning
        check(program)


def test_tensor_hook_changing_its_argument_in_place():
    def program(M):
        x = leaf(M, [1.0, 2.0, 3.0])
        kept = []

        def double(g):
            kept.append(g)
            g.mul_(2)

        x.register_hook(double)
        def add_one(t):
            t.grad.add_(1)

        x.register_post_accumulate_grad_hook(add_one)
        (x * 1).sum().backward()
        return x.grad, kept[0]

    check(program)


@pytest.mark.parametrize("used", [0, 1, 2])
def test_hook_on_an_unused_output_is_called_with_none(used):
    def program(M):
        x = leaf(M, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        pieces = (x * 1).unbind(0)
        seen = []
        for i, piece in enumerate(pieces):
            piece.register_hook(lambda g, i=i: seen.append((i, None if g is None else g.tolist())))
        pieces[used].sum().backward()
        return sorted(seen, key=lambda s: s[0]), x.grad

    check(program)


class _Recorder:
    """A hook that is an object with ``__call__``, not a function."""

    def __init__(self, calls, name):
        self.calls, self.name = calls, name

    def __call__(self, *args):
        self.calls.append((self.name, len(args)))


def test_callable_objects_are_hooks_everywhere():
    def program(M):
        calls = []
        x = leaf(M, [1.0, 2.0])
        y = x * 2
        x.register_hook(_Recorder(calls, "leaf tensor"))
        x.register_post_accumulate_grad_hook(_Recorder(calls, "post-accumulate"))
        y.register_hook(_Recorder(calls, "tensor"))
        y.grad_fn.register_prehook(_Recorder(calls, "node pre"))
        y.grad_fn.register_hook(_Recorder(calls, "node post"))
        y.sum().backward()
        return calls

    check(program)


# -- 5. materialized gradients -----------------------------------------------------------------
@pytest.mark.parametrize("create_graph", [False, True])
def test_materialized_grads_require_grad_under_create_graph(create_graph):
    def program(M):
        x, unused = leaf(M, [1.0, 2.0]), leaf(M, [3.0, 4.0], M.float64)
        grads = M.autograd.grad((x * x).sum(), [x, unused], materialize_grads=True,
                                create_graph=create_graph)
        return grads, grads[1].dtype, grads[1].is_leaf

    check(program)


# -- 4. grad mode as decorator -----------------------------------------------------------------
MODES = {
    "no_grad()": lambda M: M.no_grad(),
    "enable_grad()": lambda M: M.enable_grad(),
    "set_grad_enabled(False)": lambda M: M.set_grad_enabled(False),
    "set_grad_enabled(True)": lambda M: M.set_grad_enabled(True),
    "no_grad": lambda M: M.no_grad,
    "enable_grad": lambda M: M.enable_grad,
}


@pytest.mark.parametrize("outer", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_decorated_function(mode, outer):
    def program(M):
        @MODES[mode](M)
        def double(x):
            return x * 2, M.is_grad_enabled()

        x = leaf(M, [1.0])
        with M.set_grad_enabled(outer):
            y, inside = double(x)
        return y.requires_grad, inside, M.is_grad_enabled(), double.__name__

    check(program)


@pytest.mark.parametrize("outer", [False, True])
@pytest.mark.parametrize("mode", MODES)
def test_decorated_generator_has_the_mode_between_its_yields(mode, outer):
    def program(M):
        @MODES[mode](M)
        def steps(x):
            seen = []
            received = yield (x * 2).requires_grad
            seen.append((received, M.is_grad_enabled()))
            try:
                yield (x * 3).requires_grad
            except KeyError:
                seen.append(("thrown", M.is_grad_enabled()))
                yield "recovered"
            return seen

        x = leaf(M, [1.0])
        with M.set_grad_enabled(outer):
            gen = steps(x)
            log = [next(gen), M.is_grad_enabled(), (x * 1).requires_grad]
            log.append(gen.send("sent"))
            log.append((x * 1).requires_grad)
            log.append(gen.throw(KeyError("k")))
            try:
                next(gen)
            except StopIteration as stop:
                log.append(stop.value)
        return log, M.is_grad_enabled()

    check(program)


@pytest.mark.parametrize("mode", MODES)
def test_decorated_coroutine_runs_in_the_callers_mode(mode):
    """PyTorch's decorator wraps the call that creates the coroutine, not its body."""

    def program(M):
        @MODES[mode](M)
        async def double(x):
            return (x * 2).requires_grad, M.is_grad_enabled()

        coroutine = double(leaf(M, [1.0]))
        try:
            coroutine.send(None)
        except StopIteration as stop:
            return stop.value

    check(program)


@pytest.mark.parametrize("mode", ["no_grad()", "no_grad", "set_grad_enabled(False)"])
def test_decorating_a_class_warns_and_constructs_in_the_mode(mode):
    def program(M):
        @MODES[mode](M)
        class Made:
            def __init__(self, x):
                self.requires_grad = (x * 2).requires_grad

        return Made(leaf(M, [1.0])).requires_grad

    check_warning(program, FutureWarning)


@pytest.mark.parametrize("value", ["a", 1, 0, None, 1.0, np.bool_(True), lambda: None])
def test_set_grad_enabled_takes_a_bool_only(value):
    def program(M):
        try:
            M.set_grad_enabled(value)
        finally:
            M.set_grad_enabled(True)

    check_error(program)


def test_set_grad_enabled_as_a_call_and_its_repr():
    def program(M):
        M.set_grad_enabled(False)
        off = (leaf(M, [1.0]) * 2).requires_grad
        context = M.set_grad_enabled(True)
        # the module path differs (nbgrad.core.grad_mode), the rest of the repr does not
        return off, (leaf(M, [1.0]) * 2).requires_grad, repr(context).rsplit(".", 1)[1]

    check(program)


# -- 6. custom Function ------------------------------------------------------------------------
def _product(M, backward):
    """F(x, y) = x * y, saving both, with the given backward."""

    class Product(M.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, grad):
            return backward(ctx, grad)

    x, y = leaf(M, [1.0, 2.0]), leaf(M, [3.0, 4.0])
    Product.apply(x, y).sum().backward()
    return x.grad, y.grad


BACKWARDS = {
    "saved_tensors itself": lambda ctx, g: ctx.saved_tensors,
    "saved_tensors reversed": lambda ctx, g: ctx.saved_tensors[::-1],
    "trailing None": lambda ctx, g: (g, g, None),
    "two trailing None": lambda ctx, g: (g, g, None, None),
    "a list": lambda ctx, g: [g, g],
    "one too few": lambda ctx, g: (g,),
    "a trailing tensor": lambda ctx, g: (g, g, g),
    "None then a tensor": lambda ctx, g: (g, g, None, g),
}


@pytest.mark.parametrize("backward", BACKWARDS)
def test_what_a_function_backward_may_return(backward):
    program = lambda M: _product(M, BACKWARDS[backward])  # noqa: E731
    if backward in ("a list", "one too few", "a trailing tensor", "None then a tensor"):
        check_error(program)
    else:
        check(program)


def test_saved_tensors_is_a_tuple():
    def program(M):
        kinds = []
        _product(M, lambda ctx, g: (kinds.append(type(ctx.saved_tensors).__name__), (g, g))[1])
        return kinds

    check(program)


def _doubling(M, static):
    """A Function with forward/backward as PyTorch's legacy (instance) or static methods."""
    body = {
        "forward": lambda ctx, x: x * 2,
        "backward": lambda ctx, g: g * 2,
    }
    if static:
        body = {name: staticmethod(f) for name, f in body.items()}
    return type("Doubling", (M.autograd.Function,), body)


@pytest.mark.parametrize("static", [False, True])
def test_a_function_instance_warns_and_raises_when_called(static):
    def instance(M):
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _doubling(M, static)()
        return [(w.category.__name__, str(w.message).split("> ", 1)[1]) for w in caught]

    check(instance)
    check_error(lambda M: _doubling(M, static)()(leaf(M, [1.0])))


@pytest.mark.parametrize("static", [False, True])
def test_apply_of_either_kind_of_function(static):
    def program(M):
        x = leaf(M, [1.0, 2.0])
        y = _doubling(M, static).apply(x)
        y.sum().backward()
        return y.grad_fn.name(), x.grad

    check(program)


@pytest.mark.parametrize("saved", ["input", "output", "intermediate"])
def test_detach__of_a_saved_tensor_inside_backward(saved):
    def program(M):
        class Square(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * x
                ctx.save_for_backward({"input": x, "output": y, "intermediate": x + 1}[saved])
                return y

            @staticmethod
            def backward(ctx, grad):
                (t,) = ctx.saved_tensors
                t.detach_()
                return grad * 2 * t

        x = leaf(M, [1.0, 2.0])
        Square.apply(x * 1).sum().backward()
        return x.grad

    check(program)


def _reference_cycle_warning_of_torch():
    """PyTorch warns once per process (TORCH_WARN_ONCE): read its text in a fresh one."""
    import subprocess
    import sys

    code = (
        "import warnings, torch\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    (x * x).sum().backward(create_graph=True)\n"
        "print(str(w[0].message).split(' (Triggered internally')[0])\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_backward_with_create_graph_warns_of_the_reference_cycle_once(monkeypatch):
    import warnings

    from nbgrad import warn
    from nbgrad.autograd import functional

    monkeypatch.setattr(warn, "_given", set())  # as in a fresh process
    x = ng.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ng.autograd.grad((x * x).sum(), x, create_graph=True)  # no .grad: no cycle, no warning
        (x * x).sum().backward(create_graph=True, inputs=[x])  # PyTorch does not warn here
        assert not caught
        (x * x).sum().backward(create_graph=True)
        (x * x).sum().backward(create_graph=True)  # once per process
    assert [str(w.message) for w in caught] == [_reference_cycle_warning_of_torch()]
    assert caught[0].filename == __file__  # it points at the user's backward call
    assert str(caught[0].message) == functional.REFERENCE_CYCLE_WARNING


def test_backward_with_create_graph_warns_every_time_under_set_warn_always(monkeypatch):
    """PyTorch's test_backward_create_graph_warns: with ``set_warn_always(True)`` each
    backward(create_graph=True) warns, ``autograd.grad`` never does."""
    import warnings

    from nbgrad import warn

    monkeypatch.setattr(warn, "_given", set())
    previous = ng.is_warn_always_enabled()
    ng.set_warn_always(True)
    try:
        b = ng.randn(3, requires_grad=True, dtype=ng.double)
        c = b * b
        for _ in range(2):
            with warnings.catch_warnings(record=True) as caught:
                c.backward(ng.ones_like(c), create_graph=True)
            b.grad = None
            assert any("Using backward() with create_graph=True" in str(w.message) for w in caught)
        with warnings.catch_warnings(record=True) as caught:
            ng.autograd.grad(c, b, ng.ones_like(c), create_graph=True)
        assert not any("Using backward() with create_graph=True" in str(w.message) for w in caught)
    finally:
        ng.set_warn_always(previous)


# -- 9. a loss saves its target and weights ----------------------------------------------------
def _loss_case(M, name, target_requires_grad=False):
    """``(loss_fn, input, target, weights)`` for one loss of nn.functional."""
    F = M.nn.functional
    rng = np.random.default_rng(9)
    x = M.tensor(rng.normal(size=(3, 4)).tolist(), dtype=M.float64, requires_grad=True)
    w = M.tensor(rng.uniform(0.5, 2, 4).tolist(), dtype=M.float64)
    probabilities = M.tensor(rng.uniform(0, 1, (3, 4)).tolist(), dtype=M.float64,
                             requires_grad=target_requires_grad)
    classes = M.tensor([0, 3, 1])
    cases = {
        "mse": (lambda r: F.mse_loss(x, probabilities, reduction=r), probabilities, None),
        "nll": (lambda r: F.nll_loss(x, classes, reduction=r), classes, None),
        "nll weight": (lambda r: F.nll_loss(x, classes, weight=w, reduction=r), classes, w),
        "cross_entropy": (lambda r: F.cross_entropy(x, classes, reduction=r), classes, None),
        "cross_entropy weight": (lambda r: F.cross_entropy(x, classes, weight=w, reduction=r),
                                 classes, w),
        "cross_entropy smoothing": (
            lambda r: F.cross_entropy(x, classes, label_smoothing=0.2, reduction=r), classes, None),
        "cross_entropy probabilities": (lambda r: F.cross_entropy(x, probabilities, reduction=r),
                                        probabilities, None),
        "bce_with_logits": (
            lambda r: F.binary_cross_entropy_with_logits(x, probabilities, reduction=r),
            probabilities, None),
        "bce_with_logits weight": (
            lambda r: F.binary_cross_entropy_with_logits(x, probabilities, weight=w, reduction=r),
            probabilities, w),
        "bce_with_logits pos_weight": (
            lambda r: F.binary_cross_entropy_with_logits(x, probabilities, pos_weight=w,
                                                         reduction=r),
            probabilities, w),
    }
    loss, target, weight = cases[name]
    return loss, x, target, weight


LOSSES = ["mse", "nll", "nll weight", "cross_entropy", "cross_entropy weight",
          "cross_entropy smoothing", "cross_entropy probabilities", "bce_with_logits",
          "bce_with_logits weight", "bce_with_logits pos_weight"]
REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("changed", ["nothing", "target", "weight"])
@pytest.mark.parametrize("name", LOSSES)
def test_changing_a_loss_target_or_weight_in_place_before_backward(name, changed, reduction):
    def program(M):
        loss, x, target, weight = _loss_case(M, name)
        out = loss(reduction).sum()
        changing = {"target": target, "weight": weight}.get(changed)
        if changing is not None:
            with M.no_grad():
                changing.add_(1)
        out.backward()
        return out, x.grad, out.grad_fn.name()

    if changed == "weight" and _loss_case(ng, name)[3] is None:
        pytest.skip("this loss has no weight")
    if changed == "nothing":
        check(program)
    else:
        check_error(program)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse", "bce_with_logits", "bce_with_logits weight",
                                  "bce_with_logits pos_weight"])
def test_loss_gradients_of_input_and_target_first_and_second_order(name, reduction):
    def program(M):
        loss, x, target, _ = _loss_case(M, name, target_requires_grad=True)
        out = loss(reduction)
        g = M.ones(out.shape, dtype=out.dtype) if out.dim() else None
        gx, gt = M.autograd.grad(out, [x, target], g, create_graph=True)
        second = M.autograd.grad((gx * gx).sum() + (gt * gx).sum(), [x, target])
        return out.grad_fn.name(), gx, gt, second

    check(program)


@pytest.mark.parametrize("name", ["bce_with_logits weight", "bce_with_logits pos_weight"])
def test_bce_weights_cannot_require_grad(name):
    def program(M):
        loss, x, target, weight = _loss_case(M, name)
        weight.requires_grad_()
        loss("mean")

    check_error(program)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse", "bce_with_logits", "bce_with_logits pos_weight"])
def test_loss_nodes_pass_gradcheck(name, reduction):
    """The loss nodes' formulas against finite differences, in input and target, and their
    second derivatives (gradgradcheck's idea: gradcheck of the first gradient)."""
    loss, x, target, _ = _loss_case(ng, name, target_requires_grad=True)
    # ``loss`` reads x and target, whose arrays gradcheck perturbs in place.
    first = lambda x, target: loss(reduction).sum()  # noqa: E731
    assert ng.autograd.gradcheck(first, (x, target))
    gradient = lambda x, target: ng.autograd.grad(first(x, target), [x, target],  # noqa: E731
                                                  create_graph=True)
    assert ng.autograd.gradcheck(gradient, (x, target))


# -- 8. gradcheck and the gradients given to backward ------------------------------------------
def _point(M):
    return M.tensor([0.3, -0.7, 1.1], dtype=M.float64, requires_grad=True)


def _function_with_backward(M, backward):
    class Doubling(M.autograd.Function):
        calls = [0]

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            Doubling.calls[0] += 1
            return backward(grad, Doubling.calls[0])

    return Doubling.apply


GRADCHECKS = {
    "a list of inputs": (lambda M: (lambda a, b: a * b), lambda M: [_point(M), _point(M) * 1], {}),
    "a wrong backward": (lambda M: _function_with_backward(M, lambda g, n: g * 3),
                         lambda M: (_point(M),), {}),
    "a wrong backward, not raised": (lambda M: _function_with_backward(M, lambda g, n: g * 3),
                                     lambda M: (_point(M),), {"raise_exception": False}),
    "a nondeterministic backward": (
        lambda M: _function_with_backward(M, lambda g, n: g * (2 + n * 1e-3)),
        lambda M: (_point(M),), {"atol": 0.1}),
    "within nondet_tol": (lambda M: _function_with_backward(M, lambda g, n: g * (2 + n * 1e-3)),
                          lambda M: (_point(M),), {"atol": 0.1, "nondet_tol": 1.0}),
    "not multiplied by grad_output": (
        lambda M: _function_with_backward(M, lambda g, n: g * 2 + 1e-3),
        lambda M: (_point(M),), {"atol": 0.1}),
    "an output that is a view of the input": (lambda M: (lambda a: a.view(3, 1)),
                                              lambda M: (_point(M),), {}),
    "the input itself": (lambda M: (lambda a: a.to(M.float64)), lambda M: (_point(M),), {}),
    "an output whose shape changes": (lambda M: (lambda a: a[a > 0.3]),
                                      lambda M: (M.tensor([0.3, -0.7, 1.1], dtype=M.float64,
                                                          requires_grad=True),), {}),
    "an output whose dtype changes": (
        lambda M: (lambda a: a * 2 if a[0] > 0.3 else (a * 2).float()),
        lambda M: (M.tensor([0.3, -0.7, 1.1], dtype=M.float64, requires_grad=True),), {}),
}


@pytest.mark.parametrize("case", GRADCHECKS)
def test_gradcheck_as_pytorch(case):
    function, inputs, options = GRADCHECKS[case]

    def program(M):
        return M.autograd.gradcheck(function(M), inputs(M), **options)

    if case in ("a list of inputs", "a wrong backward, not raised", "within nondet_tol",
                "an output that is a view of the input", "the input itself"):
        check(program)
    else:
        check_error(program)


@pytest.mark.parametrize("given", [0, 1, 2, 3])
@pytest.mark.parametrize("api", ["backward", "grad"])
def test_backward_with_more_or_fewer_gradients_than_tensors(api, given):
    def program(M):
        x = _point(M)
        outputs = [(x * 2).sum(), (x * x).sum()]
        grads = [M.tensor(float(k + 1), dtype=M.float64) for k in range(given)]
        if api == "grad":
            return M.autograd.grad(outputs, x, grads)
        M.autograd.backward(outputs, grads)
        return x.grad

    if given < 2:
        check_error(program)
    else:
        check(program)


# -- 7. reentrant backward, nested deeply ------------------------------------------------------
def _nested_reentrant(M, depth, inner_call, fail_at=None):
    """A Function whose backward recomputes its forward and differentiates it with a
    backward pass of its own (as checkpointing does), nested ``depth`` deep."""

    class Reentrant(M.autograd.Function):
        @staticmethod
        def forward(ctx, x, depth):
            ctx.depth = depth
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            if ctx.depth == fail_at:
                raise ValueError(f"failed at depth {ctx.depth}")
            with M.enable_grad():
                inner = x.detach().requires_grad_()
                y = Reentrant.apply(inner, ctx.depth - 1) if ctx.depth > 0 else inner * 3
            if inner_call == "grad":
                (g,) = M.autograd.grad(y, inner, grad)
            else:
                y.backward(grad)
                g = inner.grad
            return g * 1.001, None  # each level its own factor: 1.001 ** depth

    x = leaf(M, [1.0, 2.0], M.float64)
    Reentrant.apply(x, depth).sum().backward()
    return x.grad


@pytest.mark.parametrize("inner_call", ["grad", "backward"])
@pytest.mark.parametrize("depth", [1, 15, 16, 17, 2000])
def test_reentrant_backward_nested_deeply(depth, inner_call):
    check(lambda M: _nested_reentrant(M, depth, inner_call), rtol=1e-12, atol=0)


@pytest.mark.parametrize("fail_at", [0, 500, 1999])
def test_an_error_deep_inside_reentrant_backward_reaches_the_caller(fail_at):
    check_error(lambda M: _nested_reentrant(M, 2000, "grad", fail_at=fail_at))


# -- a leaf that an in-place op turned into an interior node after the graph was built ------
MOVES = {
    "mul_": lambda x, w: x.mul_(w),
    "add_": lambda x, w: x.add_(w),
    "copy_": lambda x, w: x.copy_(w),
    "setitem": lambda x, w: x.__setitem__(0, w[0]),
}


def _leaf_moved_into_the_interior(M, move, call, also_reach_w):
    x = leaf(M, [1.0, 2.0, 3.0])
    y = x * 2  # the graph holds x's AccumulateGrad
    x.requires_grad_(False)
    w = leaf(M, [4.0, 5.0, 6.0])
    MOVES[move](x, w)  # now x has a grad_fn: it is no longer a leaf
    loss = y.sum() + (x.sum() if also_reach_w else 0)
    if call == "backward":
        loss.backward()
        return x.grad, w.grad
    return M.autograd.grad(loss, [w], allow_unused=True)


@pytest.mark.parametrize("also_reach_w", [False, True])
@pytest.mark.parametrize("move", sorted(MOVES))
def test_backward_to_a_leaf_moved_into_the_graph_interior_raises(move, also_reach_w):
    check_error(lambda M: _leaf_moved_into_the_interior(M, move, "backward", also_reach_w),
                key="leaf variable has been moved into the graph interior")


@pytest.mark.parametrize("also_reach_w", [False, True])
@pytest.mark.parametrize("move", sorted(MOVES))
def test_grad_that_does_not_reach_the_moved_leaf_works(move, also_reach_w):
    check(lambda M: _leaf_moved_into_the_interior(M, move, "grad", also_reach_w))


# -- how IPython shows a node: PyTorch's are C types without a __repr__ of their own ---------
def test_ipython_shows_nodes_as_pytorch_does():
    pretty = pytest.importorskip("IPython.lib.pretty", reason="needs IPython").pretty

    def shown(M):
        y = leaf(M, [1.0, -1.0]).relu()
        text = pretty((y.grad_fn, y.grad_fn.next_functions))
        return re.sub(r"0x[0-9a-f]+", "0xADDRESS", text)

    assert shown(ng) == shown(torch) == (
        "(<ReluBackward0 at 0xADDRESS>, ((<AccumulateGrad at 0xADDRESS>, 0),))")
