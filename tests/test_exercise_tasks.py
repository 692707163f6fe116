"""Each task's check tests every instruction, and names the mistake a learner made.

- The reference answer passes its check, and removing any one of its statements fails it:
  a statement the check does not notice is an instruction that nothing tests, or code the
  task does not need.
- The chapter teaches the idea and the exercise is where the code is written: few of an
  answer's lines appear in its chapter (in a code cell or a text output).
- Each task keeps a few typical wrong answers (``tests/mistakes/cNN.py``); each must fail its
  check with a hint that names that mistake (the first line of the check's message).
"""

import importlib
import pathlib

import pytest

from exercise_tasks import copied_lines, outcomes, statement_deletions, tasks

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
# of an exercise's answer lines, the share its chapter may show: in all, and in any one
COPIED_IN_ALL, COPIED_IN_ONE = 0.20, 0.35


def test_the_chapters_leave_the_answers_to_the_exercises():
    counts = {s.name: copied_lines(s, ROOT / "notebooks" / s.name) for s in SOLUTIONS}
    report = "\n  ".join(f"{name}: {copied} of {total} answer lines shown in the chapter"
                         for name, (copied, total) in counts.items())
    copied, total = map(sum, zip(*counts.values()))
    assert copied <= COPIED_IN_ALL * total, f"{copied} of {total} in all:\n  {report}"
    assert all(c <= COPIED_IN_ONE * t for c, t in counts.values()), report


def mistakes(solution):
    return importlib.import_module(f"mistakes.c{solution.name[:2]}").MISTAKES


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_removing_any_statement_of_an_answer_fails_its_check(solution):
    variants, removed = [], []
    for task in tasks(solution):
        variants.append((task, task.region))
        removed.append((task.cell, None))
        for statement, region in statement_deletions(task.region):
            variants.append((task, region))
            removed.append((task.cell, statement))
    results = outcomes(solution, variants)
    failing_references = [(cell, result) for (cell, statement), result in zip(removed, results)
                          if statement is None and result is not None]
    assert not failing_references, f"reference answers that fail their check: {failing_references}"
    unnoticed = [f"{cell}: without `{statement}`" for (cell, statement), result
                 in zip(removed, results) if statement is not None and result is None]
    assert not unnoticed, (f"{solution.name}: answers that still pass their task's check with a "
                           "statement removed:\n  " + "\n  ".join(unnoticed))


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_every_task_has_typical_wrong_answers(solution):
    covered = {(mistake.cell, mistake.part) for mistake in mistakes(solution)}
    missing = [f"{task.cell} (part {task.part})" for task in tasks(solution)
               if (task.cell, task.part) not in covered]
    assert not missing, f"{solution.name}: tasks without typical wrong answers: {missing}"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_a_typical_wrong_answer_fails_with_the_hint_that_names_it(solution):
    by_part = {(task.cell, task.part): task for task in tasks(solution)}
    listed = mistakes(solution)
    results = outcomes(solution, [(by_part[m.cell, m.part], m.region(by_part[m.cell, m.part]))
                                  for m in listed])
    misnamed = [f"{m.cell}, {m.what}: {'passes' if result is None else result!r} "
                f"(its hint should say {m.hint!r})"
                for m, result in zip(listed, results)
                if result is None or m.hint not in result]
    assert not misnamed, f"{solution.name}:\n  " + "\n  ".join(misnamed)
