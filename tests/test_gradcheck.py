"""Every differentiable operation checked against finite differences (float64).

``nbgrad.autograd.gradcheck`` compares the Jacobian that backward produces with central
differences. Inputs are chosen away from the kinks of ``abs``/``relu``/``clamp``/``max``
(where finite differences straddle two pieces); the values autograd gives *at* those
kinks are compared with PyTorch at the end of this file, together with second-order
gradients (Hessian-vector products through ``create_graph=True``).
"""

import math

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


def away(*shape, seed=0, margin=0.2):
    """Random values with |x| >= margin: no input sits near a kink at 0."""
    v = _rng(seed).standard_normal(shape)
    v = np.sign(v) * (np.abs(v) + margin)
    v[v == 0] = margin
    return ng.tensor(v, dtype=F64, requires_grad=True)


def distinct(*shape, seed=0, shift=0.0):
    """A random permutation of well-separated values: no ties for max/min/norm(inf)."""
    n = int(np.prod(shape)) if shape else 1
    v = (_rng(seed).permutation(n) - n / 2 + 0.5) * 0.37 + shift
    return ng.tensor(v.reshape(shape), dtype=F64, requires_grad=True)


def const(array, dtype=F64):
    return ng.tensor(np.asarray(array), dtype=dtype)


# Each case: id -> (function, inputs). Inputs are built lazily (fresh leaves every run).
CASES = {
    # -- + - * / with broadcasting ------------------------------------------------------
    "add": (lambda a, b: a + b, lambda: (randn(3, 4), randn(3, 4, seed=1))),
    "add_broadcast_row": (lambda a, b: a + b, lambda: (randn(3, 4), randn(4, seed=1))),
    "add_broadcast_both": (lambda a, b: a + b, lambda: (randn(2, 1, 3), randn(4, 1, seed=1))),
    "add_alpha": (lambda a, b: ng.add(a, b, alpha=2.5), lambda: (randn(3, 1), randn(1, 4, seed=1))),
    "add_number": (lambda a: a + 3.0, lambda: (randn(3, 4),)),
    "radd_number": (lambda a: 3.0 + a, lambda: (randn(3, 4),)),
    "add_0dim": (lambda a, b: a + b, lambda: (randn(3, 4), randn(seed=1))),
    "sub": (lambda a, b: a - b, lambda: (randn(3, 4), randn(3, 1, seed=1))),
    "sub_alpha": (lambda a, b: ng.sub(a, b, alpha=0.5), lambda: (randn(3, 4), randn(4, seed=1))),
    "rsub_number": (lambda a: 2.0 - a, lambda: (randn(3, 4),)),
    "mul": (lambda a, b: a * b, lambda: (randn(3, 4), randn(3, 4, seed=1))),
    "mul_broadcast": (lambda a, b: a * b, lambda: (randn(2, 3, 1), randn(1, 4, seed=1))),
    "mul_number": (lambda a: a * -1.7, lambda: (randn(3, 4),)),
    "mul_same_tensor": (lambda a: a * a, lambda: (randn(3, 4),)),
    "div": (lambda a, b: a / b, lambda: (randn(3, 4), away(3, 4, seed=1))),
    "div_broadcast": (lambda a, b: a / b, lambda: (randn(3, 4), away(4, seed=1))),
    "div_number": (lambda a: a / 3.0, lambda: (randn(3, 4),)),
    "rdiv_number": (lambda a: 2.0 / a, lambda: (away(3, 4),)),
    "neg": (lambda a: -a, lambda: (randn(3, 4),)),
    "pos_neg_method": (lambda a: a.neg(), lambda: (randn(2, 3),)),
    # -- powers -------------------------------------------------------------------------
    "pow_number_float": (lambda a: a ** 2.5, lambda: (positive(3, 4),)),
    "pow_number_int": (lambda a: a ** 3, lambda: (randn(3, 4),)),
    "pow_number_square": (lambda a: a ** 2, lambda: (randn(3, 4),)),
    "pow_number_negative": (lambda a: a ** -1.5, lambda: (positive(3, 4),)),
    "pow_number_zero": (lambda a: a ** 0, lambda: (randn(3, 4),)),
    "pow_number_half": (lambda a: a ** 0.5, lambda: (positive(3, 4),)),
    "pow_tensor_tensor": (lambda a, b: a ** b, lambda: (positive(3, 4), randn(3, 4, seed=1))),
    "pow_tensor_tensor_broadcast": (lambda a, b: a ** b, lambda: (positive(3, 4), randn(4, seed=1))),
    "pow_tensor_tensor_broadcast_base": (lambda a, b: a ** b, lambda: (positive(4), randn(3, 4, seed=1))),
    "pow_number_tensor": (lambda b: 2.0 ** b, lambda: (randn(3, 4),)),
    "pow_number_tensor_fraction": (lambda b: 0.7 ** b, lambda: (randn(3, 4),)),
    "pow_function": (lambda a: ng.pow(a, 1.3), lambda: (positive(3, 4),)),
    "pow_function_tensor": (lambda a, b: ng.pow(a, b), lambda: (positive(3, 1), randn(1, 4, seed=1))),
    "square": (lambda a: a.square(), lambda: (randn(3, 4),)),
    "reciprocal": (lambda a: a.reciprocal(), lambda: (away(3, 4),)),
    "reciprocal_function": (lambda a: ng.reciprocal(a), lambda: (away(5),)),
    # -- elementwise math ---------------------------------------------------------------
    "abs": (lambda a: a.abs(), lambda: (away(3, 4),)),
    "abs_builtin": (lambda a: abs(a), lambda: (away(3, 4),)),
    "exp": (lambda a: a.exp(), lambda: (randn(3, 4),)),
    "log": (lambda a: a.log(), lambda: (positive(3, 4),)),
    "sqrt": (lambda a: a.sqrt(), lambda: (positive(3, 4),)),
    "sin": (lambda a: a.sin(), lambda: (randn(3, 4),)),
    "cos": (lambda a: a.cos(), lambda: (randn(3, 4),)),
    "tanh": (lambda a: a.tanh(), lambda: (randn(3, 4),)),
    "tanh_function": (lambda a: ng.tanh(a), lambda: (randn(3, 4),)),
    "sigmoid": (lambda a: a.sigmoid(), lambda: (randn(3, 4),)),
    "sigmoid_large": (lambda a: (a * 20).sigmoid(), lambda: (randn(3, 4),)),
    "relu": (lambda a: a.relu(), lambda: (away(3, 4),)),
    "relu_function": (lambda a: ng.relu(a), lambda: (away(3, 4),)),
    # -- clamping and choosing ------------------------------------------------------------
    "clamp_min": (lambda a: a.clamp(min=0.1), lambda: (away(3, 4, margin=0.3),)),
    "clamp_max": (lambda a: a.clamp(max=-0.1), lambda: (away(3, 4, margin=0.3),)),
    "clamp_both": (lambda a: a.clamp(-0.5, 0.6), lambda: (distinct(4, 5),)),
    "clamp_function": (lambda a: ng.clamp(a, min=-0.4, max=0.45), lambda: (distinct(20),)),
    "clip": (lambda a: a.clip(-0.4, 0.45), lambda: (distinct(20),)),
    "clamp_tensor_min": (lambda a, lo: a.clamp(min=lo),
                         lambda: (distinct(3, 4), const([-0.1, 0.3, -0.5, 0.05]).requires_grad_())),
    "clamp_tensor_max": (lambda a, hi: a.clamp(max=hi),
                         lambda: (distinct(3, 4), const([[0.1], [-0.3], [0.5]]).requires_grad_())),
    "clamp_tensor_both": (lambda a, lo, hi: a.clamp(lo, hi),
                          lambda: (distinct(3, 4), const([-0.2, -0.5, 0.05, -1.0]).requires_grad_(),
                                   const([0.3, 0.6, 0.5, 0.1]).requires_grad_())),
    "clamp_tensor_min_number_max": (lambda a, lo: a.clamp(lo, 0.5),
                                    lambda: (distinct(3, 4), const([-0.2, -0.5, 0.05, -1.0]).requires_grad_())),
    "maximum": (lambda a, b: ng.maximum(a, b), lambda: (distinct(3, 4), distinct(3, 4, seed=1, shift=0.01))),
    "maximum_broadcast": (lambda a, b: a.maximum(b), lambda: (distinct(3, 4), const([0.03, -0.2, 0.5, 0.1]).requires_grad_())),
    "minimum": (lambda a, b: ng.minimum(a, b), lambda: (distinct(3, 4), distinct(3, 4, seed=1, shift=0.01))),
    "minimum_broadcast": (lambda a, b: a.minimum(b), lambda: (distinct(3, 4), const([[0.03], [-0.2], [0.5]]).requires_grad_())),
    "max_binary": (lambda a, b: ng.max(a, b), lambda: (distinct(3, 4), distinct(3, 4, seed=1, shift=0.01))),
    "where": (lambda a, b: ng.where(const([[True, False, True, False]] * 3, ng.bool), a, b),
              lambda: (randn(3, 4), randn(3, 4, seed=1))),
    "where_broadcast": (lambda a, b: ng.where(const([[True], [False], [True]], ng.bool), a, b),
                        lambda: (randn(3, 4), randn(4, seed=1))),
    "where_method": (lambda a, b: a.where(a > 0, b), lambda: (away(3, 4), randn(1, 4, seed=1))),
    "where_number": (lambda a: ng.where(a > 0, a, 0.5), lambda: (away(3, 4),)),
    "where_number_condition_broadcasts": (
        lambda a: ng.where(const([[True], [False], [True]], ng.bool), a, 0.5), lambda: (randn(4),)),
    "masked_fill": (lambda a: a.masked_fill(const([True, False, False, True], ng.bool), 2.0),
                    lambda: (randn(3, 4),)),
    "masked_fill_function": (lambda a: ng.masked_fill(a, const([[True], [False], [True]], ng.bool), -1.0),
                             lambda: (randn(3, 4),)),
    # -- reductions ---------------------------------------------------------------------
    "sum": (lambda a: a.sum(), lambda: (randn(3, 4),)),
    "sum_dim0": (lambda a: a.sum(0), lambda: (randn(3, 4),)),
    "sum_dim_neg": (lambda a: a.sum(-1), lambda: (randn(2, 3, 4),)),
    "sum_dims_tuple": (lambda a: a.sum((0, 2)), lambda: (randn(2, 3, 4),)),
    "sum_keepdim": (lambda a: a.sum(1, keepdim=True), lambda: (randn(2, 3, 4),)),
    "sum_dims_keepdim": (lambda a: a.sum((0, -1), keepdim=True), lambda: (randn(2, 3, 4),)),
    "sum_function": (lambda a: ng.sum(a, dim=1), lambda: (randn(2, 3, 4),)),
    "mean": (lambda a: a.mean(), lambda: (randn(3, 4),)),
    "mean_dim": (lambda a: a.mean(1), lambda: (randn(3, 4),)),
    "mean_dims_tuple": (lambda a: a.mean((0, 1)), lambda: (randn(2, 3, 4),)),
    "mean_keepdim": (lambda a: a.mean(-1, keepdim=True), lambda: (randn(2, 3, 4),)),
    "mean_function": (lambda a: ng.mean(a, (1, 2), True), lambda: (randn(2, 3, 4),)),
    "var": (lambda a: a.var(), lambda: (randn(3, 4),)),
    "var_correction0": (lambda a: a.var(correction=0), lambda: (randn(3, 4),)),
    "var_unbiased_false": (lambda a: a.var(unbiased=False), lambda: (randn(3, 4),)),
    "var_dim": (lambda a: a.var(1), lambda: (randn(3, 4),)),
    "var_dims_keepdim": (lambda a: a.var((0, 2), keepdim=True), lambda: (randn(2, 3, 4),)),
    "var_dim_correction0": (lambda a: a.var(0, correction=0), lambda: (randn(3, 4),)),
    "std": (lambda a: a.std(), lambda: (randn(3, 4),)),
    "std_correction0": (lambda a: a.std(correction=0), lambda: (randn(3, 4),)),
    "std_dim": (lambda a: a.std(1), lambda: (randn(3, 4),)),
    "std_dims_keepdim": (lambda a: a.std((0, 2), keepdim=True), lambda: (randn(2, 3, 4),)),
    "std_dim_correction0": (lambda a: ng.std(a, -1, correction=0), lambda: (randn(3, 4),)),
    "max_all": (lambda a: a.max(), lambda: (distinct(3, 4),)),
    "min_all": (lambda a: a.min(), lambda: (distinct(3, 4),)),
    "max_dim": (lambda a: a.max(1).values, lambda: (distinct(3, 4),)),
    "max_dim_keepdim": (lambda a: a.max(0, keepdim=True)[0], lambda: (distinct(3, 4),)),
    "min_dim": (lambda a: a.min(-1).values, lambda: (distinct(2, 3, 4),)),
    "max_function_dim": (lambda a: ng.max(a, dim=1)[0], lambda: (distinct(2, 3, 4),)),
    "amax": (lambda a: a.amax(), lambda: (distinct(3, 4),)),
    "amax_dim": (lambda a: a.amax(1), lambda: (distinct(3, 4),)),
    "amax_dims_keepdim": (lambda a: ng.amax(a, (0, 2), keepdim=True), lambda: (distinct(2, 3, 4),)),
    "amin": (lambda a: a.amin(), lambda: (distinct(3, 4),)),
    "amin_dims": (lambda a: a.amin((0, 1)), lambda: (distinct(2, 3, 4),)),
    "norm": (lambda a: a.norm(), lambda: (randn(3, 4),)),
    "norm_p2_dim": (lambda a: a.norm(2, dim=1), lambda: (randn(3, 4),)),
    "norm_p1": (lambda a: a.norm(p=1), lambda: (away(3, 4),)),
    "norm_p1_dim_keepdim": (lambda a: a.norm(1, dim=0, keepdim=True), lambda: (away(3, 4),)),
    "norm_inf": (lambda a: a.norm(p=math.inf), lambda: (distinct(3, 4),)),
    "norm_inf_dim": (lambda a: a.norm(float("inf"), dim=1), lambda: (distinct(3, 4),)),
    "norm_p3": (lambda a: a.norm(p=3), lambda: (away(3, 4),)),
    "norm_p3_dims": (lambda a: ng.norm(a, 3, dim=(0, 2)), lambda: (away(2, 3, 4),)),
    "norm_p1_5": (lambda a: a.norm(p=1.5, dim=-1), lambda: (away(3, 4),)),
    "logsumexp": (lambda a: a.logsumexp(1), lambda: (randn(3, 4),)),
    "logsumexp_dims_keepdim": (lambda a: ng.logsumexp(a, (0, 2), keepdim=True), lambda: (randn(2, 3, 4),)),
    "logsumexp_large": (lambda a: (a * 100).logsumexp(0), lambda: (randn(3, 4),)),
    "softmax_dim1": (lambda a: a.softmax(1), lambda: (randn(3, 4),)),
    "softmax_dim0": (lambda a: ng.softmax(a, dim=0), lambda: (randn(3, 4),)),
    "softmax_3d": (lambda a: a.softmax(-1), lambda: (randn(2, 3, 4),)),
    "log_softmax_dim1": (lambda a: a.log_softmax(1), lambda: (randn(3, 4),)),
    "log_softmax_dim0": (lambda a: ng.log_softmax(a, dim=0), lambda: (randn(3, 4),)),
    "log_softmax_3d": (lambda a: a.log_softmax(1), lambda: (randn(2, 3, 4),)),
    # -- linear algebra -----------------------------------------------------------------
    "mm": (lambda a, b: a.mm(b), lambda: (randn(3, 4), randn(4, 2, seed=1))),
    "mm_function": (lambda a, b: ng.mm(a, b), lambda: (randn(2, 3), randn(3, 5, seed=1))),
    "mm_one_side": (lambda a: a.mm(const(np.ones((4, 2)))), lambda: (randn(3, 4),)),
    "mv": (lambda a, v: a.mv(v), lambda: (randn(3, 4), randn(4, seed=1))),
    "dot": (lambda a, b: a.dot(b), lambda: (randn(5), randn(5, seed=1))),
    "dot_function": (lambda a, b: ng.dot(a, b), lambda: (randn(5), randn(5, seed=1))),
    "matmul_1d_1d": (lambda a, b: a @ b, lambda: (randn(4), randn(4, seed=1))),
    "matmul_2d_1d": (lambda a, b: a @ b, lambda: (randn(3, 4), randn(4, seed=1))),
    "matmul_1d_2d": (lambda a, b: a @ b, lambda: (randn(3), randn(3, 4, seed=1))),
    "matmul_2d_2d": (lambda a, b: ng.matmul(a, b), lambda: (randn(3, 4), randn(4, 2, seed=1))),
    "matmul_3d_3d": (lambda a, b: a @ b, lambda: (randn(2, 3, 4), randn(2, 4, 2, seed=1))),
    "matmul_3d_2d": (lambda a, b: a @ b, lambda: (randn(2, 3, 4), randn(4, 2, seed=1))),
    "matmul_2d_3d": (lambda a, b: a @ b, lambda: (randn(3, 4), randn(2, 4, 2, seed=1))),
    "matmul_3d_1d": (lambda a, b: a @ b, lambda: (randn(2, 3, 4), randn(4, seed=1))),
    "matmul_1d_3d": (lambda a, b: a @ b, lambda: (randn(3), randn(2, 3, 4, seed=1))),
    "matmul_batch_broadcast": (lambda a, b: a.matmul(b), lambda: (randn(2, 1, 3, 4), randn(5, 4, 2, seed=1))),
    "matmul_batch_broadcast_1": (lambda a, b: a @ b, lambda: (randn(1, 3, 4), randn(2, 4, 2, seed=1))),
    # -- shapes and views ---------------------------------------------------------------
    "view": (lambda a: a.view(4, 3), lambda: (randn(3, 4),)),
    "view_infer": (lambda a: a.view(-1), lambda: (randn(3, 4),)),
    "view_as": (lambda a: a.view_as(const(np.zeros((2, 6)))), lambda: (randn(3, 4),)),
    "reshape_view": (lambda a: a.reshape(2, 6), lambda: (randn(3, 4),)),
    "reshape_copy": (lambda a: a.t().reshape(-1), lambda: (randn(3, 4),)),
    "reshape_copy_3d": (lambda a: a.transpose(0, 2).reshape(4, 6), lambda: (randn(2, 3, 4),)),
    "flatten": (lambda a: a.flatten(), lambda: (randn(2, 3, 4),)),
    "flatten_range": (lambda a: a.flatten(1), lambda: (randn(2, 3, 4),)),
    "flatten_function": (lambda a: ng.flatten(a, 0, 1), lambda: (randn(2, 3, 4),)),
    "flatten_noncontiguous": (lambda a: a.t().flatten(), lambda: (randn(3, 4),)),
    "squeeze": (lambda a: a.squeeze(), lambda: (randn(3, 1, 4, 1),)),
    "squeeze_dim": (lambda a: a.squeeze(1), lambda: (randn(3, 1, 4, 1),)),
    "squeeze_dims": (lambda a: a.squeeze((1, 3)), lambda: (randn(3, 1, 4, 1),)),
    "squeeze_noop": (lambda a: a.squeeze(0), lambda: (randn(3, 1, 4),)),
    "unsqueeze": (lambda a: a.unsqueeze(1), lambda: (randn(3, 4),)),
    "unsqueeze_neg": (lambda a: a.unsqueeze(-1), lambda: (randn(3, 4),)),
    "t": (lambda a: a.t(), lambda: (randn(3, 4),)),
    "t_1d": (lambda a: a.t(), lambda: (randn(3),)),
    "T": (lambda a: a.T, lambda: (randn(2, 3, 4),)),
    "transpose": (lambda a: a.transpose(0, 2), lambda: (randn(2, 3, 4),)),
    "transpose_function": (lambda a: ng.transpose(a, -1, 0), lambda: (randn(2, 3, 4),)),
    "permute": (lambda a: a.permute(2, 0, 1), lambda: (randn(2, 3, 4),)),
    "permute_tuple": (lambda a: ng.permute(a, (1, 2, 0)), lambda: (randn(2, 3, 4),)),
    "expand": (lambda a: a.expand(3, 4), lambda: (randn(3, 1),)),
    "expand_leading": (lambda a: a.expand(2, 3, 4), lambda: (randn(4),)),
    "expand_minus_one": (lambda a: a.expand(2, -1, 4), lambda: (randn(3, 1),)),
    "expand_as": (lambda a: a.expand_as(const(np.zeros((3, 4)))), lambda: (randn(1, 4),)),
    "contiguous": (lambda a: a.t().contiguous(), lambda: (randn(3, 4),)),
    # -- indexing -----------------------------------------------------------------------
    "index_int": (lambda a: a[1], lambda: (randn(3, 4),)),
    "index_neg_int": (lambda a: a[-1, 2], lambda: (randn(3, 4),)),
    "index_slice": (lambda a: a[1:3], lambda: (randn(4, 3),)),
    "index_slice_step": (lambda a: a[::2, 1::2], lambda: (randn(5, 6),)),
    "index_none": (lambda a: a[None, :, None], lambda: (randn(3, 4),)),
    "index_ellipsis": (lambda a: a[..., 1], lambda: (randn(2, 3, 4),)),
    "index_ellipsis_int": (lambda a: a[0, ...], lambda: (randn(2, 3, 4),)),
    "index_int_array_dupes": (lambda a: a[[0, 2, 0, 0]], lambda: (randn(3, 4),)),
    "index_tensor_dupes": (lambda a: a[ng.tensor([1, 1, 3])], lambda: (randn(4),)),
    "index_two_arrays": (lambda a: a[[0, 2, 2], [1, 1, 3]], lambda: (randn(3, 4),)),
    "index_array_slice": (lambda a: a[1:, [0, 0, 3]], lambda: (randn(3, 4),)),
    "index_bool_mask": (lambda a: a[a > 0], lambda: (away(3, 4),)),
    "index_bool_mask_rows": (lambda a: a[ng.tensor([True, False, True])], lambda: (randn(3, 4),)),
    "index_mixed": (lambda a: a[None, 1:, [2, 0, 2]][..., 1], lambda: (randn(3, 4),)),
    # -- joining and copying -------------------------------------------------------------
    "cat": (lambda a, b: ng.cat([a, b]), lambda: (randn(2, 3), randn(4, 3, seed=1))),
    "cat_dim1": (lambda a, b, c: ng.cat((a, b, c), dim=1), lambda: (randn(2, 3), randn(2, 1, seed=1), randn(2, 2, seed=2))),
    "cat_dim_neg": (lambda a, b: ng.cat([a, b], -1), lambda: (randn(2, 3, 1), randn(2, 3, 2, seed=1))),
    "cat_same_tensor": (lambda a: ng.cat([a, a * 2, a]), lambda: (randn(2, 3),)),
    "stack": (lambda a, b: ng.stack([a, b]), lambda: (randn(2, 3), randn(2, 3, seed=1))),
    "stack_dim1": (lambda a, b, c: ng.stack((a, b, c), dim=1), lambda: (randn(2, 3), randn(2, 3, seed=1), randn(2, 3, seed=2))),
    "stack_dim_neg": (lambda a, b: ng.stack([a, b], -1), lambda: (randn(2, 3), randn(2, 3, seed=1))),
    "clone": (lambda a: a.clone(), lambda: (randn(3, 4),)),
    "clone_function": (lambda a: ng.clone(a) * 2, lambda: (randn(3, 4),)),
    "to_float64_same": (lambda a: a.to(ng.float64), lambda: (randn(3, 4),)),
    "to_float64_copy": (lambda a: a.to(ng.float64, copy=True) * 2, lambda: (randn(3, 4),)),
    "to_dtype_keyword": (lambda a: a.to(dtype=ng.float64) + 1, lambda: (randn(3, 4),)),
    "double": (lambda a: a.double(), lambda: (randn(3, 4),)),
    "sum_to_size": (lambda a: a.sum_to_size(1, 4), lambda: (randn(3, 4),)),
    "sum_to_size_lead": (lambda a: a.sum_to_size(3, 1), lambda: (randn(2, 3, 4),)),
    "sum_to_size_tuple": (lambda a: a.sum_to_size((4,)), lambda: (randn(2, 3, 4),)),
    # -- in-place operations through views ----------------------------------------------
    "inplace_mul_slice": (lambda x: _inplace_slice_mul(x), lambda: (randn(4, 3),)),
    "inplace_add_tensor_view": (lambda x, w: _inplace_add_view(x, w), lambda: (randn(4, 3), randn(3, seed=1))),
    "inplace_on_nonleaf": (lambda x, w: (x * 2).add_(w).mul_(w), lambda: (randn(3, 4), randn(4, seed=1))),
    "inplace_exp_view_of_view": (lambda x: _inplace_view_of_view(x), lambda: (randn(4, 3),)),
    "inplace_transpose_view": (lambda x, w: _inplace_transposed(x, w), lambda: (randn(3, 4), randn(3, seed=1))),
    "inplace_base_then_view": (lambda x: _inplace_base_then_view(x), lambda: (randn(3, 4),)),
    "inplace_div_pow": (lambda x, w: (x * 1).div_(w).pow_(2), lambda: (randn(3, 4), away(4, seed=1))),
    "inplace_clamp_mul_sigmoid": (lambda x: (x * 1).clamp_(-0.5, 0.6).mul_(2).sigmoid_(), lambda: (distinct(3, 4),)),
    "inplace_tanh": (lambda x: (x * 1).add_(0.1).tanh_(), lambda: (randn(3, 4),)),
    "inplace_neg_exp": (lambda x: (x * 1).neg_().sub_(0.3).exp_(), lambda: (distinct(3, 4),)),
    "inplace_relu": (lambda x: (x * 1).sub_(0.01).relu_(), lambda: (distinct(3, 4),)),
    "inplace_masked_fill": (lambda x: (x * 1).masked_fill_(const([True, False, True], ng.bool), 0.5), lambda: (randn(4, 3),)),
    "setitem_basic_tensor": (lambda x, v: _setitem(x, (slice(None), 1), v), lambda: (randn(3, 4), randn(3, seed=1))),
    "setitem_basic_broadcast": (lambda x, v: _setitem(x, (slice(1, None),), v), lambda: (randn(3, 4), randn(4, seed=1))),
    "setitem_basic_number": (lambda x: _setitem(x, (0, slice(None, None, 2)), 3.0), lambda: (randn(3, 4),)),
    "setitem_advanced_tensor": (lambda x, v: _setitem(x, ([0, 2],), v), lambda: (randn(3, 4), randn(2, 4, seed=1))),
    "setitem_advanced_broadcast": (lambda x, v: _setitem(x, ([2, 0], [1, 3]), v), lambda: (randn(3, 4), randn(1, seed=1))),
    "setitem_mask": (lambda x, v: _setitem(x, (const([True, False, True], ng.bool),), v), lambda: (randn(3, 4), randn(4, seed=1))),
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


def _setitem(x, index, v):
    y = x * 1
    y[index] = v
    return y


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


# -- kinks: the subgradients autograd picks, compared with PyTorch ---------------------------
KINKS = {
    "abs_at_0": (lambda M, x: M.abs(x), [0.0, -1.0, 2.0, 0.0]),
    "relu_at_0": (lambda M, x: M.relu(x), [0.0, -1.0, 2.0, 0.0]),
    "clamp_min_at_bound": (lambda M, x: x.clamp(min=0.5), [0.5, 0.0, 1.0]),
    "clamp_max_at_bound": (lambda M, x: x.clamp(max=0.5), [0.5, 0.0, 1.0]),
    "clamp_both_at_bounds": (lambda M, x: x.clamp(-1.0, 1.0), [-1.0, 1.0, 0.0, 2.0]),
    "clamp_min_gt_max": (lambda M, x: x.clamp(1.0, -1.0), [-2.0, 0.0, 2.0]),
    "clamp_tensor_bound_tie": (lambda M, x: x.clamp(min=M.tensor([0.5, 0.0, 3.0], dtype=M.float64)), [0.5, 1.0, 3.0]),
    "max_all_ties": (lambda M, x: x.max(), [1.0, 3.0, 3.0, 3.0, 2.0]),
    "min_all_ties": (lambda M, x: x.min(), [1.0, 3.0, 1.0, 2.0]),
    "max_dim_ties": (lambda M, x: x.view(2, 3).max(1).values, [3.0, 3.0, 1.0, 2.0, 5.0, 5.0]),
    "min_dim_ties": (lambda M, x: x.view(2, 3).min(0).values, [1.0, 3.0, 1.0, 1.0, 5.0, 1.0]),
    "amax_ties": (lambda M, x: x.amax(), [1.0, 3.0, 3.0, 3.0, 2.0]),
    "amax_dim_ties": (lambda M, x: x.view(2, 3).amax(1), [3.0, 3.0, 1.0, 2.0, 5.0, 5.0]),
    "amin_dim_ties": (lambda M, x: x.view(2, 3).amin(0), [1.0, 3.0, 1.0, 1.0, 5.0, 1.0]),
    "maximum_ties": (lambda M, x: M.maximum(x, M.tensor([1.0, 0.0, 3.0], dtype=M.float64)), [1.0, 2.0, 3.0]),
    "minimum_ties": (lambda M, x: M.minimum(x, M.tensor([1.0, 0.0, 3.0], dtype=M.float64)), [1.0, 2.0, 3.0]),
    "maximum_self": (lambda M, x: M.maximum(x, x), [1.0, 2.0, 3.0]),
    "norm2_zero": (lambda M, x: x.norm(), [0.0, 0.0, 0.0]),
    "norm2_dim_zero_row": (lambda M, x: x.view(2, 2).norm(dim=1), [0.0, 0.0, 3.0, 4.0]),
    "norm1_at_0": (lambda M, x: x.norm(p=1), [0.0, -1.0, 2.0]),
    "norm_inf_ties": (lambda M, x: x.norm(p=float("inf")), [-3.0, 3.0, 1.0, 3.0]),
    "norm3_zero": (lambda M, x: x.norm(p=3), [0.0, 0.0]),
    "sqrt_at_0": (lambda M, x: x.sqrt(), [0.0, 4.0]),
    "pow_0_at_0": (lambda M, x: x ** 0, [0.0, 2.0]),
    "pow_half_at_0": (lambda M, x: x ** 0.5, [0.0, 4.0]),
    "pow_tensor_zero_base": (lambda M, x: x ** M.tensor([2.0, 0.0, 0.5], dtype=M.float64), [0.0, 0.0, 4.0]),
    "sign": (lambda M, x: x.sign(), [-1.0, 0.0, 2.0]),
    "round": (lambda M, x: x.round(), [0.5, 1.5, 2.3]),
    "floor_ceil": (lambda M, x: x.floor() + x.ceil(), [0.5, 1.0, -2.3]),
    "logsumexp_inf": (lambda M, x: x.logsumexp(0), [float("-inf"), 0.0, 1.0]),
    "where_nan_branch": (lambda M, x: M.where(x > 0, x, x * 0), [-1.0, 2.0]),
}


@pytest.mark.parametrize("name", list(KINKS))
def test_kink_subgradient_matches_torch(name):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the parity tests need `pip install torch==2.13.0`")
    fn, values = KINKS[name]
    results = []
    for M in (torch, ng):
        x = M.tensor(values, dtype=M.float64, requires_grad=True)
        out = fn(M, x)
        out.sum().backward() if out.dim() else out.backward()
        results.append((out.detach().numpy().copy(), x.grad.numpy().copy()))
    (t_out, t_grad), (n_out, n_grad) = results
    np.testing.assert_allclose(n_out, t_out, equal_nan=True)
    np.testing.assert_allclose(n_grad, t_grad, equal_nan=True, err_msg=f"{name}: gradient at the kink")


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


@pytest.mark.parametrize("name", ["sin", "exp", "tanh", "sigmoid", "log", "sqrt", "reciprocal"])
def test_gradgradcheck_unary(name):
    """The gradient of each unary op is itself differentiable and passes gradcheck."""
    x = positive(5)

    def first_derivative(a):
        (g,) = ng.autograd.grad(getattr(a, name)().sum(), a, create_graph=True)
        return g

    assert gradcheck(first_derivative, (x,))


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
