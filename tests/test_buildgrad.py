"""The build track's package, buildgrad: each chapter's stage passes that chapter's checks
and every earlier chapter's; a learner's finished notebook replaces its stage; at stage 08 it runs
the seed's closing example and trains chapter 08's network as nbgrad does."""

import ast
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from buildgrad import track, workspace
from closing_program import PRINT_NUMBERS, PROGRAM, assert_hand_derived_numbers

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))


def _python(program, cwd=ROOT):
    """Run ``program`` in a fresh interpreter: importing a stage grows the classes of the
    earlier ones, so each stage needs a process of its own."""
    result = subprocess.run([sys.executable, "-c", program], cwd=cwd, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_there_is_a_chapter_module_and_a_solution_per_chapter():
    assert [p.stem[:2] for p in SOLUTIONS] == [f"{n:02d}" for n in range(len(track.CHAPTERS))]
    for name in track.CHAPTERS:
        assert (ROOT / "buildgrad" / f"{name}.py").is_file()


@pytest.mark.parametrize("stage", range(len(track.CHAPTERS)), ids=lambda n: f"stage{n:02d}")
def test_each_stage_passes_its_own_checks_and_every_earlier_chapters(stage):
    out = _python(
        "import importlib\n"
        "from buildgrad import checks\n"
        f"ns = vars(importlib.import_module('buildgrad.{track.CHAPTERS[stage]}'))\n"
        f"for chapter in range({stage} + 1):\n"
        "    checks.run(chapter, ns)\n"
        "    print('passed', chapter)\n")
    assert out.split() == " ".join(f"passed {n}" for n in range(stage + 1)).split()


def test_a_stage_lacks_the_next_chapters_pieces():
    # stage 02 has no hooks yet: chapter 03's checks fail on it, naming the missing piece
    out = _python(
        "import importlib\n"
        "from buildgrad import checks\n"
        "ns = vars(importlib.import_module('buildgrad.c02_leaves'))\n"
        "try:\n"
        "    checks.run(3, ns)\n"
        "except Exception as error:\n"
        "    print('failed:', type(error).__name__)\n")
    assert out.startswith("failed:"), out


# the build track's chapters: those with an exercise (every chapter, 00 to 09)
CHAPTERS = sorted(path for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")
                  if (ROOT / "solutions" / path.name).exists())


def _code_cells(path):
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def _imported_stages(cells):
    """The buildgrad stages a chapter's code imports, however the import is written."""
    modules = set()
    for node in (node for cell in cells for node in ast.walk(_parse(cell))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in track.CHAPTERS if f"buildgrad.{name}" in modules}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_each_chapter_builds_on_the_package_the_chapter_before_left(chapter):
    number = int(chapter.stem[:2])
    stage = track.CHAPTERS[max(number - 1, 0)]
    imported = _imported_stages(_code_cells(chapter))
    assert stage in imported, f"{chapter.name} should import buildgrad.{stage}"
    # its own stage it may run, to show what the exercise builds (never its source: see
    # test_exercise_tasks.py); a later one belongs to a later chapter
    later = sorted(imported & set(track.CHAPTERS[number + 1:]))
    assert not later, f"{chapter.name} imports later stages {later}"
    # no toy tensor of its own: no class of the chapter's does arithmetic
    toys = [node.name for cell in _code_cells(chapter) for node in ast.walk(_parse(cell))
            if isinstance(node, ast.ClassDef)
            and {"__add__", "__mul__"} & {f.name for f in node.body if isinstance(f, ast.FunctionDef)}]
    assert not toys, f"{chapter.name} defines a tensor class of its own: {toys}"


def _parse(cell):
    """A code cell as Python, without its IPython magics."""
    return ast.parse("\n".join(line for line in cell.splitlines() if not line.startswith(("%", "!"))))


def _notebook(path, cells):
    path.write_text(json.dumps({"cells": [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
        for source in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_your_finished_notebook_is_used_and_an_unfinished_one_is_not(tmp_path):
    mine = tmp_path / "00_dynamic_graphs.ipynb"
    reference = (ROOT / "buildgrad" / "c00_graph.py").read_text()
    _notebook(mine, ["#| export\nMINE = True\n" + reference, "print('a check cell')"])
    program = ("from buildgrad.track import use_my_work\n"
               "use_my_work(1)\n"
               "import buildgrad.c01_engine as bg\n"
               "print(getattr(bg, 'MINE', False), bg.Tensor.__module__)\n")
    out = _python(program, cwd=tmp_path)
    assert out.splitlines() == ["chapter 00: yours (00_dynamic_graphs.ipynb)", "True buildgrad.c00_graph"]
    _notebook(mine, ["#| export\n" + reference + "\ndef todo():\n    raise NotImplementedError()\n"])
    out = _python(program, cwd=tmp_path)
    assert out.splitlines() == ["chapter 00: the reference", "False buildgrad.c00_graph"]


def test_the_workspace_copies_the_exercises_and_never_overwrites_your_work(tmp_path):
    folder = tmp_path / "mywork"
    added = workspace.make_workspace(folder)
    assert sorted(p.name for p in added) == sorted(p.name for p in (ROOT / "exercises").glob("[0-9][0-9]_*.ipynb"))
    yours = folder / added[0].name
    yours.write_text("my work")
    assert workspace.make_workspace(folder) == []
    assert yours.read_text() == "my work"


def test_the_workspace_command_makes_the_folder(tmp_path):
    result = subprocess.run([sys.executable, "-m", "buildgrad.workspace", str(tmp_path / "w")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    exercises = len(list((ROOT / "exercises").glob("[0-9][0-9]_*.ipynb")))
    assert exercises == len(track.CHAPTERS)
    assert f"{exercises} exercise(s) added" in result.stdout


def test_saved_work_in_mywork_is_ignored_by_git_and_by_the_test_suite():
    mywork = ROOT / "mywork"
    created = not mywork.exists()
    mywork.mkdir(exist_ok=True)
    broken = mywork / "99_broken_test_probe.ipynb"
    try:
        shutil.copyfile(ROOT / "exercises" / SOLUTIONS[0].name, broken)
        ignored = subprocess.run(["git", "check-ignore", "-q", str(broken)], cwd=ROOT)
        assert ignored.returncode == 0, "mywork/ must be git-ignored"
        collected = subprocess.run(  # the whole suite, as the README's command collects it
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
            cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert collected.returncode == 0, collected.stdout + collected.stderr
        assert broken.name not in collected.stdout and "mywork/" not in collected.stdout
    finally:
        broken.unlink(missing_ok=True)
        if created:
            shutil.rmtree(mywork)




def test_stage_08_runs_the_seed_example_with_the_hand_derived_numbers():
    assert_hand_derived_numbers(_python("import buildgrad.c08_training as T\n"
                                        + PROGRAM.format(sgd="T.SGD") + PRINT_NUMBERS))


def test_stage_08_prints_the_seed_example_as_pytorch_does():
    pytest.importorskip("torch", reason="the PyTorch comparison needs torch")
    ours = _python("import buildgrad.c08_training as T\n" + PROGRAM.format(sgd="T.SGD"))
    theirs = _python("import torch as T\n" + PROGRAM.format(sgd="T.optim.SGD"))
    assert ours == theirs


def test_stage_08_trains_the_chapter_08_network_as_nbgrad_does():
    out = _python(
        "import numpy as np\n"
        "import nbgrad as ng\n"
        "import buildgrad.c08_training as bg\n"
        "from nbgrad.viz.widgets.training import two_moons\n"
        "X_np, y_np = two_moons()\n"
        "ng.manual_seed(0)\n"
        "theirs = ng.nn.Sequential(ng.nn.Linear(2, 16), ng.nn.Tanh(), ng.nn.Linear(16, 16),\n"
        "                          ng.nn.Tanh(), ng.nn.Linear(16, 2))\n"
        "ours = bg.Sequential(bg.Linear(2, 16), bg.Tanh(), bg.Linear(16, 16), bg.Tanh(), bg.Linear(16, 2))\n"
        "for p, q in zip(ours.parameters(), theirs.parameters()):\n"
        "    p.array[...] = q.detach().numpy()\n"
        "opt_ng = ng.optim.SGD(theirs.parameters(), lr=0.3, momentum=0.9)\n"
        "opt_bg = bg.SGD(ours.parameters(), lr=0.3, momentum=0.9)\n"
        "X, y, Xb, yb = ng.tensor(X_np), ng.tensor(y_np), bg.tensor(X_np), bg.tensor(y_np)\n"
        "worst = 0.0\n"
        "for step in range(300):\n"
        "    opt_ng.zero_grad(); loss_ng = ng.nn.functional.cross_entropy(theirs(X), y)\n"
        "    loss_ng.backward(); opt_ng.step()\n"
        "    opt_bg.zero_grad(); loss_bg = bg.cross_entropy(ours(Xb), yb)\n"
        "    loss_bg.backward(); opt_bg.step()\n"
        "    worst = max(worst, abs(loss_bg.item() - loss_ng.item()) / loss_ng.item())\n"
        "print(worst, loss_ng.item())\n")
    worst, final = map(float, out.split())
    assert worst <= 1e-6, f"losses differ by {worst:.2e} relative"
    assert final < 0.2  # it did train
