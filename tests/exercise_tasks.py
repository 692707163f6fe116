"""An exercise's tasks, and what its checks say about a changed answer.

A task is a package cell (``#| export``) of a solution notebook with a solution region
(``### BEGIN SOLUTION`` ... ``### END SOLUTION``); its check is the first graded cell after it.
``outcomes`` runs the check of each task on the chapter's module with one region replaced,
as a learner's notebook would run it: the earlier chapters are the reference, the module's
cells run in a namespace of their own, then the check cell runs in that namespace.

Each replacement runs in a child forked from one process that has imported the earlier
chapters once (``python tests/exercise_tasks.py``, a fresh interpreter: forking pytest's own
worker, which has threads, would not be safe). A chapter's module patches the classes of the
chapters before it, so a changed answer must never run where another one did.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
EXPORT = "#| export"
TIME_LIMIT = 60  # seconds for one changed answer and its check (the reference takes < 1)


@dataclass(frozen=True)
class Task:
    cell: str        # the task cell's id
    part: int        # which solution region of the cell (some cells have several)
    region: str      # the reference answer: the lines between the markers, as written
    check: str       # the source of the graded cell that checks it


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer to a task, and what its check must say about it."""
    cell: str    # the task cell's id
    what: str    # the mistake, in a few words
    answer: str  # the wrong answer, in place of the reference one (indentation is added)
    hint: str    # a phrase that the first line of the check's message must contain
    part: int = 0  # which solution region of the cell

    def region(self, task: Task) -> str:
        indent = task.region[:len(task.region) - len(task.region.lstrip())].split("\n")[-1]
        return textwrap.indent(textwrap.dedent(self.answer).strip("\n"), indent)


def cells(solution: pathlib.Path) -> list[dict]:
    return json.loads(solution.read_text(encoding="utf-8"))["cells"]


def _graded(cell: dict) -> bool:
    return cell["cell_type"] == "code" and cell["metadata"].get("nbgrader", {}).get("grade", False)


def _split(source: str) -> list[str]:
    """A cell's source cut at its markers: [before, region 0, between, region 1, ..., after]."""
    pieces, current = [], []
    for line in source.split("\n"):
        current.append(line)
        if line.strip() in (BEGIN, END):
            pieces.append("\n".join(current))
            current = []
    pieces.append("\n".join(current))
    # each piece but the last ends with its marker line: the regions are the odd pieces
    # without their closing marker
    return [piece if i % 2 == 0 or i == len(pieces) - 1 else piece.rsplit("\n", 1)[0]
            for i, piece in enumerate(pieces)]


def _regions(source: str) -> list[str]:
    return _split(source)[1::2]


def tasks(solution: pathlib.Path) -> list[Task]:
    found = []
    notebook = cells(solution)
    for i, cell in enumerate(notebook):
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and BEGIN in source:
            check = next("".join(c["source"]) for c in notebook[i + 1:] if _graded(c))
            found += [Task(cell["id"], part, region, check)
                      for part, region in enumerate(_regions(source))]
    return found


def _with_regions(source: str, replaced: dict[int, str]) -> str:
    lines = source.split("\n")
    markers = [i for i, line in enumerate(lines) if line.strip() in (BEGIN, END)]
    # replace from the last region back, so that the earlier ones' line numbers stay put
    for part in sorted(replaced, reverse=True):
        begin, end = markers[2 * part], markers[2 * part + 1]
        lines[begin + 1:end] = replaced[part].split("\n")
    return "\n".join(lines)


def module_source(solution: pathlib.Path, replaced: dict[tuple[str, int], str] | None = None) -> str:
    """The chapter's module (its package cells, in order), with the solution regions named in
    ``replaced`` ((cell id, part) -> new region) replaced."""
    replaced = replaced or {}
    parts = []
    for cell in cells(solution):
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or source.split("\n", 1)[0].strip() != EXPORT:
            continue
        mine = {part: region for (cell_id, part), region in replaced.items() if cell_id == cell["id"]}
        source = _with_regions(source, mine)
        parts.append(source.split("\n", 1)[1] if "\n" in source else "")
    return "\n\n\n".join(part.strip("\n") for part in parts) + "\n"


