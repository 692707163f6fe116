"""``gradcheck``: compare autograd's Jacobian with finite differences.

For every input element ``x_j`` the numerical Jacobian column is the central difference
``(f(x + eps e_j) - f(x - eps e_j)) / 2 eps``; for every output element ``y_i`` the
analytical row is what backward gives for the gradient ``e_i``. They must agree within
``atol + rtol * |numerical|``. Use float64 inputs: float32 rounding drowns small eps.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

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


NOT_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output "
    "multiple times gives different values, although analytical gradient matches numerical "
    "gradient.The tolerance for nondeterminism was {nondet_tol}.\n"
    "nbgrad hint: backward must be a function of its inputs and grad_output only; with "
    "non-deterministic operations, pass nondet_tol=<tol>."
)


def _as_tuple(value: Any) -> tuple[Any, ...]:
    """The inputs or outputs as a tuple: one tensor, or a tuple or list of them."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, list):
        return tuple(value)
    return (value,)


def _tensors(values):
    return [v for v in _as_tuple(values) if isinstance(v, Tensor)]


def _check_same_shape_and_dtype(minus, plus, index, eps):
    """``func``'s outputs at ``x - eps`` and ``x + eps`` must be comparable, as in PyTorch."""
    for a, b in zip(minus, plus):
        where = f"when inputs are perturbed on index {index} by {eps}, but got:"
        if a.shape != b.shape:
            raise AssertionError(f"Expected `func` to return outputs with the same shape {where} "
                                 f"shapes {a.shape} and {b.shape}.")
        if a.dtype != b.dtype:
            raise AssertionError(f"Expected `func` to return outputs with the same dtype {where} "
                                 f"dtypes {a.dtype} and {b.dtype}.")


def numerical_jacobian(func, inputs, eps):
    """One matrix per (output, input) pair: d output.flatten() / d input.flatten()."""
    outputs = _tensors(func(*inputs))
    column_owner = [t for t in inputs if isinstance(t, Tensor)]
    jacobians = [[np.zeros((o._data.size, t._data.size)) for t in column_owner] for o in outputs]
    for k, t in enumerate(column_owner):
        if not t._requires_grad:
            continue
        data = t._data
        for j in range(data.size):
            index = tuple(int(i) for i in np.unravel_index(j, data.shape))
            original = data[index].item()
            # The input's array is perturbed directly: no version bump, no graph change.
            # The values are copied out at once: an output may be a view of the input.
            data[index] = original - eps
            minus = _tensors(func(*inputs))
            minus_values = [_host_column(o) for o in minus]
            data[index] = original + eps
            plus = _tensors(func(*inputs))
            plus_values = [_host_column(o) for o in plus]
            data[index] = original
            _check_same_shape_and_dtype(minus, plus, index, eps)
            for i, (p, m) in enumerate(zip(plus_values, minus_values)):
                jacobians[i][k][:, j] = (p - m) / (2 * eps)
    return jacobians


def analytical_jacobian(output, inputs):
    """The matrices d output.flatten() / d input.flatten(), one per tensor among ``inputs``,
    row by row: backward of ``output`` with the gradient ``e_row``."""
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    differentiable = [t for t in tensors if t._requires_grad]
    jacobians = [np.zeros((output._data.size, t._data.size)) for t in tensors]
    if not output._requires_grad:
        return jacobians
    for row in range(output._data.size):
        seed = backend.array_module(output._data).zeros(output._data.size, dtype=output._data.dtype)
        seed[row] = 1
        grads = grad(output, differentiable, Tensor._make(seed.reshape(output._data.shape)),
                     retain_graph=True, allow_unused=True)
        for g, t in zip(grads, differentiable):
            if g is not None:
                column = next(k for k, candidate in enumerate(tensors) if candidate is t)
                jacobians[column][row, :] = _host_column(g)
    return jacobians


def _backward_multiplies_grad_output(outputs, inputs):
    """A zero gradient of the outputs must give zero gradients of the inputs (PyTorch's
    _test_backward_mul_by_grad_output)."""
    differentiable = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]
    zeros = [Tensor._make(backend.array_module(o._data).zeros_like(o._data)) for o in outputs]
    grads = grad(outputs, differentiable, zeros, allow_unused=True)
    for g in grads:
        if g is not None and _host_column(g).any():
            raise GradcheckError("backward not multiplied by grad_output")


