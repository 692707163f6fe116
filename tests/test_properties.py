"""Property tests: random programs run under nbgrad and PyTorch give the same gradients.

A program is a random DAG: a few float64 leaves with shapes that broadcast against each
other, then a sequence of unary and binary operations (each picks its operands among all
earlier nodes, so values fan out), reductions with ``keepdim`` along the way, and a
weighted sum of the last node at the end. The same program is built with both libraries
and the leaves' gradients are compared (``allclose``). Operations that could overflow are
composed with a bounding function first (``exp(2 tanh x)``, ``log(1 + x^2)``...).
"""

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: the parity tests need `pip install torch==2.13.0`"
)

import nbgrad as ng  # noqa: E402

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

UNARY = {
    "neg": lambda M, a: -a,
    "exp": lambda M, a: (a.tanh() * 2).exp(),
    "log": lambda M, a: (a * a + 1).log(),
    "sqrt": lambda M, a: (a * a + 0.1).sqrt(),
    "sin": lambda M, a: a.sin(),
    "cos": lambda M, a: a.cos(),
    "tanh": lambda M, a: a.tanh(),
    "sigmoid": lambda M, a: a.sigmoid(),
    "relu": lambda M, a: a.relu(),
    "abs": lambda M, a: a.abs(),
    "square": lambda M, a: a * a,
    "pow3": lambda M, a: a.tanh() ** 3,
    "reciprocal": lambda M, a: (a * a + 1).reciprocal(),
    "scale": lambda M, a: a * 0.5 + 1.0,
    "rsub": lambda M, a: 1.0 - a,
    "rdiv": lambda M, a: 1.0 / (a * a + 1),
    "rpow": lambda M, a: 2.0 ** a.tanh(),
    "clamp": lambda M, a: a.clamp(-0.8, 0.9),
    "clone": lambda M, a: a.clone(),
    "softmax_last": lambda M, a: a.softmax(-1) if a.dim() else a.sigmoid(),
    "log_softmax_first": lambda M, a: a.log_softmax(0) if a.dim() else a.tanh(),
    "sum_keepdim": lambda M, a: a.sum(-1, keepdim=True) if a.dim() else a * 2,
    "mean_keepdim": lambda M, a: a.mean(0, keepdim=True) if a.dim() else a * 3,
    "amax_keepdim": lambda M, a: a.amax(-1, keepdim=True) if a.dim() else a,
    "logsumexp_keepdim": lambda M, a: a.logsumexp(-1, keepdim=True) if a.dim() else a,
    "norm_keepdim": lambda M, a: (a.norm(dim=-1, keepdim=True) + 1) if a.dim() else a,
    "var_keepdim": lambda M, a: a.var(-1, keepdim=True, correction=0) if a.dim() else a,
    "transpose_back": lambda M, a: a.transpose(0, -1).exp().transpose(0, -1) if a.dim() else a,
    "view_roundtrip": lambda M, a: (a.reshape(-1) * 1.5).view(a.shape),
    "index_roundtrip": lambda M, a: a[..., ::1] * 2 if a.dim() else a,
}

BINARY = {
    "add": lambda M, a, b: a + b,
    "sub": lambda M, a, b: a - b,
    "mul": lambda M, a, b: a * b,
    "div": lambda M, a, b: a / (b * b + 1),
    "pow": lambda M, a, b: (a * a + 0.5) ** b.tanh(),
    "maximum": lambda M, a, b: M.maximum(a, b),
    "minimum": lambda M, a, b: M.minimum(a, b),
    "where": lambda M, a, b: M.where(a > b, a * 2, b),
    "add_alpha": lambda M, a, b: M.add(a, b, alpha=-0.5),
}


def broadcast_shapes():
    """A base shape and a way to derive operand shapes that broadcast against it."""
    return st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


