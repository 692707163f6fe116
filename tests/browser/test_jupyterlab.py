"""The chapters in a real JupyterLab, in headless Chromium, as a student meets them.

For every chapter (``notebooks/NN_*.ipynb``, so a new chapter is picked up when it lands):
open it, wait until its kernel is connected and idle, clear the committed outputs and run
all cells from the menu (Edit > Clear Outputs of All Cells, Run > Run All Cells), check
that every code cell ran once and in order, and that errors show only in the cells tagged
``raises-exception`` (the deliberate ones, each of which must show its error); then move a
slider of the chapter's widget with the keyboard and check that the plot (the PNG under the
controls) is redrawn. The landing notebook is run the same way (it has no widget). And
opening a notebook without touching it must not mark it modified: JupyterLab rewrites the
kernelspec and language_info it finds, so the committed ones must be those it writes.

One JupyterLab page serves all the notebooks (loading JupyterLab is the slow part); each
test closes its notebook and shuts its kernel down, and reloads the page if it was left in
a bad state.

Run alone with ``python -m pytest tests/browser -m browser``. Skipped, with the reason,
without Playwright or Chromium; see conftest.py.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

try:
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # the fixtures skip these tests without Playwright
    PlaywrightError = Exception

pytestmark = pytest.mark.browser

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
LANDING = NOTEBOOKS / "README.ipynb"

LOAD_TIMEOUT = 120  # s: load JupyterLab in the page
OPEN_TIMEOUT = 120  # s: open a notebook, start its kernel
RUN_TIMEOUT = 240  # s: Run All (a chapter runs in well under 30 s alone; CI is loaded)
REDRAW_TIMEOUT = 60  # s: one slider step -> the kernel redraws -> a new PNG in the page


def read_cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def is_code(cell: dict) -> bool:
    # JupyterLab does not execute an empty code cell, so its prompt stays [ ]
    return cell["cell_type"] == "code" and "".join(cell["source"]).strip() != ""


def tagged_raises(cell: dict) -> bool:
    return "raises-exception" in cell.get("metadata", {}).get("tags", [])


def wait_until(condition, timeout: float, message, interval: float = 0.25):
    """Poll `condition()` until it returns something truthy; fail with `message()` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(message() if callable(message) else message)
        time.sleep(interval)


# --- the page: JupyterLab with its app exposed (--expose-app-in-browser) -------------------

# The notebook panel open on `path` (by path, not "the current widget": a dialog or another
# tab could have the focus).
PANEL = """
const panelOf = (path) => {
  for (const widget of window.jupyterapp.shell.widgets('main')) {
    if (widget.context && widget.context.path === path) return widget;
  }
  return null;
};
"""


def js(body: str) -> str:
    """A page function of one argument, `path`, with `panelOf` in scope."""
    return f"(path) => {{ {PANEL} {body} }}"


def load_lab(page, lab) -> None:
    page.goto(lab.lab_url(), timeout=LOAD_TIMEOUT * 1000)
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell && document.querySelector('#jp-MainMenu')",
        timeout=LOAD_TIMEOUT * 1000,
    )
    page.evaluate("() => window.jupyterapp.restored")  # the workspace (empty: ?reset) is restored


def reset_lab(page, lab) -> None:
    """Close every notebook without saving, and shut every kernel down."""
    page.evaluate("""() => {
      for (const dialog of document.querySelectorAll('.jp-Dialog')) dialog.remove();
      for (const widget of Array.from(window.jupyterapp.shell.widgets('main'))) {
        if (widget.context) { widget.context.model.dirty = false; widget.close(); }
      }
    }""")
    page.wait_for_function("() => !document.querySelector('.jp-NotebookPanel')", timeout=30_000)
    lab.shut_down_all_kernels()


@pytest.fixture(scope="module")
def page(browser, jupyterlab):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(OPEN_TIMEOUT * 1000)
    load_lab(page, jupyterlab)
    yield page
    context.close()


