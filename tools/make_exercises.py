"""Generate ``exercises/`` from ``solutions/`` with nbgrader's own preprocessors.

    python tools/make_exercises.py            # all chapters
    python tools/make_exercises.py --check    # exit 1 if exercises/ is out of date

This is the release step of ``nbgrader generate_assignment`` without its database:
solution regions (``### BEGIN SOLUTION`` ... ``### END SOLUTION``) become stubs that raise
``NotImplementedError``, outputs are cleared, the instructor's cells are locked and their
checksums recorded, so that nbgrader's validator and autograder work on the result.
tests/test_exercises.py checks that the committed exercises equal this output.
"""

import argparse
import pathlib
import sys

import nbformat
from nbgrader.preprocessors import ClearOutput, ClearSolutions, ComputeChecksums, LockCells

ROOT = pathlib.Path(__file__).resolve().parent.parent
PIPELINE = (LockCells, ClearSolutions, ClearOutput, ComputeChecksums)


def exercise_from(solution_path):
    """The student version of one solution notebook, as a notebook node."""
    notebook = nbformat.read(solution_path, as_version=4)
    resources = {}
    for preprocessor in PIPELINE:
        notebook, resources = preprocessor().preprocess(notebook, resources)
    return notebook


def render(notebook):
    return nbformat.writes(notebook) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale exercises")
    args = parser.parse_args(argv)
    stale = []
    for solution in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        target = ROOT / "exercises" / solution.name
        text = render(exercise_from(solution))
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
