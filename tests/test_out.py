"""``out=``: every function of nbgrad whose PyTorch function takes it, against PyTorch.

The table of those functions (``nbgrad/ops/out.py: OUT``) is checked against torch's own
signatures; each function runs with ``out=`` on the cases below and must give what it gives
without it, and what torch gives with ``out=``; then the rules: resizing, dtypes, autograd,
tuples of outs, overlap and views.
"""

import ast
import inspect
import pathlib
import warnings

import numpy as np
import pytest

import nbgrad as ng
from nbgrad.ops.out import ANY, CAST, CREATION, EXACT, INTO, OUT, RANGE

torch = pytest.importorskip("torch", reason="the parity tests of out= compare with PyTorch")

# name: [(args, kwargs)...]; a string such as "f34" is an input (``make``), a list holds several
CASES = {
    **{n: [(("f34",), {})] for n in
       "abs ceil cos cosh erf erfc exp exp2 expm1 floor frac neg negative reciprocal round rsqrt "
       "sgn sigmoid sign sin sinh square tan tanh trunc arctan atan logical_not nan_to_num "
       "msort".split()},
    **{n: [(("u34",), {})] for n in "acos arccos asin arcsin atanh arctanh erfinv".split()},
    **{n: [(("p34",), {})] for n in
       "log log10 log1p log2 sqrt acosh arccosh asinh arcsinh".split()},
    **{n: [(("f34", "f34"), {}), (("f34", "f4"), {})] for n in
       "add sub subtract mul multiply div divide maximum minimum atan2 arctan2 hypot logaddexp "
       "eq ne not_equal lt le gt ge less less_equal greater greater_equal fmod remainder "
       "xlogy floor_divide true_divide".split()},
    "add": [(("f34", "f34"), {"alpha": 2}), (("f34", 2.0), {})],
    "pow": [(("p34", "f34"), {}), (("p34", 2), {})],
    "lerp": [(("f34", "f34", 0.3), {})],
    "clamp": [(("f34", -0.5, 0.5), {})], "clip": [(("f34", -0.5, 0.5), {})],
    "clamp_min": [(("f34", 0.0), {})], "clamp_max": [(("f34", 0.0), {})],
    "where": [(("b34", "f34", "f34"), {})],
    "sum": [(("f34", 1), {})], "mean": [(("f34", 0), {})],
    "nansum": [(("f34", 1), {})], "nanmean": [(("f34", 1), {})], "prod": [(("f34", 1), {})],
    "std": [(("f34", 1), {})], "var": [(("f34", 1), {})], "logsumexp": [(("f34", 1), {})],
    "all": [(("b34",), {}), (("b34", 1), {})], "any": [(("b34", 1), {})],
    "amax": [(("f34", 1), {})], "amin": [(("f34", 1), {})],
    "argmax": [(("f34", 1), {})], "argmin": [(("f34",), {})],
    "max": [(("f34",), {}), (("f34", 1), {}), (("f34", "f34"), {})],
    "min": [(("f34",), {}), (("f34", 0, True), {})],
    "median": [(("f34", 1), {})], "nanmedian": [(("f34", 1), {})],
    "sort": [(("f34",), {}), (("f34", 0, True), {})],
    "argsort": [(("f34",), {"dim": 0, "stable": True})],
    "topk": [(("f34", 2), {})], "kthvalue": [(("f34", 2), {})],
    "aminmax": [(("f34",), {"dim": 1})], "cummax": [(("f34", 1), {})], "cummin": [(("f34", 0), {})],
    "cumsum": [(("f34", 1), {})], "cumprod": [(("f34", 1), {})], "logcumsumexp": [(("f34", 1), {})],
    "softmax": [(("f34", 1), {})], "log_softmax": [(("f34", 1), {})],
    "hardshrink": [(("f34",), {})], "threshold": [(("f34", 0.1, 2.0), {})],
    "cat": [((["f34", "f34"],), {}), ((["f34", "f34"], 1), {})],
    "concat": [((["f34", "f34"],), {})], "concatenate": [((["f34", "f34"],), {})],
    "stack": [((["f34", "f34"],), {})], "hstack": [((["f34", "f34"],), {})],
    "vstack": [((["f34", "f34"],), {})], "dstack": [((["f34", "f34"],), {})],
    "row_stack": [((["f34", "f34"],), {})], "column_stack": [((["f34", "f34"],), {})],
    "matmul": [(("f34", "f43"), {}), (("f4", "f4"), {})], "mm": [(("f34", "f43"), {})],
    "bmm": [(("f234", "f243"), {})], "mv": [(("f34", "f4"), {})], "dot": [(("f4", "f4"), {})],
    "outer": [(("f4", "f4"), {})], "ger": [(("f4", "f4"), {})], "kron": [(("f34", "f34"), {})],
    "diag": [(("f4",), {}), (("f34",), {})], "tril": [(("f34",), {})], "triu": [(("f34", 1), {})],
    "gather": [(("f34", 1, "i32"), {})], "index_select": [(("f34", 1, "i2"), {})],
    "take_along_dim": [(("f34", "i32", 1), {})], "take": [(("f34", "i2"), {})],
    "masked_select": [(("f34", "b34"), {})], "nonzero": [(("b34",), {})],
    "index_add": [(("f34", 1, "i2", "f32"), {})], "index_copy": [(("f34", 1, "i2", "f32"), {})],
    "scatter": [(("f34", 1, "i32", "f32"), {})], "scatter_add": [(("f34", 1, "i32", "f32"), {})],
    "scatter_reduce": [(("f34", 1, "i32", "f32", "sum"), {})],
    "searchsorted": [(("s4", "f34"), {})], "bucketize": [(("f34", "s4"), {})],
    "isin": [(("i34", "i2"), {})], "norm": [(("f34",), {})],
    "linalg.vector_norm": [(("f34",), {})], "linalg.matrix_norm": [(("f34",), {})],
    "linalg.norm": [(("f34",), {})],
    "addcmul": [(("f34", "f34", "f4"), {"value": 0.5})], "addcdiv": [(("f34", "f34", "p34"), {})],
    "copysign": [(("f34", "f34"), {}), (("f34", -1.0), {})], "logit": [(("q34",), {}), (("f34", 0.1), {})],
    "diff": [(("f34",), {}), (("f34", 2, 0), {})], "tensordot": [(("f34", "f43"), {"dims": 1})],
    "cross": [(("f33", "f33"), {"dim": 1})], "linalg.cross": [(("f33", "f33"), {})],
    "inverse": [(("n33",), {})], "linalg.inv": [(("n33",), {})], "linalg.det": [(("n33",), {})],
    "slogdet": [(("n33",), {})], "linalg.slogdet": [(("n33",), {})],
    "linalg.solve": [(("n33", "f34"), {})], "linalg.cholesky": [(("d33",), {})],
    "zeros": [((2, 3), {})], "ones": [((2, 3), {})], "empty": [((2, 3), {})],
    "full": [(((2, 3), 1.5), {})], "eye": [((3,), {}), ((2, 3), {})],
    "arange": [((5,), {}), ((1, 4, 0.5), {})], "linspace": [((0, 1, 5), {})],
    "rand": [((2, 3), {})], "randn": [((2, 3), {})], "randint": [((0, 5, (2, 3)), {})],
    "randperm": [((5,), {})], "normal": [(("f34", "p34"), {})],
    "bernoulli": [(("q34",), {})], "multinomial": [(("q34", 2), {})],
}
SHAPES = {"34": (3, 4), "4": (4,), "43": (4, 3), "234": (2, 3, 4), "243": (2, 4, 3), "32": (3, 2),
          "2": (2,), "33": (3, 3)}


