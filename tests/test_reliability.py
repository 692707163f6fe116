"""Reliability: deep graphs, graphs freed by reference counting, flat memory, clear errors.

* A chain of 10^6 operations backpropagates (the engine has no recursion) and is freed
  without overflowing the C stack (run in a subprocess so that a crash is a failure, not
  the end of the test session).
* With the garbage collector disabled, a graph disappears as soon as its last tensor is
  deleted: nodes never reference their outputs, leaves reference their accumulator
  weakly, views reference their base's view list weakly.
* Thousands of training-like steps leave memory flat (tracemalloc), and create no
  reference cycles.
* Bad inputs raise TypeError/RuntimeError/IndexError/ValueError with a message of
  nbgrad's (PyTorch's wording), never a NumPy traceback.
"""

import gc
import os
import subprocess
import sys
import textwrap
import traceback
import tracemalloc
import warnings
import weakref
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

import nbgrad as ng

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def gc_disabled():
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_script(code, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, env=env, timeout=timeout, cwd=ROOT)
    assert result.returncode == 0, (
        f"exit status {result.returncode}\nstdout:\n{result.stdout[-2000:]}\nstderr:\n{result.stderr[-4000:]}"
    )
    return result.stdout


# -- deep graphs -------------------------------------------------------------------------------
@pytest.mark.slow
def test_million_node_chain_backpropagates_and_is_freed():
    out = run_script("""
        import gc, weakref
        import nbgrad as ng
        x0 = ng.tensor([1.0, 2.0], requires_grad=True)
        x = x0
        for _ in range(10**6):
            x = x + 1
        print("value", x.tolist())
        root = weakref.ref(x.grad_fn)
        x.sum().backward()
        print("grad", x0.grad.tolist())
        gc.disable()
        del x
        print("freed", root() is None)
    """)
    assert "value [1000001.0, 1000002.0]" in out
    assert "grad [1.0, 1.0]" in out
    assert "freed True" in out


@pytest.mark.slow
def test_million_node_chain_of_saving_ops():
    out = run_script("""
        import nbgrad as ng
        x0 = ng.tensor([1.0], requires_grad=True, dtype=ng.float64)
        x = x0
        for _ in range(10**6):
            x = x * 1.0
        x.backward()
        print("grad", x0.grad.tolist())
        del x
    """)
    assert "grad [1.0]" in out


def test_deep_chain_backward_without_recursion():
    """10^5 nodes, in process: far deeper than Python's recursion limit."""
    x0 = ng.tensor([1.0, 2.0], requires_grad=True)
    x = x0
    for _ in range(100_000):
        x = x + 1
    x.sum().backward()
    assert x0.grad.tolist() == [1.0, 1.0]
    del x  # freeing the chain must not overflow the stack either


def test_deep_chain_autograd_grad_and_retain_graph():
    x0 = ng.tensor(2.0, requires_grad=True, dtype=ng.float64)
    x = x0
    for _ in range(50_000):
        x = x * 1.0 + 0.0
    (g,) = ng.autograd.grad(x, x0, retain_graph=True)
    assert g.item() == 1.0
    x.backward()
    assert x0.grad.item() == 1.0
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        x.backward()


def test_deep_chain_create_graph():
    x0 = ng.tensor(0.5, requires_grad=True, dtype=ng.float64)
    x = x0
    for _ in range(20_000):
        x = x + x0 * x0 * 0.0001
    (g,) = ng.autograd.grad(x, x0, create_graph=True)
    assert g.item() == pytest.approx(1 + 20_000 * 2 * 0.5 * 0.0001)
    assert g.requires_grad
    (h,) = ng.autograd.grad(g, x0)
    assert h.item() == pytest.approx(20_000 * 2 * 0.0001)


def test_a_view_of_a_view_a_hundred_thousand_deep():
    """Each view keeps only its base (never the chain): making 10^5 views of views, one
    in-place change through the last and backward are each linear, without recursion."""
    x = ng.tensor(np.arange(6.0), requires_grad=True)
    y = x * 1
    v = y
    for i in range(100_000):
        v = v.view(2, 3) if i % 2 == 0 else v.view(6)
    assert v._base is y
    v[1:].mul_(2)
    (y * y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 8.0, 16.0, 24.0, 32.0, 40.0])


