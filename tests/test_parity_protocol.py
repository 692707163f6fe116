"""Parity with PyTorch for the tensor object protocol and for warnings.

* NumPy's RuntimeWarnings never leak out of nbgrad (PyTorch is silent about the inf and
  nan it computes), while the user's own NumPy code keeps warning;
* the scalar-conversion warning is given where PyTorch gives it, and nowhere else;
* attributes, ``.grad`` and ``.data`` assignment, pickling and deepcopy behave as in PyTorch.
"""

import copy
import pathlib
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

from parity import check, check_error, check_no_warning, check_warning, torch

import nbgrad as ng
from nbgrad.tensor import SCALAR_OF_GRAD_WARNING

INF, NAN = float("inf"), float("nan")


# -- NumPy's floating-point warnings ----------------------------------------------------------
def runtime_warnings(program, M):
    """The RuntimeWarnings ``program(M)`` gives under the filters in force (nbgrad's
    included), every one of them: "always" comes after the filters already there."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", append=True)
        program(M)
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


def backward_of(f, values):
    def program(M):
        x = M.tensor(values, requires_grad=True)
        f(M, x).sum().backward()
        return x.grad
    return program


# Each program makes NumPy warn inside nbgrad (before nbgrad silenced them), and PyTorch
# computes the same inf or nan silently.
NUMPY_WARNS = {
    "x / 0": lambda M: M.tensor([1.0, 0.0]) / 0,
    "x / zeros": lambda M: M.tensor([1.0, 0.0]) / M.zeros(2),
    "int // 0 ": lambda M: M.tensor([1.0]) // M.zeros(1),
    "inf - inf": lambda M: M.tensor([INF]) - INF,
    "inf * 0": lambda M: M.tensor([INF]) * M.zeros(1),
    "log(0)": lambda M: M.log(M.zeros(2)),
    "log(-1)": lambda M: M.log(-M.ones(2)),
    "sqrt(-1)": lambda M: M.sqrt(-M.ones(2)),
    "exp overflow": lambda M: M.exp(M.tensor([1000.0])),
    "exp overflow float16": lambda M: M.exp(M.tensor([20.0], dtype=M.float16)),
    "mul overflow": lambda M: M.tensor([1e38]) * 1e38,
    "pow overflow": lambda M: M.tensor([1e30]) ** 2,
    "0 ** -1": lambda M: M.zeros(1) ** -1,
    "cast float to int": lambda M: M.tensor([1e10, NAN]).int(),
    "cast to float16": lambda M: M.tensor([1e6]).half(),
    "matmul inf * 0": lambda M: M.tensor([[INF]]) @ M.zeros(1, 1),
    "mm with nan": lambda M: M.mm(M.tensor([[NAN, INF]]), M.tensor([[0.0], [1.0]])),
    "sum inf + -inf": lambda M: M.tensor([INF, -INF]).sum(),
    "sum along dim": lambda M: M.tensor([[INF, -INF]]).sum(1),
    "mean inf + -inf": lambda M: M.tensor([INF, -INF]).mean(),
    "mean of nothing": lambda M: M.tensor([]).mean(),
    "mean of nothing along dim": lambda M: M.zeros(0, 2).mean(0),
    "var of one": lambda M: M.tensor([1.0]).var(),
    "softmax with inf": lambda M: M.softmax(M.tensor([INF, 1.0]), 0),
    "log_softmax of -inf": lambda M: M.log_softmax(M.tensor([-INF, -INF]), 0),
    "logsumexp of inf": lambda M: M.logsumexp(M.tensor([INF, -INF]), 0),
    "sigmoid far out": lambda M: M.sigmoid(M.tensor([-1000.0])),
    "tanh far out": lambda M: M.tanh(M.tensor([1000.0])),
    "backward of log at 0": backward_of(lambda M, x: x.log(), [0.0]),
    "backward of sqrt at 0": backward_of(lambda M, x: x.sqrt(), [0.0]),
    "backward of x ** 0.5 at 0": backward_of(lambda M, x: x ** 0.5, [0.0]),
    "backward of 1 / x at 0": backward_of(lambda M, x: 1 / x, [0.0]),
    "backward of exp overflow": backward_of(lambda M, x: x.exp() * 0, [1000.0]),
    "repr with nan and inf": lambda M: repr(M.tensor([NAN, INF, -INF, 1.0])),
}


@pytest.mark.parametrize("name", NUMPY_WARNS)
def test_numpy_runtime_warnings_do_not_leak(name):
    program = NUMPY_WARNS[name]
    assert not runtime_warnings(program, torch), "torch warns: the test is wrong"
    assert not runtime_warnings(program, ng), f"nbgrad lets NumPy's warning through for {name}"


def test_the_programs_warn_in_plain_numpy():
    """The table is not vacuous: the same arithmetic in the user's NumPy code warns."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.log(np.zeros(1))
        np.array([np.inf, -np.inf]).sum()
        np.zeros(0).mean()
        np.array([[np.inf]]) @ np.zeros((1, 1))
    assert len([w for w in caught if issubclass(w.category, RuntimeWarning)]) >= 4


