"""nbgrad.save / nbgrad.load: what comes back (values, dtypes, shapes, devices,
requires_grad, Parameter, container types), state_dict and optimizer round trips, the
errors for objects that cannot be stored and for files that are not nbgrad's, and that
loading never unpickles."""

import io
import json
import math
import pathlib
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import nbgrad as ng

DTYPES = [ng.float16, ng.float32, ng.float64, ng.uint8, ng.int8, ng.int16, ng.int32, ng.int64,
          ng.bool]


def round_trip(obj, **load_options):
    buffer = io.BytesIO()
    ng.save(obj, buffer)
    buffer.seek(0)
    return ng.load(buffer, **load_options)


def assert_same_tensor(got, expected):
    assert type(got) is type(expected)
    assert got.dtype is expected.dtype and tuple(got.shape) == tuple(expected.shape)
    assert got.requires_grad == expected.requires_grad and got.is_leaf
    assert got.device == expected.device
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 3), (4, 5)])
def test_tensors_of_every_dtype_and_shape(dtype, shape):
    rng = np.random.default_rng(sum(shape) + len(shape))
    values = rng.normal(size=shape) * 100
    t = ng.tensor(values).to(dtype)
    assert_same_tensor(round_trip(t), t)


def test_non_contiguous_and_requires_grad():
    base = ng.randn(4, 3, dtype=ng.float64)
    view = base.t()  # a transposed view: stored by its values
    assert not view.is_contiguous()
    assert_same_tensor(round_trip(view), view)
    leaf = ng.randn(3, requires_grad=True)
    assert_same_tensor(round_trip(leaf), leaf)
    computed = leaf * 2  # as in PyTorch, a non-leaf comes back as a leaf that requires grad
    got = round_trip(computed)
    assert got.is_leaf and got.requires_grad and got.grad_fn is None


def test_grad_is_not_saved():
    leaf = ng.ones(2, requires_grad=True)
    (leaf * 3).sum().backward()
    assert round_trip(leaf).grad is None


def test_parameters_stay_parameters():
    frozen = ng.nn.Parameter(ng.ones(2), requires_grad=False)
    trained = ng.nn.Parameter(ng.randn(3, 2))
    got = round_trip([frozen, trained])
    assert_same_tensor(got[0], frozen)
    assert_same_tensor(got[1], trained)


def test_nested_containers_keep_their_types():
    obj = {
        "none": None, "true": True, "int": -7, "big": 2 ** 80, "float": 0.1, "str": "é 🙂",
        "nan": float("nan"), "inf": -math.inf,
        "list": [1, [2, (3.5, "x")]], "tuple": (1, 2.0, False), "empty": ([], (), {}),
        0: "an int key", (1, 2): "a tuple key", None: "a None key", 2.5: "a float key",
        "ordered": OrderedDict([("b", 1), ("a", 2)]),
        "dtype": ng.float16, "size": ng.Size([2, 3]),
        "ndarray": np.arange(6, dtype=np.int16).reshape(2, 3),
        "numpy scalar": np.float32(1.5), "numpy bool": np.bool_(True),
    }
    got = round_trip(obj)
    assert list(got) == list(obj)
    for key, value in obj.items():
        if key in ("nan", "ndarray"):
            continue
        assert got[key] == value and type(got[key]) is type(value), key
    assert math.isnan(got["nan"])
    assert type(got["list"][1][1]) is tuple and type(got["ordered"]) is OrderedDict
    assert list(got["ordered"]) == ["b", "a"]
    assert got["ndarray"].dtype == np.int16 and (got["ndarray"] == obj["ndarray"]).all()
    assert type(got["numpy scalar"]) is np.float32


def test_a_repeated_tensor_comes_back_as_one_tensor():
    t = ng.arange(3.0)
    view = t[1:]
    got = round_trip({"a": t, "b": [t], "view": view})
    assert got["a"] is got["b"][0]
    got["a"][1] = 10
    assert got["view"][0].item() == 1.0  # distinct tensors sharing memory come back apart


