"""``gradcheck``: compare autograd's Jacobian with finite differences.

For every input element ``x_j`` the numerical Jacobian column is the central difference
``(f(x + eps e_j) - f(x - eps e_j)) / 2 eps``; for every output element ``y_i`` the
analytical row is what backward gives for the gradient ``e_i``. They must agree within
``atol + rtol * |numerical|``. Use float64 inputs: float32 rounding drowns small eps.
"""

import warnings

import numpy as np

from .. import backend
from ..tensor import Tensor
from .functional import grad


def _host_column(t):
    """A tensor's values as a float64 NumPy vector: the Jacobians are assembled on the
    host (a GPU tensor's values are copied there explicitly)."""
    return backend.to_device(t._data, "cpu").astype(np.float64).reshape(-1)


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when the two Jacobians disagree."""


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _differentiable_outputs(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor) and o._requires_grad]


def numerical_jacobian(func, inputs, eps):
    """One matrix per (output, input) pair: d output.flatten() / d input.flatten()."""
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
    jacobians = [[np.zeros((o._data.size, t._data.size)) for t in inputs if isinstance(t, Tensor)]
                 for o in outputs]
    column_owner = [t for t in inputs if isinstance(t, Tensor)]
    for k, t in enumerate(column_owner):
        if not t._requires_grad:
            continue
        data = t._data
        for j in range(data.size):
            index = np.unravel_index(j, data.shape)
            original = data[index].item()
            # The input's array is perturbed directly: no version bump, no graph change.
            data[index] = original + eps
            plus = [_host_column(o) for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
            data[index] = original - eps
            minus = [_host_column(o) for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
            data[index] = original
            for i, (p, m) in enumerate(zip(plus, minus)):
                jacobians[i][k][:, j] = (p - m) / (2 * eps)
    return jacobians


def analytical_jacobian(func, inputs):
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    differentiable = [t for t in tensors if t._requires_grad]
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
    jacobians = [[np.zeros((o._data.size, t._data.size)) for t in tensors] for o in outputs]
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            continue
        for row in range(out._data.size):
            seed = backend.array_module(out._data).zeros(out._data.size, dtype=out._data.dtype)
            seed[row] = 1
            grads = grad(out, differentiable, Tensor._make(seed.reshape(out._data.shape)),
                         retain_graph=True, allow_unused=True)
            for g, t in zip(grads, differentiable):
                if g is not None:
                    column = next(k for k, candidate in enumerate(tensors) if candidate is t)
                    jacobians[i][column][row, :] = _host_column(g)
    return jacobians


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **_):
    """True when autograd's gradients of ``func`` at ``inputs`` match finite differences."""
    inputs = _as_tuple(inputs)
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t._requires_grad and t._data.dtype != np.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    if not any(isinstance(t, Tensor) and t._requires_grad for t in inputs):
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True."
        )
    numerical = numerical_jacobian(func, inputs, eps)
    analytical = analytical_jacobian(func, inputs)
    for i, (num_row, ana_row) in enumerate(zip(numerical, analytical)):
        for j, (num, ana) in enumerate(zip(num_row, ana_row)):
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {i} with respect to input {j},\n"
                    f"numerical:{_matrix(num)}\nanalytical:{_matrix(ana)}\n"
                )
    return True


def _matrix(m):
    from ..creation import tensor

    return repr(tensor(m))