def answer_lines(solution: pathlib.Path) -> list[str]:
    """The lines a learner writes: in the solution regions, stripped, not comments, and at
    least 12 characters long (shorter ones, ``return out``, are not worth counting)."""
    return [line.strip() for task in tasks(solution) for line in task.region.splitlines()
            if len(line.strip()) >= 12 and not line.strip().startswith("#")]


def shown_lines(chapter: pathlib.Path) -> set[str]:
    """Every line, stripped, that a chapter shows in its code cells and text outputs."""
    shown = set()
    for cell in cells(chapter):
        if cell["cell_type"] != "code":
            continue
        texts = ["".join(cell["source"])]
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            texts.append("".join(output.get("text", "")) + "".join(data.get("text/plain", ""))
                         + "".join(data.get("text/markdown", "")))
        shown.update(line.strip() for text in texts for line in text.splitlines())
    return shown


def copied_lines(solution: pathlib.Path, chapter: pathlib.Path) -> tuple[int, int]:
    """(answer lines that the chapter shows, answer lines)."""
    answers = answer_lines(solution)
    shown = shown_lines(chapter)
    return sum(line in shown for line in answers), len(answers)


def statement_deletions(region: str) -> list[tuple[str, str]]:
    """Each statement of a reference answer (at any depth) removed in turn, as (the removed
    statement's first line, the answer without it); a block left empty gets ``pass``."""
    code = textwrap.dedent(region)
    indent = region[:len(region) - len(region.lstrip())].split("\n")[-1]
    lines = code.split("\n")
    tree = ast.parse(code)
    deletions = []
    for block in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(block, field, None)
            if not isinstance(statements, list) or block is tree and field != "body":
                continue
            for statement in statements:
                if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                    continue  # a docstring is no instruction
                first, last = statement.lineno - 1, statement.end_lineno
                kept = lines[:first] + (
                    [" " * statement.col_offset + "pass"] if len(statements) == 1 else []
                ) + lines[last:]
                deletions.append((lines[first].strip(),
                                  textwrap.indent("\n".join(kept), indent)))
    return deletions


def outcomes(solution: pathlib.Path, variants: list[tuple[Task, str]]) -> list[str | None]:
    """For each (task, replacement region): None when the task's check passes, else the
    first line of what made it fail (a ``CheckFailed``'s hint, or another error)."""
    jobs = [{"module": module_source(solution, {(task.cell, task.part): region}),
             "check": task.check} for task, region in variants]
    job = {"chapter": int(solution.name[:2]), "jobs": jobs}
    result = subprocess.run([sys.executable, __file__], input=json.dumps(job), text=True,
                            capture_output=True, cwd=ROOT, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"the task runner failed:\n{result.stderr}")
    return json.loads(result.stdout)


def _run_one(module: str, check: str) -> str | None:
    from buildgrad import checks
    namespace = {"__name__": "__main__", "checks": checks}
    try:
        exec(compile(module, "<the chapter's module>", "exec"), namespace)
        exec(compile(check, "<the check cell>", "exec"), namespace)
    except BaseException as error:  # anything the learner's code raises fails the check
        first = (str(error).splitlines() or [""])[0]
        return f"{type(error).__name__}: {first}"
    return None


def _serve() -> None:
    job = json.loads(sys.stdin.read())
    sys.path.insert(0, str(ROOT))
    from buildgrad import checks, track
    for name in track.CHAPTERS[:job["chapter"]]:
        importlib.import_module(f"buildgrad.{name}")  # the reference of the earlier chapters
    checks.chapter(job["chapter"])
    results = []
    for item in job["jobs"]:
        read, write = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(read)
            signal.alarm(TIME_LIMIT)  # a changed answer may loop for ever: SIGALRM ends it
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)  # what the check cell prints is not the answer
            outcome = _run_one(item["module"], item["check"])
            os.write(write, json.dumps(outcome).encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as pipe:
            text = pipe.read()
        os.waitpid(child, 0)
        results.append(json.loads(text) if text else
                       f"no result: the check ran over {TIME_LIMIT} s or crashed the process")
    print(json.dumps(results))


if __name__ == "__main__":
    _serve()
