"""Which source each chapter comes from: your finished notebook, or the reference module."""

import dataclasses
import pathlib
import tokenize

from buildgrad import track
from buildgrad.flatten.text import _tokens

REFERENCE = pathlib.Path(__file__).resolve().parents[1]  # buildgrad/, where the chapter modules are
NBGRADER_MARKERS = {"### BEGIN SOLUTION", "### END SOLUTION", "# YOUR CODE HERE"}


@dataclasses.dataclass
class Chapter:
    number: int
    name: str      # the module's name: c03_hooks
    origin: str    # "yours (03_retain_grad.ipynb)" or "the reference"
    text: str      # the module's source

    def where(self, line=None):
        return f"chapter {self.number:02d} ({self.origin}{f', line {line}' if line else ''})"


def chapter_sources(folder="."):
    """Every chapter's source: your finished notebook in ``folder`` if there is one (as
    ``use_my_work`` picks it), else the reference module."""
    chapters = []
    for number, name in enumerate(track.CHAPTERS):
        mine = track.your_notebook(number, folder)
        if mine is not None:
            text, origin = track.module_source(mine), f"yours ({mine.name})"
        else:
            text, origin = (REFERENCE / f"{name}.py").read_text(), "the reference"
        chapters.append(Chapter(number, name, origin, without_markers(text)))
    return chapters


def without_markers(text):
    """The source without nbgrader's marker comments: they frame an exercise, not the code."""
    drop = {token.start[0] for token in _tokens(text)
            if token.type == tokenize.COMMENT and token.line.strip() in NBGRADER_MARKERS}
    return "".join(line for number, line in enumerate(text.splitlines(True), 1) if number not in drop)
