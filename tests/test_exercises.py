"""Exercises: generated from the solutions, failing exactly their checks when blank, and
graded by nbgrader's own validator (full marks solved, zero blank)."""

import importlib.util
import pathlib

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))

nbgrader = pytest.importorskip("nbgrader", reason="the exercise tests need nbgrader (the `course` extra)")
from nbclient import NotebookClient  # noqa: E402
from nbgrader.validator import Validator  # noqa: E402


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nbgrader(cell):
    return cell.metadata.get("nbgrader", {})


def test_there_are_exercises():
    assert SOLUTIONS, "solutions/ holds no NN_*.ipynb"


def test_exercises_are_generated_from_the_solutions():
    assert _tool("make_exercises").main(["--check"]) == 0, (
        "exercises/ is out of date: run `python tools/make_exercises.py`")


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_every_task_has_a_graded_check(solution):
    notebook = nbformat.read(solution, as_version=4)
    tasks = [c for c in notebook.cells if _nbgrader(c).get("solution")]
    checks = [c for c in notebook.cells if _nbgrader(c).get("grade")]
    assert tasks and len(checks) >= len(tasks)
    for cell in tasks:
        assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source
    assert all(_nbgrader(c).get("points", 0) > 0 and _nbgrader(c)["locked"] for c in checks)


def _kernel_retry(action):
    """Run ``action``, again if a kernel failed to start on a port that another kernel (a
    parallel test worker's) took between being chosen and being bound."""
    for attempt in range(3):
        try:
            return action()
        except Exception as error:  # zmq's and jupyter_client's errors differ by version
            if "Address already in use" not in str(error) or attempt == 2:
                raise


def _run(notebook, directory):
    _kernel_retry(lambda: NotebookClient(
        notebook, timeout=120, kernel_name="python3", allow_errors=True,
        resources={"metadata": {"path": str(directory)}}).execute())
    return notebook


def _errored(cell):
    return any(o.get("output_type") == "error" for o in cell.get("outputs", []))


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_a_blank_exercise_fails_exactly_its_checks(solution, tmp_path):
    exercise = nbformat.read(ROOT / "exercises" / solution.name, as_version=4)
    notebook = _run(exercise, tmp_path)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        if _nbgrader(cell).get("grade"):
            assert _errored(cell), f"check {_nbgrader(cell)['grade_id']} passes without any work"
        else:
            assert not _errored(cell), f"cell {_nbgrader(cell).get('grade_id')} fails before the student writes anything"


def _solved_exercise(solution):
    """The exercise as a student who wrote the reference answers would hand it in."""
    answers = {_nbgrader(c)["grade_id"]: c.source
               for c in nbformat.read(solution, as_version=4).cells if _nbgrader(c).get("solution")}
    exercise = nbformat.read(ROOT / "exercises" / solution.name, as_version=4)
    for cell in exercise.cells:
        if _nbgrader(cell).get("solution"):
            cell.source = answers[_nbgrader(cell)["grade_id"]]
    return exercise


def _score(notebook, path):
    """Points nbgrader's validator awards: graded cells it reports as failed earn nothing."""
    nbformat.write(notebook, path)
    report = _kernel_retry(lambda: Validator().validate(str(path)))
    failed_sources = {f["source"].strip() for f in report.get("failed", [])}
    graded = [c for c in notebook.cells if _nbgrader(c).get("grade")]
    total = sum(_nbgrader(c)["points"] for c in graded)
    lost = sum(_nbgrader(c)["points"] for c in graded if c.source.strip() in failed_sources)
    return total - lost, total


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_nbgrader_scores_solved_full_and_blank_zero(solution, tmp_path):
    solved, total = _score(_solved_exercise(solution), tmp_path / "solved.ipynb")
    assert solved == total > 0
    blank_notebook = nbformat.read(ROOT / "exercises" / solution.name, as_version=4)
    blank, _ = _score(blank_notebook, tmp_path / "blank.ipynb")
    assert blank == 0