@pytest.fixture
def lab_page(page, jupyterlab):
    """The shared page, left clean for the next test (reloaded if cleaning up fails)."""
    yield page
    try:
        reset_lab(page, jupyterlab)
    except Exception:  # noqa: BLE001 - a broken page is replaced, whatever broke it
        jupyterlab.shut_down_all_kernels()
        load_lab(page, jupyterlab)


def kernel_on_server(lab, path: str) -> dict | None:
    """The server's view of the kernel of the notebook at `path` (/api/sessions, /api/kernels)."""
    for session in lab.api("sessions"):
        if session.get("path") == path and session.get("kernel"):
            return lab.api(f"kernels/{session['kernel']['id']}")
    return None


def kernel_in_page(page, path: str) -> dict:
    return page.evaluate(js("""
      const panel = panelOf(path);
      const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
      return {ready: !!(panel && panel.sessionContext.isReady),
              connection: kernel ? kernel.connectionStatus : null,
              status: kernel ? kernel.status : null};
    """), path)


def prompts(page, path: str) -> list[str]:
    """The input prompt shown for every cell of the notebook, '' for markdown cells."""
    return page.evaluate(js("""
      return panelOf(path).content.widgets.map(cell => {
        const prompt = cell.node.querySelector('.jp-InputPrompt');
        return cell.model.type === 'code' && prompt ? prompt.textContent.trim() : '';
      });
    """), path)


def errors_shown(page, path: str) -> list[list[str]]:
    """For every cell, its error outputs ('Ename: evalue'), read from the notebook's model,
    each marked NOT SHOWN unless the cell's output area displays it."""
    return page.evaluate(js("""
      return panelOf(path).content.widgets.map(cell => {
        if (cell.model.type !== 'code') return [];
        const errors = cell.model.outputs.toJSON().filter(o => o.output_type === 'error');
        const shown = Array.from(cell.node.querySelectorAll('.jp-OutputArea-output'))
          .map(o => o.textContent).join('\\n');
        return errors.map(e => `${e.ename}: ${e.evalue}` + (shown.includes(e.ename) ? '' : ' (NOT SHOWN)'));
      });
    """), path)


def menu(page, top: str, command: str) -> None:
    """Click a main-menu entry, e.g. menu(page, 'Run', 'runmenu:run-all')."""
    page.locator("#jp-MainMenu .lm-MenuBar-item", has_text=top).first.click()
    page.locator(f'.lm-Menu-content .lm-Menu-item[data-command="{command}"]').click()


# --- the steps ------------------------------------------------------------------------------

def open_notebook(page, lab, path: str, cells: list[dict]) -> str:
    """Open the notebook, wait for its cells and its kernel; return the panel's DOM id."""
    page.evaluate("async (path) => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }", path)
    # open = the file loaded into the panel and every cell rendered (no windowing: see conftest)
    panel_id = wait_until(
        lambda: page.evaluate(f"""(path) => {{ {PANEL}
          const panel = panelOf(path);
          if (!panel || !panel.context.isReady || !panel.isVisible) return null;
          const rendered = panel.node.querySelectorAll('.jp-Notebook .jp-Cell').length;
          return panel.content.model.cells.length === {len(cells)} && rendered === {len(cells)} ? panel.id : null;
        }}""", path),
        OPEN_TIMEOUT, lambda: f"{path} did not open with its {len(cells)} cells rendered")

    # Before Run All: the server shows the notebook's kernel connected and idle, and so does
    # the page (cells sent to a kernel that is still starting can be lost).
    def ready():
        server, client = kernel_on_server(lab, path), kernel_in_page(page, path)
        return (server and server["connections"] > 0 and server["execution_state"] == "idle"
                and client["ready"] and client["connection"] == "connected" and client["status"] == "idle")

    wait_until(ready, OPEN_TIMEOUT, lambda: (
        f"the kernel of {path} did not become connected and idle: server {kernel_on_server(lab, path)}, "
        f"page {kernel_in_page(page, path)}\n{lab.log_tail()}"))
    return panel_id


