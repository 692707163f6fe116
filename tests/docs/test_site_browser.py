"""The built site in headless Chromium, served from 127.0.0.1, as a reader meets it.

Every chapter page (``notebooks/NN_*.ipynb``: a new chapter is picked up when it lands):
each image has loaded (``naturalWidth > 0``: the figures, the graph drawings), and the page
shows no Sphinx build error (docutils' system messages, "Could not ...") and no raw
traceback outside the cells tagged ``raises-exception`` (the deliberate errors). The search
page finds ``retain_graph``. One API page per public module opens with its title and its
tables. Skipped without Playwright or Chromium, failing then under
``NBGRAD_REQUIRE_BROWSER=1``; see conftest.py.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
TIMEOUT = 60_000  # ms


def figures_in(notebook: Path) -> int:
    """The image outputs (PNG, SVG) of a notebook's code cells: what its page must show."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return sum(1 for cell in cells for output in cell.get("outputs", [])
               if {"image/png", "image/svg+xml"} & set(output.get("data", {})))


def public_modules() -> list[str]:
    spec = importlib.util.spec_from_file_location(
        "nbgrad_test_docstrings_modules", ROOT / "tests" / "test_docstrings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.PUBLIC_MODULES)


# What a page shows that it should not. Images: wait for each to finish (decode() settles
# either way) and report the ones with no pixels. Errors: docutils' system messages (a
# build problem rendered into the page), and tracebacks (myst-nb's error outputs,
# .output.traceback, or any output with "Traceback (most recent call last)") outside a
# cell tagged raises-exception (myst-nb gives a cell's tags as classes).
INSPECT = r"""
async () => {
  const images = Array.from(document.images);
  await Promise.all(images.map(img => img.decode().catch(() => null)));
  const broken = images.filter(img => !(img.complete && img.naturalWidth > 0))
                       .map(img => (img.currentSrc || img.src).slice(0, 120));
  const systemMessages = Array.from(document.querySelectorAll('.system-message, .problematic'))
                       .map(e => e.textContent.trim().slice(0, 200));
  const tracebacks = [];
  for (const el of document.querySelectorAll('.output.traceback, .cell_output pre, .output pre')) {
    const raw = el.matches('.traceback') || /Traceback \(most recent call last\)/.test(el.textContent);
    if (raw && !el.closest('.tag_raises-exception')) tracebacks.push(el.textContent.trim().slice(0, 200));
  }
  const deliberate = document.querySelectorAll('.tag_raises-exception').length;
  const shownErrors = document.querySelectorAll('.tag_raises-exception .output.traceback').length;
  const figures = document.querySelectorAll('article .cell_output img').length;
  return {images: images.length, figures, broken, systemMessages, tracebacks, deliberate, shownErrors,
          title: document.title, text: document.body.innerText.slice(0, 20000)};
}
"""


def visit(page, url: str) -> dict:
    response = page.goto(url, wait_until="load", timeout=TIMEOUT)
    assert response is not None and response.ok, f"{url}: HTTP {response and response.status}"
    return page.evaluate(INSPECT)


@pytest.mark.parametrize("chapter", [c.stem for c in CHAPTERS])
def test_chapter_page(page, served, chapter):
    found = visit(page, f"{served}chapters/{chapter}.html")
    # every figure and graph drawing of the notebook's outputs is an image of the page
    assert found["figures"] == figures_in(ROOT / "notebooks" / f"{chapter}.ipynb"), found["figures"]
    assert not found["broken"], f"{chapter}: images that did not load: {found['broken']}"
    assert not found["systemMessages"], f"{chapter}: build errors shown: {found['systemMessages']}"
    assert not found["tracebacks"], f"{chapter}: tracebacks outside raises-exception cells: {found['tracebacks']}"
    for phrase in ("Sphinx error", "Could not lex", "Exception occurred"):
        assert phrase not in found["text"], f"{chapter}: the page says {phrase!r}"
    # each deliberate-error cell shows its error
    assert found["shownErrors"] == found["deliberate"], found
    # the "run this chapter" box, with its Binder link
    binder = page.locator("a.nbgrad-binder")
    assert binder.count() == 1, chapter
    assert binder.get_attribute("href").endswith(f"urlpath=lab/tree/notebooks/{chapter}.ipynb")


def test_landing_page(page, served):
    found = visit(page, served)
    assert not found["broken"] and not found["systemMessages"], found
    for chapter in CHAPTERS:
        assert page.locator(f"a[href*='chapters/{chapter.stem}.html']").count() >= 1, chapter.stem
    assert 'pip install -e ".[lab]"' in found["text"]
    assert "API reference" in found["text"]


def test_search_finds_retain_graph(page, served):
    page.goto(f"{served}search.html?q=retain_graph", wait_until="load", timeout=TIMEOUT)
    results = page.locator("#search-results ul.search li")
    results.first.wait_for(timeout=TIMEOUT)
    page.wait_for_function(
        "() => !document.querySelector('#search-results h2') ||"
        " !/Searching/.test(document.querySelector('#search-results h2').textContent)",
        timeout=TIMEOUT)
    hrefs = [results.nth(i).locator("a").first.get_attribute("href") for i in range(results.count())]
    assert any("04_retain_graph" in h for h in hrefs), hrefs
    assert any(h.startswith("api/") for h in hrefs), hrefs


@pytest.mark.parametrize("module", public_modules())
def test_api_page_of_each_public_module(page, served, module):
    found = visit(page, f"{served}api/{module}.html")
    assert not found["broken"] and not found["systemMessages"], found
    heading = page.locator("article h1").first.inner_text()
    assert module in heading, heading
    # each summary table's links open pages of the site
    links = page.locator("table.autosummary a.reference.internal")
    if links.count():
        href = links.first.get_attribute("href")
        response = page.request.get(f"{served}api/{href}")
        assert response.ok, href
