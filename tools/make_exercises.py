"""Generate ``exercises/`` and the reference package ``buildgrad/`` from ``solutions/``.

    python tools/make_exercises.py            # all chapters
    python tools/make_exercises.py --check    # exit 1 if either is out of date

The exercises are the release step of ``nbgrader generate_assignment`` without its database:
solution regions (``### BEGIN SOLUTION`` ... ``### END SOLUTION``) become stubs that raise
``NotImplementedError``, outputs are cleared, the instructor's cells are locked and their
checksums recorded, so that nbgrader's validator and autograder work on the result.

The reference package is each solution's package cells (``#| export``), in order, without the
solution markers: ``buildgrad/cNN_*.py``, the module that ``use_my_work`` falls back on when a
learner has not finished that chapter. tests/test_exercises.py checks that both equal this
output, so a solution is the one place to change either.
"""

import argparse
import pathlib
import sys

import nbformat
from nbgrader.preprocessors import ClearOutput, ClearSolutions, ComputeChecksums, LockCells

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from buildgrad import track  # noqa: E402  (the package's layout: the chapters' module names)

PIPELINE = (LockCells, ClearSolutions, ClearOutput, ComputeChecksums)
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def exercise_from(solution_path):
    """The student version of one solution notebook, as a notebook node."""
    notebook = nbformat.read(solution_path, as_version=4)
    resources = {}
    for preprocessor in PIPELINE:
        notebook, resources = preprocessor().preprocess(notebook, resources)
    return notebook


def render(notebook):
    return nbformat.writes(notebook) + "\n"


def module_from(solution_path):
    """The reference module of one solution notebook, as the text of ``buildgrad/cNN_*.py``."""
    lines = [line for line in track.module_source(solution_path).splitlines()
             if line.strip() not in MARKERS]
    header = (f"# Generated from solutions/{solution_path.name} by tools/make_exercises.py: "
              "edit the notebook, not this file.\n")
    return header + "\n".join(lines) + "\n"


def generated():
    """(path, text) of every file this tool writes."""
    for solution in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        yield ROOT / "exercises" / solution.name, render(exercise_from(solution))
        module = track.CHAPTERS[int(solution.name[:2])]
        yield ROOT / "buildgrad" / f"{module}.py", module_from(solution)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    stale = []
    for target, text in generated():
        if target.exists() and target.read_text() == text:
            continue
        stale.append(target.relative_to(ROOT))
        if not args.check:
            target.write_text(text)
    verb = "out of date" if args.check else "written"
    for path in stale:
        print(f"{verb}: {path}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