def make(spec, rng):
    """The array a spec names: f float, u in (-1, 1), p positive, q in (0, 1), b bool,
    i integer indices below 2 (or below 3, for shape 32), s sorted, n invertible (square),
    d positive-definite; then the shape."""
    kind, shape = spec[0], SHAPES[spec[1:]]
    if kind in "nd":
        near_eye = 2 * np.eye(shape[-1]) + 0.3 * rng.standard_normal(shape)
        return (near_eye if kind == "n" else near_eye @ near_eye.T).astype(np.float32)
    if kind == "f":
        return rng.standard_normal(shape).astype(np.float32)
    if kind == "u":
        return rng.uniform(-0.9, 0.9, shape).astype(np.float32)
    if kind == "p":
        return rng.uniform(0.5, 2.0, shape).astype(np.float32)
    if kind == "q":
        return rng.uniform(0.1, 0.9, shape).astype(np.float32)
    if kind == "b":
        return rng.random(shape) > 0.5
    if kind == "s":
        return np.sort(rng.standard_normal(shape)).astype(np.float32)
    return rng.integers(0, 2, shape).astype(np.int64)

RANDOM = {"empty", "rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial"}


def _function(module, name):
    for part in name.split("."):
        module = getattr(module, part)
    return module


def _inputs(args, library, rng):
    def convert(value):
        if isinstance(value, list):
            return [convert(v) for v in value]
        if isinstance(value, str) and value[0] in "fupqbsind" and value[1:] in SHAPES:
            array = make(value, rng)
            return ng.tensor(array) if library is ng else torch.from_numpy(array)
        return value
    return [convert(a) for a in args]


