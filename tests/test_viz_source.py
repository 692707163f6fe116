"""``show_source``: nbgrad's own code in a chapter, whole or the statements that use given
names; never lines chosen by number, so an edit above an excerpt cannot shift it."""

import ast
import inspect
import json
import pathlib
import textwrap

import pytest

from nbgrad.autograd import graph
from nbgrad.core import node
from nbgrad.viz import show_source

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p for folder in ("notebooks", "solutions", "exercises")
                   for p in (ROOT / folder).glob("*.ipynb"))


def test_whole_function_is_its_source():
    shown = show_source(graph.next_edges)
    assert shown.text == textwrap.dedent(inspect.getsource(graph.next_edges)).rstrip()
    assert shown.title == "nbgrad.autograd.graph.next_edges"


def test_using_shows_the_header_and_each_statement_that_uses_a_name_whole():
    shown = show_source(graph.record, using=("next_edges", "attach")).text
    source = textwrap.dedent(inspect.getsource(graph.record))
    function = ast.parse(source).body[0]
    header = source.splitlines()[: function.body[0].lineno - 1]
    assert shown.splitlines()[: len(header)] == header
    kept = [s for s in function.body[1:] if {"next_edges", "attach"} & {
        n.id if isinstance(n, ast.Name) else n.attr
        for n in ast.walk(s) if isinstance(n, (ast.Name, ast.Attribute))}]
    assert len(kept) >= 2
    for statement in kept:
        assert ast.get_source_segment(source, statement) in shown
    assert '"""' not in shown  # the docstring is left out of an excerpt
    # each run of statements left out is one "...", never two in a row
    lines = shown.splitlines()
    assert "    ..." in lines
    assert not any(a == b == "    ..." for a, b in zip(lines, lines[1:]))


def test_a_statement_keeps_the_comment_above_it():
    shown = show_source(node.AccumulateGrad.apply, using="_grad_fn").text
    lines = shown.splitlines()
    check = next(i for i, line in enumerate(lines) if "variable._grad_fn is not None" in line)
    assert lines[check + 1].strip().startswith("#")
    assert 'raise RuntimeError("leaf variable has been moved into the graph interior")' in shown
    assert lines[1] == "    ..."  # the assignment before it is left out


def test_names_no_statement_uses_are_an_error_that_says_so():
    with pytest.raises(ValueError, match=r"no statement of nbgrad\.autograd\.graph\.record uses "
                                         r"no_such_name or other_name"):
        show_source(graph.record, using=("no_such_name", "other_name"))


def test_using_on_a_class_is_an_error_that_says_so():
    with pytest.raises(ValueError, match="shows part of a function; .*AccumulateGrad is not one"):
        show_source(node.AccumulateGrad, using="apply")


def test_no_argument_chooses_lines_by_number():
    assert list(inspect.signature(show_source).parameters) == ["obj", "using"]


def _show_source_calls(path):
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        try:
            tree = ast.parse("\n".join(line for line in source.splitlines()
                                       if not line.lstrip().startswith(("%", "!"))))
        except SyntaxError:  # an exercise's stub or a deliberate error: no show_source in it
            assert "show_source" not in source, path.name
            continue
        yield from (n for n in ast.walk(tree) if isinstance(n, ast.Call)
                    and getattr(n.func, "id", getattr(n.func, "attr", None)) == "show_source")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_notebooks_choose_excerpts_by_name(path):
    for call in _show_source_calls(path):
        assert len(call.args) == 1, ast.unparse(call)
        for keyword in call.keywords:
            assert keyword.arg == "using", ast.unparse(call)
            names = keyword.value.elts if isinstance(keyword.value, ast.Tuple) else [keyword.value]
            assert all(isinstance(n, ast.Constant) and str(n.value).isidentifier() for n in names), \
                ast.unparse(call)
