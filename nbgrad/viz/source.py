"""Showing nbgrad's own source inside a chapter, so the text cannot drift from the code."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Source:
    """Source code that Jupyter renders as a highlighted Python block.

    Parameters
    ----------
    text : str
        The code.
    title : str
        Shown above it (``show_source`` uses the qualified name).
    """

    def __init__(self, text: str, title: str) -> None:
        self.text = text
        self.title = title

    def _repr_markdown_(self):
        return f"`{self.title}`\n\n```python\n{self.text}\n```"

    def __repr__(self):
        return f"# {self.title}\n{self.text}"


def show_source(obj: Callable[..., Any], *, using: str | tuple[str, ...] = ()) -> Source:
    """The source of a function, class or method of nbgrad, whole or the statements using names.

    An operation (``nbgrad.sin``) is shown whole: its block, from its first node class to
    the end of its function (``@op``, ``nbgrad/ops/declare.py``).

    Parameters
    ----------
    obj : function, class or method
        For a property, pass its ``fget``.
    using : str or tuple of str, optional
        Show only the function's signature and the statements of its body that use one of
        these names (a variable, a function or an attribute), each whole, with ``...`` where
        statements are left out. Chosen by name, never by line number, so an edit elsewhere
        in the function cannot shift the excerpt onto other lines.

    Returns
    -------
    Source
        Rendered in Jupyter as a highlighted block, titled with ``obj``'s qualified name.

    Raises
    ------
    ValueError
        If ``using`` is given and no statement of the body uses any of the names, or ``obj``
        is not a function.
    """
    text = textwrap.dedent(_block(obj) or inspect.getsource(obj)).rstrip()
    module = inspect.getmodule(obj)
    assert module is not None  # (getsource found obj's file above, so its module is known)
    name = getattr(obj, "__qualname__", getattr(obj, "__name__", ""))
    title = f"{module.__name__}.{name}" if name else module.__name__
    if using:
        text = _excerpt(text, (using,) if isinstance(using, str) else tuple(using), title)
    return Source(text, title)


def _excerpt(text, names, title):
    """The function's header and the statements of its body that use one of ``names``."""
    function = ast.parse(text).body[0]
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ValueError(f"show_source(using=...) shows part of a function; {title} is not one")
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring: the excerpt is about the code
    lines = text.splitlines()
    shown = lines[: function.body[0].lineno - 1]
    indent = " " * body[0].col_offset
    found = False
    for statement in body:
        if names_used(statement) & set(names):
            first = statement.lineno - 1
            while first > 0 and lines[first - 1].strip().startswith("#"):
                first -= 1  # the comment that explains the statement comes with it
            shown.extend(lines[first : statement.end_lineno])
            found = True
        elif shown[-1] != indent + "...":
            shown.append(indent + "...")
    if not found:
        raise ValueError(f"no statement of {title} uses {' or '.join(names)}")
    return "\n".join(shown)


def names_used(tree: ast.AST) -> set[str]:
    """The variables, functions and attributes that ``tree`` names."""
    return {node.id if isinstance(node, ast.Name) else node.attr
            for node in ast.walk(tree) if isinstance(node, (ast.Name, ast.Attribute))}


def _block(obj):
    """The lines from an operation's first node to the end of its function, or None."""
    declared = getattr(obj, "__op__", None)
    if declared is None or not declared.nodes:
        return None
    function = declared.function  # obj itself, or the wrapper that adds out= (ops/out.py)
    file_lines, _ = inspect.findsource(function)
    spans = []
    for part in (*declared.nodes, function):
        part_lines, start = inspect.getsourcelines(part)
        spans.append((start - 1, start - 1 + len(part_lines)))
    first, last = min(s for s, _ in spans), max(e for _, e in spans)
    return "".join(file_lines[first:last])