def test_users_own_numpy_code_still_warns():
    with pytest.warns(RuntimeWarning, match="divide by zero encountered in log"):
        np.log(np.zeros(1))
    with pytest.warns(RuntimeWarning, match="invalid value encountered"):
        np.array([np.inf, -np.inf]).sum()


def test_silence_survives_catch_warnings_and_user_filters_for_other_modules():
    """catch_warnings copies the filters on entry (nbgrad's among them); a filter the user
    adds for RuntimeWarnings of another module leaves nbgrad's in force."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=RuntimeWarning, module="__main__")
        assert not runtime_warnings(NUMPY_WARNS["log(0)"], ng)


def test_a_users_error_filter_installed_later_takes_precedence():
    """Documented (nbgrad/warn.py): a filter added after nbgrad's comes first, so
    ``simplefilter("error")`` makes nbgrad's NumPy warnings errors; PyTorch is silent."""
    ng.zeros(1)  # nbgrad's filter is in the list in force (pytest replaced it for this test)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="overflow encountered in exp"):
            ng.exp(ng.tensor([1000.0]))
        ng.warn.silence_numpy_warnings()  # installed again: nbgrad's filter first again
        ng.exp(ng.tensor([1000.0]))


def test_python_W_error_keeps_nbgrad_silent_and_the_users_numpy_raising():
    program = (
        "import numpy as np, nbgrad as ng\n"
        "ng.exp(ng.tensor([1000.])); ng.tensor([1.]) / 0; ng.tensor([float('inf'), -float('inf')]).sum()\n"
        "try:\n    np.log(np.zeros(1))\nexcept RuntimeWarning as e:\n    print('raised', e)\n"
    )
    done = subprocess.run([sys.executable, "-W", "error", "-c", program], capture_output=True,
                          text=True, check=True, cwd=pathlib.Path(__file__).parents[1])
    assert done.stdout.strip() == "raised divide by zero encountered in log", done.stderr


# -- the scalar-conversion warning ------------------------------------------------------------
@pytest.fixture
def warn_always():
    """PyTorch gives the warning once per process (TORCH_WARN_ONCE): compared every time."""
    torch.set_warn_always(True)
    ng.set_warn_always(True)
    yield
    torch.set_warn_always(False)
    ng.set_warn_always(False)


def grad_scalar(M, shape=()):
    return M.ones(shape, requires_grad=True) * 1.5


SCALAR_WARNS = {
    "float(leaf)": lambda M: float(M.tensor(1.5, requires_grad=True)),
    "float(non-leaf)": lambda M: float(grad_scalar(M)),
    "float(one element, 2-d)": lambda M: float(grad_scalar(M, (1, 1))),
    "math on it": lambda M: __import__("math").sqrt(grad_scalar(M)),
    "a list of them to tensor()": lambda M: M.tensor([grad_scalar(M), grad_scalar(M)]),
    "nan": lambda M: float(M.tensor(NAN, requires_grad=True)),
}

SCALAR_SILENT = {
    "int()": lambda M: int(grad_scalar(M)),
    "bool()": lambda M: bool(grad_scalar(M)),
    ".item()": lambda M: grad_scalar(M).item(),
    ".tolist()": lambda M: grad_scalar(M, (2,)).tolist(),
    "format": lambda M: f"{grad_scalar(M):.2f}",
    "as an index": lambda M: [1, 2, 3][M.tensor(1)],
    "float() under no_grad": lambda M: _under_no_grad(M, lambda: float(grad_scalar(M))),
    "float() of a detached tensor": lambda M: float(grad_scalar(M).detach()),
    "float() without requires_grad": lambda M: float(M.tensor(1.5)),
    "comparison": lambda M: bool(grad_scalar(M) > 1),
    "repr": lambda M: repr(grad_scalar(M)),
}


