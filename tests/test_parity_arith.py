"""PyTorch parity of arithmetic: division and remainders, dtypes of mixed operands, the
dtypes each operation refuses, NaN and inf in the pointwise ops, numbers where PyTorch
takes none, ``alpha``, and the errors of the matrix products (issue 15).

Most tests are tables: every operator or op against every pair of operand dtypes, or
randomised values drawn with signs, zeros, inf and NaN. ``same_outcome`` runs a program
under both libraries and compares the result, or the error when PyTorch raises one.
"""

import inspect
import math
import operator

import numpy as np
import pytest

from opinfo import OPS as OP_TABLE
from parity import check, check_error, grad_of, leaf, outcome, same_outcome, torch

import nbgrad as ng


DTYPES = ("bool", "uint8", "int32", "int64", "float32", "float64")
FLOATS = ("float32", "float64")
INTEGERS = ("uint8", "int32", "int64")


def draw(rng, dtype, n=24, zeros=True, specials=True):
    """Random values of ``dtype`` with both signs; zeros (and for floats ±inf, NaN, -0.0,
    exact multiples) among them unless told otherwise."""
    if dtype == "bool":
        values = rng.integers(0, 2, n).astype(bool) if zeros else np.ones(n, bool)
    elif dtype in INTEGERS:
        low = 0 if dtype == "uint8" else -9
        values = rng.integers(low, 10, n)
        if not zeros:
            values[values == 0] = 3
    else:
        values = np.round(rng.uniform(-5, 5, n), int(rng.integers(0, 3)))
        if specials:
            picks = rng.choice(n, 6, replace=False)
            values[picks] = [np.inf, -np.inf, np.nan, -0.0, 0.5, -2.0]
        if not zeros:
            values[values == 0] = 1.25
    return values


def tensor(M, values, dtype):
    return M.tensor(values.tolist(), dtype=getattr(M, dtype))


# -- 1. floor division -----------------------------------------------------------------------
@pytest.mark.parametrize("form", ["tensor_tensor", "tensor_number", "number_tensor", "method", "inplace",
                                  "inplace_operator"])
def test_floor_division_records_no_derivative(form):
    """``//`` joins the graph as PyTorch's ``NotImplemented`` node: the result requires
    grad, and backward through it raises (PyTorch has no formula for floor_divide)."""
    def forward(M):
        x = leaf(M, [1.5, -2.5, 4.0])
        return {"tensor_tensor": lambda: x // leaf(M, [0.5, 2.0, -3.0]),
                "tensor_number": lambda: x // 2,
                "number_tensor": lambda: 7.0 // x,
                "method": lambda: x.floor_divide(2.0),
                "inplace": lambda: x.clone().floor_divide_(2.0),
                "inplace_operator": lambda: x.clone().__ifloordiv__(2.0)}[form]()

    def result(M):
        y = forward(M)
        return y, y.requires_grad, type(y.grad_fn).__name__

    check(result)
    check_error(lambda M: forward(M).sum().backward())  # in place: aten::floor_divide_


def test_remainder_of_a_number_by_a_tensor_records_no_derivative():
    check(lambda M: type((5.0 % leaf(M, [1.5, -2.5])).grad_fn).__name__)
    check_error(lambda M: (5.0 % leaf(M, [1.5, -2.5])).sum().backward())


def test_rounded_division_has_a_zero_gradient():
    """``div(rounding_mode=...)`` is differentiable (zero), unlike ``//``."""
    def program(M, mode):
        x, y = leaf(M, [1.5, -2.5, 4.0]), leaf(M, [0.5, 2.0, -3.0])
        out = M.div(x, y, rounding_mode=mode)
        out.backward(M.tensor([math.inf, 1.0, -2.0]))
        return out, type(out.grad_fn).__name__, grad_of(x), grad_of(y)

    for mode in ("floor", "trunc"):
        check(lambda M: program(M, mode))
    check_error(lambda M: M.div(M.ones(2), 2, rounding_mode="round"))


def test_floor_division_of_floats_rounds_the_exact_quotient():
    """PyTorch's div_floor_floating: ``1. // 0.1`` is 9, as in Python, not floor(1 / 0.1)."""
    check(lambda M: (M.tensor(1.0) // M.tensor(0.1), M.tensor(1.0) // 0.1, 1.0 // M.tensor(0.1),
                     M.tensor([1.0, -1.0, 0.0, -0.0]) // 0.0, M.tensor([1.0, -1.0, 0.0]) // -0.0,
                     M.div(M.tensor([0.7, -0.7]), 0.1, rounding_mode="floor")))