def _torch_out_names():
    """The functions of torch that take out= on some overload (its generated stub), and
    those of torch.linalg that nbgrad has (their docs)."""
    stub = pathlib.Path(torch.__file__).parent / "_C" / "_VariableFunctions.pyi"
    names = set()
    for node in ast.walk(ast.parse(stub.read_text())):
        if isinstance(node, ast.FunctionDef) and any(a.arg == "out" for a in node.args.kwonlyargs):
            names.add(node.name)
    linalg = {f"linalg.{n}" for n in ng.linalg.__all__
              if "out=" in getattr(torch.linalg, n).__doc__.split("\n\n")[0]}
    return names, linalg


def _python_takes_out(function):
    """Whether a torch function written in Python (torch.norm) takes out=."""
    try:
        return "out" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def test_the_table_is_torchs():
    """OUT holds exactly the functions of nbgrad (and nbgrad.linalg) whose torch function
    takes out=."""
    stub_names, linalg = _torch_out_names()
    functions = {n for n in ng.__all__ if callable(getattr(ng, n))
                 and not isinstance(getattr(ng, n), type)}
    expected = {n for n in functions if hasattr(torch, n) and (
        n in stub_names if getattr(torch._C._VariableFunctions, n, None) is getattr(torch, n)
        else _python_takes_out(getattr(torch, n)))}
    assert set(OUT) == expected | linalg


def test_every_function_in_the_table_has_a_case():
    assert set(OUT) <= set(CASES)


CASE_LIST = [(name, i) for name in sorted(OUT) for i in range(len(CASES[name]))]


def _empty_like_result(result, library):
    """Empty outs (so resized silently) of the result's dtypes."""
    if isinstance(result, tuple):
        return tuple(library.empty(0, dtype=r.dtype) for r in result)
    return library.empty(0, dtype=result.dtype)


def _values(result):
    return [r.numpy() for r in result] if isinstance(result, tuple) else [result.numpy()]


