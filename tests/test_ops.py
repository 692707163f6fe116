"""Every row of the op table (``opinfo.OPS``) through every check that applies to it.

- gradcheck: float64 finite differences, for each call and for its in-place variant;
- second order: the first derivative (``create_graph=True``) passes gradcheck itself;
- parity with PyTorch, in each of the row's dtypes and call forms (function, method,
  operator): value, dtype, shape, the node's name (PyTorch's must be the table's), the
  ``next_functions`` structure and the gradients, at the samples and at the kinks;
- what backward saves, by behaviour: each tensor argument (a non-leaf) and the result are
  changed in place after the forward, and backward must refuse exactly for what the table
  says is saved, in nbgrad and in PyTorch; saved tensors are freed after one backward;
- the in-place variant against PyTorch (value, node, gradients);
- devices: each call on each device of the ``device`` fixture equals the CPU's.
"""

import numpy as np
import pytest

import nbgrad as ng
from opinfo import OPS, structure

TORCH_MISSING = "PyTorch is not installed: the parity tests need `pip install torch==2.13.0`"
MODIFIED = "modified by an inplace operation"
SECOND_TIME = "Trying to backward through the graph a second time"
TOLERANCE = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-9, atol=1e-12)}


def params(rows, dtypes=False, check=None, torch=False):
    """pytest parameters for ``rows`` (with each of their dtypes if asked). A row where
    nbgrad disagrees with PyTorch on ``check`` is a strict xfail; with ``torch``, a row
    PyTorch cannot run is skipped, saying why."""
    out = []
    for row in rows:
        marks = [pytest.mark.xfail(strict=True, reason=row.xfail[check])] if check in row.xfail else []
        if torch and row.not_in_torch:
            marks.append(pytest.mark.skip(reason=row.not_in_torch))
        for dtype in (row.dtypes if dtypes else [None]):
            values = (row, dtype) if dtypes else (row,)
            out.append(pytest.param(*values, id=f"{row.id}-{dtype}" if dtypes else row.id, marks=marks))
    return out


def in_place(name):
    """The in-place variant as a call: it changes a non-leaf copy of its first argument
    (a leaf that requires grad cannot be changed in place) and must return that copy."""

    def call(M, x, *args, **kwargs):
        target = x * 1
        result = getattr(target, name)(*args, **kwargs)
        assert result is target, f"{name} returned a new tensor instead of its input"
        return result

    return call


def in_place_samples(row):
    """The samples an in-place variant can take: the result has its first argument's shape."""
    fits = []
    for sample in row.sample_inputs():
        out, leaves = forward(ng, row.call, sample, "float64")
        if tuple(out.shape) == tuple(leaves[0].shape):
            fits.append(sample)
    assert fits, f"{row.id}: no sample fits {row.inplace}"
    return fits


def forward(M, call, sample, dtype, device="cpu", prepare=lambda t: t):
    """``call`` on the sample's tensors under ``M``: (result, the leaves). ``prepare``
    maps each leaf to the tensor actually passed."""
    leaves = [leaf.build(M, getattr(M, dtype), device) for leaf in sample.leaves()]
    args, kwargs = sample.arguments(M, [prepare(t) for t in leaves])
    return call(M, *args, **kwargs), leaves


def backward(M, out):
    """Backward of a weighted sum of ``out``: every element gets its own gradient."""
    weights = np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape))
    (out * M.tensor(weights, dtype=out.dtype, device=out.device)).sum().backward()


def forward_backward(M, call, sample, dtype, device="cpu"):
    out, leaves = forward(M, call, sample, dtype, device)
    backward(M, out)
    return out, leaves


def differentiable_function(call, sample, leaves):
    """``call`` as a function of the leaves that require grad (what gradcheck varies)."""

    def function(*varied):
        supply = iter(varied)
        tensors = [next(supply) if t.requires_grad else t for t in leaves]
        args, kwargs = sample.arguments(ng, tensors)
        return call(ng, *args, **kwargs)

    return function, tuple(t for t in leaves if t.requires_grad)


