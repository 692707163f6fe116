"""Every class of misuse of the public API raises what PyTorch raises, naming the mistake.

One row per misuse: a program ``f(M)`` run with ``M = torch`` and ``M = nbgrad``. For each,
nbgrad must raise PyTorch's exception type with PyTorch's key phrase in its message (or the
``key`` the row gives), the error must not come from inside NumPy (the traceback's last
frame), and it must not be an AttributeError unless PyTorch's is one.

To add a row: ``Row("what the user did", lambda M: ...)``; ``key="..."`` when PyTorch's
first line is not the part nbgrad can match (a list of PyTorch's backends, an "invalid
combination of arguments" table), ``xfail="why"`` for a known difference still to fix.
"""

import math
import os
import traceback
from typing import Callable, NamedTuple

import numpy as np
import pytest

from parity import check_error

INF, NAN = math.inf, math.nan


class Row(NamedTuple):
    name: str
    program: Callable
    key: str = None
    xfail: str = None


def x(M):
    return M.ones(2, 3)


def leaf(M):
    return M.ones(2, requires_grad=True)


def assign(target, name, value):
    setattr(target, name, value)


def delete(target, name):
    delattr(target, name)


CREATION = [
    # sizes
    Row("zeros('a')", lambda M: M.zeros("a")),
    Row("zeros(2.0)", lambda M: M.zeros(2.0)),
    Row("zeros(None)", lambda M: M.zeros(None)),
    Row("zeros(True)", lambda M: M.zeros(True)),
    Row("zeros(2, 2.0)", lambda M: M.zeros(2, 2.0)),
    Row("zeros([2, 2.0])", lambda M: M.zeros([2, 2.0])),
    Row("ones((2, '3'))", lambda M: M.ones((2, "3"))),
    Row("zeros(-1)", lambda M: M.zeros(-1)),
    Row("zeros(2, -1)", lambda M: M.zeros(2, -1)),
    Row("ones(-1)", lambda M: M.ones(-1)),
    Row("empty(-1)", lambda M: M.empty(-1)),
    Row("full((-1,), 1.0)", lambda M: M.full((-1,), 1.0)),
    Row("rand(-1)", lambda M: M.rand(-1)),
    Row("randn(-1)", lambda M: M.randn(-1)),
    Row("randint(3, (-1,))", lambda M: M.randint(3, (-1,))),
    Row("zeros(2**40, 2**40): bytes overflow", lambda M: M.zeros(2 ** 40, 2 ** 40)),
    Row("zeros(2**62): bytes overflow", lambda M: M.zeros(2 ** 62)),
    Row("zeros(2**63): size overflow", lambda M: M.zeros(2 ** 63)),
    Row("ones(2**40, 2**40)", lambda M: M.ones(2 ** 40, 2 ** 40)),
    Row("empty(2**40, 2**40)", lambda M: M.empty(2 ** 40, 2 ** 40)),
    Row("full((2**40, 2**40), 1.0)", lambda M: M.full((2 ** 40, 2 ** 40), 1.0)),
    Row("rand(2**40, 2**40)", lambda M: M.rand(2 ** 40, 2 ** 40)),
    Row("randn(2**40, 2**40)", lambda M: M.randn(2 ** 40, 2 ** 40)),
    Row("full(2, 1.0): size not a sequence", lambda M: M.full(2, 1.0)),
    Row("full((2.0,), 1.0)", lambda M: M.full((2.0,), 1.0)),
    Row("randint(5, (2.0,))", lambda M: M.randint(5, (2.0,))),
    Row("new_zeros('a')", lambda M: x(M).new_zeros("a")),
    Row("new_full(2, 1.0)", lambda M: x(M).new_full(2, 1.0)),
    Row("Linear(2.5, 3)", lambda M: M.nn.Linear(2.5, 3)),
    Row("Linear(-1, 3)", lambda M: M.nn.Linear(-1, 3)),
    # fill values and numbers
    Row("full((2,), 'a')", lambda M: M.full((2,), "a")),
    Row("full((2,), None)", lambda M: M.full((2,), None)),
    Row("full((2,), [1, 2])", lambda M: M.full((2,), [1, 2])),
    Row("arange('a')", lambda M: M.arange("a")),
    Row("arange(None)", lambda M: M.arange(None)),
    Row("eye(-1)", lambda M: M.eye(-1)),
    Row("eye(2, -1)", lambda M: M.eye(2, -1)),
    Row("eye(2.0)", lambda M: M.eye(2.0)),
    Row("eye('a')", lambda M: M.eye("a")),
    Row("eye(True)", lambda M: M.eye(True)),
    Row("randperm(-1)", lambda M: M.randperm(-1)),
    Row("randperm(2.0)", lambda M: M.randperm(2.0)),
    Row("randperm(True)", lambda M: M.randperm(True)),
    Row("linspace(0, 1, -1)", lambda M: M.linspace(0, 1, -1)),
    Row("linspace(0, 1, 2.5)", lambda M: M.linspace(0, 1, 2.5), key=""),
    Row("linspace('a', 1, 2)", lambda M: M.linspace("a", 1, 2), key=""),
    # ranges
    Row("arange(0, -1)", lambda M: M.arange(0, -1)),
    Row("arange(5, 1, 1)", lambda M: M.arange(5, 1, 1)),
    Row("arange(1, 5, -1)", lambda M: M.arange(1, 5, -1)),
    Row("arange(0, 5, 0)", lambda M: M.arange(0, 5, 0)),
    Row("arange(0, inf)", lambda M: M.arange(0, INF)),
    Row("arange(0, nan)", lambda M: M.arange(0, NAN)),
    Row("arange(inf, 0, -1)", lambda M: M.arange(INF, 0, -1)),
    Row("randint(5, 2, (2,))", lambda M: M.randint(5, 2, (2,))),
    # dtypes
    Row("tensor(dtype='float32')", lambda M: M.tensor([1.0], dtype="float32")),
    Row("empty(2, dtype='float')", lambda M: M.empty(2, dtype="float")),
    Row("zeros(2, dtype=np.float32)", lambda M: M.zeros(2, dtype=np.float32)),
    Row("zeros(2, dtype=np.dtype('float32'))", lambda M: M.zeros(2, dtype=np.dtype("float32"))),
    Row("ones(2, dtype=3)", lambda M: M.ones(2, dtype=3)),
    Row("full((2,), 1.0, dtype='x')", lambda M: M.full((2,), 1.0, dtype="x")),
    Row("zeros_like(x, dtype='float32')", lambda M: M.zeros_like(x(M), dtype="float32")),
    Row("rand(2, dtype=int64)", lambda M: M.rand(2, dtype=M.int64)),
    Row("randn(2, dtype=int64)", lambda M: M.randn(2, dtype=M.int64)),
    Row("x.type('foo')", lambda M: x(M).type("foo")),
    Row("x.type('float')", lambda M: x(M).type("float")),
    Row("x.type(float)", lambda M: x(M).type(float)),
    Row("x.type(np.float64)", lambda M: x(M).type(np.float64)),
    Row("x.type(3)", lambda M: x(M).type(3)),
    # devices and flags
    Row("zeros(2, device='foo')", lambda M: M.zeros(2, device="foo"),
        key="device type at start of device string: foo"),
    Row("tensor([1], device='foo')", lambda M: M.tensor([1], device="foo"),
        key="device type at start of device string: foo"),
    Row("zeros(2, device=3.5)", lambda M: M.zeros(2, device=3.5)),
    Row("ones(2, requires_grad=1)", lambda M: M.ones(2, requires_grad=1)),
    Row("ones(2, requires_grad='a')", lambda M: M.ones(2, requires_grad="a")),
    Row("zeros(int64, requires_grad=True)", lambda M: M.zeros(2, dtype=M.int64, requires_grad=True)),
    Row("tensor([1], requires_grad=True)", lambda M: M.tensor([1], requires_grad=True)),
    Row("arange(3, requires_grad=True)", lambda M: M.arange(3, requires_grad=True)),
    Row("randint(3, (2,), requires_grad=True)", lambda M: M.randint(3, (2,), requires_grad=True)),
    Row("eye(2, int64, requires_grad=True)", lambda M: M.eye(2, dtype=M.int64, requires_grad=True)),
    Row("Parameter of integers", lambda M: M.nn.Parameter(M.ones(2, dtype=M.int64))),
    # data given to tensor()
    Row("tensor(10**20)", lambda M: M.tensor(10 ** 20)),
    Row("tensor([10**20])", lambda M: M.tensor([10 ** 20])),
    Row("tensor([2**63])", lambda M: M.tensor([2 ** 63])),
    Row("tensor(-2**63 - 1)", lambda M: M.tensor(-2 ** 63 - 1)),
    Row("tensor([1, None])", lambda M: M.tensor([1, None])),
    Row("tensor(None)", lambda M: M.tensor(None)),
    Row("tensor([None])", lambda M: M.tensor([None])),
    Row("tensor({1, 2})", lambda M: M.tensor({1, 2})),
    Row("tensor({1: 2})", lambda M: M.tensor({1: 2})),
    Row("tensor(object())", lambda M: M.tensor(object())),
    Row("tensor('a')", lambda M: M.tensor("a")),
    Row("tensor(['a'])", lambda M: M.tensor(["a"])),
    Row("tensor([[1], [1, 2]])", lambda M: M.tensor([[1], [1, 2]])),
    Row("tensor([[1], None])", lambda M: M.tensor([[1], None])),
    Row("tensor([[1], [None]])", lambda M: M.tensor([[1], [None]])),
    Row("tensor([None, [1]])", lambda M: M.tensor([None, [1]])),
    Row("tensor([[1], 'a'])", lambda M: M.tensor([[1], "a"])),
    Row("tensor([[1], 2])", lambda M: M.tensor([[1], 2])),
    Row("tensor([[[1]], [2]])", lambda M: M.tensor([[[1]], [2]])),
    Row("tensor([[1, 2], [3]])", lambda M: M.tensor([[1, 2], [3]])),
    Row("tensor([[1], [[2]]])", lambda M: M.tensor([[1], [[2]]])),
    Row("tensor([two-element tensors])", lambda M: M.tensor([M.ones(2), M.ones(2)])),
    Row("tensor([300], dtype=int8)", lambda M: M.tensor([300], dtype=M.int8)),
    Row("tensor(300, dtype=uint8)", lambda M: M.tensor(300, dtype=M.uint8)),
    Row("as_tensor(None)", lambda M: M.as_tensor(None)),
    Row("from_numpy([1])", lambda M: M.from_numpy([1])),
    Row("zeros_like(None)", lambda M: M.zeros_like(None)),
    Row("ones_like([1, 2])", lambda M: M.ones_like([1, 2])),
    Row("rand_like(None)", lambda M: M.rand_like(None)),
    Row("manual_seed('a')", lambda M: M.manual_seed("a")),
    Row("manual_seed(2**64)", lambda M: M.manual_seed(2 ** 64)),
    Row("manual_seed(-2**63 - 1)", lambda M: M.manual_seed(-2 ** 63 - 1)),
]