@pytest.mark.filterwarnings("ignore:torch.ger is deprecated")
@pytest.mark.parametrize("name, case", CASE_LIST)
def test_out_gives_the_result_and_torchs(name, case):
    args, kwargs = CASES[name][case]
    f, tf = _function(ng, name), _function(torch, name)
    ng.manual_seed(0)
    expected = f(*_inputs(args, ng, np.random.default_rng(1)), **kwargs)
    out = _empty_like_result(expected, ng)
    ng.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out is resized silently
        result = f(*_inputs(args, ng, np.random.default_rng(1)), **kwargs, out=out)
    if isinstance(out, tuple):
        assert all(r is o for r, o in zip(result, out))
    else:
        assert result is out
    t_args = _inputs(args, torch, np.random.default_rng(1))
    t_out = tf(*t_args, **kwargs, out=_empty_like_result(tf(*t_args, **kwargs), torch))
    for got, want, torchs in zip(_values(result), _values(expected), _values(t_out)):
        assert got.shape == want.shape == torchs.shape
        assert str(got.dtype) == str(torchs.dtype).replace("torch.", "")
        if name not in RANDOM:
            np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)
            np.testing.assert_allclose(got, torchs, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", sorted(n for n, rule in OUT.items() if rule not in (CREATION, RANGE)))
def test_an_out_with_elements_is_resized_with_a_warning(name):
    args, kwargs = CASES[name][0]
    f = _function(ng, name)
    expected = f(*_inputs(args, ng, np.random.default_rng(1)), **kwargs)
    outs = tuple(ng.empty(7, dtype=r.dtype) for r in (expected if isinstance(expected, tuple)
                                                       else (expected,)))
    with pytest.warns(UserWarning, match="An output with one or more elements was resized since "
                                         r"it had shape \[7\], which does not match") as record:
        result = f(*_inputs(args, ng, np.random.default_rng(1)), **kwargs,
                   out=outs if isinstance(expected, tuple) else outs[0])
    assert record[0].filename == __file__  # the warning points at the caller's line
    for got in (result if isinstance(result, tuple) else (result,)):
        assert tuple(got.shape) == tuple(expected[0].shape if isinstance(expected, tuple)
                                         else expected.shape)


def _accepts(library, name, args, kwargs, dtype, result):
    """Whether ``library``'s ``name`` takes an out of ``dtype`` (indices kept int64)."""
    if isinstance(result, tuple):
        out = tuple(library.empty(0, dtype=getattr(library, dtype) if r.is_floating_point()
                                  else r.dtype) for r in result)
    else:
        out = library.empty(0, dtype=getattr(library, dtype))
    try:
        _function(library, name)(*_inputs(args, library, np.random.default_rng(1)), **kwargs,
                                 out=out)
    except (RuntimeError, NotImplementedError, ValueError, TypeError):
        return False  # what each raises is checked for one function of each rule below
    return True


@pytest.mark.filterwarnings("ignore:torch.ger is deprecated")
@pytest.mark.parametrize("name", sorted(n for n, rule in OUT.items() if rule not in (CREATION, RANGE)))
@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_outs_dtype_is_accepted_where_torchs_is(name, dtype):
    """The rule of each function in the table: an out of another dtype than the result's
    is taken, or refused, as PyTorch takes or refuses it."""
    if dtype == "bool" and name in ("cumsum", "cumprod"):
        pytest.skip("PyTorch has no bool kernel for cumsum and cumprod; nbgrad computes them")
    args, kwargs = CASES[name][0]
    result = _function(ng, name)(*_inputs(args, ng, np.random.default_rng(1)), **kwargs)
    t_result = _function(torch, name)(*_inputs(args, torch, np.random.default_rng(1)), **kwargs)
    assert (_accepts(ng, name, args, kwargs, dtype, result)
            == _accepts(torch, name, args, kwargs, dtype, t_result))


def test_a_creation_function_resizes_silently_and_makes_outs_dtype():
    out = ng.empty(5, dtype=ng.long)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ng.zeros(2, 3, out=out) is out
    assert out.shape == (2, 3) and out.dtype == ng.long
    t = torch.zeros(2, 3, out=torch.empty(5, dtype=torch.long))
    assert t.dtype == torch.long and tuple(t.shape) == (2, 3)
    assert ng.arange(0, 2, 0.5, out=ng.empty(0, dtype=ng.float64)).dtype == ng.float64


@pytest.mark.parametrize("library", [torch, ng], ids=["torch", "nbgrad"])
def test_arange_keeps_an_outs_shape_of_as_many_elements_and_warns_otherwise(library):
    assert OUT["arange"] == RANGE
    assert tuple(library.arange(5, out=library.empty(5, 1)).shape) == (5, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tuple(library.arange(5, out=library.empty(0)).shape) == (5,)
    with pytest.warns(UserWarning, match=r"The number of elements in the out tensor of shape "
                                         r"\[3\] is 3 which does not match the computed number "
                                         r"of elements 5\. Note that this may occur as a result "
                                         r"of rounding error\. The out tensor will be resized "
                                         r"to a tensor of shape \(5,\)\."):
        out = library.arange(5, out=library.empty(3))
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_a_creation_dtype_that_is_not_outs_is_refused():
    message = r"dtype Float does not match dtype of out parameter \(Long\)"
    with pytest.raises(RuntimeError, match=message):
        torch.zeros(2, dtype=torch.float, out=torch.empty(2, dtype=torch.long))
    with pytest.raises(RuntimeError, match=message):
        ng.zeros(2, dtype=ng.float, out=ng.empty(2, dtype=ng.long))


def test_version_and_identity():
    for library in (torch, ng):
        out = library.empty(3)
        before = out._version
        assert library.add(library.ones(3), 1, out=out) is out
        assert out._version == before + 1
        values, indices = library.empty(0), library.empty(0, dtype=library.long)
        library.max(library.ones(2, 3), 1, out=(values, indices))
        assert values._version == indices._version == 1


@pytest.mark.parametrize("rule, name, args", [
    (CAST, "add", ("f34", "f34")), (EXACT, "mm", ("f34", "f43")), (INTO, "sum", ("f34", 1)),
    (ANY, "eq", ("f34", "f34"))])
def test_dtype_rules(rule, name, args):
    """CAST: float64 is fine, int64 not; EXACT: only float32; ANY, INTO: anything (as torch)."""
    assert OUT[name] == rule
    for dtype, ok in (("float64", rule != EXACT), ("int64", rule in (ANY, INTO))):
        for library in (torch, ng):
            inputs = _inputs(args, library, np.random.default_rng(1))
            out = library.empty(0, dtype=getattr(library, dtype))
            if ok:
                assert _function(library, name)(*inputs, out=out).dtype == out.dtype
                continue
            message = ("result type Float can't be cast to the desired output type Long"
                       if rule == CAST else
                       f"Expected out tensor to have dtype float, but got "
                       f"{'double' if dtype == 'float64' else 'long int'} instead")
            with pytest.raises(RuntimeError, match=message):
                _function(library, name)(*inputs, out=out)


@pytest.mark.parametrize("name", ["sum", "cumsum", "prod", "cumprod"])
def test_a_reduction_computes_in_outs_dtype(name):
    """PyTorch's sum(x, dim, out=long) sums the elements cast to long (0.6 + 0.6 is 0)."""
    for library in (torch, ng):
        out = library.empty(0, dtype=library.long)
        _function(library, name)(library.tensor([[1.6, 1.6]]), 1, out=out)
        assert out.flatten().tolist()[-1] == {"sum": 2, "cumsum": 2, "prod": 1, "cumprod": 1}[name]
    message = "Expected out tensor to have dtype double, but got float instead"
    with pytest.raises(RuntimeError, match=message):
        ng.sum(ng.ones(2, 2), 1, dtype=ng.float64, out=ng.empty(0))


@pytest.mark.parametrize("library", [torch, ng], ids=["torch", "nbgrad"])
def test_cat_refuses_a_dtype_with_a_type_error(library):
    with pytest.raises(TypeError, match="cat\\(\\): input types can't be cast to the desired "
                                        "output type Long"):
        library.stack([library.ones(2), library.ones(2)], out=library.empty(0, dtype=library.long))


def test_cast_into_a_wider_dtype_keeps_the_values():
    out = ng.empty(0, dtype=ng.float64)
    ng.add(ng.tensor([1, 2]), 1, out=out)
    assert out.dtype == ng.float64 and out.tolist() == [2.0, 3.0]


NO_AUTOGRAD = ("add(): functions with out=... arguments don't support automatic "
               "differentiation, but one of the arguments requires grad.")


@pytest.mark.parametrize("library", [torch, ng], ids=["torch", "nbgrad"])
def test_autograd_is_refused_with_grad_mode_on(library):
    x = library.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=NO_AUTOGRAD.replace("(", r"\(").replace(")", r"\)")
                       .replace(".", r"\.")):
        library.add(x, 1, out=library.empty(3))
    with pytest.raises(RuntimeError, match="add\\(\\): functions with out="):
        library.add(library.ones(3), 1, out=library.empty(3, requires_grad=True))
    with pytest.raises(RuntimeError, match="cat\\(\\): functions with out="):
        library.cat([x, x], out=library.empty(6))
    with pytest.raises(RuntimeError, match="max\\(\\): functions with out="):
        library.max(x, 0, out=(library.empty(0), library.empty(0, dtype=library.long)))
    with library.no_grad():
        out = library.empty(3, requires_grad=True)
        assert library.add(x, 1, out=out) is out
        assert out.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("library", [torch, ng], ids=["torch", "nbgrad"])
def test_tuple_outs(library):
    x = library.tensor([[3.0, 1.0, 2.0]])
    with pytest.raises(TypeError, match="expected tuple of 2 elements but got 1"):
        library.sort(x, out=(library.empty(0),))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got "
                                           "int instead"):
        library.sort(x, out=(library.empty(0), library.empty(0, dtype=library.int32)))
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument"):
        library.max(x, 1, out=(1, 2))
    values, indices = library.empty(0), library.empty(0, dtype=library.long)
    result = library.topk(x, 2, out=[values, indices])  # a list is a tuple here
    assert result[0] is values and result.indices is indices
    assert values.tolist() == [[3.0, 2.0]] and indices.tolist() == [[0, 2]]


