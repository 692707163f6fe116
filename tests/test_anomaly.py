"""Parity of anomaly detection with PyTorch: the switch, the forward traceback of the node
whose backward fails, check_nan, and the in-place error's anomaly hint."""

import warnings

import pytest

from parity import check, check_error, check_warning, grad_of, leaf, torch

import nbgrad as ng

ERROR_DETECTED = "Traceback of forward call that caused the error:"


@pytest.fixture(autouse=True)
def anomaly_off_after():
    yield
    torch.autograd.set_detect_anomaly(False)
    ng.autograd.set_detect_anomaly(False)


def quietly(M, check_nan=True):
    """detect_anomaly without its "has been enabled" warning (tested on its own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return M.autograd.detect_anomaly(check_nan=check_nan)


def test_the_switch():
    def program(M):
        states = [(M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled())]
        with quietly(M):
            states.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
            with quietly(M, check_nan=False):
                states.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
            states.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        states.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        M.autograd.set_detect_anomaly(True, check_nan=False)
        states.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        with M.autograd.set_detect_anomaly(False):
            states.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        states.append((M.is_anomaly_enabled(), M.is_anomaly_check_nan_enabled()))
        M.autograd.set_detect_anomaly(False)
        return states
    check(program)


def test_detect_anomaly_warns_that_it_is_on():
    check_warning(lambda M: M.autograd.detect_anomaly(), UserWarning)


def test_nodes_keep_their_forward_stack_only_while_on():
    def program(M):
        x = leaf(M, [1.0])
        before = "traceback_" in (x * 2).grad_fn.metadata
        with quietly(M):
            y = x * 2  # the line the stack ends with
        stack = y.grad_fn.metadata["traceback_"]
        return before, type(stack).__name__, stack[-1].strip().splitlines()[-1]
    check(program)


def _inplace_after_exp(M):
    x = leaf(M, [1.0, 2.0])
    with quietly(M):
        a = x.exp()
        a.add_(1)
        a.sum().backward()


def test_failing_node_warns_with_its_forward_stack():
    _, n = check_warning(lambda M: _failing(M, _inplace_after_exp), UserWarning,
                         key=f"Error detected in ExpBackward0. {ERROR_DETECTED}")
    assert "a = x.exp()" in n, "the stack must end at the user's line"
    assert "nbgrad/ops" not in n, "nbgrad's own op frames are left out of the stack"


def _failing(M, program):
    """The forward stack in the warning, the error swallowed (check_warning wants a result)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError):
            program(M)
    for w in caught:
        if "Error detected" in str(w.message):
            warnings.warn(w.message, w.category, stacklevel=2)
            return str(w.message)
    return None


ANOMALY_HINT = ("expected version 0 instead. Hint: the backtrace further above shows the "
                "operation that failed to compute its gradient. The variable in question was "
                "changed in there or anywhere later. Good luck!")


def test_inplace_error_carries_the_anomaly_hint():
    with pytest.warns(UserWarning, match="Error detected in ExpBackward0"):
        check_error(_inplace_after_exp, key=ANOMALY_HINT)


def test_inplace_error_without_anomaly_has_no_anomaly_hint():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        a = x.exp()
        a.add_(1)
        a.sum().backward()
    t_err, n_err = check_error(program)
    assert "Good luck" not in str(n_err)
    # PyTorch's hint to turn anomaly detection on, with the switch spelled for nbgrad
    first_line = str(n_err).splitlines()[0]
    assert first_line.replace("nbgrad", "torch") == str(t_err).splitlines()[0]
    assert first_line.endswith(" Hint: enable anomaly detection to find the operation that "
                               "failed to compute its gradient, with nbgrad.autograd."
                               "set_detect_anomaly(True, check_nan=False).")


NAN_CASES = {  # the node whose backward returns nan first, and which of its outputs
    "sqrt at 0, times 0": (lambda x: (x * 0).sqrt(), "MulBackward0", 0),
    "0 times sqrt at 0": (lambda x: (x - x).sqrt() * 0, "SqrtBackward0", 0),
    "0 / 0": (lambda x: (x - x) / (x - x), "DivBackward0", 1),  # -a/b**2: the divisor's
}


@pytest.mark.parametrize("case", NAN_CASES)
def test_check_nan_names_the_node_and_output(case):
    forward, node, position = NAN_CASES[case]

    def program(M):
        x = leaf(M, [1.0, 2.0])
        with quietly(M):
            forward(x).sum().backward()
    with pytest.warns(UserWarning, match=f"Error detected in {node}"):
        t_err, _ = check_error(program)
    assert f"Function '{node}' returned nan values in its {position}th output." in str(t_err)


def test_check_nan_off_lets_nan_through():
    def program(M):
        x = leaf(M, [1.0, 2.0])
        with quietly(M, check_nan=False):
            ((x - x).sqrt() * 0).sum().backward()
        return grad_of(x)
    check(program)


def test_no_nan_no_error_and_same_gradients():
    def program(M):
        x = leaf(M, [0.5, 2.0], M.float64)
        with quietly(M):
            y = (x.exp() * x).sin().sum()
            (g,) = M.autograd.grad(y, x, create_graph=True)
            g.sum().backward()
        return g, grad_of(x)
    check(program)


def test_custom_function_backward_error_is_reported():
    def program(M):
        class Bad(M.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                raise ValueError("broken backward")

        x = leaf(M, [1.0])
        with quietly(M):
            y = Bad.apply(x)
            y.sum().backward()

    def swallowed(M):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(ValueError, match="broken backward"):
                program(M)
        return [str(w.message).split(".")[0] for w in caught if "Error detected" in str(w.message)]
    check(swallowed)
