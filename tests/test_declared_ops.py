"""Every operation is one block that declares its names (``@op``, ``nbgrad/ops/declare.py``),
and what the rest of nbgrad offers of it comes from that declaration."""

import ast
import inspect
import pydoc

import numpy as np
import pytest

import nbgrad as ng
from nbgrad import nn
from nbgrad.core.node import Node
from nbgrad.nn.rnn import lstm_cell_update
from nbgrad.ops.declare import OPS
from nbgrad.ops.out import OUT

OP_IDS = [f"{o.function.__module__}.{o.name}" for o in OPS]


@pytest.mark.parametrize("declared", OPS, ids=OP_IDS)
def test_an_op_is_one_block_its_nodes_then_its_function(declared):
    """Between the op's first node and the end of its function there is nothing public but
    the op's own nodes: a chapter shows the whole op with one ``show_source``."""
    module = inspect.getmodule(declared.function)
    tree = ast.parse(inspect.getsource(module))
    spans = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans[node.name] = (start, node.end_lineno)
    own = {n.__name__ for n in declared.nodes} | {declared.name}
    if declared.name not in spans:  # made by a factory (``eq = op(...)(_compare(...))``)
        assert not declared.nodes
        return
    for node_cls in declared.nodes:
        assert inspect.getmodule(node_cls) is module, f"{node_cls.__name__} lives elsewhere"
    first = min(spans[name][0] for name in own)
    last = spans[declared.name][1]
    strangers = [name for name, (start, end) in spans.items()
                 if first <= start <= last and name not in own and not name.startswith("_")]
    assert not strangers, f"inside the block of {declared.name}: {strangers}"


@pytest.mark.parametrize("declared", OPS, ids=OP_IDS)
def test_what_an_op_declares_is_what_nbgrad_offers(declared):
    for name in declared.names:
        exported = getattr(ng, name)  # wrapped to take out= where PyTorch's does (ops/out.py)
        assert (exported.__wrapped__ if name in OUT else exported) is declared.function
    for name in declared.methods:
        assert getattr(ng.Tensor, name) is declared.function
    if declared.inplace:
        assert getattr(ng.Tensor, declared.name + "_").__wrapped__ is declared.function
    if declared.functional:
        assert getattr(nn.functional, declared.name) is declared.function
        assert declared.name in nn.functional.__all__
    if declared.layer:
        layer = getattr(nn, declared.layer)()
        x = ng.randn(3, 2)
        assert ng.equal(layer(x), declared.function(x))
        assert repr(layer) == f"{declared.layer}()"


def test_every_op_that_records_a_node_has_a_row_in_the_op_table():
    """The op table (``tests/opinfo.py``) feeds the gradcheck, parity, saved-tensor,
    in-place and device tests: a new op with a node is not done until it has a row."""
    import opinfo

    rows = {row.name for row in opinfo.OPS}
    # o.name too: an op of nn.functional only (F.avg_pool2d) has no export nor method
    without = [o.name for o in OPS if o.nodes and not rows & {o.name, *o.names, *o.methods,
                                                               o.name + "_"}]
    assert not without, f"no row in tests/opinfo.py for {without}"


def test_every_export_and_method_of_an_op_is_declared():
    declared = {name for o in OPS for name in o.names}
    for name in ("sin", "tanh", "matmul", "add", "clip", "true_divide", "cat", "where"):
        assert name in declared
    methods = {name for o in OPS for name in o.methods}
    assert "cat" not in methods and not hasattr(ng.Tensor, "cat")  # a function only
    assert "view" in methods and "view" not in declared and not hasattr(ng, "view")  # a method only


@pytest.mark.parametrize("name", ["cos", "add", "__add__", "__radd__", "tanh_", "__iadd__",
                                  "matmul", "__matmul__", "sum", "backward", "where", "new_zeros"])
def test_help_shows_a_signature_and_a_docstring(name):
    method = getattr(ng.Tensor, name)
    signature = inspect.signature(method)
    assert len(signature.parameters) >= 1
    assert method.__doc__ and method.__doc__.strip()
    text = pydoc.render_doc(method)
    assert name in text and method.__doc__.strip().splitlines()[0] in text


def test_operators_say_unsupported_operand_for_what_they_do_not_take():
    with pytest.raises(TypeError, match="unsupported operand"):
        ng.ones(2) @ 2
    with pytest.raises(TypeError, match="unsupported operand"):
        ng.ones(2) + "a"
    assert (2 - ng.ones(2)).tolist() == [1.0, 1.0]
    assert (2 ** ng.ones(2)).tolist() == [2.0, 2.0]


def _nodes_with_a_fast_path():
    found, todo = [], [Node]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if vars(cls).get("fast_apply") is not None:
            found.append(cls)
    return found


