"""Parity of ``inference_mode`` with PyTorch: the mode, inference tensors, their errors
outside the mode, the decorator forms, and that it costs no more than ``no_grad``."""

import threading

import pytest

from parity import check, check_error, grad_of, leaf

import nbgrad as ng


def test_the_mode_and_grad_mode():
    def program(M):
        states = [(M.is_inference_mode_enabled(), M.is_grad_enabled())]
        with M.inference_mode():
            states.append((M.is_inference_mode_enabled(), M.is_grad_enabled()))
            with M.inference_mode(False):  # turns grad mode on, as PyTorch's does
                states.append((M.is_inference_mode_enabled(), M.is_grad_enabled()))
            with M.no_grad():
                states.append((M.is_inference_mode_enabled(), M.is_grad_enabled()))
            states.append((M.is_inference_mode_enabled(), M.is_grad_enabled()))
        with M.no_grad(), M.inference_mode(False):
            states.append((M.is_inference_mode_enabled(), M.is_grad_enabled()))
        states.append((M.is_inference_mode_enabled(), M.is_grad_enabled()))
        return states
    check(program)


def test_what_is_an_inference_tensor():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        normal = M.ones(3)
        with M.inference_mode():
            y = x * 2
            made = M.zeros(2)
            view_of_normal = normal[1:]
            view_of_inference = made[1:]
            detached = made.detach()
            with M.inference_mode(False):
                inside_false = M.zeros(1)
        outside = y * 2
        return [(t.is_inference(), t.requires_grad, t.grad_fn is None)
                for t in (x, y, made, view_of_normal, view_of_inference, detached,
                          inside_false, outside, y.clone())]
    check(program)


def test_a_view_of_an_inference_tensor_is_a_plain_inference_tensor():
    # as in PyTorch: no base, not a view to autograd, never requiring grad (even where
    # its base does), wherever it is made; its memory is still the base's
    def program(M):
        with M.inference_mode():
            x = M.ones(3)
            wants_grad = M.ones(3, requires_grad=True)
            inside = x[:2]
            of_wants_grad = wants_grad.view(3, 1)
            inside.mul_(2)  # through the view, into x
        outside = x.t()
        with M.no_grad():
            under_no_grad = x.reshape(3, 1)
        views = (inside, of_wants_grad, outside, under_no_grad)
        return ([(v.is_inference(), v._is_view(), v._base is None, v.requires_grad,
                  v.grad_fn is None) for v in views], x)
    check(program)
    check_error(lambda M: _inference_tensor(M)[:1].add_(1),
                key="Inplace update to inference tensor outside InferenceMode is not allowed.")


def test_values_match_and_no_graph():
    def program(M):
        w = leaf(M, [[0.5, -1.0], [2.0, 0.25]])
        with M.inference_mode():
            out = (M.ones(3, 2) @ w).tanh().sum(0)
        return out, out.is_inference()
    check(program)


def _inference_tensor(M):
    with M.inference_mode():
        return M.tensor([1.0, 2.0]) * 1


def test_saving_an_inference_tensor_for_backward_raises():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        return x * _inference_tensor(M)
    check_error(program, key="Inference tensors cannot be saved for backward. Please do not use "
                             "Tensors created in inference mode in computation tracked by autograd.")


def test_inference_tensor_not_saved_is_fine_and_clone_is_the_workaround():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        y = _inference_tensor(M)
        (x + y).sum().backward()
        first = grad_of(x)
        (x * y.clone()).sum().backward()
        return first, grad_of(x)
    check(program)


@pytest.mark.parametrize("how", ["add_", "copy_", "setitem", "zero_", "mul_"])
def test_inplace_update_outside_inference_mode_raises(how):
    def program(M):
        y = _inference_tensor(M)
        if how == "add_":
            y.add_(1)
        elif how == "copy_":
            y.copy_(M.zeros(2))
        elif how == "setitem":
            y[0] = 5.0
        elif how == "zero_":
            y.zero_()
        else:
            y *= 3
    check_error(program, key="Inplace update to inference tensor outside InferenceMode is not "
                             "allowed.")


def test_inplace_inside_inference_mode_is_allowed():
    def program(M):
        normal = M.ones(2)
        y = _inference_tensor(M)
        with M.inference_mode():
            y.add_(1)
            normal.add_(1)  # a normal tensor's version still counts
        return y, normal, normal._version
    check(program)


def test_requires_grad_and_version_of_an_inference_tensor():
    check_error(lambda M: _inference_tensor(M).requires_grad_(),
                key="Setting requires_grad=True on inference tensor outside InferenceMode is not "
                    "allowed.")
    t_err, n_err = check_error(lambda M: _inference_tensor(M)._version,
                               key="Inference tensors do not track version counter.")
    assert type(n_err) is type(t_err) is RuntimeError  # what a notebook shows as its name

    def allowed(M):
        y = _inference_tensor(M)
        y.requires_grad_(False)
        with M.inference_mode():
            z = M.ones(2).requires_grad_()
        return z.requires_grad, y.requires_grad
    check(allowed)


def test_decorator_forms():
    def program(M):
        @M.inference_mode()
        def with_parentheses(a):
            return a * 2, M.is_inference_mode_enabled()

        @M.inference_mode
        def bare(a):
            return (a * 2).is_inference()

        @M.inference_mode(False)
        def disabled(a):
            return (a * 2).requires_grad

        x = leaf(M, [1.0])
        y, on = with_parentheses(x)
        return y.requires_grad, y.is_inference(), on, bare(x), disabled(x), \
            M.is_inference_mode_enabled()
    check(program)


def test_generator_decorated_runs_its_steps_in_the_mode():
    def program(M):
        @M.inference_mode()
        def steps():
            for _ in range(2):
                yield M.is_inference_mode_enabled(), M.zeros(1).is_inference()

        seen = []
        for step in steps():
            seen.append((step, M.is_inference_mode_enabled()))
        return seen
    check(program)


def test_mode_restored_after_an_exception():
    def program(M):
        with pytest.raises(ValueError), M.inference_mode():
            raise ValueError
        return M.is_inference_mode_enabled(), M.is_grad_enabled(), M.zeros(1).is_inference()
    check(program)


def test_the_mode_is_per_thread():
    seen = {}

    def other():
        seen["other"] = ng.is_inference_mode_enabled()

    with ng.inference_mode():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert seen["other"] is False


def test_tensor_creation_is_unchanged_outside():
    """The default counter of ``_make`` comes back: tensors made after the block are normal,
    and saving them works."""
    with ng.inference_mode():
        pass
    x = leaf(ng, [1.0, 2.0])
    (x * ng.ones(2)).sum().backward()
    assert ng.Tensor._make.__func__.__defaults__ == (None,)
    assert x.grad.tolist() == [1.0, 1.0]


def test_optimizer_step_under_inference_mode_on_normal_parameters():
    def program(M):
        w = M.nn.Parameter(M.tensor([1.0, 2.0]))
        (w * w).sum().backward()
        opt = M.optim.SGD([w], lr=0.5)
        with M.inference_mode():
            opt.step()
        return w.detach(), w.is_inference()
    check(program)
