"""Your autograd in one file:  python -m buildgrad.flatten OUT.py [--folder DIR]

buildgrad grows chapter by chapter as a chain of patches: each chapter module imports the one
before it and changes its classes (``@extend(Tensor) def backward``, ``Tensor._hooks = ()``,
a wrapper that calls the version it replaces). This command writes the finished package as ONE
module that runs with NumPy alone and reads top to bottom, chapter by chapter, with no chain:

* every class is defined once, with all its final members in its body: what a later chapter
  adds comes after a ``# Chapter NN: ...`` comment inside the class, and what it replaces is
  replaced where it stood;
* a wrapper's call of the version it replaces (``_backward_without_checks(self, gradient)``)
  becomes that version's body, inlined, so that one ``backward`` shows every chapter's part;
* a function a later chapter defines again appears once, in its last version (one file has
  one namespace, so the last version is the one every chapter's code calls, as
  ``@extend(c00_graph)`` makes it in the chain);
* ``extend``, ``public_names``, ``__all__`` and the chapter imports disappear; each chapter's
  docstring gives the comment that opens its section.

Each chapter comes from your finished notebook in the folder (``NN_*.ipynb`` with no
``NotImplementedError`` stub left in its ``#| export`` cells) when there is one, and from the
reference module otherwise: the rule of ``buildgrad.track.use_my_work``. Everything here works
on the chapters' syntax trees (``ast``), not on a list of known functions, so your own version
of a chapter flattens the same way. A pattern that cannot be merged into plain classes
faithfully (an early ``return`` in a version that a wrapper calls, say) stops it with an error
that names the chapter, the line and the function.

    python -m buildgrad.flatten my_autograd.py                  # your notebooks, in this folder
    python -m buildgrad.flatten my_autograd.py --folder mywork
    python -c "import my_autograd as bg; print(bg.tensor([1., 2.]) * 2)"
"""

import argparse
import pathlib
import sys

from buildgrad.flatten.errors import FlattenError
from buildgrad.flatten.reader import Flattener
from buildgrad.flatten.sources import Chapter, chapter_sources
from buildgrad.flatten.writer import Writer, check_names_are_defined

__all__ = ["Chapter", "FlattenError", "flatten", "flatten_chapters", "main"]


def flatten_chapters(chapters):
    """The one file's text for these chapters (a list of ``Chapter``, numbered from 0)."""
    text = Writer(Flattener(chapters)).write()
    check_names_are_defined(text)
    return text


def flatten(folder="."):
    """The one file's text for the chapters in ``folder`` (yours where finished), and them."""
    chapters = chapter_sources(folder)
    return flatten_chapters(chapters), chapters


def main(argv=None):
    # run as python -m, argparse would name the program after the file: __main__.py
    parser = argparse.ArgumentParser(prog="python -m buildgrad.flatten",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the file to write, e.g. my_autograd.py")
    parser.add_argument("--folder", default=".", help="where your notebooks are (default: here)")
    args = parser.parse_args(argv)
    try:
        text, chapters = flatten(args.folder)
    except FlattenError as error:
        print(f"flatten: {error}", file=sys.stderr)
        return 2
    pathlib.Path(args.out).write_text(text)
    for chapter in chapters:
        print(f"chapter {chapter.number:02d}: {chapter.origin}")
    print(f"{args.out}: {len(text.splitlines())} lines")
    return 0
