"""``nbgrad/tensor.pyi`` shows an IDE every ``Tensor`` method, and it is up to date."""

import ast
import importlib
import importlib.util
import inspect
import pathlib
import subprocess
import sys

import nbgrad as ng

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("make_stubs", ROOT / "tools" / "make_stubs.py")
make_stubs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_stubs)


def test_the_committed_stubs_are_what_the_generator_writes():
    # in a process of its own: a stub lists the submodules ``import nbgrad`` imports, and
    # this process has imported more of them (nbgrad.viz, ...)
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "make_stubs.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert {path.name for path in make_stubs.stubs()} >= {"tensor.pyi", "__init__.pyi",
                                                         "functional.pyi"}


def test_every_public_name_of_a_filled_module_is_in_its_stub():
    for module_name in make_stubs.MODULES:
        module = importlib.import_module(module_name)
        tree = ast.parse(make_stubs.module_stub_path(module_name).read_text())
        bound = {alias.asname for node in tree.body if isinstance(node, ast.ImportFrom)
                 for alias in node.names}
        bound |= {node.name for node in tree.body
                  if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        bound |= {node.target.id for node in tree.body if isinstance(node, ast.AnnAssign)}
        assert set(module.__all__) <= bound, sorted(set(module.__all__) - bound)
        assert "__getattr__" not in bound  # it would hide every missing name from a checker


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
    undocumented = [name for name in public if ast.get_docstring(methods[name]) is None]
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