# -- finite differences ------------------------------------------------------------------------
@pytest.mark.parametrize("row", params(r for r in OPS if r.gradcheck))
def test_gradcheck(row):
    calls = [(row.call, row.sample_inputs())]
    if row.inplace:
        calls.append((in_place(row.inplace), in_place_samples(row)))
    for call, samples in calls:
        for sample in samples:
            _, leaves = forward(ng, call, sample, "float64")
            function, varied = differentiable_function(call, sample, leaves)
            assert ng.autograd.gradcheck(function, varied, eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("row", params(r for r in OPS if r.inplace))
def test_in_place_variant_computes_the_same_values(row):
    for sample in in_place_samples(row):
        expected, _ = forward(ng, row.call, sample, "float64")
        got, _ = forward(ng, in_place(row.inplace), sample, "float64")
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("row", params(r for r in OPS if r.inplace))
def test_in_place_variant_refuses_a_leaf_that_requires_grad(row):
    """PyTorch's rule and message: the leaf's value is what its gradient is taken at."""
    for sample in in_place_samples(row):
        leaves = [leaf.build(ng, ng.float64) for leaf in sample.leaves()]
        (first, *rest), kwargs = sample.arguments(ng, leaves)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            getattr(first, row.inplace)(*rest, **kwargs)


@pytest.mark.parametrize("row", params(r for r in OPS if r.second_order))
def test_second_order_gradcheck(row):
    """The gradient, built with create_graph=True, is differentiable and right (nbgrad has
    no gradgradcheck: the first derivative goes through gradcheck as a function)."""
    for sample in row.sample_inputs():
        _, leaves = forward(ng, row.call, sample, "float64")
        function, varied = differentiable_function(row.call, sample, leaves)

        def first_derivative(*inputs):
            out = function(*inputs)
            weights = ng.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)), dtype=ng.float64)
            grads = ng.autograd.grad((out * weights).sum(), inputs, create_graph=True, allow_unused=True)
            return tuple(g for g in grads if g is not None)

        assert ng.autograd.gradcheck(first_derivative, varied, eps=1e-6, atol=1e-5, rtol=1e-3)


# -- parity with PyTorch -------------------------------------------------------------------------
def assert_same_tensor(t, n, dtype, where):
    assert tuple(n.shape) == tuple(t.shape), f"{where}: shape {tuple(n.shape)}, torch {tuple(t.shape)}"
    assert str(n.dtype) == str(t.dtype).replace("torch.", "nbgrad."), f"{where}: dtype {n.dtype}, torch {t.dtype}"
    np.testing.assert_allclose(n.detach().numpy(), t.detach().numpy(force=True), equal_nan=True, err_msg=where,
                               **TOLERANCE[dtype])


def assert_matches_torch(torch, call, sample, dtype, grad_fn, where):
    (t_out, t_leaves), (n_out, n_leaves) = (forward_backward(M, call, sample, dtype) for M in (torch, ng))
    t_name = type(t_out.grad_fn).__name__
    assert t_name == grad_fn, f"{where}: PyTorch's node is {t_name}, the table says {grad_fn}"
    assert structure(n_out.grad_fn) == structure(t_out.grad_fn), f"{where}: the graph differs"
    assert_same_tensor(t_out, n_out, dtype, f"{where}: result")
    for i, (t, n) in enumerate(zip(t_leaves, n_leaves)):
        if t.grad is None:
            assert n.grad is None, f"{where}: input {i} has a gradient, torch's has none"
        else:
            assert n.grad is not None, f"{where}: input {i} has no gradient"
            assert_same_tensor(t.grad, n.grad, dtype, f"{where}: gradient of input {i}")


@pytest.mark.parametrize("row, dtype", params(OPS, dtypes=True, check="parity", torch=True))
def test_matches_torch(row, dtype):
    torch = pytest.importorskip("torch", reason=TORCH_MISSING)
    for form, call in row.forms.items():
        for k, sample in enumerate(row.sample_inputs() + row.sample_inputs(kinks=True)):
            if form == "operator" and sample.kwargs:
                continue  # an operator takes no keywords (add's alpha)
            assert_matches_torch(torch, call, sample, dtype, row.grad_fn, f"{row.id} ({form}), sample {k}")


@pytest.mark.parametrize("row, dtype", params([r for r in OPS if r.inplace], dtypes=True, torch=True))
def test_in_place_variant_matches_torch(row, dtype):
    torch = pytest.importorskip("torch", reason=TORCH_MISSING)
    for k, sample in enumerate(in_place_samples(row)):
        assert_matches_torch(torch, in_place(row.inplace), sample, dtype, row.grad_fn, f"{row.inplace}, sample {k}")


