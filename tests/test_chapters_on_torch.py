"""Every chapter's "What you meet in practice" stands on its own, and shows the same on PyTorch.

That section of each chapter starts with a switch, ``torch = importlib.import_module(
os.environ.get("NBGRAD_COURSE_LIBRARY", "nbgrad"))``, and its code cells (tagged
``torch-parity``) use only the switched library's public API. Here those cells run alone, in
a fresh kernel after the chapter's import lines, once with ``NBGRAD_COURSE_LIBRARY=nbgrad``
and once with ``torch``, and every tagged cell's outputs must equal the committed ones,
which the whole chapter produced on nbgrad: the section depends on nothing an earlier
section left behind, and what a learner sees there is PyTorch's behaviour. Addresses
(``0x...``), the library's own name and PyTorch's ``torch::autograd::`` before the names of
its C++ nodes (README: where nbgrad differs) are the only differences allowed; an error must
be of the same type with the same first line (nbgrad may add a hint line).
"""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
TAG = "torch-parity"
SWITCH = ('torch = importlib.import_module(os.environ.get("NBGRAD_COURSE_LIBRARY", '
          '"nbgrad"))')
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,16}\b")
LIBRARY_NAME = re.compile(r"\bnbgrad\b")
CPP_NAMESPACE = re.compile(r"\btorch::autograd::")


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def tagged(notebook: dict) -> list[int]:
    return [i for i, cell in enumerate(notebook["cells"])
            if cell["cell_type"] == "code" and TAG in cell.get("metadata", {}).get("tags", [])]


def shown(cell: dict) -> list[str]:
    """What a learner reads in the cell's output, with the allowed differences normalised."""
    texts = []
    stream = None  # the name of the stream the last text came from
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream":
            # a kernel may split one print into several stream outputs: join them back
            if stream == output["name"]:
                texts[-1] += "".join(output["text"])
            else:
                texts.append(f"{output['name']}: {''.join(output['text'])}")
            stream = output["name"]
            continue
        stream = None
        if kind in ("execute_result", "display_data"):
            texts.append("".join(output.get("data", {}).get("text/plain", "")))
        elif kind == "error":
            first_line = (output["evalue"].splitlines() or [""])[0]
            texts.append(f"{output['ename']}: {first_line}")
    return [CPP_NAMESPACE.sub("", LIBRARY_NAME.sub("torch", ADDRESS.sub("0xADDRESS", text)))
            for text in texts]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_the_practice_section_starts_with_the_library_switch(chapter):
    notebook = read(chapter)
    cells = tagged(notebook)
    assert cells, f"{chapter.name}: no cell tagged {TAG!r} (section 4 runs on PyTorch too)"
    first = "".join(notebook["cells"][cells[0]]["source"])
    assert SWITCH in first, f"{chapter.name}: the first {TAG} cell is not the switch:\n{first}"
    for i in cells:
        source = "".join(notebook["cells"][i]["source"])
        assert not re.search(r"\bng\.|\bnbgrad\.|buildgrad", source.replace(SWITCH, "")), (
            f"{chapter.name} cell {i} uses nbgrad itself, not the switched library:\n{source}")


def prelude(notebook: dict) -> str:
    """The notebook's import lines and display settings (magics such as ``%xmode``, the
    warnings' format), in order, from the code cells before the switch: all that a practice
    section may take from the rest of its chapter."""
    lines = []
    for cell in notebook["cells"][:tagged(notebook)[0]]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        lines += [line for line in source.splitlines() if line.startswith("%")]
        python = "\n".join("" if line.startswith(("%", "!")) else line
                           for line in source.splitlines())
        for statement in ast.parse(python).body:
            if isinstance(statement, (ast.Import, ast.ImportFrom)) or (
                    isinstance(statement, ast.Assign)
                    and ast.unparse(statement.targets[0]) == "warnings.formatwarning"):
                lines.append(ast.get_source_segment(python, statement))
    return "\n".join(lines)


