"""Interop with PyTorch, NumPy and CuPy: DLPack shares memory both ways (a write through
one is seen by the other), and state_dicts cross between nbgrad and PyTorch models of the
same architecture (keys, shapes and layouts match, and the outputs agree)."""

import io

import numpy as np
import pytest

from parity import torch

import nbgrad as ng
from nbgrad import interop

SHAPES = [(), (0,), (5,), (2, 3), (2, 3, 4)]
DTYPES = ["float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64", "bool"]


def sample(shape, dtype):
    values = np.asarray(np.random.default_rng(len(shape)).normal(size=shape) * 10)
    return values.astype(getattr(np, dtype) if dtype != "bool" else np.bool_)


def write_one(array_like, value):
    """Set the first element (of any shape) through ``array_like``'s own indexing."""
    index = (0,) * array_like.ndim if hasattr(array_like, "ndim") else (0,) * array_like.dim()
    array_like[index] = value


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_torch_from_nbgrad_shares_memory(shape, dtype):
    t = ng.from_numpy(sample(shape, dtype))
    u = torch.from_dlpack(t)
    assert str(u.dtype).replace("torch", "nbgrad") == str(t.dtype) and tuple(u.shape) == tuple(t.shape)
    np.testing.assert_array_equal(u.numpy(), t.numpy())
    if t.numel():
        write_one(u, 1)
        assert t.numpy().flat[0] == 1
        write_one(t, 0)
        assert u.numpy().flat[0] == 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_nbgrad_from_torch_shares_memory(shape, dtype):
    u = torch.from_numpy(sample(shape, dtype))
    t = ng.from_dlpack(u)
    assert str(t.dtype) == str(u.dtype).replace("torch", "nbgrad") and tuple(t.shape) == tuple(u.shape)
    assert t.is_leaf and not t.requires_grad
    if u.numel():
        write_one(t, 1)
        assert u.numpy().flat[0] == 1


def test_numpy_both_ways_and_views():
    base = ng.arange(12.0).view(3, 4)
    view = base.t()[1:]  # non-contiguous: shared with its strides
    a = np.from_dlpack(view)
    assert a.shape == (3, 3) and not a.flags.c_contiguous
    a[0, 0] = -1
    assert base[0, 1].item() == -1
    b = np.arange(6.0).reshape(2, 3)[:, ::2]
    t = ng.from_dlpack(b)
    t[1, 1] = 100
    assert b[1, 1] == 100
    u = torch.from_dlpack(ng.from_dlpack(torch.arange(10.0)[::3]))
    assert u.tolist() == [0.0, 3.0, 6.0, 9.0]


def test_negative_strides_are_exported_as_a_copy():
    t = ng.from_numpy(np.arange(5.0)[::-1].copy())[1:]  # positive strides: shared
    assert torch.from_dlpack(t).tolist() == [3.0, 2.0, 1.0, 0.0]
    flipped = ng.Tensor._make(np.arange(5.0)[::-1])  # as a flip view would be
    assert torch.from_dlpack(flipped).tolist() == [4.0, 3.0, 2.0, 1.0, 0.0]
    with pytest.raises(BufferError, match="negative strides"):
        flipped.__dlpack__(copy=False)


def test_dlpack_device():
    check = [ng.zeros(2).__dlpack_device__(), torch.zeros(2).__dlpack_device__()]
    assert tuple(map(int, check[0])) == tuple(map(int, check[1])) == (1, 0)


def test_errors_as_pytorch():
    needs_grad = {"torch": torch.ones(2, requires_grad=True), "nbgrad": ng.ones(2, requires_grad=True)}
    for exporter in needs_grad.values():  # both refuse to export, with PyTorch's words
        with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
            torch.from_dlpack(exporter)
    with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
        ng.from_dlpack(needs_grad["torch"])
    assert torch.from_dlpack(needs_grad["nbgrad"].detach()).tolist() == [1.0, 1.0]
    for M in (ng, torch):
        with pytest.raises(RuntimeError, match="from_dlpack received an invalid capsule"):
            M.from_dlpack([1, 2])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.complex64"):
        ng.from_dlpack(np.zeros(2, dtype=np.complex64))


def test_legacy_capsules():
    capsule = ng.utils.dlpack.to_dlpack(ng.arange(3.0))
    assert torch.utils.dlpack.from_dlpack(capsule).tolist() == [0.0, 1.0, 2.0]
    t = ng.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(torch.arange(3)))
    assert t.dtype is ng.int64 and t.tolist() == [0, 1, 2]


