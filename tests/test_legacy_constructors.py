"""The legacy constructors against PyTorch: ``Tensor(data)``, ``Tensor(*sizes)``, the typed
classes (``FloatTensor``, ...), ``isinstance`` with them, ``type()`` names, memory sharing
and errors. PyTorch leaves ``Tensor(*sizes)`` uninitialised; nbgrad fills zeros, so those
cases compare shapes and dtypes, not values."""

import copy
import pickle

import numpy as np
import pytest

from parity import check, check_error, check_no_warning, torch

import nbgrad as ng

TYPED = ["FloatTensor", "DoubleTensor", "HalfTensor", "ByteTensor", "CharTensor", "ShortTensor",
         "IntTensor", "LongTensor", "BoolTensor"]

FROM_DATA = {
    "list of ints": lambda M: M.Tensor([1, 2]),
    "list of bools": lambda M: M.Tensor([True, False]),
    "nested": lambda M: M.Tensor([[1, 2], [3, 4.5]]),
    "tuple": lambda M: M.Tensor((2, 3)),
    "empty list": lambda M: M.Tensor([]),
    "empty tuple": lambda M: M.Tensor(()),
    "range": lambda M: M.Tensor(range(3)),
    "list of 0-d tensors": lambda M: M.Tensor([M.tensor(1.0), M.tensor(2)]),
    "int array": lambda M: M.Tensor(np.array([1, 2])),
    "float64 array": lambda M: M.Tensor(np.array([1.5, 2.0])),
    "0-d float array": lambda M: M.Tensor(np.array(2.5)),
    "non-contiguous array": lambda M: M.Tensor(np.arange(6.0).reshape(2, 3)[:, 1]),
    "data=": lambda M: M.Tensor(data=[1]),
    "device=": lambda M: M.Tensor([1, 2], device="cpu"),
    "int tensor": lambda M: M.Tensor(M.tensor([1, 2])),
    "float64 tensor": lambda M: M.Tensor(M.tensor([1.0], dtype=M.float64)),
    "bool tensor": lambda M: M.Tensor(M.tensor([True])),
    "0-d tensor": lambda M: M.Tensor(M.tensor(3.0)),
}


@pytest.mark.parametrize("name", FROM_DATA)
def test_tensor_from_data(name):
    check(lambda M: FROM_DATA[name](M))


@pytest.mark.parametrize("cls", TYPED)
@pytest.mark.parametrize("data", [[1, 0], [1.7, 2.2], [[True], [False]], [], np.array([3, 1])])
def test_typed_from_data(cls, data):
    check(lambda M: getattr(M, cls)(data))


SIZES = {
    "no arguments": lambda M: M.Tensor(),
    "device only": lambda M: M.Tensor(device="cpu"),
    "one int": lambda M: M.Tensor(2),
    "ints": lambda M: M.Tensor(2, 3),
    "zero": lambda M: M.Tensor(0),
    "with a zero": lambda M: M.Tensor(2, 0),
    "numpy int": lambda M: M.Tensor(np.int64(3)),
    "0-d int array": lambda M: M.Tensor(np.array(3)),
    "Size": lambda M: M.Tensor(M.Size([2, 3])),
    "empty Size": lambda M: M.Tensor(M.Size([])),
    "size=": lambda M: M.Tensor(size=(2,)),
    "typed": lambda M: M.LongTensor(2, 3),
    "typed bool": lambda M: M.BoolTensor(4),
}


@pytest.mark.parametrize("name", SIZES)
def test_sizes(name):
    expected, got = SIZES[name](torch), SIZES[name](ng)
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype) == str(expected.dtype).replace("torch", "nbgrad")
    assert not got.requires_grad and got.is_leaf
    assert not got.numpy().any()  # nbgrad's choice for PyTorch's uninitialised memory


def test_follows_the_default_dtype():
    for M in (torch, ng):
        M.set_default_dtype(M.float64)
    try:
        check(lambda M: [M.Tensor([1, 2]), M.Tensor(2).dtype, M.FloatTensor([1]).dtype])
    finally:
        for M in (torch, ng):
            M.set_default_dtype(M.float32)


