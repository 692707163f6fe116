"""Programs checked against finite differences (float64), and gradcheck itself.

``nbgrad.autograd.gradcheck`` compares the Jacobian that backward produces with central
differences. Each operation alone is a row of the op table (opinfo.py): test_ops.py
gradchecks it, at first and second order, and compares it with PyTorch at its kinks.
Here: in-place changes through views, compositions, and second-order gradients
(Hessian-vector products through ``create_graph=True``) of composite programs.
"""

import numpy as np
import pytest

import nbgrad as ng
from nbgrad.autograd import gradcheck

F64 = ng.float64


def _rng(seed):
    return np.random.default_rng(seed)


def randn(*shape, seed=0):
    return ng.tensor(_rng(seed).standard_normal(shape), dtype=F64, requires_grad=True)


def positive(*shape, seed=0, low=0.5, high=2.0):
    return ng.tensor(_rng(seed).uniform(low, high, shape), dtype=F64, requires_grad=True)


def const(array, dtype=F64):
    return ng.tensor(np.asarray(array), dtype=dtype)


# Programs, not single operations: in-place changes through views and compositions. Each
# operation alone is a row of the op table (opinfo.py), gradchecked by test_ops.py.
# Each case: id -> (function, inputs). Inputs are built lazily (fresh leaves every run).
CASES = {
    # -- in-place operations through views ----------------------------------------------
    "inplace_mul_slice": (lambda x: _inplace_slice_mul(x), lambda: (randn(4, 3),)),
    "inplace_add_tensor_view": (lambda x, w: _inplace_add_view(x, w), lambda: (randn(4, 3), randn(3, seed=1))),
    "inplace_on_nonleaf": (lambda x, w: (x * 2).add_(w).mul_(w), lambda: (randn(3, 4), randn(4, seed=1))),
    "inplace_exp_view_of_view": (lambda x: _inplace_view_of_view(x), lambda: (randn(4, 3),)),
    "inplace_transpose_view": (lambda x, w: _inplace_transposed(x, w), lambda: (randn(3, 4), randn(3, seed=1))),
    "inplace_base_then_view": (lambda x: _inplace_base_then_view(x), lambda: (randn(3, 4),)),
    "copy_view": (lambda x, v: _copy_into_view(x, v), lambda: (randn(3, 4), randn(4, seed=1))),
    "fill_zero_view": (lambda x: _fill_view(x), lambda: (randn(3, 4),)),
    "iadd_operator": (lambda x, w: _iadd(x, w), lambda: (randn(3, 4), randn(4, seed=1))),
    # -- compositions with broadcasting --------------------------------------------------
    "composite_mlp": (lambda x, w, b: (x.mm(w) + b).tanh().mm(w.t()).sum(1),
                      lambda: (randn(3, 4), randn(4, 4, seed=1), randn(4, seed=2))),
    "composite_fanout": (lambda x, y: (x * y + x.exp() * y.sin() - x / (y * y + 1)).mean(0),
                         lambda: (randn(3, 4), randn(4, seed=1))),
    "composite_softmax_ce": (lambda x: -(x.log_softmax(1)[[0, 1, 2], [3, 0, 1]]).mean(),
                             lambda: (randn(3, 4),)),
    "composite_norm_layer": (lambda x: (x - x.mean(-1, keepdim=True)) / (x.var(-1, keepdim=True, correction=0) + 1e-5).sqrt(),
                             lambda: (randn(3, 4),)),
}


def _inplace_slice_mul(x):
    y = x * 1
    y[1:].mul_(2)
    return y


def _inplace_add_view(x, w):
    y = x * 1
    y[2].add_(w)
    y[:, 0].mul_(w[0])
    return y


def _inplace_view_of_view(x):
    y = x * 1
    y[1:][:, 1].exp_()
    return y.sin()


def _inplace_transposed(x, w):
    y = x.sin()
    y.t().mul_(w)
    return y


def _inplace_base_then_view(x):
    y = x * 1
    v = y[1]
    y.mul_(3)
    return v * v  # the view sees the base's change and its new gradient path


def _copy_into_view(x, v):
    y = x.sin()
    y[1].copy_(v * 2)
    return y


def _fill_view(x):
    y = x * x
    y[0].fill_(2.0)
    y[:, 2].zero_()
    return y


def _iadd(x, w):
    y = x * 2
    y += w
    y *= w
    return y


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck(name):
    fn, make_inputs = CASES[name]
    inputs = make_inputs()
    assert all(t.dtype is F64 for t in inputs)
    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_backward_shapes(name):
    """backward() through each op leaves .grad with the leaf's shape and dtype."""
    fn, make_inputs = CASES[name]
    inputs = make_inputs()
    out = fn(*inputs)
    out.sum().backward()
    for t in inputs:
        if t.requires_grad:
            assert t.grad is not None, f"{name}: no gradient reached an input"
            assert t.grad.shape == t.shape
            assert t.grad.dtype is t.dtype


