"""Parity of autograd API additions with PyTorch: 2.0-style Functions (``setup_context``),
``once_differentiable``, ``InplaceFunction``, ``ctx.saved_variables``, ``gradgradcheck`` and
calling a ``grad_fn`` node directly."""

import warnings

import numpy as np
import pytest

from parity import check, check_error, grad_of, leaf, torch

import nbgrad as ng


# -- PyTorch 2.0-style Functions: forward without ctx, setup_context ------------------------
def _scale_function(M, with_default=False):
    class Scale(M.autograd.Function):
        @staticmethod
        def forward(x, k=3.0):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs  # the default is bound, as PyTorch binds it
            ctx.save_for_backward(x)
            ctx.k = k
            ctx.seen = (len(inputs), output.requires_grad, ctx.needs_input_grad)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * ctx.k + 0 * x, None

    return Scale


@pytest.mark.parametrize("explicit_k", [True, False])
def test_setup_context_style_function(explicit_k):
    def program(M):
        x = leaf(M, [1.0, -2.0, 0.5])
        Scale = _scale_function(M)
        y = Scale.apply(x, 2.0) if explicit_k else Scale.apply(x)
        seen = y.grad_fn.seen
        name = type(y.grad_fn).__name__
        y.sum().backward()
        return y, grad_of(x), name, seen[0], seen[1], tuple(seen[2])
    check(program)


