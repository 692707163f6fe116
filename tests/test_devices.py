"""Devices: every test runs on each device of the ``device`` fixture (conftest.py).

"cpu" always runs; "cuda" runs where ``nbgrad.cuda.is_available()`` (CuPy and a usable
NVIDIA GPU) and is skipped with that reason elsewhere. Results computed on the device are
compared with the same computation on the CPU, values and gradients, after an explicit
``.cpu()``. Nothing here fakes a GPU: without one, the "cuda" cases do not run (the
NumPy path of the same code does, through the "cpu" cases).
"""

import contextlib
import copy

import numpy as np
import pytest

import nbgrad as ng
import nbgrad.nn.functional as F
from nbgrad import backend, nn

MIXED = ("Expected all tensors to be on the same device, but found at least two devices, "
         "cuda:0 and cpu!")


def host(t):
    """A tensor's values as a NumPy array, copied from its device explicitly."""
    return None if t is None else t.detach().cpu().numpy()


def mixing_raises(device, match="Expected all tensors to be on the same device"):
    """Mixing ``device`` with the CPU: PyTorch's error on a GPU, fine on the CPU itself."""
    if device == "cpu":
        return contextlib.nullcontext()
    return pytest.raises(RuntimeError, match=match)


def run(fn, arrays, device, differentiable=True):
    """``fn`` on tensors made from ``arrays`` on ``device``: the output's values and, when
    it is differentiable, the gradients of a weighted sum of it, all on the host."""
    inputs = [ng.tensor(a, device=device, requires_grad=differentiable and a.dtype.kind == "f")
              for a in arrays]
    out = fn(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    for o in outs:
        assert o.device == ng.device(device), f"result on {o.device}, expected {device}"
    if not differentiable or not any(o.requires_grad for o in outs):
        return [host(o) for o in outs], []
    total = 0
    for k, o in enumerate(outs):
        if o.requires_grad:
            weights = ng.tensor(np.linspace(0.5, 1.5, o.numel()).reshape(tuple(o.shape)),
                                dtype=o.dtype, device=device)
            total = total + (o * weights).sum() * (k + 1)
    total.backward()
    for t in inputs:
        if t.grad is not None:
            assert t.grad.device == t.device
    return [host(o) for o in outs], [host(t.grad) for t in inputs]


def assert_same_as_cpu(fn, arrays, device, differentiable=True):
    got = run(fn, arrays, device, differentiable)
    want = run(fn, arrays, "cpu", differentiable)
    for a, b in zip(got[0] + got[1], want[0] + want[1]):
        if b is None:
            assert a is None
        else:
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((3, 4))
IDX = np.array([2, 0, 2, 1])
MASK = A > 0
INT = np.array([[7, -3, 100], [-100, 5, 2]], dtype=np.int64)

# Each operation alone runs on each device in test_ops.py (the op table); here, losses.
LOSSES = {
    "mse_loss": lambda z, t, w: F.mse_loss(z[:, :2], z[:, 1:]),  # both sides differentiable
    "bce_with_logits": lambda z, t, w: F.binary_cross_entropy_with_logits(z, (z.detach() > 0).double()),
    "cross_entropy": lambda z, t, w: F.cross_entropy(z, t),
    "cross_entropy_weight": lambda z, t, w: F.cross_entropy(z, t, weight=w),
    "cross_entropy_ignore": lambda z, t, w: F.cross_entropy(z, t, ignore_index=1),
    "cross_entropy_smoothing": lambda z, t, w: F.cross_entropy(z, t, weight=w, label_smoothing=0.1),
    "cross_entropy_sum": lambda z, t, w: F.cross_entropy(z, t, reduction="sum"),
    "nll_none": lambda z, t, w: F.nll_loss(z.log_softmax(1), t, reduction="none"),
    "cross_entropy_soft": lambda z, t, w: F.cross_entropy(z, z.detach().softmax(1)),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_match_cpu(device, name):
    logits = RNG.standard_normal((5, 3))
    target = np.array([0, 2, 1, 1, 2])
    weight = np.array([0.2, 1.0, 3.0])

    def loss(z):
        t = ng.tensor(target, device=z.device)
        w = ng.tensor(weight, device=z.device)
        return LOSSES[name](z, t, w)

    assert_same_as_cpu(loss, [logits], device)


def test_nll_loss_higher_order_on_device(device):
    """create_graph through NllLossBackward0 (the recorded branch) stays on the device."""
    z = ng.tensor(RNG.standard_normal((4, 3)), device=device, requires_grad=True)
    t = ng.tensor([0, 2, 1, 1], device=device)
    (g,) = ng.autograd.grad(F.cross_entropy(z, t), z, create_graph=True)
    assert g.device == z.device
    (g * g).sum().backward()
    assert z.grad.device == z.device


NO_GRAD = {
    "argmax_argmin": lambda a: (a.argmax(), a.argmin(1), a.argmax(1, keepdim=True),
                                a.argmax(keepdim=True)),
    "comparisons": lambda a, b: (a == b, a < b, a >= 0.0, a.ne(b), ng.isclose(a, a + 1e-9)),
    "logic": lambda a, b: ((a > 0) & (b > 0), (a > 0) | (b > 0), (a > 0) ^ (b > 0), ~(a > 0),
                           (a > 0).logical_not(), (a > 0).any(1), (a > 0).all()),
    "nan_inf": lambda a, b: ((a / 0.0).isinf(), (a - a).isnan(), a.isfinite()),
    "integers": lambda i: (i + 300, i * 2, i // 3, ng.div(i, 4, rounding_mode="trunc"),
                           i.sum(), i.max(), i.abs(), i.float().mean(), -i),
    "int8_wraps": lambda i: (i.to(ng.int8) + 300, i.to(ng.int8) * -1000),
    "integer_division": lambda i: (i / 4, i.to(ng.int32) // -3),
}


@pytest.mark.parametrize("name", sorted(NO_GRAD))
def test_nondifferentiable_matches_cpu(device, name):
    arrays = [INT] if name in ("integers", "int8_wraps", "integer_division") else [A, B]
    if name == "argmax_argmin":
        arrays = [A]
    assert_same_as_cpu(NO_GRAD[name], arrays, device, differentiable=False)


def test_equal_allclose_item_tolist(device):
    a = ng.tensor([[1.5, 2.0], [3.0, 4.0]], device=device)
    assert ng.equal(a, a.clone()) and ng.allclose(a, a + 1e-9)
    assert a[0, 0].item() == 1.5 and float(a[1, 1]) == 4.0 and int(a[1, 0]) == 3
    assert a.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert bool(a.sum() > 10) is True
    assert list(a.shape) == [2, 2] and a.numel() == 4


# -- in-place operations ----------------------------------------------------------------
def test_inplace_through_a_view_matches_cpu(device):
    """mul_ on a view of a non-leaf: the base's node becomes CopySlices, on any device."""
    def write_through_view(a, b):
        c = a * 1
        c[:, 1:3].mul_(b[:, :2])
        return c

    assert_same_as_cpu(write_through_view, [A, B], device)


def test_inplace_version_and_leaf_rules_on_device(device):
    w = ng.ones(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.add_(1)
    y = w * 2
    z = y * y
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    with ng.no_grad():
        w.sub_(0.5)  # an optimizer step
    assert w._version == 1 and w.device == ng.device(device)


def test_expanded_view_cannot_be_written(device):
    """A zero stride over a dimension of size > 1 repeats an element, on either device."""
    e = ng.zeros(1, device=device).expand(3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.add_(1)


# -- indexing ---------------------------------------------------------------------------
def test_index_with_raw_device_array(device):
    """A raw NumPy (CPU) or CuPy (GPU) integer array indexes like a tensor of it."""
    xp = backend.module_for(device)
    x = ng.tensor(A, device=device, requires_grad=True)
    rows = xp.asarray([2, 0, 2])
    y = x[rows]
    assert y.device == x.device
    (y * 2).sum().backward()
    np.testing.assert_array_equal(host(x.grad), np.array([[2.0] * 4, [0.0] * 4, [4.0] * 4]))
    mask = xp.asarray(MASK)
    np.testing.assert_array_equal(host(x[mask]), A[MASK])


def test_cpu_index_tensor_indexes_any_device(device):
    """As in PyTorch, CPU indices serve a tensor on any device."""
    x = ng.tensor(A, device=device, requires_grad=True)
    i = ng.tensor(IDX)  # on the CPU
    y = x[:, i]
    assert y.device == x.device
    y.sum().backward()
    np.testing.assert_array_equal(host(x.grad), np.tile([1.0, 1.0, 2.0, 0.0], (3, 1)))
    z = x.detach().clone()
    z[ng.tensor([0, 2])] = 7.0
    assert (host(z)[[0, 2]] == 7.0).all()


def test_device_index_into_cpu_tensor_raises(device):
    x = ng.tensor(A)
    i = ng.tensor(IDX, device=device)
    with mixing_raises(device, "indices should be either on cpu or on the same device as the "
                               r"indexed tensor \(cpu\)"):
        x[:, i]


# -- creation and moving --------------------------------------------------------------
CREATION = {
    "tensor": lambda d: ng.tensor([[1.0, 2.0]], device=d),
    "tensor_int": lambda d: ng.tensor([1, 2], device=d),
    "zeros": lambda d: ng.zeros(2, 3, device=d),
    "ones": lambda d: ng.ones((2,), dtype=ng.float64, device=d),
    "empty": lambda d: ng.empty(2, device=d),
    "full": lambda d: ng.full((2, 2), 7, device=d),
    "arange": lambda d: ng.arange(0, 5, 2, device=d),
    "linspace": lambda d: ng.linspace(0, 1, 5, device=d),
    "eye": lambda d: ng.eye(3, device=d),
    "as_tensor": lambda d: ng.as_tensor(np.ones(3), device=d),
    "rand": lambda d: ng.rand(3, device=d),
    "randn": lambda d: ng.randn(3, device=d),
    "randint": lambda d: ng.randint(0, 5, (3,), device=d),
    "randperm": lambda d: ng.randperm(4, device=d),
    "device_object": lambda d: ng.zeros(1, device=ng.device(d)),
}


@pytest.mark.parametrize("name", sorted(CREATION))
def test_creation_on_device(device, name):
    t = CREATION[name](device)
    assert t.device == ng.device(device)
    assert t.is_cuda == (device == "cuda")
    if device == "cuda":
        assert str(t.device) == "cuda:0" and t.device == ng.device("cuda", 0)


@pytest.mark.parametrize("make", ["zeros_like", "ones_like", "empty_like", "rand_like",
                                  "randn_like", "new_zeros", "new_ones", "new_full", "new_tensor"])
def test_like_and_new_follow_the_source_device(device, make):
    src = ng.ones(2, 3, device=device)
    if make.startswith("new_"):
        args = {"new_full": ((2,), 3.0), "new_tensor": ([1.0, 2.0],)}.get(make, (2,))
        t = getattr(src, make)(*args)
    else:
        t = getattr(ng, make)(src)
    assert t.device == src.device


def test_random_values_do_not_depend_on_the_device(device):
    ng.manual_seed(3)
    a = ng.randn(5, device=device)
    ng.manual_seed(3)
    b = ng.randn(5)
    np.testing.assert_array_equal(host(a), host(b))


def test_tensor_of_a_tensor_keeps_its_device(device):
    src = ng.ones(2, device=device)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        t = ng.tensor(src, dtype=ng.float64)
    assert t.device == src.device and t.dtype == ng.float64
    t.add_(1)
    assert host(src).tolist() == [1.0, 1.0]  # a copy


def test_tensor_from_a_raw_device_array(device):
    """A NumPy array makes a CPU tensor, a CuPy array a GPU one; as_tensor shares it."""
    xp = backend.module_for(device)
    array = xp.asarray([1.0, 2.0])
    t = ng.tensor(array)
    assert t.device == ng.device(device) and t.dtype == ng.float64
    shared = ng.as_tensor(array)
    array[0] = 5.0
    assert host(shared).tolist() == [5.0, 2.0] and host(t).tolist() == [1.0, 2.0]
    assert ng.tensor(array, device="cpu").device == ng.device("cpu")


def test_round_trip_and_gradient_through_the_copy(device):
    """x (CPU) -> device -> CPU: ToCopyBackward0 sends each gradient back where it came from."""
    x = ng.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x.to(device, ng.float64)  # a copy even on the CPU (the dtype changes)
    assert y.device == ng.device(device) and y.dtype == ng.float64
    assert type(y.grad_fn).__name__ == "ToCopyBackward0"
    z = (y * y).cpu()
    assert z.device == ng.device("cpu")
    z.sum().backward()
    assert x.grad.device == ng.device("cpu") and x.grad.dtype == ng.float32
    np.testing.assert_allclose(host(x.grad), [2.0, -4.0, 6.0])

    w = ng.tensor([1.0, 2.0], device=device, requires_grad=True)
    (w.cpu() * 3).sum().backward()
    assert w.grad.device == ng.device(device)
    np.testing.assert_allclose(host(w.grad), [3.0, 3.0])


def test_to_cuda_cpu_spellings(device):
    x = ng.tensor([1.0, 2.0])
    assert x.to(device).device == ng.device(device)
    assert x.to(ng.device(device)).device == ng.device(device)
    assert x.to(device=device).device == ng.device(device)
    assert x.to(ng.zeros(1, dtype=ng.float64, device=device)).device == ng.device(device)
    moved = x.to(device)
    assert moved.cpu().device == ng.device("cpu")
    assert moved.to(device) is moved  # already there: the same tensor, as in PyTorch
    assert x.cpu() is x
    if device == "cuda":
        assert x.cuda().device == ng.device("cuda:0")
        assert x.cuda(0).device == ng.device("cuda", 0)
        assert x.to(0).device == ng.device("cuda:0")
        assert x.cuda().type() == "nbgrad.cuda.FloatTensor"


def test_copy_across_devices_and_its_gradient(device):
    """copy_ is the one operation that crosses devices; the source's gradient goes home."""
    dst = ng.zeros(3, device=device) * 1
    src = ng.tensor([1.0, 2.0, 3.0], requires_grad=True)  # on the CPU
    dst.copy_(src)
    assert dst.device == ng.device(device)
    (dst * 2).sum().backward()
    assert src.grad.device == ng.device("cpu")
    np.testing.assert_allclose(host(src.grad), [2.0, 2.0, 2.0])


def test_numpy_on_device(device):
    t = ng.tensor([1.0, 2.0], device=device)
    np.testing.assert_array_equal(t.cpu().numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(t.numpy(force=True), [1.0, 2.0])
    if device == "cpu":
        assert t.numpy() is t._data
        return
    with pytest.raises(TypeError) as error:
        t.numpy()
    assert str(error.value) == ("can't convert cuda:0 device type tensor to numpy. Use "
                                "Tensor.cpu() to copy the tensor to host memory first.")
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        np.asarray(t)
    with pytest.raises(TypeError, match="can't convert cuda:0"):  # checked before grad
        ng.ones(1, device=device, requires_grad=True).numpy()


def test_repr_shows_the_device(device):
    t = ng.tensor([1.0, 2.0], device=device, requires_grad=True)
    suffix = ", device='cuda:0'" if device == "cuda" else ""
    assert repr(t) == f"tensor([1., 2.]{suffix}, requires_grad=True)"
    assert repr(t * 2) == f"tensor([2., 4.]{suffix}, grad_fn=<MulBackward0>)"
    assert repr(ng.tensor([1, 2], dtype=ng.int32, device=device)) == (
        f"tensor([1, 2]{suffix}, dtype=nbgrad.int32)")
    assert repr(ng.zeros(0, device=device)) == f"tensor([]{suffix})"


def test_mixing_devices_raises_pytorchs_error(device):
    x = ng.ones(2, device=device)
    y = ng.ones(2)  # on the CPU
    if device == "cuda":
        with pytest.raises(RuntimeError) as error:
            x + y
        assert str(error.value) == MIXED
        with pytest.raises(RuntimeError) as error:
            y * x
        assert str(error.value) == MIXED
    cases = [
        lambda: x + y, lambda: y - x, lambda: x.dot(y), lambda: x.unsqueeze(0).mm(y.unsqueeze(1)),
        lambda: x @ y, lambda: ng.cat([x, y]), lambda: ng.stack([y, x]),
        lambda: ng.where(x > 0, x, y), lambda: ng.where(y > 0, x, 1.0),
        lambda: x.masked_fill(y > 0, 0.0), lambda: x.clamp(min=y), lambda: ng.maximum(x, y),
        lambda: x.add_(y), lambda: x == y,
    ]
    for case in cases:
        with mixing_raises(device):
            case()


def test_mixing_devices_in_nn(device):
    layer = nn.Linear(2, 3).to(device)
    with mixing_raises(device):
        layer(ng.ones(4, 2))  # the input left on the CPU
    with mixing_raises(device):
        layer(ng.ones(2))  # 1-D input: matmul
    z = ng.ones(4, 3, device=device)
    with mixing_raises(device):
        F.cross_entropy(z, ng.tensor([0, 1, 2, 0]))
    with mixing_raises(device):
        F.mse_loss(z, ng.ones(4, 3))
    w = ng.ones(2, device=device, requires_grad=True)
    if device == "cuda":
        with pytest.raises(RuntimeError, match="attempting to assign a gradient located on "
                                               "device 'cpu' to a tensor located on device "
                                               "'cuda:0'"):
            w.grad = ng.ones(2)


def test_gradcheck_on_device(device):
    x = ng.tensor(RNG.standard_normal((2, 3)), device=device, requires_grad=True)
    m = ng.tensor(RNG.standard_normal((3, 2)), device=device, requires_grad=True)
    assert ng.autograd.gradcheck(lambda a, b: (a @ b).tanh().log_softmax(1), (x, m))


# -- nn and optim -----------------------------------------------------------------------
def _model():
    ng.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))


def test_module_to_moves_parameters_in_place(device):
    """As PyTorch (``param.data`` is replaced): the Parameter objects stay the same, so an
    optimizer built before the move still holds them."""
    model = _model()
    params = list(model.parameters())
    model(ng.ones(1, 3)).sum().backward()  # grads exist before the move
    assert model.to(device) is model
    assert [id(p) for p in model.parameters()] == [id(p) for p in params]
    for p in model.parameters():
        assert isinstance(p, nn.Parameter) and p.requires_grad and p.is_leaf
        assert p.device == ng.device(device) and p.grad.device == ng.device(device)
    assert model.cpu() is model
    assert all(p.device == ng.device("cpu") for p in model.parameters())
    if device == "cuda":
        assert model.cuda() is model
        assert all(p.is_cuda for p in model.parameters())
        assert [id(p) for p in model.parameters()] == [id(p) for p in params]
    moved = model.to(device, ng.float64)
    assert all(p.dtype == ng.float64 and p.device == ng.device(device)
               for p in moved.parameters())


def test_linear_created_on_device(device):
    layer = nn.Linear(3, 2, device=device)
    assert all(p.device == ng.device(device) for p in layer.parameters())
    assert layer(ng.ones(4, 3, device=device)).device == ng.device(device)


@pytest.mark.parametrize("make_optimizer", [
    lambda ps: ng.optim.SGD(ps, lr=0.1),
    lambda ps: ng.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    lambda ps: ng.optim.Adam(ps, lr=0.05),
    lambda ps: ng.optim.Adam(ps, lr=0.05, amsgrad=True, weight_decay=0.1),
    lambda ps: ng.optim.AdamW(ps, lr=0.05),
], ids=["sgd", "sgd_momentum", "adam", "adam_amsgrad", "adamw"])
def test_training_on_device_matches_cpu(device, make_optimizer):
    x = RNG.standard_normal((8, 3))
    t = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    results = {}
    for where in dict.fromkeys(["cpu", device]):
        model = _model().to(where)
        optimizer = make_optimizer(model.parameters())
        xs, ts = ng.tensor(x, dtype=ng.float32, device=where), ng.tensor(t, device=where)
        losses = []
        for _ in range(4):
            loss = F.cross_entropy(model(xs), ts)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        for p in model.parameters():
            assert p.device == ng.device(where)
            for key, value in optimizer.state[p].items():
                if isinstance(value, ng.Tensor):
                    # PyTorch keeps Adam's step count on the CPU; the rest lives with p
                    want = "cpu" if key == "step" else where
                    assert value.device == ng.device(want), key
        results[where] = (losses, [host(p) for p in model.parameters()])
    # float32: the GPU sums in another order, so allow float32 rounding to accumulate
    np.testing.assert_allclose(results[device][0], results["cpu"][0], rtol=1e-4)
    for a, b in zip(results[device][1], results["cpu"][1]):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)


def test_state_dict_loads_across_devices(device):
    source = _model()
    target = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).to(device)
    target.load_state_dict(source.state_dict())  # copy_: CPU values into device parameters
    for a, b in zip(target.parameters(), source.parameters()):
        assert a.device == ng.device(device)
        np.testing.assert_array_equal(host(a), host(b))
    assert all(v.device == ng.device(device) for v in target.state_dict().values())


def test_optimizer_state_loads_onto_the_parameters_device(device):
    source = _model()
    opt = ng.optim.Adam(source.parameters(), lr=0.01)
    source(ng.ones(2, 3)).sum().backward()
    opt.step()
    target = copy.deepcopy(source).to(device)
    opt2 = ng.optim.Adam(target.parameters(), lr=0.01)
    opt2.load_state_dict(opt.state_dict())
    for p in target.parameters():
        assert opt2.state[p]["exp_avg"].device == p.device
        assert opt2.state[p]["step"].device == ng.device("cpu")


# -- what nbgrad.cuda says here ---------------------------------------------------------
def test_cuda_api_is_consistent():
    available = ng.cuda.is_available()
    count = ng.cuda.device_count()
    assert isinstance(available, bool) and isinstance(count, int)
    assert (count > 0) == available


@pytest.mark.skipif(ng.cuda.is_available(), reason="a CUDA device is available here")
def test_without_a_gpu_cuda_raises_as_pytorchs_cpu_build():
    assert ng.cuda.is_available() is False
    assert ng.cuda.device_count() == 0
    attempts = [lambda: ng.zeros(1, device="cuda"), lambda: ng.ones(2).cuda(),
                lambda: ng.ones(2).to("cuda:0"), lambda: ng.tensor([1.0], device="cuda"),
                lambda: nn.Linear(2, 2).cuda(), lambda: ng.randn(2, device="cuda")]
    for attempt in attempts:
        with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled"):
            attempt()


def test_device_names():
    assert str(ng.device("cuda")) == "cuda" and str(ng.device("cuda:1")) == "cuda:1"
    assert ng.device("cuda:0") == "cuda:0" and ng.device("cpu") == ng.device("cpu")
    assert repr(ng.device("cuda", 0)) == "device(type='cuda', index=0)"
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type"):
        ng.device("tpu")
