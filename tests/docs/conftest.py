"""Fixtures of the documentation site's tests: the site, built once, and a browser on it.

``site`` builds the site once per test session with the README's command, warnings as
errors (``python -m sphinx -W --keep-going -b html docs <out>/html``), into a temporary
folder, so that a developer's own ``docs/_build`` is neither used nor touched. Under
pytest-xdist every worker asks for it; the first one builds while the others wait on a file
lock, then all read the same folder. ``NBGRAD_DOCS_HTML=<folder>`` uses a site already
built there instead (a quick re-run while writing a test; CI never sets it).

``served`` serves the built site on 127.0.0.1 (a port of its own) and ``browser`` is
Debian's Chromium driven by Playwright, with the options and the skip rules of the
JupyterLab browser test (tests/browser/conftest.py): skipped, with the reason, without
Playwright or Chromium, and failing instead under ``NBGRAD_REQUIRE_BROWSER=1`` (CI).
"""

from __future__ import annotations

import fcntl
import functools
import http.server
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BUILD_TIMEOUT = 900  # s; about 4 minutes on a loaded 2-core machine




def build_command(out: Path) -> list[str]:
    """The README's build command, with the output (and Sphinx's cache) under ``out``."""
    return [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html",
            str(DOCS), str(out / "html"), "-d", str(out / "doctrees")]


@dataclass
class Site:
    html: Path  # the built site: index.html, chapters/, api/, ...
    log: str  # Sphinx's output
    seconds: float  # how long the build took (0 when NBGRAD_DOCS_HTML was given)


def _shared_dir(tmp_path_factory) -> Path:
    """A folder all xdist workers of this session share (the session's base temp dir)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Site:
    given = os.environ.get("NBGRAD_DOCS_HTML")
    if given:
        html = Path(given).resolve()
        assert (html / "index.html").is_file(), f"NBGRAD_DOCS_HTML={given}: no index.html there"
        return Site(html=html, log="", seconds=0.0)
    out = _shared_dir(tmp_path_factory) / "docs-site"
    out.mkdir(exist_ok=True)
    with open(out / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker builds, the others wait here
        result_file = out / "result.json"
        if not result_file.exists():
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(
                filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
            start = time.monotonic()
            proc = subprocess.run(build_command(out), cwd=ROOT, env=env, capture_output=True,
                                  text=True, timeout=BUILD_TIMEOUT)
            result = {"rc": proc.returncode, "log": proc.stdout + proc.stderr,
                      "seconds": time.monotonic() - start}
            result_file.write_text(json.dumps(result))
        result = json.loads(result_file.read_text())
    if result["rc"] != 0:
        pytest.fail("the docs build failed (warnings are errors):\n"
                    + "\n".join(line for line in result["log"].splitlines()
                                if "WARNING" in line or "ERROR" in line or "Error" in line)[-8000:]
                    + "\n" + result["log"][-2000:])
    return Site(html=out / "html", log=result["log"], seconds=result["seconds"])


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="session")
def served(site):
    """The built site over HTTP on 127.0.0.1; its base URL, with a trailing slash."""
    handler = functools.partial(_QuietHandler, directory=str(site.html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def page(browser, served):
    """One page (tab) for every test; requests that leave 127.0.0.1 are refused at once
    (the widgets' JavaScript comes from a CDN on the published site: here it cannot load,
    and waiting for it would only slow the test)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})

    def route(route_):
        if route_.request.url.startswith(served):
            route_.continue_()
        else:
            route_.abort()

    context.route("**/*", route)
    page_ = context.new_page()
    yield page_
    context.close()