PROTOCOL = [
    Row("x.grad = x", lambda M: (lambda t: assign(t, "grad", t))(leaf(M))),
    Row("x.grad = wrong shape", lambda M: assign(leaf(M), "grad", M.zeros(3))),
    Row("x.grad = wrong dtype", lambda M: assign(leaf(M), "grad", M.zeros(2, dtype=M.float64))),
    Row("x.grad = a list", lambda M: assign(leaf(M), "grad", [1.0, 2.0])),
    Row("x.data = a list", lambda M: assign(leaf(M), "data", [1.0, 2.0])),
    Row("x.data = integers (requires grad)", lambda M: assign(leaf(M), "data", M.tensor([1, 2]))),
    Row("del x.data", lambda M: delete(leaf(M), "data")),
    Row("deepcopy of a non-leaf", lambda M: __import__("copy").deepcopy(leaf(M) * 2)),
    Row("float() of two elements", lambda M: float(M.ones(2))),
    Row("bool() of two elements", lambda M: bool(M.ones(2))),
    Row("bool() of no element", lambda M: bool(M.ones(0))),
    Row("item() of two elements", lambda M: M.ones(2).item()),
    Row("len() of a 0-d tensor", lambda M: len(M.tensor(1.0))),
    Row("iter() of a 0-d tensor", lambda M: iter(M.tensor(1.0))),
    Row("numpy() of a tensor requiring grad", lambda M: leaf(M).numpy()),
    Row("an index of floats", lambda M: [1, 2][M.tensor(1.0)]),
    Row("x.requires_grad = 1", lambda M: assign(leaf(M), "requires_grad", 1)),
    Row("x.requires_grad = None", lambda M: assign(x(M), "requires_grad", None)),
    Row("del x.requires_grad", lambda M: delete(leaf(M), "requires_grad")),
    Row("x.requires_grad_(1)", lambda M: x(M).requires_grad_(1)),
]