@st.composite
def programs(draw, max_ops=8):
    base = draw(broadcast_shapes())
    n_leaves = draw(st.integers(1, 3))
    leaves = []
    for _ in range(n_leaves):
        ndim = draw(st.integers(0, len(base)))
        suffix = base[len(base) - ndim:]
        shape = tuple(1 if draw(st.booleans()) and draw(st.booleans()) else s for s in suffix)
        # Values are exactly 0 or at least 1e-6 in magnitude: squares of subnormal numbers
        # underflow to 0, and how that surfaces differs between any two implementations.
        values = draw(st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 2), st.floats(-2, -1e-6)),
                               min_size=math.prod(shape), max_size=math.prod(shape)))
        leaves.append(np.array(values, dtype=np.float64).reshape(shape))
    steps = []
    n_nodes = n_leaves
    for _ in range(draw(st.integers(1, max_ops))):
        if draw(st.booleans()):
            op = draw(st.sampled_from(sorted(UNARY)))
            steps.append((op, (draw(st.integers(0, n_nodes - 1)),)))
        else:
            op = draw(st.sampled_from(sorted(BINARY)))
            steps.append((op, (draw(st.integers(0, n_nodes - 1)), draw(st.integers(0, n_nodes - 1)))))
        n_nodes += 1
    final = draw(st.sampled_from(["weighted_sum", "mean", "sum_of_all", "norm"]))
    return leaves, steps, final


def run(M, leaves, steps, final, requires_grad=None):
    requires_grad = requires_grad or [True] * len(leaves)
    tensors = [M.tensor(v, dtype=M.float64, requires_grad=r) for v, r in zip(leaves, requires_grad)]
    nodes = list(tensors)
    for op, args in steps:
        if op in UNARY:
            nodes.append(UNARY[op](M, nodes[args[0]]))
        else:
            nodes.append(BINARY[op](M, nodes[args[0]], nodes[args[1]]))
    last = nodes[-1]
    if final == "weighted_sum":
        weights = np.linspace(-1.0, 1.0, max(1, last.numel())).reshape(tuple(last.shape))
        loss = (last * M.tensor(weights, dtype=M.float64)).sum()
    elif final == "mean":
        loss = last.mean()
    elif final == "norm":
        loss = (last * last + 1).sum().sqrt()
    else:  # every node contributes: gradients meet from many paths
        loss = sum(n.sum() for n in nodes[len(tensors):])
    return tensors, nodes, loss


def compare_gradients(leaves, steps, final):
    t_leaves, _, t_loss = run(torch, leaves, steps, final)
    n_leaves, _, n_loss = run(ng, leaves, steps, final)
    np.testing.assert_allclose(n_loss.item(), t_loss.item(), rtol=1e-9, atol=1e-12)
    if not t_loss.requires_grad:
        assert not n_loss.requires_grad
        return
    t_loss.backward()
    n_loss.backward()
    for i, (t, n) in enumerate(zip(t_leaves, n_leaves)):
        if t.grad is None:
            assert n.grad is None, f"leaf {i}: nbgrad has a gradient, torch has None"
            continue
        assert n.grad is not None, f"leaf {i}: nbgrad has no gradient, torch has {t.grad}"
        assert tuple(n.grad.shape) == tuple(t.grad.shape)
        np.testing.assert_allclose(n.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-9,
                                   err_msg=f"leaf {i} of {steps} / {final}")


@settings(max_examples=250, **SETTINGS)
@given(programs())
def test_random_graph_gradients_match_torch(program):
    leaves, steps, final = program
    compare_gradients(leaves, steps, final)


@settings(max_examples=60, **SETTINGS)
@given(programs(max_ops=5), st.data())
def test_random_graph_some_leaves_frozen(program, data):
    leaves, steps, final = program
    flags = data.draw(st.lists(st.booleans(), min_size=len(leaves), max_size=len(leaves)))
    t_leaves, _, t_loss = run(torch, leaves, steps, final, flags)
    n_leaves, _, n_loss = run(ng, leaves, steps, final, flags)
    assert n_loss.requires_grad == t_loss.requires_grad
    if not t_loss.requires_grad:
        return
    t_loss.backward()
    n_loss.backward()
    for t, n in zip(t_leaves, n_leaves):
        assert (n.grad is None) == (t.grad is None)
        if t.grad is not None:
            np.testing.assert_allclose(n.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-9)