ROUNDED = {
    "floordiv": operator.floordiv,
    "floor_divide": lambda M, x, y: M.floor_divide(x, y),
    "div_floor": lambda M, x, y: M.div(x, y, rounding_mode="floor"),
    "div_trunc": lambda M, x, y: M.div(x, y, rounding_mode="trunc"),
    "mod": operator.mod,
    "remainder": lambda M, x, y: M.remainder(x, y),
    "fmod": lambda M, x, y: M.fmod(x, y),
}


def _call(name, M, x, y):
    fn = ROUNDED[name]
    return fn(x, y) if name in ("floordiv", "mod") else fn(M, x, y)


@pytest.mark.parametrize("name", ROUNDED)
@pytest.mark.parametrize("left", DTYPES)
@pytest.mark.parametrize("right", DTYPES)
def test_division_and_remainders_randomised(name, left, right):
    """Signs, zeros, ±inf, NaN, -0.0 and every pair of dtypes: values and dtype as
    PyTorch's, or its error (a bool kernel that does not exist, an integer division by
    zero: "ZeroDivisionError")."""
    rng = np.random.default_rng([sum(map(ord, name)), DTYPES.index(left), DTYPES.index(right)])
    for zeros in (False, True):
        x, y = draw(rng, left), draw(rng, right, zeros=zeros)
        same_outcome(lambda M: _call(name, M, tensor(M, x, left), tensor(M, y, right)))


NUMBERS = (3, -2, 0, 2.5, -0.75, 0.0, -0.0, math.inf, -math.inf, math.nan, True, False)


@pytest.mark.parametrize("name", ROUNDED)
@pytest.mark.parametrize("dtype", DTYPES)
def test_division_and_remainders_with_a_number_on_either_side(name, dtype):
    rng = np.random.default_rng([sum(map(ord, name)), DTYPES.index(dtype), 7])
    x = draw(rng, dtype, zeros=False)
    for number in NUMBERS:
        same_outcome(lambda M: _call(name, M, tensor(M, x, dtype), number))
        same_outcome(lambda M: _call(name, M, number, tensor(M, x, dtype)))


# -- 2. remainder and fmod ---------------------------------------------------------------------
def test_remainder_takes_the_divisors_sign_and_fmod_the_dividends():
    def program(M):
        x, y = M.tensor([5.0, -5.0, 5.0, -5.0, 4.5]), M.tensor([3.0, 3.0, -3.0, -3.0, 1.5])
        i, j = M.tensor([5, -5, 5, -5]), M.tensor([3, 3, -3, -3])
        return x % y, M.remainder(x, y), M.fmod(x, y), i % j, i.fmod(j), x.remainder(-2), 7 % y

    check(program)


@pytest.mark.parametrize("name", ["remainder", "fmod"])
def test_remainders_in_place(name):
    def program(M):
        x = M.tensor([5.0, -5.0, 7.5])
        getattr(x, name + "_")(M.tensor([3.0, 3.0, -2.0]))
        i = M.tensor([5, -5, 7])
        getattr(i, name + "_")(3)
        return x, i

    check(program)
    check_error(lambda M: getattr(M.tensor([5, -5]), name + "_")(2.5))  # float into int64


def test_mod_operators():
    def program(M):
        x = leaf(M, [5.0, -5.0, 7.5])
        y = x.clone()
        y %= 2.0
        return x % 2, 2 % x.detach(), y

    check(program)


@pytest.mark.parametrize("name", ["remainder", "fmod"])
def test_remainder_gradients(name):
    """derivatives.yaml: grad for the dividend; -grad * floor (remainder) or trunc (fmod)
    of x / y for the divisor, summed over broadcasting."""
    def program(M):
        x = leaf(M, [[2.3, -1.7, 0.45], [-2.6, 1.2, -0.35]])
        y = leaf(M, [0.9, -1.3, 2.1])
        out = getattr(M, name)(x, y)
        out.backward(M.tensor([[1.0, -2.0, 0.5], [3.0, 1.0, -1.0]]))
        z = leaf(M, [2.3, -1.7])
        getattr(z, name)(-0.75).sum().backward()
        return out, grad_of(x), grad_of(y), grad_of(z)

    check(program)