def test_forward_without_ctx_and_no_setup_context_errors_as_torch():
    def program(M):
        class Broken(M.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad

        return Broken.apply(leaf(M, [1.0]))
    check_error(program, key="forward() takes 1 positional argument but 2 were given")


def test_setup_context_gradcheck():
    Scale = _scale_function(ng)
    x = ng.randn(4, dtype=ng.float64, requires_grad=True)
    assert ng.autograd.gradcheck(lambda a: Scale.apply(a, 1.5), (x,))


# -- ctx.saved_variables -------------------------------------------------------------------
def test_saved_variables_is_a_deprecated_alias():
    def program(M):
        class Square(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    (x,) = ctx.saved_variables
                ctx.caught = [(w.category.__name__, str(w.message)) for w in caught]
                return 2 * x * grad

        x = leaf(M, [1.0, 3.0])
        y = Square.apply(x)
        node = y.grad_fn
        y.sum().backward()
        return grad_of(x), node.caught
    check(program)


# -- once_differentiable -------------------------------------------------------------------
def _cube(M):
    class Cube(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @M.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            ctx.inside = (M.is_grad_enabled(), grad.requires_grad)
            return 3 * x ** 2 * grad

    return Cube


def test_once_differentiable_first_backward_and_no_grad_inside():
    def program(M):
        x = leaf(M, [1.0, -2.0], M.float64)
        y = _cube(M).apply(x)
        node = y.grad_fn
        y.sum().backward()
        return grad_of(x), node.inside
    check(program)


@pytest.mark.parametrize("seeded", [True, False])
def test_once_differentiable_double_backward_raises(seeded):
    """The result of a once-differentiable backward is joined to an Error node when a
    gradient it receives requires grad; differentiating it again raises."""
    def grads(M):
        x = leaf(M, [1.0, -2.0], M.float64)
        y = _cube(M).apply(x)
        if seeded:
            seed = M.ones(2, dtype=M.float64, requires_grad=True)
            (g,) = M.autograd.grad(y, x, seed, create_graph=True)
        else:
            (g,) = M.autograd.grad((y * x).sum(), x, create_graph=True)
        return g

    def program(M):
        g = grads(M)
        names = [type(fn).__name__ for fn, _ in g.grad_fn.next_functions if fn is not None]
        return g, type(g.grad_fn).__name__, names
    check(program)

    def second(M):
        g = grads(M)
        g.sum().backward()
    check_error(second, key="trying to differentiate twice a function that was marked with "
                             "@once_differentiable")


def test_once_differentiable_without_graph_needs_no_error_node():
    def program(M):
        x = leaf(M, [2.0], M.float64)
        (g,) = M.autograd.grad(_cube(M).apply(x), x, M.ones(1, dtype=M.float64),
                               create_graph=True)
        return g
    check(program)


# -- InplaceFunction -----------------------------------------------------------------------
def test_inplace_function_keeps_the_flag():
    def program(M):
        class AddOne(M.autograd.function.InplaceFunction):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            instance = AddOne(inplace=True)
        x = leaf(M, [1.0, 2.0]) * 1
        y = AddOne.apply(x)
        return instance.inplace, issubclass(AddOne, M.autograd.Function), y, x._version
    check(program)


# -- gradgradcheck --------------------------------------------------------------------------
SECOND_ORDER = {
    "pow3": lambda a: a ** 3,
    "sin*b": lambda a, b: (a * b).sin(),
    "tanh.sum": lambda a: a.tanh().sum(),
    "exp/b": lambda a, b: a.exp() / b,
    "matmul": lambda a, b: (a.reshape(2, 2) @ b.reshape(2, 2)).sigmoid(),
}


@pytest.mark.parametrize("name", SECOND_ORDER)
@pytest.mark.parametrize("non_contiguous", [False, True])
def test_gradgradcheck_passes_on_correct_second_derivatives(name, non_contiguous):
    func = SECOND_ORDER[name]
    rng = np.random.default_rng(len(name))
    n_args = func.__code__.co_argcount
    inputs = tuple(ng.tensor(rng.uniform(0.5, 1.5, 4), requires_grad=True) for _ in range(n_args))
    assert ng.autograd.gradgradcheck(func, inputs, gen_non_contig_grad_outputs=non_contiguous)
    assert torch.autograd.gradgradcheck(
        func, tuple(torch.tensor(t._data, requires_grad=True) for t in inputs))


def test_gradgradcheck_with_given_grad_outputs():
    x = ng.tensor([0.3, 0.7], dtype=ng.float64, requires_grad=True)
    seed = ng.tensor([1.0, -0.5], dtype=ng.float64, requires_grad=True)
    assert ng.autograd.gradgradcheck(lambda a: a.exp() * a, x, seed)
    assert ng.autograd.gradgradcheck(lambda a: a.exp() * a, x, (seed.detach(),))


def _wrong_second_derivative(M):
    class Square(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x.detach() * grad  # first derivative right, second wrong (x detached)

    return Square


def test_gradgradcheck_detects_a_wrong_second_derivative():
    def program(M):
        x = M.tensor([0.5, 1.5], dtype=M.float64, requires_grad=True)
        return M.autograd.gradgradcheck(_wrong_second_derivative(M).apply, (x,))
    check_error(program, key="Jacobian mismatch for output 0 with respect to input 0")

    x = ng.tensor([0.5, 1.5], dtype=ng.float64, requires_grad=True)
    assert ng.autograd.gradcheck(_wrong_second_derivative(ng).apply, (x,))
    assert ng.autograd.gradgradcheck(_wrong_second_derivative(ng).apply, (x,),
                                     raise_exception=False) is False


# -- calling a grad_fn directly -------------------------------------------------------------
def test_calling_grad_fn_returns_input_gradients():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        w = leaf(M, [3.0, 4.0])
        product = (x * w).grad_fn(M.ones(2))            # two inputs: a tuple
        single = x.exp().grad_fn(M.ones(2))             # one input: a tensor
        reduced = (x * 2).sum().grad_fn(M.tensor(1.0))  # SumBackward0 -> one tensor
        with_number = (x * 2.0).grad_fn(M.ones(2))      # a number takes no gradient
        undefined = (x * w).grad_fn(None)               # no gradient in, None out
        node = (x * w).grad_fn
        with M.no_grad():
            unrecorded = node(M.ones(2))                # records nothing under no_grad
        return product, single, reduced, with_number, undefined, unrecorded
    check(program)


def test_calling_multi_output_node_and_accumulate_grad():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        a, _ = x.unbind()
        from_unbind = a.grad_fn(M.tensor(1.0), None)
        accumulate = (x * 1).grad_fn.next_functions[0][0]
        returned = accumulate(M.ones(2))
        return from_unbind, returned, grad_of(x)
    check(program)


@pytest.mark.parametrize("n_args", [0, 2])
def test_calling_grad_fn_with_the_wrong_number_of_gradients(n_args):
    def program(M):
        x = leaf(M, [1.0, 2.0])
        return x.exp().grad_fn(*[M.ones(2)] * n_args)
    check_error(program)


def test_calling_grad_fn_after_backward_raises_the_second_backward_error():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        y = x * x
        y.sum().backward()
        return y.grad_fn(M.ones(2))
    check_error(program)


# -- grad_fn._saved_* / _raw_saved_* -------------------------------------------------------
SAVING_OPS = {
    "mul": lambda M, x, w: x * w,
    "mul by a constant": lambda M, x, w: x * w.detach(),
    "div": lambda M, x, w: x / w,
    "mm": lambda M, x, w: x.mm(w),
    "matmul": lambda M, x, w: x @ w,
    "maximum": lambda M, x, w: M.maximum(x, w),
    "pow tensor": lambda M, x, w: x ** w,
    "pow number": lambda M, x, w: x ** 2,
    "exp": lambda M, x, w: x.exp(),
    "log": lambda M, x, w: x.log(),
    "sin": lambda M, x, w: x.sin(),
    "sqrt": lambda M, x, w: x.sqrt(),
    "tanh": lambda M, x, w: x.tanh(),
    "sigmoid": lambda M, x, w: x.sigmoid(),
    "relu": lambda M, x, w: x.relu(),
}


def _operands(M):
    x = M.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=M.float64, requires_grad=True)
    w = M.tensor([[1.0, 0.5], [2.0, 1.0]], dtype=M.float64, requires_grad=True)
    return x, w


def _tensor_names(node):
    return sorted(a for a in dir(node) if a.startswith("_saved_")
                  and not a.endswith(("_sym_sizes", "_sym_strides", "_sym_numel"))
                  and not isinstance(getattr(node, a), (int, float, bool, type(None))))


@pytest.mark.parametrize("name", SAVING_OPS)
def test_saved_tensors_by_torch_name(name):
    def program(M):
        x, w = _operands(M)
        node = SAVING_OPS[name](M, x, w).grad_fn
        names = _tensor_names(node)
        values = [getattr(node, a) for a in names]
        identity = [getattr(node, a) is x or getattr(node, a) is w for a in names]
        raw = [type(getattr(node, "_raw" + a)).__name__ != "NoneType" for a in names]
        return type(node).__name__, names, values, identity, raw
    check(program)


def test_saved_result_is_a_new_tensor_with_the_values():
    def program(M):
        x, _ = _operands(M)
        y = x.exp()
        result = y.grad_fn._saved_result
        return result is y, result, result.grad_fn is y.grad_fn
    check(program)


@pytest.mark.parametrize("attribute", ["_saved_self", "_saved_other", "_saved_result"])
def test_saved_tensors_after_backward_raise(attribute):
    def program(M):
        x, w = _operands(M)
        y = (x * w) if attribute != "_saved_result" else x.exp()
        y.sum().backward()
        return getattr(y.grad_fn, attribute)
    check_error(program)


def test_unknown_saved_name_is_an_attribute_error():
    def program(M):
        x, w = _operands(M)
        return (x * w).grad_fn._saved_nope
    check_error(program, key="'MulBackward0' object has no attribute '_saved_nope'")


def test_saved_after_retain_graph_backward_still_readable():
    def program(M):
        x, w = _operands(M)
        y = x * w
        y.sum().backward(retain_graph=True)
        return y.grad_fn._saved_other, grad_of(x)
    check(program)


def test_raw_saved_register_hooks_changes_what_backward_sees():
    def program(M):
        x, w = _operands(M)
        y = x * w
        calls = []
        y.grad_fn._raw_saved_self.register_hooks(lambda t: (calls.append("pack"), t * 10)[1],
                                                 lambda p: (calls.append("unpack"), p)[1])
        y.sum().backward()
        return grad_of(w), grad_of(x), calls
    check(program)


def test_raw_saved_register_hooks_twice_raises():
    def program(M):
        x, w = _operands(M)
        raw = (x * w).grad_fn._raw_saved_self
        raw.register_hooks(lambda t: t, lambda p: p)
        raw.register_hooks(lambda t: t, lambda p: p)
    check_error(program)


# -- saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks ------------------------------
def test_saved_tensors_hooks_pack_every_saved_tensor():
    def program(M):
        x, w = _operands(M)
        packed = []

        def pack(t):
            packed.append(tuple(t.shape))
            return t * 1

        with M.autograd.graph.saved_tensors_hooks(pack, lambda p: p * 2):
            y = (x * w).exp().sum()  # x, w and the result of exp
        outside = (x * w).sum()
        y.backward()
        outside.backward()
        return len(packed), grad_of(x), grad_of(w)
    check(program)


def test_saved_tensors_hooks_innermost_pair_applies_and_restores():
    def program(M):
        x, w = _operands(M)
        seen = []
        with M.autograd.graph.saved_tensors_hooks(lambda t: (seen.append("outer"), t)[1],
                                                  lambda p: p):
            with M.autograd.graph.saved_tensors_hooks(lambda t: (seen.append("inner"), t)[1],
                                                      lambda p: p):
                a = x * w
            b = x.sin()
        c = x.cos()
        (a.sum() + b.sum() + c.sum()).backward()
        return seen, grad_of(x)
    check(program)


def test_saved_tensors_hooks_apply_to_custom_functions():
    def program(M):
        class Square(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return 2 * x * grad

        x, _ = _operands(M)
        with M.autograd.graph.saved_tensors_hooks(lambda t: t * 3, lambda p: p):
            y = Square.apply(x)
        y.sum().backward()
        return grad_of(x)
    check(program)


def test_saved_tensors_hooks_have_no_version_check():
    """The hooks own the saved value: changing the tensor in place afterwards is not an
    error (PyTorch's behaviour), and backward uses what unpack returns."""
    def program(M):
        x, w = _operands(M)
        a = x * 1
        with M.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda p: p):
            y = a * w
        a.add_(1)
        y.sum().backward()
        return grad_of(w)
    check(program)


def test_saved_number_is_the_number():
    """A number operand saved (``x * 2.0``): PyTorch gives it as a 0-d float64 tensor,
    nbgrad as the number itself."""
    x, _ = _operands(ng)
    assert (x * 2.0).grad_fn._saved_other == 2.0
    assert (x * 2.0).grad_fn._saved_self is None
    tx = torch.ones(2, requires_grad=True)
    assert (tx * 2.0).grad_fn._saved_other.item() == 2.0


def test_unpack_hook_must_return_a_tensor():
    def program(M):
        x, w = _operands(M)
        with M.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 1):
            y = x * w
        y.sum().backward()
    check_error(program)


def test_save_on_cpu_gives_the_same_gradients():
    def program(M):
        x, w = _operands(M)
        with M.autograd.graph.save_on_cpu():
            y = (x * w).sin().exp().sum()
        y.backward()
        (g,) = M.autograd.grad((x ** 3).sum(), x)
        return grad_of(x), grad_of(w), g
    check(program)


def test_disable_saved_tensors_hooks():
    def program(M):
        with M.autograd.graph.disable_saved_tensors_hooks("no hooks in here"), \
                M.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
            pass
    check_error(program, key="no hooks in here")

    def after(M):
        with M.autograd.graph.disable_saved_tensors_hooks("no hooks in here"):
            pass
        with M.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
            x, w = _operands(M)
            y = x * w
        y.sum().backward()
        return grad_of(x)
    check(after)


def test_double_backward_through_hooked_saved_tensors():
    def program(M):
        x, w = _operands(M)
        with M.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
            y = (x.exp() * w).sum()
            (g,) = M.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return g, grad_of(x), grad_of(w)
    check(program)
