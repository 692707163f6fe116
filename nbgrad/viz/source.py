"""Showing nbgrad's own source inside a chapter, so the text cannot drift from the code."""

from __future__ import annotations

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


def show_source(obj: Callable[..., Any], *, lines: slice | None = None) -> Source:
    """The source of a function, class or method of nbgrad (optionally a slice of lines).

    An operation (``nbgrad.sin``) is shown whole: its block, from its first node class to
    the end of its function (``@op``, ``nbgrad/ops/declare.py``).

    Parameters
    ----------
    obj : function, class or method
        For a property, pass its ``fget``.
    lines : slice, optional
        The lines shown, counted from the first line of the source (e.g. ``slice(10, 17)``).

    Returns
    -------
    Source
        Rendered in Jupyter as a highlighted block, titled with ``obj``'s qualified name.
    """
    text = textwrap.dedent(_block(obj) or inspect.getsource(obj)).rstrip()
    if lines is not None:
        text = "\n".join(text.splitlines()[lines])
    module = inspect.getmodule(obj)
    assert module is not None  # (getsource found obj's file above, so its module is known)
    name = getattr(obj, "__qualname__", getattr(obj, "__name__", ""))
    return Source(text, f"{module.__name__}.{name}" if name else module.__name__)


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
