"""Backward formulas that pass the gradient through a mask *select* it, as PyTorch's do.

``relu`` and ``clamp`` let the incoming gradient through where the input is inside, and
give 0 elsewhere: ``where(inside, grad, 0)``, not ``grad * inside``. The two differ where it
matters: an ``inf`` or ``nan`` gradient arriving where the mask is off (``inf * 0`` is
``nan``; ``clamp(min=0).sqrt()`` at a negative input sends ``inf`` back), and NaN inputs,
which fail every comparison. Random inputs and gradients drawn from those special values run
on both libraries.
"""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: the parity tests need `pip install torch==2.13.0`"
)

import nbgrad as ng  # noqa: E402

VALUES = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0]
GRADS = [np.inf, -np.inf, np.nan, 1.0, -2.0, 0.0]

PROGRAMS = {
    "relu": lambda M, x: x.relu(),
    "relu_inplace": lambda M, x: (x * 1).relu_(),
    "clamp_min": lambda M, x: x.clamp(min=0.0),
    "clamp_max": lambda M, x: x.clamp(max=0.5),
    "clamp_both": lambda M, x: x.clamp(-0.5, 1.0),
    "clamp_equal_bounds": lambda M, x: x.clamp(0.5, 0.5),
    "clamp_tensor_bounds": lambda M, x: M.clamp(x, M.full((4,), -0.5), M.full((4,), 1.0)),
    "clamp_tensor_min": lambda M, x: M.clamp(x, min=M.zeros(4)),
}


def run(M, program, x_values, grad_values):
    x = M.tensor(x_values, requires_grad=True)
    out = PROGRAMS[program](M, x)
    out.backward(M.tensor(grad_values))
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_masked_gradients_are_selected_as_in_pytorch(program, seed):
    rng = np.random.default_rng(seed)
    x_values = rng.choice(VALUES, size=4)
    grad_values = rng.choice(GRADS, size=4)
    expected, expected_grad = run(torch, program, x_values, grad_values)
    value, grad = run(ng, program, x_values, grad_values)
    where = f"x {x_values.tolist()}, incoming gradient {grad_values.tolist()}"
    np.testing.assert_array_equal(value, expected, err_msg=where)
    np.testing.assert_array_equal(grad, expected_grad, err_msg=where)


@pytest.mark.parametrize("M", [torch, ng], ids=["torch", "nbgrad"])
def test_the_issue_reproducers(M):
    x = M.tensor([-1.0, 2.0], requires_grad=True)
    x.clamp(min=0).sqrt().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.5 / np.sqrt(2)], rtol=1e-6)
    y = M.tensor([-1.0, 2.0], requires_grad=True)
    y.relu().sqrt().sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [0.0, 0.5 / np.sqrt(2)], rtol=1e-6)
    z = M.tensor([float("nan"), 2.0], requires_grad=True)
    z.relu().sum().backward()
    assert z.grad.numpy().tolist() == [1.0, 1.0]


def test_relu_double_backward_still_selects():
    x = ng.tensor([-1.0, 0.0, 2.0], dtype=ng.float64, requires_grad=True)
    (g,) = ng.autograd.grad(x.relu().sum(), x, create_graph=True)
    assert g.tolist() == [0.0, 0.0, 1.0] and g.grad_fn is not None
    (gg,) = ng.autograd.grad((g * x).sum(), x)
    assert gg.tolist() == [0.0, 0.0, 1.0]