@pytest.mark.parametrize("library", [torch, ng], ids=["torch", "nbgrad"])
def test_an_out_that_is_not_a_tensor(library):
    with pytest.raises(TypeError, match="add\\(\\): argument 'out' must be Tensor, not list"):
        library.add(library.ones(2), 1, out=[library.empty(2)])
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not str"):
        library.add(library.ones(2), 1, out="x")


@pytest.mark.parametrize("library", [torch, ng], ids=["torch", "nbgrad"])
def test_out_may_be_an_operand_but_not_overlap_one_partly(library):
    a = library.tensor([1.0, 2.0, 3.0])
    assert library.add(a, a, out=a) is a
    assert a.tolist() == [2.0, 4.0, 6.0]
    c = library.arange(4.0)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to "
                                           "tensor refer to a single memory location"):
        library.add(c[:3], 1, out=c[1:])
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        library.add(library.ones(3), 1, out=library.empty(1).expand(3))


@pytest.mark.parametrize("library", [torch, ng], ids=["torch", "nbgrad"])
def test_an_out_view_writes_into_its_base(library):
    base = library.zeros(2, 3)
    library.add(library.ones(3), 1, out=base[1])
    library.mul(library.ones(3, 2), 3, out=base.t())
    assert base.tolist() == [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]
    base = library.zeros(2, 3)
    library.add(library.ones(2), 1, out=base[:, 0])
    assert base.tolist() == [[2.0, 0.0, 0.0], [2.0, 0.0, 0.0]]