# -- 3. dtypes of mixed operands ----------------------------------------------------------
LEFT = {"bool": [True, False, True, False, True], "int64": [-7, -1, 0, 3, 8],
        "int32": [5, -4, 0, 2, -9], "float32": [-7.5, -1.0, 0.0, 3.25, 8.0],
        "float64": [1.5, -2.0, 0.25, 4.0, -0.5]}
RIGHT = {"bool": [True, True, True, True, True], "int64": [2, -3, 5, -1, 4], "int32": [3, 1, -2, 2, -1],
         "float32": [2.0, -3.5, 5.0, -1.0, 0.5], "float64": [0.5, 2.0, -4.0, 1.5, -2.5]}
OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "//": operator.floordiv, "%": operator.mod, "**": operator.pow}
OPERAND_NUMBERS = (True, False, 2, -2, 0, 2.5, -1.0)


@pytest.mark.parametrize("symbol", OPERATORS)
@pytest.mark.parametrize("left", LEFT)
def test_operator_dtypes_with_tensors(symbol, left):
    """``bool + bool`` is bool, ``bool - bool`` is refused, ``bool ** 2`` is int64, ``int **
    int`` takes negative exponents as PyTorch does, ...: dtype and values, or the error."""
    fn = OPERATORS[symbol]
    for right in RIGHT:
        same_outcome(lambda M: fn(M.tensor(LEFT[left]), M.tensor(RIGHT[right])))
        same_outcome(lambda M: fn(M.tensor(LEFT[left])[0], M.tensor(RIGHT[right])))  # 0-d


@pytest.mark.parametrize("symbol", OPERATORS)
@pytest.mark.parametrize("dtype", LEFT)
def test_operator_dtypes_with_numbers(symbol, dtype):
    fn = OPERATORS[symbol]
    for number in OPERAND_NUMBERS:
        same_outcome(lambda M: fn(M.tensor(LEFT[dtype]), number))
        same_outcome(lambda M: fn(number, M.tensor(RIGHT[dtype])))


def test_integer_powers():
    """A negative number exponent of an integer tensor is refused; a tensor of exponents
    gives 1 ** -n = 1, (-1) ** -n = ±1 and 0 for every other base, as PyTorch's powi."""
    check_error(lambda M: M.tensor([2, 3]) ** -1)
    check_error(lambda M: M.tensor([True, False]) ** -2)
    check(lambda M: (M.tensor([1, -1, 2, -2, 0, -1]) ** M.tensor([-1, -1, -1, -3, -1, -2]),
                     2 ** M.tensor([-1, 2, 0]), (-1) ** M.tensor([-1, -2, 3]), M.pow(3, M.tensor([2, -2])),
                     M.tensor([2, 3]) ** -1.0, M.tensor([True, False]) ** False,
                     M.tensor([True, False]) ** True, M.tensor([2, 3]) ** 0, M.tensor([2, 3]) ** 1))


def test_bool_negation_and_subtraction_are_refused():
    check_error(lambda M: -M.tensor([True, False]))
    check_error(lambda M: M.tensor([True, False]).neg_())
    check_error(lambda M: M.tensor([True, False]) - M.tensor([True, True]))
    check_error(lambda M: M.tensor([True, False]) - 1)
    check_error(lambda M: 1 - M.tensor([True, False]))


# -- 4. NaN and inf in the pointwise ops --------------------------------------------------
SPECIALS = [math.nan, math.inf, -math.inf, -0.0, 0.0, -0.4, 0.5, 1.5, 2.5, -2.5, 1e30, -7.0]
POINTWISE = ("sign", "sgn", "abs", "floor", "ceil", "round", "trunc", "neg", "relu")


@pytest.mark.parametrize("name", POINTWISE)
@pytest.mark.parametrize("dtype", FLOATS)
def test_pointwise_ops_on_nan_and_inf(name, dtype):
    """``sign(nan)`` is 0 in PyTorch (NumPy says NaN); the rest keep NaN and ±inf."""
    same_outcome(lambda M: getattr(M.tensor(SPECIALS, dtype=getattr(M, dtype)), name)())
    same_outcome(lambda M: M.tensor(SPECIALS, dtype=getattr(M, dtype)).round(decimals=1))


@pytest.mark.parametrize("name", ["sign", "sgn"])
def test_sign_gradient_is_zero(name):
    def program(M):
        x = leaf(M, [math.nan, -2.0, 0.0, 3.0])
        y = getattr(x, name)()
        y.backward(M.tensor([1.0, math.inf, 2.0, -1.0]))
        return y, type(y.grad_fn).__name__, grad_of(x)

    check(program)