@pytest.mark.parametrize("where", ["str", "path", "file"])
def test_paths_and_file_objects(tmp_path, where):
    t = ng.arange(4)
    target = tmp_path / "t.nbgrad"
    if where == "file":
        with open(target, "wb") as f:
            ng.save(t, f)
            assert not f.closed  # left open, as PyTorch leaves it
        with open(target, "rb") as f:
            got = ng.load(f)
    else:
        name = str(target) if where == "str" else pathlib.Path(target)
        ng.save(t, name)
        got = ng.load(name)
    assert_same_tensor(got, t)


def test_module_state_dict_round_trip():
    ng.manual_seed(0)
    model = ng.nn.Sequential(ng.nn.Linear(4, 8), ng.nn.ReLU(), ng.nn.Linear(8, 2))
    state = round_trip(model.state_dict())
    assert type(state) is OrderedDict and list(state) == list(model.state_dict())
    fresh = ng.nn.Sequential(ng.nn.Linear(4, 8), ng.nn.ReLU(), ng.nn.Linear(8, 2))
    fresh.load_state_dict(state)
    x = ng.randn(5, 4)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), model(x).detach().numpy())


@pytest.mark.parametrize("make", [
    lambda p: ng.optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: ng.optim.Adam(p, lr=0.01, amsgrad=True),
], ids=["sgd-momentum", "adam-amsgrad"])
def test_training_resumes_from_a_checkpoint(make):
    def model_and_optimizer():
        ng.manual_seed(1)
        model = ng.nn.Linear(3, 1)
        return model, make(model.parameters())

    def step(model, opt, i):
        opt.zero_grad()
        x = ng.full((4, 3), float(i))
        ((model(x) - 1) ** 2).mean().backward()
        opt.step()

    model, opt = model_and_optimizer()
    for i in range(3):
        step(model, opt, i)
    checkpoint = round_trip({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3})
    for i in range(3, 5):
        step(model, opt, i)

    resumed, resumed_opt = model_and_optimizer()
    resumed.load_state_dict(checkpoint["model"])
    resumed_opt.load_state_dict(checkpoint["optimizer"])
    for i in range(checkpoint["epoch"], 5):
        step(resumed, resumed_opt, i)
    for a, b in zip(resumed.parameters(), model.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize(("obj", "where", "what"), [
    ({"a": [1, object()]}, "obj['a'][1]", "builtins.object"),
    ([{1, 2}], "obj[0]", "builtins.set"),
    ({"model": ng.nn.Linear(1, 1)}, "obj['model']", "Linear"),
    (np.array(["a"]), "obj", "numpy.ndarray"),
    ({object(): 1}, "obj (a key)", "builtins.object"),
    ((1, np.int64), "obj[1]", "type"),
])
def test_objects_that_cannot_be_saved(obj, where, what):
    with pytest.raises(TypeError, match="nbgrad.save cannot store") as caught:
        ng.save(obj, io.BytesIO())
    assert f"(at {where})" in str(caught.value) and what in str(caught.value)


def test_a_module_gets_the_state_dict_hint():
    with pytest.raises(TypeError, match=r"Save its state_dict\(\) instead"):
        ng.save(ng.nn.Linear(1, 1), io.BytesIO())


def _archive(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _npy(array, allow_pickle=False):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def _manifest(obj, version=1):
    return json.dumps({"format": "nbgrad", "version": version, "object": obj})


NOT_NBGRAD = {
    "random bytes": (bytes(range(256)) * 4, "nbgrad.save writes a zip archive"),
    "empty file": (b"", "nbgrad.save writes a zip archive"),
    "a pickle": (pickle.dumps({"a": 1}), "it is a Python pickle"),
    "a .npy file": (_npy(np.arange(3)), "NumPy .npy file"),
    "a .npz file": (_archive({"x.npy": _npy(np.arange(3))}), "NumPy .npz archive"),
    "a PyTorch-like zip": (_archive({"archive/data.pkl": b"\x80\x02}q\x00.", "archive/version": b"3"}),
                           "it is a PyTorch file"),
    "another zip": (_archive({"readme.txt": b"hello"}), "without nbgrad's manifest"),
}


@pytest.mark.parametrize("name", NOT_NBGRAD)
def test_files_that_are_not_nbgrads(tmp_path, name):
    content, phrase = NOT_NBGRAD[name]
    path = tmp_path / "file"
    path.write_bytes(content)
    with pytest.raises(RuntimeError, match="is not an nbgrad file") as caught:
        ng.load(path)
    assert phrase in str(caught.value) and str(path) in str(caught.value)


DAMAGED = {
    "manifest not JSON": {"nbgrad.json": b"{"},
    "another format": {"nbgrad.json": json.dumps({"format": "other"})},
    "a missing array": {"nbgrad.json": _manifest({"tensor": 0})},
    "an unknown entry": {"nbgrad.json": _manifest({"set": [1]})},
    "a pickled array": {"nbgrad.json": _manifest({"tensor": 0}),
                        "arrays/0.npy": _npy(np.array([None], dtype=object), allow_pickle=True)},
}


@pytest.mark.parametrize("name", DAMAGED)
def test_damaged_files(name):
    with pytest.raises(RuntimeError, match="the file is damaged"):
        ng.load(io.BytesIO(_archive(DAMAGED[name])))


def test_a_newer_version_asks_for_an_upgrade():
    with pytest.raises(RuntimeError, match="format version 2.*Upgrade nbgrad"):
        ng.load(io.BytesIO(_archive({"nbgrad.json": _manifest(1, version=2)})))


class _Payload:
    ran = False

    def __reduce__(self):
        return (_mark_ran, ())


def _mark_ran():
    _Payload.ran = True


def test_loading_never_unpickles(tmp_path):
    array = np.empty(1, dtype=object)
    array[0] = _Payload()
    archive = _archive({"nbgrad.json": _manifest({"ndarray": 0}),
                        "arrays/0.npy": _npy(array, allow_pickle=True)})
    assert pickle.loads(pickle.dumps(_Payload())) is None and _Payload.ran  # the payload works
    _Payload.ran = False
    with pytest.raises(RuntimeError):
        ng.load(io.BytesIO(archive))
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps(_Payload()))
    with pytest.raises(RuntimeError, match="never unpickles"):
        ng.load(path)
    assert not _Payload.ran


@pytest.mark.parametrize("map_location", ["cpu", ng.device("cpu"), {"cuda:0": "cpu"},
                                          lambda storage, location: storage])
def test_map_location(map_location):
    t = ng.arange(3.0, requires_grad=True)
    got = round_trip(t, map_location=map_location)
    assert_same_tensor(got, t)


@pytest.mark.skipif(ng.cuda.is_available(), reason="the error is for machines without a GPU")
def test_a_cuda_tensor_on_a_machine_without_a_gpu():
    archive = _archive({"nbgrad.json": _manifest({"tensor": 0, "device": "cuda:0"}),
                        "arrays/0.npy": _npy(np.arange(3.0))})
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        ng.load(io.BytesIO(archive))
    got = ng.load(io.BytesIO(archive), map_location="cpu")
    assert got.device == ng.device("cpu") and got.tolist() == [0.0, 1.0, 2.0]
    got = ng.load(io.BytesIO(archive), map_location={"cuda:0": "cpu"})
    assert got.device == ng.device("cpu")


def test_pytorchs_keywords_are_accepted():
    buffer = io.BytesIO()
    ng.save([ng.ones(1)], buffer, pickle_protocol=4, _use_new_zipfile_serialization=True)
    buffer.seek(0)
    assert ng.load(buffer, weights_only=True, mmap=None)[0].tolist() == [1.0]


def test_a_real_pytorch_file_is_recognised(tmp_path):
    torch = pytest.importorskip("torch", reason="needs PyTorch to write a .pt file")
    path = tmp_path / "model.pt"
    torch.save(torch.nn.Linear(2, 1).state_dict(), path)
    with pytest.raises(RuntimeError, match=r"PyTorch file .* nbgrad.interop.from_torch"):
        ng.load(path)
    legacy = tmp_path / "legacy.pt"
    torch.save({"a": torch.ones(1)}, legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="it is a Python pickle"):
        ng.load(legacy)