def _under_no_grad(M, f):
    with M.no_grad():
        return f()


@pytest.mark.parametrize("name", SCALAR_WARNS)
def test_scalar_conversion_warns_where_torch_does(warn_always, name):
    check_warning(SCALAR_WARNS[name], UserWarning, "Converting a tensor with requires_grad=True")


@pytest.mark.parametrize("name", SCALAR_SILENT)
def test_scalar_conversion_is_silent_where_torch_is(warn_always, name):
    check_no_warning(SCALAR_SILENT[name])


def test_scalar_conversion_of_many_elements_warns_then_raises(warn_always):
    check_warning(lambda M: outcome_of(lambda: float(grad_scalar(M, (2,)))), UserWarning)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Converting a tensor with requires_grad=True")
        check_error(lambda M: float(grad_scalar(M, (2,))))
        check_error(lambda M: M.tensor([M.ones(2), M.ones(2)]))


def outcome_of(f):
    try:
        return f()
    except ValueError as e:
        return str(e)


def test_scalar_conversion_warns_once_per_process():
    ng.warn._given.discard(SCALAR_OF_GRAD_WARNING)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            float(grad_scalar(ng))
    assert [str(w.message) for w in caught] == [SCALAR_OF_GRAD_WARNING]
    assert ng.is_warn_always_enabled() is torch.is_warn_always_enabled() is False


def test_tensor_elements_of_data_are_numbers_with_their_dtype():
    check(lambda M: M.tensor([M.tensor(1), M.tensor(2)]))
    check(lambda M: M.tensor([M.tensor(1.0, dtype=M.float64), 2]))
    check(lambda M: M.tensor([M.tensor(1, dtype=M.int32), 2]))
    check(lambda M: M.tensor([M.tensor([[1.5]]), 2]))
    check(lambda M: M.tensor([M.tensor([1.0]), M.tensor([2.0])]))
    check(lambda M: M.tensor([M.tensor(True), False]))


# -- the tensor object protocol ---------------------------------------------------------------
def requiring(M):
    return M.tensor([1.0, 2.0], requires_grad=True)


def assign(target, name, value):
    """``setattr`` as a statement would do it, returning the target."""
    setattr(target, name, value)
    return target


def delete(target, name):
    delattr(target, name)
    return target


ASSIGNMENT_ERRORS = {
    "grad = itself": lambda M: (lambda x: assign(x, "grad", x))(requiring(M)),
    "grad of another shape": lambda M: assign(requiring(M), "grad", M.zeros(3)),
    "grad of another dtype": lambda M: assign(requiring(M), "grad", M.zeros(2, dtype=M.float64)),
    "grad of integers": lambda M: assign(requiring(M), "grad", M.zeros(2, dtype=M.int64)),
    "grad = a list": lambda M: assign(requiring(M), "grad", [1.0, 2.0]),
    "data = a list": lambda M: assign(requiring(M), "data", [1.0, 2.0]),
    "data = integers, leaf requiring grad": lambda M: assign(requiring(M), "data", M.tensor([1, 2])),
    "data = integers, non-leaf": lambda M: assign(requiring(M) * 2, "data", M.tensor([1, 2])),
    "del data": lambda M: delete(requiring(M), "data"),
}

ASSIGNMENTS = {
    "grad = None": lambda M: assign(requiring(M), "grad", None).grad,
    "grad = a detached copy of itself": lambda M: (lambda x: assign(x, "grad", x.detach()).grad)(requiring(M)),
    "data = integers, no grad": lambda M: assign(M.tensor([1.0, 2.0]), "data", M.tensor([1, 2])),
    "data of another shape and dtype": lambda M: assign(requiring(M), "data", M.zeros(3, dtype=M.float64)),
    "data of a non-leaf": lambda M: assign(requiring(M) * 2, "data", M.zeros(2)),
    "del grad": lambda M: delete(requiring(M), "grad").grad,
    "an attribute of one's own": lambda M: assign(requiring(M), "note", 1).note,
    "on a non-leaf": lambda M: assign(requiring(M) * 2, "note", [1]).note,
    "and its __dict__": lambda M: assign(M.ones(1), "note", 1).__dict__,
    "a fresh tensor's __dict__": lambda M: M.ones(1).__dict__,
}


@pytest.mark.parametrize("name", ASSIGNMENT_ERRORS)
def test_assignment_errors_match_torch(name):
    check_error(ASSIGNMENT_ERRORS[name])


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_assignments_match_torch(name):
    check(ASSIGNMENTS[name])