def run_all(page, lab, path: str, cells: list[dict]) -> None:
    """Clear the committed outputs, Run All from the menu, wait until the kernel is done."""
    code = [i for i, cell in enumerate(cells) if is_code(cell)]
    menu(page, "Edit", "editmenu:clear-all")
    wait_until(lambda: all(prompts(page, path)[i] == "[ ]:" for i in code), 30,
               lambda: f"Clear Outputs of All Cells left the prompts {prompts(page, path)}")
    menu(page, "Run", "runmenu:run-all")

    # Run All is done when every code cell shows its execution count and the kernel is idle,
    # twice in a row. A cell is not always queued ([*]) by the time the kernel goes idle
    # after the one before it (seen under load: the last cell still showed [ ]), so "nothing
    # queued" alone is not the end. The other end: after an error in a cell not tagged
    # raises-exception, JupyterLab drops the rest of the queue and their prompts go back to
    # [ ]; once nothing is queued, check_errors reports that error.
    def settled():
        shown = prompts(page, path)
        if any(shown[i] == "[*]:" for i in code):
            return False
        if any(shown[i] == "[ ]:" for i in code) and not stopped_by_an_error():
            return False
        server = kernel_on_server(lab, path)
        return server is not None and server["execution_state"] == "idle"

    def stopped_by_an_error():
        return any(errors and not tagged_raises(cells[i])
                   for i, errors in enumerate(errors_shown(page, path)))

    wait_until(lambda: settled() and (time.sleep(1.0) or settled()), RUN_TIMEOUT, lambda: (
        f"Run All did not finish in {RUN_TIMEOUT} s; prompts: "
        f"{[(i, p) for i, p in enumerate(prompts(page, path)) if i in code]}\n{lab.log_tail()}"))


def check_ran_once(page, path: str, cells: list[dict]) -> None:
    code = [i for i, cell in enumerate(cells) if is_code(cell)]
    shown = prompts(page, path)
    counts = {i: shown[i] for i in code}
    expected = {i: f"[{n}]:" for n, i in enumerate(code, 1)}
    assert counts == expected, (
        "every code cell should run once, in order, after one Run All; cells whose prompt "
        f"differs: {{cell: (shown, expected)}} = "
        f"{ {i: (counts[i], expected[i]) for i in code if counts[i] != expected[i]} }")


def check_errors(page, path: str, cells: list[dict]) -> None:
    errors = errors_shown(page, path)
    assert len(errors) == len(cells)
    unexpected = {i: e for i, e in enumerate(errors) if e and not tagged_raises(cells[i])}
    assert not unexpected, f"errors in cells not tagged raises-exception: {unexpected}"
    silent = [i for i, cell in enumerate(cells) if tagged_raises(cell) and not errors[i]]
    assert not silent, f"cells tagged raises-exception that showed no error: {silent}"
    hidden = {i: e for i, e in enumerate(errors) if any(x.endswith("(NOT SHOWN)") for x in e)}
    assert not hidden, f"errors in the notebook that the page does not display: {hidden}"


# The first slider of the notebook's first widget that has one, and the PNG of that widget.
# ipywidgets 8 draws a slider with noUiSlider: the handle is focusable and takes arrow keys.
WIDGET = """
(panelId) => {
  const handle = document.querySelector(`[id="${panelId}"] .widget-slider .noUi-handle`);
  if (!handle) return null;
  const slider = handle.closest('.widget-slider');
  const box = handle.closest('.widget-vbox') || handle.closest('.jp-OutputArea-output');
  const img = box ? box.querySelector('img') : null;
  return {value: handle.getAttribute('aria-valuetext'), max: handle.getAttribute('aria-valuemax'),
          label: (slider.querySelector('.widget-label') || {}).textContent,
          readout: (slider.querySelector('.widget-readout') || {}).textContent,
          src: img ? img.getAttribute('src') : null};
}
"""