FAST = {  # node name -> a program whose backward runs that node, on float64 leaves
    "LogSoftmaxBackward0": lambda x, w: x.log_softmax(1) * w,
    "TBackward0": lambda x, w: x.t() * w.t(),
    "AddmmBackward0": lambda x, w: nn.functional.linear(x, w[:2], w[0, :2]) * 1.0,
    "NllLossBackward0": lambda x, w: nn.functional.nll_loss(
        x.log_softmax(1), ng.tensor([0, 3, 1]), weight=w[0].detach().abs()) * w[0, 0],
    "ConvolutionBackward0": lambda x, w: nn.functional.conv1d(
        x.reshape(1, 3, 4), w.reshape(1, 3, 4)[..., :2], w[0, :1], padding=1) * 1.0,
    "MaxPool2DWithIndicesBackward0": lambda x, w: nn.functional.max_pool2d(
        (x * w).reshape(1, 3, 4), 2, 1, 1) * 1.0,
    "AvgPool2DBackward0": lambda x, w: nn.functional.avg_pool2d(
        (x * w).reshape(1, 3, 4), 2, 1, 1, count_include_pad=False) * 1.0,
    "AdaptiveAvgPool2DBackward0": lambda x, w: nn.functional.adaptive_avg_pool2d(
        (x * w).reshape(1, 3, 4), (2, 3)) * 1.0,
    "ThnnFusedLstmCellBackward0": lambda x, w: sum(
        t * k for t, k in zip(lstm_cell_update(ng.cat([x, w], 1), x[:, :2] * w[:, 1:3]), (1.0, 2.0))),
    # the elementwise nodes of small programs; an operand broadcast, summed back
    "AddBackward0": lambda x, w: (x + w[0]) * x,
    "SubBackward0": lambda x, w: (x - w[:, :1]) * x,
    "MulBackward0": lambda x, w: x * w[0],
    "DivBackward0": lambda x, w: x / (w[:, :1] * w[:, :1] + 1),
    "NegBackward0": lambda x, w: -(x * w),
    "TanhBackward0": lambda x, w: (x * w).tanh(),
    "SigmoidBackward0": lambda x, w: (x * w).sigmoid(),
    "ExpBackward0": lambda x, w: (x * w).exp(),
    "LogBackward0": lambda x, w: (x * x + w * w).log(),
    "MmBackward0": lambda x, w: x.mm(w.t()),
}

# Programs where a binary node's fast path must take its formula instead: operands of two
# dtypes (NumPy would promote the arrays differently from PyTorch) and an ``alpha``.
FALLBACK = {
    "float32 + float64 0-d": lambda x, w: x.float() + w[0, 0],
    "float64 * float32": lambda x, w: x * w.float(),
    "float32 * float64 0-d": lambda x, w: x.float() * w[0, 0],
    "float32 / float64 0-d": lambda x, w: x.float() / (w[0, 0] * w[0, 0] + 1),
    "add alpha": lambda x, w: x.add(w[0], alpha=2.5),
    "sub alpha": lambda x, w: x.sub(w, alpha=-3),
    "number - tensor": lambda x, w: 2.0 - x * w,
}


def test_every_fast_path_has_a_program_here():
    assert sorted(c.__name__ for c in _nodes_with_a_fast_path()) == sorted(FAST)


@pytest.mark.parametrize("name", sorted(FAST))
def test_a_nodes_fast_path_gives_what_its_formula_gives(name):
    """The engine calls ``fast_apply`` when backward builds no graph and ``apply`` when it
    does (``create_graph=True``): the gradients must be the same."""
    rng = np.random.default_rng(7)
    x = ng.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = ng.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    out = FAST[name](x, w)
    grad_out = ng.tensor(rng.standard_normal(tuple(out.shape)))
    fast = ng.autograd.grad(out, (x, w), grad_out, retain_graph=True)
    formula = ng.autograd.grad(out, (x, w), grad_out, create_graph=True)
    assert any(fn.name() == name for fn in _graph_nodes(out.grad_fn))
    for a, b in zip(fast, formula):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)
        assert b.grad_fn is not None and a.grad_fn is None


@pytest.mark.parametrize("name", sorted(FALLBACK))
def test_a_fast_path_takes_the_formula_across_dtypes(name):
    """Between two dtypes (and with ``alpha``) the fast path calls ``apply``: the gradients
    are the formula's, bit for bit, in each input's dtype."""
    rng = np.random.default_rng(8)
    x = ng.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = ng.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    out = FALLBACK[name](x, w)
    grad_out = ng.tensor(rng.standard_normal(tuple(out.shape))).to(out.dtype)
    fast = ng.autograd.grad(out, (x, w), grad_out, retain_graph=True)
    formula = ng.autograd.grad(out, (x, w), grad_out, create_graph=True)
    for a, b, leaf in zip(fast, formula, (x, w)):
        assert a.dtype == b.dtype == leaf.dtype
        np.testing.assert_array_equal(a.numpy(), b.detach().numpy())


def _graph_nodes(root):
    seen, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.append(node)
            todo.extend(fn for fn, _ in node.next_functions)
    return seen


def test_an_inplace_method_is_documented_from_its_function():
    """``add_`` shows ``add``'s signature with ``self`` first and this tensor returned, and
    ``add``'s parameters but ``input``, in numpydoc's sections; ``x += y`` takes only ``y``."""
    signature = inspect.signature(ng.Tensor.add_)
    assert list(signature.parameters) == ["self", "other", "alpha"]
    assert signature.return_annotation == "Tensor"
    doc = inspect.getdoc(ng.Tensor.add_)
    assert doc.startswith("In place ``add``: changes this tensor and bumps its version")
    assert "other : Tensor or number" in doc and "alpha : number" in doc
    assert "input :" not in doc and "input," not in doc
    assert "Returns\n-------\nTensor\n" in doc and "See Also\n--------\nadd : " in doc
    assert list(inspect.signature(ng.Tensor.__iadd__).parameters) == ["self", "other"]


def test_an_inplace_docstring_drops_the_first_parameter_even_from_a_group():
    from nbgrad.ops.declare import inplace_docstring

    def blend(input, other, *, weight=0.5):
        """The blend of two tensors.

        Parameters
        ----------
        input, other : Tensor
            The two tensors.
        weight : float

        Returns
        -------
        Tensor
        """

    doc = inplace_docstring(blend)
    assert "``blend``, with this tensor as ``input``: the blend of two tensors." in doc
    assert "Parameters\n----------\nother : Tensor\n    The two tensors.\nweight : float\n" in doc
    assert "See Also" not in inplace_docstring(blend, public=False)