@pytest.mark.skipif(not ng.cuda.is_available(), reason="needs a GPU and CuPy")
def test_cupy_shares_memory():
    import cupy
    t = ng.arange(4.0, device="cuda")
    c = cupy.from_dlpack(t)
    c[0] = 9
    assert t[0].item() == 9
    back = ng.from_dlpack(c)
    back[1] = -1
    assert float(c[1]) == -1 and back.is_cuda
    u = torch.from_dlpack(t) if torch.cuda.is_available() else None
    if u is not None:
        u[2] = 5
        assert t[2].item() == 5


def test_to_torch_and_from_torch_keep_structure_and_flags():
    p = ng.nn.Parameter(ng.ones(2))
    obj = {"p": p, "x": [ng.arange(3), (ng.zeros(1, requires_grad=True), 1.5)], "s": "keep"}
    converted = interop.to_torch(obj)
    assert isinstance(converted["p"], torch.nn.Parameter) and converted["p"].requires_grad
    assert converted["x"][1][0].requires_grad and converted["x"][0].dtype == torch.int64
    assert type(converted["x"][1]) is tuple and converted["s"] == "keep"
    converted["x"][0][0] = 7
    assert obj["x"][0][0].item() == 7  # shares memory
    back = interop.from_torch(converted)
    assert type(back["p"]) is ng.nn.Parameter and back["p"].requires_grad
    assert back["x"][1][0].requires_grad and back["x"][0].tolist() == [7, 1, 2]


# -- state_dicts between nbgrad and PyTorch: one line per architecture ----------------------
MODELS = {
    "linear": (lambda M: M.nn.Linear(3, 2), (4, 3)),
    "linear without bias": (lambda M: M.nn.Linear(5, 1, bias=False), (2, 5)),
    "mlp": (lambda M: M.nn.Sequential(M.nn.Linear(4, 8), M.nn.ReLU(), M.nn.Linear(8, 8),
                                      M.nn.Tanh(), M.nn.Linear(8, 2)), (6, 4)),
}


def through_nbgrad_file(state):
    buffer = io.BytesIO()
    ng.save(state, buffer)
    buffer.seek(0)
    return ng.load(buffer)


def through_torch_file(state):
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


def assert_same_outputs(torch_model, nbgrad_model, input_shape):
    x = np.random.default_rng(0).normal(size=input_shape).astype(np.float32)
    expected = torch_model(torch.from_numpy(x)).detach().numpy()
    got = nbgrad_model(ng.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", MODELS)
def test_state_dict_keys_shapes_and_layouts_match(name):
    make, _ = MODELS[name]
    t_state, n_state = make(torch).state_dict(), make(ng).state_dict()
    assert list(t_state) == list(n_state)
    for key in t_state:
        assert tuple(t_state[key].shape) == tuple(n_state[key].shape), key
        assert str(t_state[key].dtype).replace("torch", "nbgrad") == str(n_state[key].dtype), key


@pytest.mark.parametrize("name", MODELS)
def test_nbgrad_checkpoint_loads_into_pytorch(name):
    make, input_shape = MODELS[name]
    ng.manual_seed(3)
    nbgrad_model = make(ng)
    torch_model = make(torch)
    state = through_nbgrad_file(nbgrad_model.state_dict())
    torch_model.load_state_dict(through_torch_file(interop.to_torch(state)))
    assert_same_outputs(torch_model, nbgrad_model, input_shape)


@pytest.mark.parametrize("name", MODELS)
def test_pytorch_checkpoint_loads_into_nbgrad(name):
    make, input_shape = MODELS[name]
    torch.manual_seed(4)
    torch_model = make(torch)
    nbgrad_model = make(ng)
    state = interop.from_torch(through_torch_file(torch_model.state_dict()))
    nbgrad_model.load_state_dict(through_nbgrad_file(state))
    assert_same_outputs(torch_model, nbgrad_model, input_shape)


def test_optimizer_state_crosses_over():
    torch_model, nbgrad_model = torch.nn.Linear(2, 1), ng.nn.Linear(2, 1)
    nbgrad_model.load_state_dict(interop.from_torch(torch_model.state_dict()))
    t_opt = torch.optim.Adam(torch_model.parameters(), lr=0.1)
    n_opt = ng.optim.Adam(nbgrad_model.parameters(), lr=0.1)
    x = np.ones((3, 2), np.float32)
    torch_model(torch.from_numpy(x)).sum().backward()
    t_opt.step()
    n_opt.load_state_dict(interop.from_torch(through_torch_file(t_opt.state_dict())))
    nbgrad_model.load_state_dict(interop.from_torch(torch_model.state_dict()))
    for opt, model, M in ((t_opt, torch_model, torch), (n_opt, nbgrad_model, ng)):
        opt.zero_grad()
        model(M.from_numpy(x)).sum().backward()
        opt.step()
    assert_same_outputs(torch_model, nbgrad_model, (2, 2))