def test_wide_fan_out_graph():
    x = ng.tensor([1.0, 2.0], requires_grad=True, dtype=ng.float64)
    total = sum((x * float(i)).sum() for i in range(20_000))
    total.backward()
    assert x.grad.tolist() == pytest.approx([sum(range(20_000))] * 2)


def test_deep_view_chain_and_inplace():
    x = ng.tensor(np.arange(2000.0), requires_grad=True)
    y = x * 1
    v = y
    for _ in range(999):
        v = v[1:]
    v.mul_(3)  # an in-place change through a view of a view of ... of y
    y.sum().backward()
    expected = np.ones(2000)
    expected[999:] = 3
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_a_recorded_operation_keeps_two_tracked_objects_alive():
    """``y = y + 1`` and ``y = y * 0.5`` keep a node and its tuple of next nodes alive, nothing
    more: Python's garbage collector walks every live container object, and a deep graph
    holds one node per operation (the benchmark's depth row)."""
    x = ng.zeros((), requires_grad=True)
    y = x + 1
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(500):
        y = (y + 1) * 0.5  # stays finite (a factor of 2 would overflow float32)
    gc.collect()  # also untracks tuples that hold only numbers (the saved 0.5)
    assert len(gc.get_objects()) - before <= 2 * 1000 + 20


# -- graphs freed by reference counting ------------------------------------------------------------
def test_graph_freed_on_del_without_gc():
    with gc_disabled():
        x = ng.tensor([1.0, 2.0], requires_grad=True)
        h = x.exp()
        y = (h * x).sin().sum()
        refs = [weakref.ref(y.grad_fn), weakref.ref(h.grad_fn), weakref.ref(h)]
        del h  # still saved by MulBackward0 (PyTorch keeps it alive too)
        del y
        assert all(r() is None for r in refs), "the graph outlives its last tensor"
        acc = x.grad_fn  # a leaf has no grad_fn; its accumulator is held weakly
        assert acc is None


def test_graph_freed_after_backward_without_gc():
    with gc_disabled():
        x = ng.tensor([1.0, 2.0], requires_grad=True)
        y = (x.tanh() * x).sum()
        node = weakref.ref(y.grad_fn)
        y.backward()
        del y
        assert node() is None
        assert x.grad is not None


def test_accumulator_freed_with_graph():
    with gc_disabled():
        x = ng.tensor([1.0], requires_grad=True)
        y = x * 2
        acc = weakref.ref(y.grad_fn.next_functions[0][0])
        del y
        assert acc() is None
        x_ref = weakref.ref(x)
        del x
        assert x_ref() is None


def test_leaf_freed_when_unreferenced_even_with_graph_alive():
    """The graph holds the leaf (AccumulateGrad.variable); deleting both frees both."""
    with gc_disabled():
        x = ng.tensor([1.0], requires_grad=True)
        y = x * 2
        x_ref, y_ref = weakref.ref(x), weakref.ref(y)
        del x, y
        assert x_ref() is None and y_ref() is None


def test_saved_output_does_not_keep_itself_alive():
    with gc_disabled():
        x = ng.tensor([1.0, 2.0], requires_grad=True)
        for op in (lambda t: t.exp(), lambda t: t.sigmoid(), lambda t: t.tanh(), lambda t: t.relu(),
                   lambda t: t.sqrt(), lambda t: t.softmax(0), lambda t: t.max(), lambda t: t.norm()):
            y = op(x)
            refs = (weakref.ref(y), weakref.ref(y.grad_fn))
            del y
            assert refs[0]() is None and refs[1]() is None


def test_views_and_inplace_freed_without_gc():
    with gc_disabled():
        x = ng.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1
        v = y[0]
        v.mul_(2)  # CopySlices on y, v's grad_fn rebuilt
        w = y.t()
        refs = [weakref.ref(t) for t in (y, v, w)] + [weakref.ref(y.grad_fn), weakref.ref(v.grad_fn)]
        del y, v, w
        assert all(r() is None for r in refs)


