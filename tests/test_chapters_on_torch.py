"""Every chapter's "What you meet in practice" runs on PyTorch and shows the same outputs.

That section of each chapter starts with a switch, ``torch = importlib.import_module(
os.environ.get("NBGRAD_COURSE_LIBRARY", "nbgrad"))``, and its code cells (tagged
``torch-parity``) use only the switched library's public API. Here each chapter is executed
with ``NBGRAD_COURSE_LIBRARY=torch``, and every tagged cell's outputs must equal the
committed ones, which nbgrad produced: what a learner sees in those cells is PyTorch's
behaviour. Addresses (``0x...``), the library's own name and PyTorch's ``torch::autograd::``
before the names of its C++ nodes (README: where nbgrad differs) are the only differences
allowed; an error must be of the same type with the same first line (nbgrad may add a hint
line).
"""

from __future__ import annotations

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


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_the_practice_section_shows_the_same_on_pytorch(chapter, monkeypatch):
    pytest.importorskip("torch", reason="torch is not installed: the chapters run on nbgrad only")
    nbformat = pytest.importorskip("nbformat", reason="needs nbformat (the [test] extra)")
    nbclient = pytest.importorskip("nbclient", reason="needs nbclient (the [test] extra)")
    committed = read(chapter)
    cells = tagged(committed)
    if not cells:
        pytest.fail(f"{chapter.name}: no cell tagged {TAG!r}")
    notebook = nbformat.reads(json.dumps(committed), as_version=4)
    monkeypatch.setenv("NBGRAD_COURSE_LIBRARY", "torch")  # the kernel inherits it
    # cells tagged raises-exception may raise; any other error fails the run
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    on_torch = json.loads(nbformat.writes(notebook))
    different = {i: {"nbgrad": shown(committed["cells"][i]), "torch": shown(on_torch["cells"][i])}
                 for i in cells
                 if shown(committed["cells"][i]) != shown(on_torch["cells"][i])}
    assert not different, (
        f"{chapter.name}: cells whose outputs differ on PyTorch "
        f"(cell index: what each library showed):\n{json.dumps(different, indent=1)}")


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