LAYERS = [
    Row("Linear(None)", lambda M: M.nn.Linear(2, 3)(None)),
    Row("Linear(list)", lambda M: M.nn.Linear(2, 3)([1.0, 2.0])),
    Row("Sequential(None)", lambda M: M.nn.Sequential(M.nn.Linear(2, 2))(None)),
    Row("linear(None, w)", lambda M: M.nn.functional.linear(None, M.ones(3, 2))),
    Row("linear(x, None)", lambda M: M.nn.functional.linear(M.ones(1, 2), None)),
    Row("linear(x, w, 3)", lambda M: M.nn.functional.linear(M.ones(1, 2), M.ones(3, 2), 3)),
    Row("Linear of integers", lambda M: M.nn.Linear(2, 3)(M.ones(1, 2, dtype=M.int64))),
    Row("Linear of the wrong width", lambda M: M.nn.Linear(2, 3)(M.ones(1, 4))),
    Row("ReLU(None)", lambda M: M.nn.ReLU()(None)),
    Row("Sigmoid(None)", lambda M: M.nn.Sigmoid()(None)),
    Row("weight = a plain tensor", lambda M: assign(M.nn.Linear(2, 3), "weight", M.ones(3, 2))),
    Row("register_parameter(tensor)",
        lambda M: M.nn.Linear(2, 3).register_parameter("w", M.ones(2))),
    Row("add_module(3)", lambda M: M.nn.Linear(2, 3).add_module("m", 3)),
    Row("load_state_dict(3)", lambda M: M.nn.Linear(2, 3).load_state_dict(3)),
    Row("load_state_dict(wrong shape)",
        lambda M: M.nn.Linear(2, 3).load_state_dict({"weight": M.ones(2), "bias": M.ones(3)})),
]