@settings(max_examples=60, **SETTINGS)
@given(programs(max_ops=5))
def test_random_graph_second_order_matches_torch(program):
    """Hessian-vector products through create_graph=True."""
    leaves, steps, final = program
    results = []
    for M in (torch, ng):
        tensors, _, loss = run(M, leaves, steps, final)
        if not loss.requires_grad:
            return
        grads = M.autograd.grad(loss, tensors, create_graph=True, allow_unused=True)
        vector = sum(((g * M.tensor(np.full(tuple(g.shape), 0.3), dtype=M.float64)).sum()
                      for g in grads if g is not None and g.requires_grad), M.tensor(0.0, dtype=M.float64))
        if not vector.requires_grad:
            results.append((grads, None))
            continue
        hvp = M.autograd.grad(vector, tensors, allow_unused=True)
        results.append((grads, hvp))
    (t_grads, t_hvp), (n_grads, n_hvp) = results
    if any(name == "norm_keepdim" for name, _ in steps) and any(
            t is not None and np.isnan(t.numpy(force=True)).any() for t in t_hvp or ()):
        # The norm's second derivative at the zero vector does not exist: torch returns nan
        # there, nbgrad 0 (a documented difference); every other point is compared.
        return
    for t, n in zip(t_grads, n_grads):
        assert (t is None) == (n is None)
        if t is not None:
            np.testing.assert_allclose(n.detach().numpy(), t.detach().numpy(), rtol=1e-7, atol=1e-9)
    assert (t_hvp is None) == (n_hvp is None)
    for t, n in zip(t_hvp or (), n_hvp or ()):
        if t is None:
            assert n is None or not np.any(n.numpy())
        else:
            assert n is not None
            np.testing.assert_allclose(n.numpy(), t.numpy(force=True), rtol=1e-6, atol=1e-8)


@settings(max_examples=60, **SETTINGS)
@given(programs(max_ops=6))
def test_graph_walked_twice_with_retain_graph(program):
    """retain_graph=True: a second backward accumulates exactly the same gradient again."""
    leaves, steps, final = program
    tensors, _, loss = run(ng, leaves, steps, final)
    if not loss.requires_grad:
        return
    loss.backward(retain_graph=True)
    first = [None if t.grad is None else t.grad.clone() for t in tensors]
    loss.backward()
    for f, t in zip(first, tensors):
        if f is not None:
            np.testing.assert_allclose(t.grad.numpy(), 2 * f.numpy(), rtol=1e-12, atol=1e-12)


# -- in-place programs through views ------------------------------------------------------
INPLACE = {
    "mul_slice": lambda M, y, w: y[1:].mul_(2),
    "add_row": lambda M, y, w: y[0].add_(w[0]),
    "sub_col": lambda M, y, w: y[:, -1].sub_(w[-1, -1]),
    "t_mul": lambda M, y, w: y.t().mul_(w.t()),
    "setitem_row": lambda M, y, w: y.__setitem__(0, w[-1] * 3),
    "setitem_mask": lambda M, y, w: y.__setitem__(w > 0.5, 0.25),
    "setitem_array": lambda M, y, w: y.__setitem__([0, 0], w[0].exp()),
    "exp_step": lambda M, y, w: y[::2].exp_(),
    "clamp": lambda M, y, w: y.clamp_(-1.0, 1.5),
    "div": lambda M, y, w: y.div_(w * w + 1),
    "neg_view": lambda M, y, w: y.view(-1)[1:].neg_(),
    "masked_fill": lambda M, y, w: y.masked_fill_(w < 0, 0.0),
    "tanh": lambda M, y, w: y.tanh_(),
    "copy_row": lambda M, y, w: y[-1].copy_(w[0] * 2),
}


@settings(max_examples=120, **SETTINGS)
@given(st.lists(st.sampled_from(sorted(INPLACE)), min_size=1, max_size=5),
       st.integers(2, 4), st.integers(2, 4), st.integers(0, 2**31 - 1))