def test_a_base_remembers_only_its_live_views_outside_the_graph():
    """A linear layer makes a view of its weight (``W.t()``) on every call. In the graph the
    weight keeps no record of them (a view notices an in-place change of its base by the
    version counter). Outside it (under ``no_grad``, or of a tensor without grad) the base
    remembers each view, whose ``requires_grad`` follows its own, only while it lives:
    without waiting for the GC."""
    with gc_disabled():
        w = ng.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        for _ in range(100):
            w.t()
        assert w._views is None
        with ng.no_grad():
            for _ in range(100):
                w.t()
            kept = w.t()
        assert len(w._views) == 1

        y = ng.zeros(2, 2)
        dead = y[0]
        live = y.t()
        del dead
        assert len(y._views) == 1
        y.mul_(w)  # recorded: y's grad_fn is now MulBackward0, and live's comes from it
        assert live.requires_grad
        assert type(live.grad_fn).__name__ == "AsStridedBackward0"  # as PyTorch's
        assert live.grad_fn.next_functions[0][0] is y.grad_fn
        assert kept._base is w


def test_a_gradient_held_elsewhere_is_copied_into_grad():
    """AccumulateGrad copies a new gradient into .grad. Each case below would leave .grad
    sharing memory with something else (or read-only, or column-major) if it took the
    gradient over instead: two leaves given one tensor, your gradient, views of it, a
    hook's copy, pieces of one array, what a custom function returns or keeps. (Taking
    over a gradient nothing else holds, as PyTorch does, was measured at under 1% of a
    small MLP's step; these are the cases such a change must keep right.)"""
    def grads_of(make_loss, *leaves, gradient=None):
        make_loss().backward(gradient)
        return [leaf.grad for leaf in leaves]

    def shares(grad, other):
        return np.shares_memory(grad._data, other._data if hasattr(other, "_data") else other)

    a, b = ng.randn(3, requires_grad=True), ng.randn(3, requires_grad=True)
    ga, gb = grads_of(lambda: (a + b).sum(), a, b)
    assert not shares(ga, gb)

    mine = ng.ones(3)
    x = ng.randn(3, requires_grad=True)
    (gx,) = grads_of(lambda: x, x, gradient=mine)
    assert not shares(gx, mine)

    mine2 = ng.ones(3, 2)
    w = ng.randn(2, 3, requires_grad=True)
    (gw,) = grads_of(lambda: w.t(), w, gradient=mine2)
    assert not shares(gw, mine2)

    mine3 = ng.ones(6)
    r = ng.randn(2, 3, requires_grad=True)
    (gr,) = grads_of(lambda: r.view(6), r, gradient=mine3)  # a contiguous view of yours
    assert not shares(gr, mine3)

    kept = []
    v = ng.randn(3, requires_grad=True)
    v.register_hook(kept.append)
    (gv,) = grads_of(lambda: (v * 2).sum(), v)
    assert not shares(gv, kept[0])

    c1, c2 = ng.randn(2, requires_grad=True), ng.randn(2, requires_grad=True)
    g1, g2 = grads_of(lambda: ng.cat([c1, c2]).sum(), c1, c2)
    assert not shares(g1, g2)

    def returning(make_gradient):
        """A custom function whose backward returns ``make_gradient()``, whatever arrives."""
        class Returning(ng.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 1

            @staticmethod
            def backward(ctx, g):
                return make_gradient()
        return Returning

    def read_only():
        frozen = np.ones(3, dtype=np.float32)
        frozen.flags.writeable = False
        with warnings.catch_warnings():  # from_numpy's warning about it: test_parity.py
            warnings.simplefilter("ignore")
            return ng.from_numpy(frozen)

    column_major = returning(lambda: ng.from_numpy(np.ones((3, 2), dtype=np.float32).T))
    m = ng.randn(2, 3, requires_grad=True)
    (gm,) = grads_of(lambda: column_major.apply(m).sum(), m)
    assert gm.is_contiguous()  # laid out as a copy would be

    frozen = returning(read_only)
    q = ng.randn(3, requires_grad=True)
    grads_of(lambda: frozen.apply(q).sum(), q)
    grads_of(lambda: frozen.apply(q).sum(), q)  # adds into .grad: it must be writable
    assert q.grad.tolist() == [2.0, 2.0, 2.0]

    cache = np.ones(3, dtype=np.float32)
    f = ng.randn(3, requires_grad=True)
    (gf,) = grads_of(lambda: returning(lambda: ng.from_numpy(cache)).apply(f).sum(), f)
    assert not shares(gf, cache)
    gf.add_(1)
    assert cache.tolist() == [1.0, 1.0, 1.0]


def test_retain_grad_and_hooks_freed_without_gc():
    with gc_disabled():
        x = ng.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        z = y.sum()
        z.backward()
        refs = [weakref.ref(y), weakref.ref(y.grad_fn), weakref.ref(z)]
        del y, z
        assert all(r() is None for r in refs)


def test_custom_function_freed_without_gc():
    class Exp(ng.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)  # saves its own output
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    with gc_disabled():
        x = ng.tensor([1.0, 2.0], requires_grad=True)
        y = Exp.apply(x)
        refs = [weakref.ref(y), weakref.ref(y.grad_fn)]
        del y
        assert all(r() is None for r in refs)


def test_create_graph_freed_without_gc():
    with gc_disabled():
        x = ng.tensor([1.0, 2.0], requires_grad=True, dtype=ng.float64)
        y = (x ** 3).sum()
        (g,) = ng.autograd.grad(y, x, create_graph=True)
        refs = [weakref.ref(g), weakref.ref(g.grad_fn), weakref.ref(y.grad_fn)]
        del g, y
        assert all(r() is None for r in refs)


def test_training_step_creates_no_reference_cycles():
    rng = np.random.default_rng(0)
    X = ng.tensor(rng.standard_normal((32, 8)))
    W = ng.tensor(rng.standard_normal((8, 4)) * 0.1, requires_grad=True)
    b = ng.zeros(4, requires_grad=True)
    with gc_disabled():
        gc.collect()
        for _ in range(50):
            loss = _step(X, W, b)
        del loss
        assert gc.collect() == 0, "training steps left reference cycles for the collector"


# -- memory stays flat ---------------------------------------------------------------------------
def _step(X, W, b, lr=0.01):
    h = (X.mm(W) + b).tanh()
    h.retain_grad()
    logits = h.log_softmax(1)
    loss = -logits[:, 0].mean() + (W * W).sum() * 1e-3
    loss.backward()
    with ng.no_grad():
        for p in (W, b):
            p -= lr * p.grad
            p.grad.zero_()
    return loss.detach()


@pytest.mark.parametrize("gc_enabled", [True, False], ids=["gc_on", "gc_off"])
def test_memory_flat_over_thousands_of_steps(gc_enabled):
    rng = np.random.default_rng(0)
    X = ng.tensor(rng.standard_normal((32, 16)), dtype=ng.float32)
    W = ng.tensor(rng.standard_normal((16, 8)) * 0.1, dtype=ng.float32, requires_grad=True)
    b = ng.zeros(8, requires_grad=True)
    ctx = gc_disabled() if not gc_enabled else _nothing()
    with ctx:
        for _ in range(100):  # warm up caches, counters, lazily created attributes
            _step(X, W, b)
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            base, _ = tracemalloc.get_traced_memory()
            for i in range(2000):
                _step(X, W, b)
                if i == 700:
                    middle, _ = tracemalloc.get_traced_memory()
            current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    # one step allocates a few tens of KB (32x16 float32 arrays); nothing may accumulate
    assert current - base < 256 * 1024, f"memory grew by {(current - base) / 1024:.0f} KiB over 2000 steps"
    assert current - middle < 128 * 1024, f"memory grew by {(current - middle) / 1024:.0f} KiB over the last 1300 steps"
    assert peak - base < 4 * 1024 * 1024, f"peak {(peak - base) / 1024:.0f} KiB above the baseline"


@contextmanager
def _nothing():
    yield


def test_memory_flat_with_retain_graph_dropped():
    """Graphs kept with retain_graph=True are released once their tensors go away."""
    x = ng.tensor(np.ones((100, 100)), requires_grad=True)
    for _ in range(20):
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        for _ in range(500):
            y = (x.exp() * x).sum()
            y.backward(retain_graph=True)
        del y
        current, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert current - base < 200 * 1024, f"memory grew by {(current - base) / 1024:.0f} KiB"


def test_saved_tensors_released_after_backward():
    x = ng.tensor(np.ones((500, 500), dtype=np.float32), requires_grad=True)  # 1 MB per array
    megabyte = 1024 * 1024
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        y = x.exp().sin().tanh().sum()  # saves exp's output (sin's input) and tanh's output
        forward, _ = tracemalloc.get_traced_memory()
        y.backward()  # frees them; x.grad (1 MB) remains
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert forward - start > 1.8 * megabyte, "the forward pass saved less than expected"
    assert after - start < 1.5 * megabyte, f"{(after - start) / 1024:.0f} KiB still held after backward"
    assert y.grad_fn is not None  # the graph is still there; only its saved arrays went


# -- bad inputs raise clear errors --------------------------------------------------------------
def _x(*shape):
    return ng.ones(*shape)


BAD = {
    "add_no_broadcast": lambda: _x(2, 3) + _x(4),
    "mul_no_broadcast": lambda: _x(2, 3, 4) * _x(3, 3, 4),
    "where_no_broadcast": lambda: ng.where(_x(3) > 0, _x(2), _x(3)),
    "maximum_no_broadcast": lambda: ng.maximum(_x(2), _x(3)),
    "pow_no_broadcast": lambda: _x(2) ** _x(3),
    "comparison_no_broadcast": lambda: _x(2) < _x(3),
    "inplace_no_broadcast": lambda: _x(3).add_(_x(2)),
    "inplace_output_shape": lambda: _x(3).add_(_x(2, 3)),
    "setitem_value_shape": lambda: _x(3, 3).__setitem__(0, _x(5)),
    "setitem_advanced_value_shape": lambda: _x(3, 3).__setitem__([0, 1], _x(3, 3)),
    "setitem_mask_value_shape": lambda: _x(4).__setitem__(_x(4) > 0, _x(3)),
    "copy_shape": lambda: _x(3).copy_(_x(4)),
    "mm_mismatch": lambda: _x(2, 3).mm(_x(4, 5)),
    "mm_1d": lambda: _x(3).mm(_x(3, 2)),
    "mv_mismatch": lambda: _x(2, 3).mv(_x(4)),
    "dot_mismatch": lambda: _x(2).dot(_x(3)),
    "matmul_mismatch": lambda: _x(2, 3) @ _x(2, 3),
    "matmul_batch_mismatch": lambda: _x(2, 3, 4) @ _x(3, 4, 2),
    "matmul_0d": lambda: ng.tensor(1.0) @ _x(2),
    "view_invalid": lambda: _x(6).view(4, 4),
    "view_non_contiguous": lambda: _x(3, 4).t().view(-1),
    "reshape_invalid": lambda: _x(6).reshape(5),
    "index_out_of_range": lambda: _x(3)[5],
    "index_array_out_of_range": lambda: _x(3, 2)[[0, 5]],
    "index_second_dim_out_of_range": lambda: _x(3, 2)[:, [0, 7]],
    "too_many_indices": lambda: _x(2)[0, 0],
    "float_index": lambda: _x(2)[1.5],
    "string_index": lambda: _x(2)["a"],
    "float_tensor_index": lambda: _x(3)[ng.tensor([0.0, 1.0])],
    "mask_shape": lambda: _x(3)[ng.tensor([True, False])],
    "negative_step": lambda: _x(3)[::-1],
    "cat_mismatch": lambda: ng.cat([_x(2, 3), _x(2, 4)]),
    "cat_ndim": lambda: ng.cat([_x(2, 3), _x(3)]),
    "stack_mismatch": lambda: ng.stack([_x(2), _x(3)]),
    "sum_dim": lambda: _x(2, 3).sum(5),
    "sum_dims_repeated": lambda: _x(2, 3).sum((0, 0)),
    "softmax_dim": lambda: _x(2, 3).softmax(2),
    "max_dim": lambda: _x(2, 3).max(4),
    "var_dim": lambda: _x(2, 3).var(3),
    "expand_invalid": lambda: _x(3, 2).expand(3, 4),
    "expand_fewer_dims": lambda: _x(3, 2).expand(2),
    "permute_invalid": lambda: _x(2, 3).permute(0, 0),
    "transpose_dim": lambda: _x(2, 3).transpose(0, 3),
    "unsqueeze_dim": lambda: _x(2).unsqueeze(5),
    "squeeze_dim": lambda: _x(2).squeeze(3),
    "flatten_order": lambda: _x(2, 3, 4).flatten(2, 1),
    "sum_to_size_invalid": lambda: _x(2, 3).sum_to_size(4),
    "ragged": lambda: ng.tensor([[1.0, 2.0], [3.0]]),
    "tensor_of_string": lambda: ng.tensor("abc"),
    "tensor_of_object": lambda: ng.tensor([object()]),
    "tensor_of_none": lambda: ng.tensor(None),
    "negative_size": lambda: ng.zeros(-1),
    "float_size": lambda: ng.zeros(2.5),
    "int_requires_grad": lambda: ng.tensor([1, 2], requires_grad=True),
    "backward_non_scalar": lambda: (ng.ones(2, requires_grad=True) * 2).backward(),
    "backward_gradient_shape": lambda: (ng.ones(2, requires_grad=True) * 2).backward(ng.ones(3)),
    "backward_no_graph": lambda: ng.ones(2).sum().backward(),
    "add_string": lambda: _x(2) + "a",
    "exp_list": lambda: ng.exp([1.0]),
    "mm_list": lambda: ng.mm([[1.0]], _x(1, 1)),
    "cat_not_list": lambda: ng.cat(_x(2)),
    "item_many": lambda: _x(3).item(),
    "masked_fill_non_bool": lambda: _x(2).masked_fill(_x(2), 0.0),
    "where_non_bool": lambda: ng.where(_x(2), _x(2), _x(2)),
    "clamp_nothing": lambda: _x(2).clamp(),
    "to_bad_device": lambda: _x(2).to("tpu"),
    "grad_bad_type": lambda: setattr(ng.ones(2, requires_grad=True), "grad", 3),
    "grad_bad_shape": lambda: setattr(ng.ones(2, requires_grad=True), "grad", ng.ones(3)),
    "mean_of_int": lambda: ng.tensor([1, 2]).mean(),
    "norm_bad_p": lambda: _x(2).norm(p="nuc"),
    "arange_zero_step": lambda: ng.arange(0, 3, 0),
    "linspace_negative": lambda: ng.linspace(0, 1, -1),
    "div_rounding": lambda: _x(2).div(2, rounding_mode="up"),
}

NUMPY_WORDS = ("operands could not be broadcast", "ufunc", "ndarray", "axis ", "array is",
               "numpy.", "out of bounds for uint8", "object has no attribute", "could not broadcast")


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_raises_a_clear_error(case):
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is checked below
        BAD[case]()
    err = info.value
    assert type(err) in (TypeError, RuntimeError, IndexError, ValueError, NotImplementedError), (
        f"{type(err).__module__}.{type(err).__name__}: {err}"
    )
    message = str(err)
    assert message.strip(), "an empty error message"
    for word in NUMPY_WORDS:
        assert word not in message, f"NumPy's wording leaks into the message: {message!r}"
    printed = "".join(traceback.format_exception(err))
    assert f"{os.sep}numpy{os.sep}" not in printed, f"a NumPy traceback is shown:\n{printed}"