OPERATIONS = [  # the tensor arguments of operations, and their dim/size/dtype arguments
    Row("exp(None)", lambda M: M.exp(None)),
    Row("add(None, 1)", lambda M: M.add(None, 1)),
    Row("sum(None)", lambda M: M.sum(None)),
    Row("matmul(x, None)", lambda M: M.matmul(M.ones(2), None)),
    Row("x + 'a'", lambda M: x(M) + "a", key=""),
    Row("x + None", lambda M: x(M) + None, key=""),
    Row("x * [1, 2, 3]", lambda M: x(M) * [1, 2, 3], key=""),
    Row("x.sum(dim=5)", lambda M: x(M).sum(dim=5)),
    Row("x.sum(dim=1.0)", lambda M: x(M).sum(dim=1.0), key=""),
    Row("x.sum(dtype='float32')", lambda M: x(M).sum(dtype="float32"), key=""),
    Row("x.mean(dtype=np.float32)", lambda M: x(M).mean(dtype=np.float32), key=""),
    Row("x.unsqueeze(5)", lambda M: x(M).unsqueeze(5)),
    Row("x.expand(3) of a 2-d x", lambda M: x(M).expand(3)),
    Row("x.double().expand(3) of a 2-d x", lambda M: x(M).double().expand(3)),
    Row("where of a float condition", lambda M: M.where(x(M), x(M), x(M))),
    Row("x.transpose(0, 2)", lambda M: x(M).transpose(0, 2)),
    Row("x.view(4)", lambda M: x(M).view(4)),
    Row("x.view('a')", lambda M: x(M).view("a"), key=""),
    Row("x.reshape(2.0)", lambda M: x(M).reshape(2.0), key=""),
    Row("x.expand(3, 3)", lambda M: x(M).expand(3, 3)),
    Row("x.to('foo')", lambda M: x(M).to("foo"), key="device type at start of device string: foo"),
    Row("x @ a 3-vector of the wrong size", lambda M: x(M) @ M.ones(2)),
    Row("x + a tensor of a shape that does not broadcast", lambda M: x(M) + M.ones(4)),
    Row("x[5]", lambda M: x(M)[5]),
    Row("x['a']", lambda M: x(M)["a"], key=""),
    Row("backward of a non-scalar", lambda M: (leaf(M) * 2).backward()),
    Row("backward of a tensor without grad", lambda M: x(M).sum().backward()),
    Row("in-place on a leaf requiring grad", lambda M: leaf(M).add_(1)),
]

ROWS = CREATION + PROTOCOL + LAYERS + OPERATIONS


def _param(row):
    marks = [pytest.mark.xfail(reason=row.xfail, strict=True)] if row.xfail else []
    return pytest.param(row, id=row.name, marks=marks)


def _raised_from_numpy(error):
    last = traceback.extract_tb(error.__traceback__)[-1]
    return f"{os.sep}numpy{os.sep}" in last.filename


@pytest.mark.parametrize("row", [_param(r) for r in ROWS])
def test_misuse_raises_what_torch_raises(row):
    t_err, n_err = check_error(row.program, row.key)
    assert not _raised_from_numpy(n_err), (
        f"the error comes from inside NumPy: {traceback.extract_tb(n_err.__traceback__)[-1]}")
    assert not isinstance(n_err, AttributeError) or isinstance(t_err, AttributeError), (
        f"an AttributeError about nbgrad's internals: {n_err}")


def test_row_names_are_unique():
    names = [row.name for row in ROWS]
    assert len(names) == len(set(names))
