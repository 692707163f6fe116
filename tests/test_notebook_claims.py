"""A chapter's comparisons are claims: no cell shows a comparison's result for the reader to
judge, since a ``False`` shown under text that says "the same" passes nbval for ever.

A comparison (``==``, ``is``, ``in``, ``<``, ..., or a call of ``array_equal``, ``allclose``,
``isclose``, ``equal`` or ``array_equiv``) is shown when it is part of a cell's last
expression (IPython displays it) or of what a cell prints. Such a cell states a point; it
says it with ``nbgrad.viz.claim``, which raises when the point is false.
"""

import ast
import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = (sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
             + sorted((ROOT / "notebooks" / "deeper").glob("*.ipynb"))
             + sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")))
COMPARING_FUNCTIONS = {"array_equal", "allclose", "isclose", "equal", "array_equiv"}


def python_of(source: str) -> str:
    """A cell's source without its IPython magics and shell lines."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


def is_comparison(node: ast.AST) -> bool:
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.Call):
        function = node.func
        name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
        return name in COMPARING_FUNCTIONS
    return False


def is_claim(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and getattr(node.func, "id", "") == "claim"


def inside(node: ast.AST, skip: tuple[type, ...]):
    """``node`` and what it contains, except inside nodes of the types ``skip`` and claims
    (which check what they are given, and show only their statement)."""
    if is_claim(node):
        return
    yield node
    # a conditional expression's test picks what is shown; it is not shown itself
    children = [node.body, node.orelse] if isinstance(node, ast.IfExp) else ast.iter_child_nodes(node)
    for child in children:
        if not isinstance(child, skip):
            yield from inside(child, skip)


def shown_comparisons(source: str) -> list[str]:
    """The comparisons whose result a cell shows: in its last expression or its prints."""
    tree = ast.parse(python_of(source))
    shown = []
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        shown.append(tree.body[-1].value)
    shown += [argument for node in ast.walk(tree)
              if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print"
              for argument in node.args]
    # a lambda's body or a comprehension's filter is code that runs, not a result shown
    skip = (ast.Lambda, ast.comprehension)
    found = {id(node): node for expression in shown
             for node in inside(expression, skip) if is_comparison(node)}
    return [ast.unparse(node) for node in found.values()]


@pytest.mark.parametrize("source, found", [
    ("np.array_equal(a, b)", ["np.array_equal(a, b)"]),
    ("a.grad is None, b.grad", ["a.grad is None"]),
    ("print('same:', torch.equal(a, b))", ["torch.equal(a, b)"]),
    ("print(f'{x.max() < 1e-6}')", ["x.max() < 1e-06"]),
    ("%xmode Minimal\nx == y", ["x == y"]),
    ("same = a is b\nclaim(same, True, 'a is b')", []),
    ("claim(x.grad is None, True, 'no gradient')", []),
    ("[line for line in lines if 'x' in line]", []),
    ("print(sorted(names, key=lambda n: n == 'x'))", []),
    ("print(label + (' (seen)' if id(fn) in seen else ''))", []),
    ("if a is None:\n    a = 1\na", []),
])
def test_shown_comparisons_are_found(source, found):
    assert shown_comparisons(source) == found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_cell_shows_a_comparison_for_the_reader_to_judge(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    shown = {i: comparisons for i, cell in enumerate(cells) if cell["cell_type"] == "code"
             for comparisons in [shown_comparisons("".join(cell["source"]))] if comparisons}
    assert not shown, (
        f"{path.name}: cells that show a comparison's result (cell index: the comparisons); "
        f"state the point with claim(actual, expected, 'the point') from nbgrad.viz:\n"
        + "\n".join(f"  {i}: {', '.join(c)}" for i, c in shown.items()))
