"""nbgrad.nn.utils against PyTorch: gradient clipping and parameters <-> vector."""

import math

import numpy as np
import pytest
from parity import check, check_error

import nbgrad as ng


def _params(M, seed=0, scale=1.0, with_none=True):
    """Three parameters with gradients (and one without)."""
    rng = np.random.default_rng(seed)
    params = []
    for shape in [(3, 4), (4,), ()]:
        p = M.nn.Parameter(M.tensor(rng.normal(size=shape), dtype=M.float32))
        p.grad = M.tensor(rng.normal(size=shape) * scale, dtype=M.float32)
        params.append(p)
    if with_none:
        params.append(M.nn.Parameter(M.ones(2)))
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    def program(M):
        params = _params(M, scale=3.0)
        norm_type_ = float(norm_type) if norm_type == "inf" else norm_type
        total = M.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type_)
        return total, [p.grad for p in params], total.requires_grad
    check(program)


def test_clip_grad_norm_one_tensor_none_and_generator():
    def program(M):
        params = _params(M)
        single = M.nn.utils.clip_grad_norm_(params[0], 0.1)
        empty = M.nn.utils.clip_grad_norm_([M.nn.Parameter(M.ones(2))], 1.0)
        generated = M.nn.utils.clip_grad_norm_((p for p in params), 0.05)
        return single, empty, generated, [p.grad for p in params]
    check(program)


def test_clip_grad_norm_nonfinite():
    def nonfinite(M, error):
        params = _params(M, with_none=False)
        params[1].grad[0] = float("inf")
        return M.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=error), params[0].grad
    check(lambda M: nonfinite(M, False))
    check_error(lambda M: nonfinite(M, True))


def test_total_norm_and_clip_with_norm():
    def program(M):
        params = _params(M)
        total = M.nn.utils.get_total_norm([p.grad for p in params[:3]], 3.0)
        M.nn.utils.clip_grads_with_norm_(params, 0.3, total)
        return total, [p.grad for p in params]
    check(program)


@pytest.mark.parametrize("clip_value", [0.1, 1, 10.0])
def test_clip_grad_value(clip_value):
    def program(M):
        params = _params(M, seed=1)
        result = M.nn.utils.clip_grad_value_(params, clip_value)
        return result, [p.grad for p in params]
    check(program)


def test_parameters_to_vector_and_back():
    def program(M):
        model = M.nn.Sequential(M.nn.Linear(3, 2), M.nn.Linear(2, 1))
        with M.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(M.arange(p.numel(), dtype=M.float32).reshape(p.shape) * (i + 1))
        vec = M.nn.utils.parameters_to_vector(model.parameters())
        (vec ** 2).sum().backward()
        grads = [p.grad for p in model.parameters()]
        M.nn.utils.vector_to_parameters(-vec.detach(), model.parameters())
        return vec, type(vec.grad_fn).__name__, grads, [p.detach() for p in model.parameters()]
    check(program)
    check_error(lambda M: M.nn.utils.vector_to_parameters([1.0], [M.ones(1)]))


def test_the_clipped_gradients_are_not_recorded():
    p = ng.nn.Parameter(ng.ones(3))
    p.grad = ng.ones(3, requires_grad=True) * 5
    total = ng.nn.utils.clip_grad_norm_([p], 1.0)
    assert not total.requires_grad
    np.testing.assert_allclose(p.grad.detach().numpy(), np.full(3, 1 / math.sqrt(3)), rtol=1e-5)