# -- gradcheck itself ------------------------------------------------------------------------
class _WrongSquare(ng.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x  # should be 2 x


def test_gradcheck_fails_on_wrong_backward():
    x = randn(3)
    with pytest.raises(ng.autograd.GradcheckError, match="Jacobian mismatch"):
        gradcheck(_WrongSquare.apply, (x,))
    assert gradcheck(_WrongSquare.apply, (x,), raise_exception=False) is False


def test_gradcheck_needs_an_input_requiring_grad():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (const([1.0, 2.0]),))


def test_gradcheck_warns_for_float32():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        gradcheck(lambda a: a * 2, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)


# -- second order: Hessian-vector products through create_graph=True -------------------------
SECOND_ORDER = {
    "cube_sum": (lambda M, x, w: (x ** 3).sum()),
    "exp_sin": (lambda M, x, w: (x.exp() * x.sin()).sum()),
    "tanh_mm": (lambda M, x, w: (x.view(2, 3).mm(w.view(3, 2))).tanh().pow(2).sum()),
    "sigmoid_prod": (lambda M, x, w: (x.sigmoid() * w).sum() + (x * w).pow(2).sum()),
    "softmax_log": (lambda M, x, w: (M.softmax(x * w, dim=0) * w).sum()),
    "log_softmax": (lambda M, x, w: (M.log_softmax(x.view(2, 3), dim=1) * w.view(2, 3) ** 2).sum()),
    "logsumexp": (lambda M, x, w: (x * w).logsumexp(0)),
    "div_log_sqrt": (lambda M, x, w: ((x * x + 1).log() / (w * w + 1).sqrt()).sum()),
    "norm_var": (lambda M, x, w: x.norm() * w.var() + (x * w).std()),
    "index_cat": (lambda M, x, w: (M.cat([x[[0, 0, 2]], w[1:]]) ** 3).sum()),
    "matmul_batch": (lambda M, x, w: (x.view(1, 2, 3) @ w.view(3, 2) @ x.view(2, 3)).cos().sum()),
    "max_abs": (lambda M, x, w: (x * w).max() * (x - w).abs().sum()),
    "relu_where": (lambda M, x, w: (M.where(x > 0, x * x, w * x) + (x * w).relu() ** 2).sum()),
    "expand_reshape": (lambda M, x, w: ((x.view(2, 3).unsqueeze(0).expand(2, 2, 3) * w.view(2, 3)).reshape(-1) ** 2).sum()),
    "inplace_view": (lambda M, x, w: _second_order_inplace(x, w)),
}


def _second_order_inplace(x, w):
    y = x * w
    y[1:].mul_(x[:-1])
    return (y ** 2).sum()


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_hessian_vector_product_matches_torch(name):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the parity tests need `pip install torch==2.13.0`")
    fn = SECOND_ORDER[name]
    rng = _rng(7)
    xv = rng.uniform(0.3, 1.5, 6) * rng.choice([-1, 1], 6)
    wv = rng.uniform(0.3, 1.5, 6)
    vv = rng.standard_normal(6)
    results = []
    for M in (torch, ng):
        x = M.tensor(xv, dtype=M.float64, requires_grad=True)
        w = M.tensor(wv, dtype=M.float64, requires_grad=True)
        v = M.tensor(vv, dtype=M.float64)
        out = fn(M, x, w)
        gx, gw = M.autograd.grad(out, (x, w), create_graph=True, allow_unused=True)
        assert gx.requires_grad and gx.grad_fn is not None
        hx, hw = M.autograd.grad((gx * v).sum(), (x, w), allow_unused=True)
        results.append([g.detach().numpy().copy() if g is not None else None for g in (gx, gw, hx, hw)])
    for label, t, n in zip(("grad x", "grad w", "Hv wrt x", "Hv wrt w"), *results):
        if t is None:
            assert n is None or not n.any(), f"{name}: {label}"
        else:
            assert n is not None, f"{name}: {label} is None, torch has {t}"
            np.testing.assert_allclose(n, t, rtol=1e-7, atol=1e-10, err_msg=f"{name}: {label}")


def test_gradgradcheck_through_a_linear_layers_weight():
    """``linear`` multiplies by ``W.t()``: with ``create_graph=True`` the weight's gradient
    comes back through ``TBackward0`` as a recorded operation, so it can be differentiated
    again (the ordinary backward transposes the array without recording)."""
    x = positive(4, 3, seed=1)
    b = positive(2, seed=2)

    def weight_gradient(w):
        out = (ng.nn.functional.linear(x, w, b).tanh() ** 2).sum()
        (g,) = ng.autograd.grad(out, w, create_graph=True)
        assert type(g.grad_fn).__name__ == "TBackward0"
        return g

    assert gradcheck(weight_gradient, (positive(2, 3, seed=3),))


def test_third_order_derivative():
    x = ng.tensor(1.3, dtype=F64, requires_grad=True)
    y = x ** 4
    (g1,) = ng.autograd.grad(y, x, create_graph=True)
    (g2,) = ng.autograd.grad(g1, x, create_graph=True)
    (g3,) = ng.autograd.grad(g2, x)
    assert g1.item() == pytest.approx(4 * 1.3 ** 3)
    assert g2.item() == pytest.approx(12 * 1.3 ** 2)
    assert g3.item() == pytest.approx(24 * 1.3)