def pickled(value):
    return pickle.loads(pickle.dumps(value))


def leaf_with_grad(M):
    x = requiring(M)
    (x * x).sum().backward()
    return x


def with_attribute(t, value):
    t.note = value
    return t


def model_after_backward(M):
    M.manual_seed(0)
    model = M.nn.Sequential(M.nn.Linear(2, 3), M.nn.Linear(3, 1))
    model(M.ones(4, 2)).sum().backward()
    return model


COPIES = {  # what a pickled or deep-copied tensor keeps: values, flags, .grad, attributes
    "pickle a non-leaf": lambda M: (lambda y: (y, y.is_leaf, y.grad_fn is None))(pickled(requiring(M) * 2)),
    "pickle a leaf with grad": lambda M: (lambda y: (y, y.grad is None))(pickled(leaf_with_grad(M))),
    "pickle keeps attributes": lambda M: pickled(with_attribute(M.ones(2), [3])).note,
    "pickle a Parameter": lambda M: (lambda p: (type(p).__name__, p, p.grad is None))(
        pickled(M.nn.Parameter(M.ones(2)))),
    "pickle a view: its own storage": lambda M: (lambda vs: (vs[1].add_(1), vs[0]))(
        pickled((lambda b: (b, b[0]))(M.arange(6.0).reshape(2, 3)))),
    "deepcopy keeps grad": lambda M: copy.deepcopy(leaf_with_grad(M)).grad,
    "deepcopy copies attributes": lambda M: (lambda x: (lambda y: (y.note, y.note is x.note))(
        copy.deepcopy(x)))(with_attribute(M.ones(2), [3])),
    "deepcopy of a Parameter drops grad": lambda M: (lambda p: (
        p.sum().backward(), copy.deepcopy(p).grad is None, type(copy.deepcopy(p)).__name__)[1:])(
        M.nn.Parameter(M.ones(2))),
    "deepcopy of a Parameter drops attributes": lambda M: hasattr(
        copy.deepcopy(with_attribute(M.nn.Parameter(M.ones(2)), 1)), "note"),
    "deepcopy of a model drops grads": lambda M: [
        (p.grad is None, p.requires_grad, type(p).__name__)
        for p in copy.deepcopy(model_after_backward(M)).parameters()],
    "deepcopy of a model copies values": lambda M: [
        p.detach() for p in copy.deepcopy(model_after_backward(M)).parameters()],
    "deepcopy shares what is shared": lambda M: (lambda y: y[0] is y[1])(
        copy.deepcopy((lambda x: [x, x])(M.ones(2)))),
    "copy.copy": lambda M: (lambda x: (lambda y: (y, y is x))(copy.copy(x)))(requiring(M)),
}


@pytest.mark.parametrize("name", COPIES)
def test_pickle_and_deepcopy_match_torch(name):
    if "model copies values" in name:  # the initial values come from different generators
        got = COPIES[name](ng)
        assert [tuple(p.shape) for p in got] == [(3, 2), (3,), (1, 3), (1,)]
        return
    check(COPIES[name])


def test_deepcopy_of_a_non_leaf_is_refused_as_in_torch():
    check_error(lambda M: copy.deepcopy(requiring(M) * 2))


LAYER_ARGUMENTS = {  # layers and functional entry points check their tensor arguments
    "Linear(None)": lambda M: M.nn.Linear(2, 3)(None),
    "Linear(list)": lambda M: M.nn.Linear(2, 3)([1.0, 2.0]),
    "Sequential(None)": lambda M: M.nn.Sequential(M.nn.Linear(2, 2))(None),
    "linear(None, w)": lambda M: M.nn.functional.linear(None, M.ones(3, 2)),
    "linear(x, None)": lambda M: M.nn.functional.linear(M.ones(1, 2), None),
    "linear(x, w, 3)": lambda M: M.nn.functional.linear(M.ones(1, 2), M.ones(3, 2), 3),
    "linear of integers, 2-d": lambda M: M.nn.Linear(2, 3)(M.ones(1, 2, dtype=M.int64)),
    "linear of integers, 3-d": lambda M: M.nn.Linear(2, 3)(M.ones(4, 1, 2, dtype=M.int64)),
    "linear of integers, no bias": lambda M: M.nn.Linear(2, 3, bias=False)(M.ones(1, 2, dtype=M.int64)),
    "linear, float64 bias": lambda M: M.nn.functional.linear(
        M.ones(1, 2), M.ones(3, 2), M.ones(3, dtype=M.float64)),
    "ReLU(None)": lambda M: M.nn.ReLU()(None),
    "Tanh(None)": lambda M: M.nn.Tanh()(None),
}


