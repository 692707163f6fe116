"""One chapter, one sitting: each chapter's length, its prediction prompts, the production
source it shows, and the "going deeper" pages that take the rest.

A learner reads a chapter in one sitting: at most 2,500 words of prose (runs of letters,
digits and ``_`` in Markdown outside fenced code) and at most 60 cells. They predict before
they run: at least three ``**Predict:**`` prompts, each answered by the code cell after it,
whose ``claim`` checks the answer. Section 3 maps the learner's classes to nbgrad's modules
in a table and shows at most one excerpt of nbgrad's source, of at most 20 lines; the full
sources and the history go to ``notebooks/deeper/NN_*.ipynb``, linked from chapter NN.
"""

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
DEEPER = sorted((NOTEBOOKS / "deeper").glob("*.ipynb"))
MAX_WORDS, MAX_CELLS, MIN_PREDICTIONS, MAX_EXCERPT_LINES = 2500, 60, 3, 20
PROMPT = "**Predict:**"


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _text(cell):
    return "".join(cell["source"])


def prose_words(path):
    words = 0
    for cell in _cells(path):
        if cell["cell_type"] == "markdown":
            prose = re.sub(r"^(```|~~~).*?^\1", "", _text(cell), flags=re.S | re.M)
            words += len(re.findall(r"\w+", prose, flags=re.ASCII))
    return words


def section(path, number):
    """The cells of section ``number`` (``## N. ...``) of a chapter."""
    cells, inside = [], False
    for cell in _cells(path):
        heading = re.search(r"^## (\d+)\.", _text(cell), flags=re.M) if cell["cell_type"] == "markdown" else None
        if heading:
            inside = heading.group(1) == str(number)
        if inside:
            cells.append(cell)
    return cells


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_fits_one_sitting(path):
    words, cells = prose_words(path), len(_cells(path))
    assert words <= MAX_WORDS, f"{path.name}: {words} words of prose (at most {MAX_WORDS})"
    assert cells <= MAX_CELLS, f"{path.name}: {cells} cells (at most {MAX_CELLS})"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_reader_predicts_then_runs_and_the_answer_is_checked(path):
    cells = _cells(path)
    prompts = [i for i, cell in enumerate(cells)
               if cell["cell_type"] == "markdown" and _text(cell).lstrip().startswith(PROMPT)]
    assert len(prompts) >= MIN_PREDICTIONS, (
        f"{path.name}: {len(prompts)} prediction prompts (a Markdown cell starting "
        f"{PROMPT!r}); at least {MIN_PREDICTIONS}")
    for i in prompts:
        answer = cells[i + 1] if i + 1 < len(cells) else None
        assert answer is not None and answer["cell_type"] == "code" and "claim(" in _text(answer), (
            f"{path.name} cell {i}: the cell after a prediction prompt runs the answer and claims it")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_section_3_maps_the_pieces_and_shows_at_most_one_short_excerpt(path):
    cells = section(path, 3)
    assert cells, f"{path.name} has no section 3"
    assert any(cell["cell_type"] == "markdown" and re.search(r"^\|[ :-]*-[ :|-]*$", _text(cell), re.M)
               for cell in cells), f"{path.name}: section 3 keeps its table of the pieces"
    excerpts = [cell for cell in cells if cell["cell_type"] == "code" and "show_source(" in _text(cell)]
    assert len(excerpts) <= 1, f"{path.name}: section 3 shows {len(excerpts)} excerpts of nbgrad"
    for cell in excerpts:
        shown = "".join("".join(out.get("data", {}).get("text/plain", ""))
                        for out in cell.get("outputs", []))
        lines = len(shown.splitlines()) - 1  # the title line
        assert lines <= MAX_EXCERPT_LINES, f"{path.name}: section 3's excerpt is {lines} lines"


@pytest.mark.parametrize("page", DEEPER, ids=lambda p: p.stem)
def test_a_going_deeper_page_and_its_chapter_link_each_other(page):
    chapter = next((c for c in CHAPTERS if c.name[:3] == page.name[:3]), None)
    assert chapter is not None, f"deeper/{page.name}: name it after its chapter, NN_*.ipynb"
    chapter_text = "\n".join(_text(c) for c in _cells(chapter) if c["cell_type"] == "markdown")
    page_text = "\n".join(_text(c) for c in _cells(page) if c["cell_type"] == "markdown")
    assert f"](deeper/{page.name})" in chapter_text, f"{chapter.name} should link deeper/{page.name}"
    assert f"](../{chapter.name})" in page_text, f"deeper/{page.name} should link ../{chapter.name}"