def test_random_inplace_programs_match_torch(ops, rows, cols, seed):
    rng = np.random.default_rng(seed)
    xv, wv = rng.uniform(-2, 2, (rows, cols)), rng.uniform(-2, 2, (rows, cols))
    outcomes = []
    for M in (torch, ng):
        x = M.tensor(xv, dtype=M.float64, requires_grad=True)
        w = M.tensor(wv, dtype=M.float64, requires_grad=True)
        try:
            y = x.sin() * 1  # a non-leaf; sin saves x (a leaf), so y can be changed freely
            for op in ops:
                INPLACE[op](M, y, w)
            (y * y).sum().backward()
            outcomes.append(("ok", y.detach().numpy().copy(), x.grad.numpy().copy(),
                             None if w.grad is None else w.grad.numpy().copy()))
        except RuntimeError as e:
            outcomes.append(("error", str(e).split("\n")[0].replace("torch.", "nbgrad.")[:60]))
    t, n = outcomes
    assert t[0] == n[0], f"{ops}: torch {t}, nbgrad {n}"
    if t[0] == "error":
        return
    np.testing.assert_allclose(n[1], t[1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(n[2], t[2], rtol=1e-7, atol=1e-9)
    assert (n[3] is None) == (t[3] is None)
    if t[3] is not None:
        np.testing.assert_allclose(n[3], t[3], rtol=1e-7, atol=1e-9)


# -- dtype promotion and reprs ------------------------------------------------------------
DTYPES = ["float16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool"]
SCALARS = [True, 3, -2, 2.5]


@st.composite
def operands(draw):
    kind = draw(st.sampled_from(["tensor", "zero_dim", "scalar"]))
    if kind == "scalar":
        return ("scalar", draw(st.sampled_from(SCALARS)))
    return (kind, draw(st.sampled_from(DTYPES)))


def make_operand(M, spec):
    kind, value = spec
    if kind == "scalar":
        return value
    dtype = getattr(M, value)
    data = [1, 0] if value == "bool" else [1, 2]
    return M.tensor(data if kind == "tensor" else data[0], dtype=dtype)


@settings(max_examples=300, **SETTINGS)
@given(operands(), operands(), st.sampled_from(["add", "mul", "sub", "maximum", "where", "div"]))
def test_dtype_promotion_matches_torch(a, b, op):
    assume(a[0] != "scalar" or b[0] != "scalar")
    if op == "maximum":
        assume(a[0] != "scalar" and b[0] != "scalar")
    results = []
    for M in (torch, ng):
        x, y = make_operand(M, a), make_operand(M, b)
        try:
            if op == "add":
                r = x + y
            elif op == "mul":
                r = x * y
            elif op == "sub":
                r = x - y
            elif op == "div":
                r = x / y
            elif op == "maximum":
                r = M.maximum(x, y)
            else:
                r = M.where(M.tensor([True, False]), x, y)
            results.append(str(r.dtype).replace("torch.", "").replace("nbgrad.", ""))
        except (RuntimeError, TypeError) as e:
            results.append(type(e).__name__)
    assert results[1] == results[0], f"{a} {op} {b}: nbgrad {results[1]}, torch {results[0]}"


finite = st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, **SETTINGS)
@given(st.lists(st.integers(1, 5), min_size=0, max_size=3), st.data(),
       st.sampled_from(["float32", "float64", "int64"]))
def test_repr_matches_torch(shape, data, dtype):
    n = math.prod(shape)
    style = data.draw(st.sampled_from(["small", "ints", "wide", "mixed"]))
    if style == "small":
        values = data.draw(st.lists(st.floats(-10, 10, allow_nan=False, width=32), min_size=n, max_size=n))
    elif style == "ints":
        values = [float(v) for v in data.draw(st.lists(st.integers(-1000, 1000), min_size=n, max_size=n))]
    elif style == "wide":
        values = data.draw(st.lists(finite, min_size=n, max_size=n))
    else:
        values = data.draw(st.lists(st.sampled_from([0.0, 1e-5, -3.25, 1.0, 1e8, 0.1, -0.0, 7.0]),
                                    min_size=n, max_size=n))
    array = np.array(values, dtype=np.float64).reshape(shape)
    if dtype == "int64":
        array = np.clip(np.round(array), -1e12, 1e12)
    expected = repr(torch.tensor(array, dtype=getattr(torch, dtype))).replace("torch.", "nbgrad.")
    got = repr(ng.tensor(array, dtype=getattr(ng, dtype)))
    # "nbgrad.float64" is one character longer than "torch.float64": where that alone moves
    # the suffix to a line of its own, both layouts are right. Join suffix lines on both sides.
    assert join_suffix_lines(got) == join_suffix_lines(expected), f"\nnbgrad:\n{got}\ntorch:\n{expected}"


def join_suffix_lines(text):
    return re.sub(r",\n\s+(?=(dtype|grad_fn|requires_grad|size)=)", ", ", text)
