"""``nbgrad/tensor.pyi`` shows an IDE every ``Tensor`` method, and it is up to date."""

import ast
import importlib.util
import inspect
import pathlib

import nbgrad as ng

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("make_stubs", ROOT / "tools" / "make_stubs.py")
make_stubs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_stubs)


def test_the_committed_stub_is_what_the_generator_writes():
    assert make_stubs.STUB.read_text() == make_stubs.render(), (
        "nbgrad/tensor.pyi is out of date: run python tools/make_stubs.py")


def stub_methods():
    tree = ast.parse(make_stubs.STUB.read_text())
    (tensor,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor"]
    methods = {}
    for node in tensor.body:  # a property's setter comes after its getter: keep the getter
        if isinstance(node, ast.FunctionDef):
            methods.setdefault(node.name, node)
    return methods


def test_every_public_method_of_tensor_is_in_the_stub_with_a_docstring():
    methods = stub_methods()
    public = [name for name in vars(ng.Tensor) if name not in make_stubs.HIDDEN
              and (not name.startswith("_") or name.startswith("__"))]
    assert {"cos", "tanh_", "matmul", "__matmul__", "__getitem__", "T", "backward"} <= set(public)
    missing = [name for name in public if name not in methods]
    assert not missing, f"not in the stub: {missing}"
    undocumented = [name for name, node in methods.items() if ast.get_docstring(node) is None]
    assert not undocumented, f"no docstring in the stub: {undocumented}"


def test_the_stub_gives_the_signature_that_runs():
    methods = stub_methods()
    for name in ("cos", "add", "clamp", "sum", "view", "backward", "to"):
        stub_args = methods[name].args
        runtime = inspect.signature(getattr(ng.Tensor, name))
        assert len(stub_args.args) + len(stub_args.kwonlyargs) == len(
            [p for p in runtime.parameters.values()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]), name
        assert stub_args.args[0].arg == "self"