# -- what backward saves -------------------------------------------------------------------------
def outcomes(M, row, sample, dtype):
    """For each argument (by index) and the "output", what backward does once it changed."""
    result = {}
    for target in [*range(len(sample.leaves())), "output"]:
        inputs = []

        def copy(t, inputs=inputs):  # non-leaves, so that they may be changed in place
            inputs.append(t * 1 if t.requires_grad else t)
            return inputs[-1]

        out, _ = forward(M, row.call, sample, dtype, prepare=copy)
        try:
            (out if target == "output" else inputs[target]).add_(1)
            out.sum().backward()
            result[target] = "fine"
        except RuntimeError as error:
            result[target] = "modified" if MODIFIED in str(error) else "refused"
    return result


def declared(row, n_arguments):
    """The targets the table says backward saved: changing them must make backward refuse."""
    parts = set(row.saves.split("+"))
    saved = set()
    if parts & {"input", "inputs"}:
        saved.add(0)
    if parts & {"other", "inputs"}:
        saved.update(range(1, n_arguments))
    if "output" in parts:
        saved.add("output")
    return saved


def modified(result):
    return {target for target, what in result.items() if what == "modified"}


@pytest.mark.parametrize("row", params(OPS, check="saves"))
def test_saves_what_the_table_says(row):
    for k, sample in enumerate(row.sample_inputs()):
        got = outcomes(ng, row, sample, row.dtypes[0])
        want = declared(row, len(sample.leaves()))
        assert modified(got) == want, f"sample {k}: backward refuses after changing {modified(got)}, " \
                                      f"the table says {row.saves!r} ({want})"


@pytest.mark.parametrize("row", params(OPS, check="torch_saves", torch=True))
def test_saves_what_torch_saves(row):
    torch = pytest.importorskip("torch", reason=TORCH_MISSING)
    for k, sample in enumerate(row.sample_inputs()):
        t_result = outcomes(torch, row, sample, row.dtypes[0])
        assert modified(t_result) == declared(row, len(sample.leaves())), (
            f"sample {k}: PyTorch refuses after changing {modified(t_result)}, the table says {row.saves!r}")
        assert outcomes(ng, row, sample, row.dtypes[0]) == t_result, f"sample {k}: torch {t_result}"


def backward_twice(M, row, sample):
    out, leaves = forward_backward(M, row.call, sample, "float64")
    try:
        backward(M, out)
    except RuntimeError as error:
        return SECOND_TIME in str(error), None
    return False, [None if t.grad is None else t.grad.detach().numpy() for t in leaves]


@pytest.mark.parametrize("row", params(r for r in OPS if r.saves != "nothing"))
def test_saved_tensors_are_freed_after_backward(row):
    for sample in row.sample_inputs():
        refused, _ = backward_twice(ng, row, sample)
        assert refused, f"a second backward went through a node that saves {row.saves!r}"


@pytest.mark.parametrize("row", params(OPS, check="second_backward", torch=True))
def test_second_backward_matches_torch(row):
    """Refused where PyTorch frees what it saved (numbers and indices too), else the
    gradients accumulate twice, as PyTorch's."""
    torch = pytest.importorskip("torch", reason=TORCH_MISSING)
    for k, sample in enumerate(row.sample_inputs()):
        (t_refused, t_grads), (n_refused, n_grads) = (backward_twice(M, row, sample) for M in (torch, ng))
        assert n_refused == t_refused, f"sample {k}: torch refuses a second backward: {t_refused}"
        for t, n in zip(t_grads or (), n_grads or ()):
            assert (t is None) == (n is None)
            if t is not None:
                np.testing.assert_allclose(n, t, **TOLERANCE["float64"])


# -- devices -------------------------------------------------------------------------------------
def host(t):
    """A tensor's values as a NumPy array, copied from its device explicitly."""
    return None if t is None else t.detach().cpu().numpy()


@pytest.mark.parametrize("row", params(OPS))
def test_on_device_matches_cpu(row, device):
    calls = [(row.call, row.sample_inputs())]
    if row.inplace:
        calls.append((in_place(row.inplace), in_place_samples(row)))
    for call, samples in calls:
        for sample in samples:
            got_out, got_leaves = forward_backward(ng, call, sample, "float64", device)
            want_out, want_leaves = forward_backward(ng, call, sample, "float64")
            assert got_out.device == ng.device(device)
            assert type(got_out.grad_fn).__name__ == type(want_out.grad_fn).__name__
            np.testing.assert_allclose(host(got_out), host(want_out), rtol=1e-6, atol=1e-7)
            for got, want in zip(got_leaves, want_leaves):
                assert (got.grad is None) == (want.grad is None)
                if want.grad is not None:
                    assert got.grad.device == got.device
                    np.testing.assert_allclose(host(got.grad), host(want.grad), rtol=1e-6, atol=1e-7)
