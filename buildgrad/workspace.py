"""Make your own folder for the exercises:  python -m buildgrad.workspace [FOLDER]

Copies every exercise notebook into FOLDER (default: ``mywork``, which git ignores) and
never overwrites a file that is already there, so running it again only adds exercises
that are new. Open the notebooks from that folder: each exercise then builds on your own
finished earlier chapters (see ``buildgrad.track``), and the repository's tracked files,
and its test suite, never see your work.
"""

import argparse
import pathlib
import shutil
import sys

EXERCISES = pathlib.Path(__file__).resolve().parent.parent / "exercises"


def make_workspace(folder, exercises=EXERCISES):
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    added = []
    for notebook in sorted(exercises.glob("[0-9][0-9]_*.ipynb")):
        target = folder / notebook.name
        if not target.exists():
            shutil.copyfile(notebook, target)
            added.append(target)
    return added


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default="mywork")
    args = parser.parse_args(argv)
    if not EXERCISES.is_dir():
        print(f"no exercises/ folder next to this buildgrad ({EXERCISES}): run this from a "
              "clone of the nbgrad repository", file=sys.stderr)
        return 2
    added = make_workspace(args.folder)
    kept = len(sorted(pathlib.Path(args.folder).glob("[0-9][0-9]_*.ipynb"))) - len(added)
    print(f"{args.folder}: {len(added)} exercise(s) added, {kept} of yours kept as they are.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