ERRORS = {
    "float": lambda M: M.Tensor(2.5),
    "typed float": lambda M: M.HalfTensor(2.0),
    "bool": lambda M: M.Tensor(True),
    "None": lambda M: M.Tensor(None),
    "numpy float": lambda M: M.Tensor(np.float64(2.0)),
    "dict": lambda M: M.Tensor({1: 2}),
    "object": lambda M: M.Tensor(object()),
    "data= int": lambda M: M.Tensor(data=3),
    "str": lambda M: M.Tensor("a"),
    "ragged": lambda M: M.Tensor([[1], [2, 3]]),
    "negative size": lambda M: M.Tensor(-1),
    "negative later": lambda M: M.Tensor(2, -3),
    "float size": lambda M: M.Tensor(2, 3.0),
    "str size": lambda M: M.Tensor(2, "a"),
    "tensor size": lambda M: M.Tensor(3, M.zeros(2)),
    "huge size": lambda M: M.Tensor(2 ** 70),
    "dtype=": lambda M: M.Tensor([1, 2], dtype=M.float64),
    "dtype= with size": lambda M: M.Tensor(3, dtype=M.float64),
    "requires_grad=": lambda M: M.Tensor([1, 2], requires_grad=True),
    "unknown keyword": lambda M: M.Tensor([1], foo=1),
    "size= not a tuple": lambda M: M.Tensor(size=3),
    "size= and data": lambda M: M.Tensor(3, size=(2,)),
    "two tensors": lambda M: M.Tensor(M.zeros(2), M.zeros(2)),
    "two lists": lambda M: M.Tensor([2], [3]),
    "two bools": lambda M: M.Tensor(True, False),
    "tensor and device": lambda M: M.Tensor(M.zeros(2), device="cpu"),
    "typed from another dtype": lambda M: M.LongTensor(M.tensor([1.0, 2.0])),
    "float from int": lambda M: M.FloatTensor(M.tensor([1], dtype=M.int32)),
    "float from double": lambda M: M.FloatTensor(M.zeros(2, dtype=M.float64)),
    "overflow int32": lambda M: M.IntTensor([2 ** 40]),
    "overflow uint8": lambda M: M.ByteTensor([256]),
    "overflow int8": lambda M: M.CharTensor([200]),
    "overflow long": lambda M: M.LongTensor([2 ** 70]),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    check_error(ERRORS[name])


def test_tensor_of_a_tensor_shares_memory_and_graph():
    def program(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = M.Tensor(x)
        z = M.FloatTensor(x)
        (y * 3 + z).sum().backward()
        with M.no_grad():
            y[0] = 5
        return [y is x, y.requires_grad, y.is_leaf, x.grad, x.detach()]
    check(program)


@pytest.mark.parametrize("cls", ["Tensor", "FloatTensor"])
def test_float32_array_is_shared(cls):
    def program(M):
        a = np.zeros((2, 2), np.float32)[:, 0]  # non-contiguous: shared as it is
        t = getattr(M, cls)(a)
        t[0] = 5
        b = np.zeros(2)  # float64: converted, so a copy
        u = getattr(M, cls)(b)
        u[0] = 5
        return [a.tolist(), b.tolist()]
    check(program)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "uint8", "int8", "int16",
                                   "int32", "int64", "bool"])
def test_isinstance_and_type_names(dtype):
    def program(M):
        t = M.zeros(2, dtype=getattr(M, dtype))
        return [t.type()] + [isinstance(t, getattr(M, cls)) for cls in TYPED]
    check(program)


def test_typed_classes_as_pytorch_has_them():
    check(lambda M: [M.FloatTensor.dtype, M.LongTensor.dtype, M.FloatTensor.is_cuda,
                     M.FloatTensor.__name__, M.FloatTensor.__module__,
                     issubclass(M.FloatTensor, M.Tensor), isinstance(1, M.FloatTensor),
                     isinstance(M.nn.Parameter(M.zeros(1)), M.FloatTensor),
                     isinstance(M.zeros(2, dtype=M.float64), M.FloatTensor),
                     M.FloatTensor([1]).type(), type(M.FloatTensor([1])).__name__])
    assert repr(ng.FloatTensor) == "<class 'nbgrad.FloatTensor'>"


@pytest.mark.parametrize("cls", TYPED)
def test_type_with_a_typed_class(cls):
    check(lambda M: M.tensor([1.5, -2.0]).type(getattr(M, cls)))
    check(lambda M: M.zeros(2).type(getattr(M, cls)).type())


def test_type_refuses_other_classes():
    check_error(lambda M: M.zeros(2).type(float))
    check_error(lambda M: M.zeros(2).type(np.float32))


@pytest.mark.parametrize("make", [lambda M: M.Tensor(np.array([1e40])), lambda M: M.Tensor([1e40]),
                                  lambda M: M.HalfTensor(np.array([1e6]))])
def test_overflow_is_inf_without_a_warning(make):
    check_no_warning(make)
    check(make)


def test_subclass_of_tensor():
    class Mine(ng.Tensor):
        pass

    t = Mine([1, 2])
    assert type(t) is Mine and t.dtype is ng.float32 and t.tolist() == [1.0, 2.0]
    assert type(Mine(2, 3)) is Mine


def test_internal_tensors_and_parameters_unaffected():
    p = ng.nn.Parameter(ng.Tensor(2, 3))
    assert type(p) is ng.nn.Parameter and p.requires_grad and tuple(p.shape) == (2, 3)
    t = ng.Tensor([1.0, 2.0]).requires_grad_()
    assert pickle.loads(pickle.dumps(t)).tolist() == [1.0, 2.0]
    assert copy.deepcopy(t).requires_grad
    assert type(ng.tensor([1]) + 1) is ng.Tensor
