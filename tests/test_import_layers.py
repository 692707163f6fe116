"""nbgrad's modules import each other without a cycle, so any of them can be imported first.

The layers are backend -> the autograd core (``nbgrad.core``: nodes, engine, grad mode,
which never imports ``Tensor``) -> ``tensor`` -> the operations and the autograd API ->
``nn`` -> ``optim`` -> ``viz``. An import inside a function counts as much as one at the
top of a file: it runs later, but it still ties the two modules together. An import under
``if TYPE_CHECKING:`` does not count: only a type checker reads it, Python never runs it.
"""

import ast
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "nbgrad"
ROOT = "nbgrad"


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _ancestors(name):
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def _absolute(name, level, importer):
    if level == 0:
        return name
    package = importer if MODULES[importer].name == "__init__.py" else importer.rpartition(".")[0]
    for _ in range(level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{name}" if name else package


def _is_type_checking_block(node):
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_modules(importer):
    """The nbgrad modules that importing ``importer`` runs, directly (any import statement
    in the file, function bodies included).

    Importing ``a.b.c`` also runs the packages ``a`` and ``a.b``, except the ones that
    contain the importer: those are already being imported when it runs. The top-level
    package is one of them for every module.
    """
    tree = ast.parse(MODULES[importer].read_text())
    for_type_checkers = {id(inner) for node in ast.walk(tree) if _is_type_checking_block(node)
                         for statement in node.body for inner in ast.walk(statement)}
    targets = set()
    for node in ast.walk(tree):
        if id(node) in for_type_checkers:
            continue
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module or "", node.level, importer)
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names
                           if f"{base}.{alias.name}" in MODULES)
    running = set()
    for target in targets:
        if target not in MODULES:
            continue
        running.add(target)
        running.update(_ancestors(target))
    return {m for m in running if m in MODULES and m != importer} - _ancestors(importer) - {ROOT}


def find_cycle(graph):
    """One import cycle as a list of modules (first == last), or None."""
    state = {}  # module -> "open" while on the current path, "done" after

    def visit(module, path):
        state[module] = "open"
        path.append(module)
        for nxt in sorted(graph[module]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path)
                if found:
                    return found
        path.pop()
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module, [])
            if found:
                return found
    return None


def test_no_import_cycle_between_nbgrads_modules():
    graph = {m: imported_modules(m) for m in MODULES}
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_importing_a_module_runs_the_packages_above_it():
    # tensor.py importing nbgrad.core.node also runs nbgrad/core/__init__.py
    assert {"nbgrad.core", "nbgrad.core.node"} <= imported_modules("nbgrad.tensor")


def test_the_core_never_imports_the_tensor():
    for module in MODULES:
        if module.startswith("nbgrad.core"):
            assert "nbgrad.tensor" not in imported_modules(module), module


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != ROOT))
def test_a_fresh_interpreter_imports_any_module_first(module):
    result = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                            text=True, cwd=PACKAGE.parent)
    assert result.returncode == 0, result.stderr