# -- 5. what each op refuses, from the op table -------------------------------------------
def _signature_of(row):
    """``"unary"`` or ``"binary"`` for a row called on one or two tensors, else None."""
    samples = row.sample_inputs()
    if not samples or samples[0].kwargs or not row.function or row.op is not None:
        return None
    kinds = ["tensor" if hasattr(arg, "values") else None for arg in samples[0].args]
    return {("tensor",): "unary", ("tensor", "tensor"): "binary"}.get(tuple(kinds))


TABLE_OPS = sorted({(row.name, _signature_of(row)) for row in OP_TABLE
                    if _signature_of(row) and row.not_in_torch is None})
# ops of the table that are not this file's to fix, and why they still differ
TABLE_VALUES = [[1, 0, 3, 2], [2, 5, 0, 1], [0, 1, 1, 4]]


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
@pytest.mark.parametrize("name,kind", TABLE_OPS, ids=[name for name, _ in TABLE_OPS])
def test_every_table_op_accepts_or_refuses_each_dtype_as_torch(name, kind, dtype):
    """Every one- and two-tensor op of tests/opinfo.py on bool, int64 and float32 tensors:
    the same result, or PyTorch's error (``relu``, ``floor``, ``abs``, ``argmax``, ``@`` of
    bools; ``"addmm_impl_cpu_" not implemented for 'Bool'``, ...)."""
    def program(M):
        x = M.tensor(TABLE_VALUES, dtype=getattr(M, dtype))
        if kind == "unary":
            return getattr(M, name)(x)
        y = x.t() if name in ("mm", "matmul") else x[0] if name in ("mv", "dot") else x
        y = y.unsqueeze(0) if name == "bmm" else y
        x = x.unsqueeze(0) if name == "bmm" else x[0] if name == "dot" else x
        return getattr(M, name)(x, y)

    same_outcome(program)


@pytest.mark.parametrize("name", ["argmax", "argmin", "abs", "relu", "floor", "ceil", "trunc", "round"])
def test_bool_refusals_in_every_form(name):
    """Methods and in-place variants refuse what the function refuses."""
    b = [True, False, True]
    check_error(lambda M: getattr(M.tensor(b), name)())
    if name not in ("argmax", "argmin"):
        check_error(lambda M: getattr(M.tensor(b), name + "_")())


def test_bitwise_errors_name_the_dtype():
    """'Double' for float64, 'Float' for float32 (and a Python float meets int in float32)."""
    for values, other in (([1.5], [2.5]), ([1], 2.5)):
        for dtype in ("float32", "float64"):
            d = dtype if isinstance(values[0], float) else "int64"
            same_outcome(lambda M: M.tensor(values, dtype=getattr(M, d)) & (
                M.tensor(other, dtype=getattr(M, dtype)) if isinstance(other, list) else other))
    same_outcome(lambda M: ~M.tensor([1.5], dtype=M.float64))


# -- 6. a number where PyTorch wants a tensor -----------------------------------------------
OPERAND_NAMES = {"other", "exponent", "mat2", "vec"}


def _binary_exports():
    """Every exported nbgrad op that PyTorch has too and whose first two parameters are
    operands (``input``, ``other``)."""
    names = []
    for name, fn in sorted(ng.ops.declare.exported().items()):
        params = list(inspect.signature(fn).parameters)[:2]
        if params[:1] == ["input"] and params[1:] and params[1] in OPERAND_NAMES and hasattr(torch, name):
            names.append(name)
    return names


@pytest.mark.parametrize("name", _binary_exports())
@pytest.mark.parametrize("number", [2.0, 2, True])
def test_a_number_as_first_operand(name, number):
    """``M.add(2, x)`` runs; ``M.le(2.0, x)``, ``M.rsub(2.0, x)``, ``M.fmod(2, x)`` are
    refused with PyTorch's "received an invalid combination of arguments"."""
    def program(M):
        return getattr(M, name)(number, M.tensor([1.0, 3.0]))

    _, error = outcome(program, torch)
    if error is None:
        check(program)
    else:  # an alias (less) shares its function with the op (lt), whose name nbgrad prints
        check_error(program, key=str(error).splitlines()[0].split("()", 1)[-1])


# -- 7. alpha ----------------------------------------------------------------------------
ALPHAS = (1, 2, -1, 0, 0.5, 1.0, True, False, "a", None, 1j)


