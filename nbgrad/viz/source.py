"""Showing nbgrad's own source inside a chapter, so the text cannot drift from the code."""

import inspect
import textwrap


class Source:
    """Source code that Jupyter renders as a highlighted Python block."""

    def __init__(self, text, title):
        self.text = text
        self.title = title

    def _repr_markdown_(self):
        return f"`{self.title}`\n\n```python\n{self.text}\n```"

    def __repr__(self):
        return f"# {self.title}\n{self.text}"


def show_source(obj, *, lines=None):
    """The source of a function, class or method of nbgrad (optionally a slice of lines)."""
    text = textwrap.dedent(inspect.getsource(obj)).rstrip()
    if lines is not None:
        text = "\n".join(text.splitlines()[lines])
    module = inspect.getmodule(obj).__name__
    name = getattr(obj, "__qualname__", getattr(obj, "__name__", ""))
    return Source(text, f"{module}.{name}" if name else module)
