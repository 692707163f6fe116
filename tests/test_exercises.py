"""Exercises: generated from the solutions, failing exactly their checks when blank, and
graded by nbgrader, both its validator and a whole course (generate, submit, autograde,
export) scoring full, blank and partly wrong submissions."""

import csv
import importlib.util
import pathlib
import re
import shutil
import subprocess

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))

nbgrader = pytest.importorskip("nbgrader", reason="the exercise tests need nbgrader (the `course` extra)")
from nbclient import NotebookClient  # noqa: E402
from nbgrader.validator import Validator  # noqa: E402


# The last check of an exercise re-runs the earlier chapters' checks, for no points. Whether
# they pass on a blank exercise depends on what its stubs replace (a blank chapter 02 breaks
# every tensor; a blank chapter 06 breaks nothing older).
EARLIER = "check-earlier-chapters"


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nbgrader(cell):
    return cell.metadata.get("nbgrader", {})


def test_there_are_exercises():
    assert SOLUTIONS, "solutions/ holds no NN_*.ipynb"


def test_exercises_and_the_reference_package_are_generated_from_the_solutions():
    assert _tool("make_exercises").main(["--check"]) == 0, (
        "exercises/ or buildgrad/ is out of date: run `python tools/make_exercises.py`")


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_every_task_has_a_graded_check(solution):
    notebook = nbformat.read(solution, as_version=4)
    cells = notebook.cells
    tasks = [i for i, c in enumerate(cells) if _nbgrader(c).get("solution")]
    graded = [i for i, c in enumerate(cells) if _nbgrader(c).get("grade")]
    assert tasks and graded
    for i in tasks:
        assert "### BEGIN SOLUTION" in cells[i].source and "### END SOLUTION" in cells[i].source
        assert any(j > i for j in graded), f"task {_nbgrader(cells[i])['grade_id']} has no check after it"
    assert all(_nbgrader(cells[j]).get("points", 0) > 0 and _nbgrader(cells[j])["locked"] for j in graded)
    number = int(solution.stem[:2])
    earlier = [c for c in cells if _nbgrader(c).get("grade_id") == EARLIER]
    if number:
        assert [c.source for c in earlier] == [f"checks.earlier({number}, globals())"]
        assert not _nbgrader(earlier[0])["grade"] and _nbgrader(earlier[0])["locked"]


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
        if cell.cell_type != "code" or _nbgrader(cell).get("grade_id") == EARLIER:
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


# The partly wrong submission: a chapter and one of its tasks left undone. Its checks lose
# their points and nothing else does (no earlier chapter needs this piece).
PARTLY_WRONG = ("06_non_differentiable", -1)


def _nbgrader_command(folder, *args):
    result = subprocess.run(["nbgrader", *args], cwd=folder, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def readme_walkthrough():
    """The instructor's walkthrough as README.md gives it: its nbgrader_config.py, and its
    nbgrader commands in order (without their comments)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### The instructor's walkthrough (nbgrader)", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    config = block.split("<<'CONFIG'\n", 1)[1].split("CONFIG\n", 1)[0]
    commands = [line.split("#", 1)[0].split() for line in block.splitlines()
                if line.startswith("nbgrader ")]
    source = next(line.split()[1] for line in block.splitlines() if line.startswith("cp "))
    return config, commands, source


def test_a_course_grades_full_blank_and_partly_wrong_submissions(tmp_path):
    """The README's instructor walkthrough, run in a temporary course: generate the
    assignment from solutions/ and release it; a student fetches it, solves it and submits
    it, and the instructor collects it (nbgrader's exchange knows students by their login,
    so this one is whoever runs the test); two more submissions arrive in submitted/ as from
    a learning platform, one blank and one with a task undone; autograde all, export the
    grades."""
    config, commands, source = readme_walkthrough()
    name, wrong_task = PARTLY_WRONG
    solution = ROOT / "solutions" / f"{name}.ipynb"
    assert ROOT / source == solution, "the README's walkthrough grades another chapter"
    assert [c[1] for c in commands] == ["generate_assignment", "release_assignment",
                                        "fetch_assignment", "submit", "collect", "autograde",
                                        "export"], commands
    course, exchange = tmp_path / "course", tmp_path / "exchange"
    (course / "source" / "build06").mkdir(parents=True)
    exchange.mkdir()
    exchange.chmod(0o777)
    shutil.copyfile(solution, course / "source" / "build06" / solution.name)
    config, replaced = re.subn(r'(c\.Exchange\.root = )"[^"]*"', rf"\g<1>{str(exchange)!r}", config)
    assert replaced == 1, config
    (course / "nbgrader_config.py").write_text(config)

    answers = [c for c in nbformat.read(solution, as_version=4).cells if _nbgrader(c).get("solution")]
    wrong_id = _nbgrader(answers[wrong_task])["grade_id"]
    submissions = {
        "full": {_nbgrader(c)["grade_id"]: c.source for c in answers},
        "blank": {},
        "partly": {_nbgrader(c)["grade_id"]: c.source for c in answers if _nbgrader(c)["grade_id"] != wrong_id},
    }

    def answered(notebook, sources):
        for cell in notebook.cells:
            if _nbgrader(cell).get("solution") and _nbgrader(cell)["grade_id"] in sources:
                cell.source = sources[_nbgrader(cell)["grade_id"]]
        return notebook

    home = tmp_path / "student"
    home.mkdir()
    fetched = home / "build06" / solution.name
    for command in commands:
        step = command[1]
        if step == "submit":  # the student has solved the fetched notebook
            nbformat.write(answered(nbformat.read(fetched, as_version=4), submissions.pop("full")), fetched)
        if step == "autograde":  # two more submissions, as a learning platform leaves them
            (full,) = [p.name for p in (course / "submitted").iterdir()]
            for student, sources in submissions.items():
                target = course / "submitted" / student / "build06"
                target.mkdir(parents=True)
                nbformat.write(answered(nbformat.read(course / "release" / "build06" / solution.name,
                                                      as_version=4), sources), target / solution.name)
        if "--course" in command:  # a student's command, in their home, with no config file
            _nbgrader_command(home, *command[1:], f"--Exchange.root={exchange}")
        else:
            _nbgrader_command(course, *command[1:])
    released = nbformat.read(course / "release" / "build06" / solution.name, as_version=4)

    with open(course / "grades.csv") as file:
        scores = {row["student_id"]: (float(row["raw_score"]), float(row["max_score"]))
                  for row in csv.DictReader(file)}
    checks = [c for c in released.cells if _nbgrader(c).get("grade")]
    total = sum(_nbgrader(c)["points"] for c in checks)
    # the checks of the wrong task: the graded cells between it and the next task
    cells = released.cells
    start = next(i for i, c in enumerate(cells) if _nbgrader(c).get("grade_id") == wrong_id)
    lost = 0
    for cell in cells[start + 1:]:
        if _nbgrader(cell).get("solution"):
            break
        if _nbgrader(cell).get("grade"):
            lost += _nbgrader(cell)["points"]
    assert lost > 0
    assert scores[full] == (total, total)
    assert scores["blank"] == (0, total)
    assert scores["partly"] == (total - lost, total)