def practice_section(notebook: dict) -> tuple[dict, list[int]]:
    """A notebook of the prelude and the practice section's cells alone, and where each of
    those cells is in the chapter."""
    cells = tagged(notebook)
    alone = copy.deepcopy(notebook)
    first = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
             "source": prelude(notebook)}
    alone["cells"] = [first] + [copy.deepcopy(notebook["cells"][i]) for i in cells]
    for i, cell in enumerate(alone["cells"]):
        cell["id"] = f"cell-{i}"
    return alone, cells


@pytest.mark.parametrize("line, kept", [
    ("import numpy as np", True), ("from nbgrad.viz import claim, show_source", True),
    ("%xmode Minimal", True), ("warnings.formatwarning = lambda *a: ''", True),
    ("x = ng.tensor(1.0)", False), ("dW1 = np.ones(3)", False)])
def test_the_prelude_keeps_only_imports_and_display_settings(line, kept):
    notebook = {"cells": [{"cell_type": "code", "source": line, "metadata": {}},
                          {"cell_type": "code", "source": SWITCH, "metadata": {"tags": [TAG]}}]}
    assert (prelude(notebook) == line) is kept


@pytest.mark.slow
@pytest.mark.parametrize("library", ["nbgrad", "torch"])
@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_the_practice_section_stands_alone(chapter, library, monkeypatch):
    """The section's cells, run in a fresh kernel after the chapter's imports alone, show
    their committed outputs: on nbgrad, nothing they show comes from an earlier section's
    state (a name defined there, or a tensor a later cell forgot to recompute); on PyTorch,
    what a learner sees there is PyTorch's behaviour."""
    if library == "torch":
        pytest.importorskip("torch", reason="torch is not installed: the chapters run on nbgrad only")
    nbformat = pytest.importorskip("nbformat", reason="needs nbformat (the [test] extra)")
    nbclient = pytest.importorskip("nbclient", reason="needs nbclient (the [test] extra)")
    committed = read(chapter)
    alone, cells = practice_section(committed)
    notebook = nbformat.reads(json.dumps(alone), as_version=4)
    monkeypatch.setenv("NBGRAD_COURSE_LIBRARY", library)  # the kernel inherits it
    # allow_errors: an error where the chapter shows none appears in the comparison below
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    ran = json.loads(nbformat.writes(notebook))["cells"][1:]
    different = {i: {"chapter": shown(committed["cells"][i]), library: shown(cell)}
                 for i, cell in zip(cells, ran)
                 if shown(committed["cells"][i]) != shown(cell)}
    assert not different, (
        f"{chapter.name}: cells of the practice section that show something else when it runs "
        f"alone on {library} (cell index in the chapter: what each showed):\n"
        f"{json.dumps(different, indent=1, ensure_ascii=False)}")


def test_shown_normalises_only_addresses_and_the_library_name():
    cell = {"outputs": [
        {"output_type": "stream", "name": "stdout", "text": ["<MulBackward0 object at 0x7f3a2b1c4d90>\n"]},
        {"output_type": "execute_result", "data": {"text/plain": "tensor([1., 2.])"}},
        {"output_type": "error", "ename": "RuntimeError",
         "evalue": "element 0 of tensors does not require grad\nHint (nbgrad): chapter 02"}]}
    assert shown(cell) == ["stdout: <MulBackward0 object at 0xADDRESS>\n", "tensor([1., 2.])",
                           "RuntimeError: element 0 of tensors does not require grad"]
    split = {"outputs": [{"output_type": "stream", "name": "stdout", "text": ["a\n"]},
                         {"output_type": "stream", "name": "stdout", "text": ["b\n"]},
                         {"output_type": "stream", "name": "stderr", "text": ["w\n"]}]}
    assert shown(split) == ["stdout: a\nb\n", "stderr: w\n"]
    changed = copy.deepcopy(cell)
    changed["outputs"][1]["data"]["text/plain"] = "tensor([1., 3.])"
    assert shown(changed) != shown(cell)