@pytest.mark.parametrize("name", LAYER_ARGUMENTS)
def test_layer_arguments_are_checked_as_in_torch(name):
    check_error(LAYER_ARGUMENTS[name])


# -- what creation functions accept, compared with torch -------------------------------------
CREATIONS = {
    "tensor(dtype=float) is float64": lambda M: M.tensor([1, 2], dtype=float),
    "tensor(dtype=int) is int64": lambda M: M.tensor([1.5], dtype=int),
    "tensor(dtype=bool)": lambda M: M.tensor([1, 0], dtype=bool),
    "zeros(dtype=float) is float64": lambda M: M.zeros(2, dtype=float),
    "ones(dtype=int)": lambda M: M.ones(2, dtype=int),
    "full(dtype=bool)": lambda M: M.full((2,), 1.5, dtype=bool),
    "sum(dtype=float) is float64": lambda M: M.ones(2).sum(dtype=float),
    "tensor(10**20, dtype=float32)": lambda M: M.tensor(10 ** 20, dtype=M.float32),
    "tensor([10**20], dtype=float64)": lambda M: M.tensor([10 ** 20], dtype=M.float64),
    "tensor(-2**63)": lambda M: M.tensor([-2 ** 63]),
    "tensor(2**63 - 1)": lambda M: M.tensor(2 ** 63 - 1),
    "tensor(-1, dtype=uint8) wraps": lambda M: M.tensor(-1, dtype=M.uint8),
    "tensor([-255, 255], dtype=uint8)": lambda M: M.tensor([-255, 255], dtype=M.uint8),
    "tensor([-128, 127], dtype=int8)": lambda M: M.tensor([-128, 127], dtype=M.int8),
    "tensor([1.5], dtype=int8)": lambda M: M.tensor([1.5], dtype=M.int8),
    "zeros(np.int64(2))": lambda M: M.zeros(np.int64(2)),
    "zeros(a one-element tensor)": lambda M: M.zeros(M.tensor(2)),
    "zeros([2, 3])": lambda M: M.zeros([2, 3]),
    "zeros(0)": lambda M: M.zeros(0),
    "full([2], 1.0)": lambda M: M.full([2], 1.0),
    "full((2,), a 0-d tensor)": lambda M: M.full((2,), M.tensor(1.5)),
    "full((2,), np.float32)": lambda M: M.full((2,), np.float32(1.0)),
    "full((2,), True)": lambda M: M.full((2,), True),
    "eye(0)": lambda M: M.eye(0),
    "eye(2, 3)": lambda M: M.eye(2, 3),
    "arange(a 0-d tensor)": lambda M: M.arange(M.tensor(3)),
    "arange(np.float32)": lambda M: M.arange(np.float32(2.0)),
    "arange(0, 1, 0.25)": lambda M: M.arange(0, 1, 0.25),
    "linspace(0, 1, 0)": lambda M: M.linspace(0, 1, 0),
    "randperm(np.int64(0))": lambda M: M.randperm(np.int64(0)),
    "type('...DoubleTensor')": lambda M: M.ones(2).type(f"{M.__name__}.DoubleTensor"),
    "type('...LongTensor')": lambda M: M.ones(2).type(f"{M.__name__}.LongTensor"),
    "type(dtype)": lambda M: M.ones(2).type(M.int32),
    "type()": lambda M: M.ones(2).type(),
    "manual_seed(-1)": lambda M: M.manual_seed(-1) is not None,
    "manual_seed(1.7)": lambda M: M.manual_seed(1.7) is not None,
    "manual_seed(2**64 - 1)": lambda M: M.manual_seed(2 ** 64 - 1) is not None,
}


@pytest.mark.parametrize("name", CREATIONS)
def test_creation_accepts_what_torch_accepts(name):
    check(CREATIONS[name])


def test_a_shape_too_large_to_allocate_is_refused_as_in_torch():
    """Its bytes fit in 64 bits but not in memory: PyTorch's allocator error, not NumPy's
    MemoryError (2**42 float32 values are 16 TiB; NumPy refuses them without touching memory)."""
    with pytest.raises(RuntimeError, match="can't allocate memory: you tried to allocate "
                                           "17592186044416 bytes"):
        ng.ones(2 ** 42)