def gradcheck(func: Callable[..., Tensor | Sequence[Tensor]],
              inputs: Tensor | tuple[Any, ...] | list[Any], *, eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True,
              nondet_tol: float = 0.0, **_: Any) -> bool:
    """True when autograd's gradients of ``func`` at ``inputs`` match finite differences.

    Parameters
    ----------
    func : callable
        Takes the values of ``inputs`` and returns a tensor or a tuple of tensors.
    inputs : Tensor or tuple or list
        The point of the check; the tensors among them that require grad are perturbed
        (use float64: another dtype warns).
    eps, atol, rtol : float
        The finite-difference step, and the tolerances of the comparison.
    raise_exception : bool
        Raise a ``GradcheckError`` that says what differs (default), or return ``False``.
    nondet_tol : float
        How much two backward passes with the same input and gradient may differ.
    **_
        PyTorch's other options (``check_undefined_grad``, ``fast_mode``, ...): accepted
        and ignored.

    Returns
    -------
    bool
        True if the check passes; False only with ``raise_exception=False``.

    Raises
    ------
    GradcheckError
        When the Jacobians differ, backward is not reentrant, or backward is not
        multiplied by the outputs' gradient (with ``raise_exception=True``).
    ValueError
        When no input requires grad.
    AssertionError
        When the outputs change shape or dtype under the perturbation.

    Notes
    -----
    The other checks are PyTorch's: the outputs keep their shape and dtype under the
    perturbation, backward gives the same result twice (within ``nondet_tol``), and a zero
    gradient of the outputs gives zero gradients of the inputs.
    """
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
    try:
        _check_jacobians(func, inputs, eps, atol, rtol, nondet_tol)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _check_jacobians(func, inputs, eps, atol, rtol, nondet_tol):
    numerical = numerical_jacobian(func, inputs, eps)
    outputs = _tensors(func(*inputs))
    for i, output in enumerate(outputs):
        analytical = analytical_jacobian(output, inputs)
        again = analytical_jacobian(output, inputs)
        if any(a.size and np.abs(a - b).max() > nondet_tol for a, b in zip(analytical, again)):
            raise GradcheckError(NOT_REENTRANT.format(nondet_tol=nondet_tol))
        for j, (num, ana) in enumerate(zip(numerical[i], analytical)):
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {i} with respect to input {j},\n"
                    f"numerical:{_matrix(num)}\nanalytical:{_matrix(ana)}\n"
                )
    differentiable_outputs = [o for o in outputs if o._requires_grad]
    if differentiable_outputs:
        _backward_multiplies_grad_output(differentiable_outputs, inputs)


def _matrix(m):
    from ..creation import tensor

    return repr(tensor(m))


def gradgradcheck(func: Callable[..., Tensor | Sequence[Tensor]],
                  inputs: Tensor | tuple[Any, ...] | list[Any],
                  grad_outputs: Tensor | tuple[Tensor, ...] | list[Tensor] | None = None, *,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, **_: Any) -> bool:
    """True when the second derivatives of ``func`` at ``inputs`` match finite differences.

    ``gradcheck`` applied to the function ``(inputs, grad_outputs) -> grad(func(inputs),
    inputs, grad_outputs, create_graph=True)``, as PyTorch builds it: it checks backward's
    own backward, with respect to the inputs and to ``grad_outputs``.

    Parameters
    ----------
    func : callable
        Takes the values of ``inputs`` and returns a tensor or a tuple of tensors.
    inputs : Tensor or tuple or list
        The point of the check (use float64).
    grad_outputs : Tensor or tuple or list of Tensor, optional
        The gradients of ``func``'s outputs; by default random ones, uniform on [-1, 1),
        that require grad (drawn from the generator that ``manual_seed`` seeds).
    eps, atol, rtol, raise_exception, nondet_tol
        As for ``gradcheck``.
    gen_non_contig_grad_outputs : bool
        Make the random ``grad_outputs`` non-contiguous.
    **_
        PyTorch's other options: accepted and ignored.

    Returns
    -------
    bool
        True if the check passes (else ``GradcheckError``, or False with
        ``raise_exception=False``).
    """
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = [o for o in _tensors(func(*inputs)) if o._requires_grad]
        grad_outputs = tuple(_random_grad_output(o, gen_non_contig_grad_outputs) for o in outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_outputs = len(grad_outputs)
    differentiable = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]

    def first_derivatives(*args):
        split = len(args) - n_outputs
        point, seeds = args[:split], args[split:]
        outputs = [o for o in _tensors(func(*point)) if o._requires_grad]
        grads = grad(outputs, [point[i] for i in differentiable], list(seeds),
                     create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol)


def _random_grad_output(output, non_contiguous):
    """A gradient for ``output``, uniform on [-1, 1), that requires grad (PyTorch's
    ``make_tensor(low=-1, high=1)``); non-contiguous: every other element of a wider array."""
    from ..creation import tensor
    from ..dtypes import float64
    from ..random.generator import numpy_generator  # sampling records nodes: it is above us

    dtype = output.dtype if output.is_floating_point() else float64
    shape = (*output.shape, 2 if non_contiguous else 1)
    draws = numpy_generator(None).random(shape) * 2 - 1  # what rand(*shape) draws
    values = tensor(draws, dtype=dtype, device=output.device)
    return values[..., 0].detach().requires_grad_()