def test_nbgrad_does_not_resize_a_view():
    with pytest.raises(RuntimeError, match="nbgrad does not resize a view"):
        ng.add(ng.ones(4), 1, out=ng.zeros(2, 3)[0])


def test_methods_take_no_out():
    with pytest.raises(TypeError):
        ng.ones(2).add(1, out=ng.empty(2))
    with pytest.raises(TypeError):
        torch.ones(2).add(1, out=torch.empty(2))


def test_help_signature_and_source_keep_the_op():
    signature = inspect.signature(ng.add)
    assert signature.parameters["out"].kind is inspect.Parameter.KEYWORD_ONLY
    assert signature.parameters["out"].annotation == "Tensor | None"
    assert inspect.signature(ng.sort).parameters["out"].annotation == "tuple[Tensor, ...] | None"
    assert "out : Tensor, optional" in ng.add.__doc__
    assert "out : tuple of Tensor, optional" in ng.sort.__doc__
    assert "out" not in inspect.signature(ng.Tensor.add).parameters
    source = ng.viz.show_source(ng.add).text if hasattr(ng, "viz") else None
    if source is None:
        from nbgrad.viz.source import show_source
        source = show_source(ng.add).text
    assert "class AddBackward0" in source and "def add(" in source


@pytest.mark.skipif(not (ng.cuda.is_available() and torch.cuda.is_available()),
                    reason="needs a GPU for both nbgrad (CuPy) and torch")
def test_an_out_on_another_device():
    for library in (torch, ng):
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            library.add(library.ones(2), 1, out=library.empty(2, device="cuda"))