@pytest.mark.parametrize("name", ["add", "sub", "rsub", "add_", "sub_"])
@pytest.mark.parametrize("left,right", [("int64", "int64"), ("int64", "float32"), ("float32", "float32"),
                                        ("bool", "bool"), ("int64", "number"), ("float32", "number")])
def test_alpha_against_the_result_dtype(name, left, right):
    """A float alpha with an integral result, a bool alpha with a non-bool result, a
    complex alpha, an alpha that is no number: PyTorch's errors; the rest computes."""
    def program(M, alpha):
        x = M.tensor(LEFT[left], dtype=getattr(M, left))
        y = 3 if right == "number" else M.tensor(RIGHT[right], dtype=getattr(M, right))
        if name.endswith("_"):
            return getattr(x, name)(y, alpha=alpha)
        return getattr(M, name)(x, y, alpha=alpha)

    for alpha in ALPHAS:
        if name.endswith("_") and alpha in ("a", None):  # nbgrad names add, PyTorch add_
            check_error(lambda M: program(M, alpha), key="argument 'alpha' must be Number, not ")
        elif name.endswith("_") and (left, right) == ("int64", "float32") and isinstance(alpha, (bool, complex)):
            # PyTorch refuses the float result in an int64 tensor first, nbgrad the alpha
            check_error(lambda M: program(M, alpha), key="")
        else:
            same_outcome(lambda M: program(M, alpha))


def test_alpha_gradient():
    def program(M):
        x, y = leaf(M, [1.0, -2.0]), leaf(M, [0.5, 3.0])
        out = M.add(x, y, alpha=-2.5) * M.sub(x, y, alpha=0.5) + M.rsub(x, y, alpha=2)
        out.sum().backward()
        return out, grad_of(x), grad_of(y)

    check(program)


# -- 8. the matrix products' errors -----------------------------------------------------------
def _linear(M, x, w, bias=False):
    # (a bias with a 1-D weight is left out: PyTorch's error there is not nbgrad's yet)
    bias = M.zeros(w.shape[:1], dtype=w.dtype) if bias and w.dim() == 2 else None
    return M.nn.functional.linear(x, w, bias)


PRODUCTS = {"mm": lambda M, a, b: M.mm(a, b), "matmul": lambda M, a, b: a @ b,
            "mv": lambda M, a, b: M.mv(a, b), "dot": lambda M, a, b: M.dot(a, b),
            "bmm": lambda M, a, b: M.bmm(a, b), "linear": _linear,
            "linear_bias": lambda M, a, b: _linear(M, a, b, bias=True)}
SHAPES = [((2, 3), (4, 5)), ((2, 3), (3, 5)), ((2, 3), (4,)), ((3,), (4,)), ((3,), (3,)), ((2, 3, 4), (2, 5, 6)),
          ((2, 3, 4), (3, 4, 5)), ((2, 3), (5, 4)), ((2, 3), (4, 3)), ((3,), (2, 4)), ((2, 2, 3), (4,)),
          ((2, 3, 4), (5, 2)), ((), (3,)), ((3, 4), ()), ((2, 3, 4), (2, 4)), ((3, 1, 2, 3), (2, 4, 5))]


@pytest.mark.parametrize("name", PRODUCTS)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matrix_product_shapes(name, shapes):
    """Matching shapes compute; mismatched ones raise PyTorch's error, in its wording
    ("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")."""
    rng = np.random.default_rng(len(name) + 7 * SHAPES.index(shapes))
    a, b = (rng.standard_normal(s) for s in shapes)
    same_outcome(lambda M: PRODUCTS[name](M, M.tensor(a, dtype=M.float32), M.tensor(b, dtype=M.float32)),
                 rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", PRODUCTS)
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"), ("float32", "int64"),
                                    ("int64", "float32"), ("bool", "float32"), ("float32", "bool"),
                                    ("bool", "bool"), ("int64", "int64")], ids=str)
def test_matrix_product_dtypes(name, dtypes):
    """Mixed dtypes are refused with PyTorch's dtype names ('float != double' for mm,
    'Float and Double' elsewhere); bool has no kernel; integers compute."""
    shapes = {"mv": ((2, 3), (3,)), "dot": ((3,), (3,)), "bmm": ((2, 2, 3), (2, 3, 2))}.get(name, ((2, 3), (3, 3)))

    def program(M):
        a, b = (M.ones(s, dtype=getattr(M, d)) for s, d in zip(shapes, dtypes))
        return PRODUCTS[name](M, a, b)

    same_outcome(program)