def move_a_slider(page, panel_id: str) -> None:
    def state():
        return page.evaluate(WIDGET, panel_id)

    def briefly(s):
        return s and {k: v for k, v in s.items() if k != "src"} | {"has plot": bool(s["src"])}

    before = wait_until(lambda: (lambda s: s if s and s["src"] else None)(state()), REDRAW_TIMEOUT,
                        lambda: f"no widget with a slider and a plot after Run All: {briefly(state())}")
    handle = page.locator(f'[id="{panel_id}"] .widget-slider .noUi-handle').first
    handle.scroll_into_view_if_needed()
    handle.focus()
    # one keyboard step (down instead, at the top of the range)
    handle.press("ArrowLeft" if float(before["value"]) >= float(before["max"]) else "ArrowRight")

    def redrawn():
        now = state()
        return now if (now and now["value"] != before["value"] and now["src"]
                       and now["src"] != before["src"]) else None

    after = wait_until(redrawn, REDRAW_TIMEOUT, lambda: (
        f"slider {before['label']!r} at {before['readout']} was moved but the plot was not "
        f"redrawn: now {briefly(state())}"))
    assert after["src"].startswith("data:image/png"), after["src"][:40]


def run_in_lab(page, lab, tmp_path: Path, notebook: Path, slider: bool) -> None:
    cells = read_cells(lab.root / notebook.name)  # the copy the server serves
    try:
        panel_id = open_notebook(page, lab, notebook.name, cells)
        run_all(page, lab, notebook.name, cells)
        check_errors(page, notebook.name, cells)
        check_ran_once(page, notebook.name, cells)
        if slider:
            move_a_slider(page, panel_id)
    except (AssertionError, pytest.fail.Exception, PlaywrightError) as failure:
        raise AssertionError(f"{notebook.name}: {failure}{describe_page(page, tmp_path / notebook.stem)}") from None


def describe_page(page, stem: Path) -> str:
    """What a failure message should add about the page: open dialogs, a screenshot."""
    notes = []
    try:
        dialogs = page.eval_on_selector_all(".jp-Dialog", "ds => ds.map(d => d.innerText)")
        notes += [f"dialog on the page: {text!r}" for text in dialogs]
        page.screenshot(path=f"{stem}.png")
        notes.append(f"screenshot of the page: {stem}.png")
    except PlaywrightError:  # a page that cannot be described must not hide the failure
        pass
    return "".join(f"\n({note})" for note in notes)


# --- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_runs_in_jupyterlab_and_its_widget_redraws(lab_page, jupyterlab, tmp_path, chapter):
    run_in_lab(lab_page, jupyterlab, tmp_path, chapter, slider=True)


def test_landing_notebook_runs_in_jupyterlab(lab_page, jupyterlab, tmp_path):
    run_in_lab(lab_page, jupyterlab, tmp_path, LANDING, slider=False)


@pytest.mark.parametrize("notebook", [*CHAPTERS, LANDING], ids=[p.stem for p in [*CHAPTERS, LANDING]])
def test_opening_an_untouched_notebook_does_not_mark_it_modified(lab_page, jupyterlab, notebook):
    path = notebook.name
    open_notebook(lab_page, jupyterlab, path, read_cells(jupyterlab.root / path))
    time.sleep(2)  # the kernel's info and spec reach the model just after it is idle
    state = lab_page.evaluate(js("""
      const panel = panelOf(path);
      return {dirty: panel.context.model.dirty, metadata: panel.context.model.toJSON().metadata};
    """), path)
    committed = json.loads((jupyterlab.root / path).read_text(encoding="utf-8"))["metadata"]
    changed = {key: (committed.get(key), value) for key, value in state["metadata"].items()
               if key != "widgets" and committed.get(key) != value}
    assert not state["dirty"], (
        f"{path} is marked modified just by opening it; metadata JupyterLab changed "
        f"{{key: (committed, now)}}: {changed}")
