"""Fixtures of the browser smoke test: a JupyterLab server (headless Chromium is the shared
``browser`` fixture of tests/conftest.py).

The server runs on 127.0.0.1 with a fixed token in a temporary copy of ``notebooks/`` (so
running and saving never touches the committed notebooks), with its own Jupyter config,
data, runtime, settings and workspace folders (so nothing from the developer's set-up leaks
in, and nothing leaks out). Chromium is Debian's (``apt-get install chromium``), driven by
Playwright's Python package; ``playwright install`` is never needed.

Without Playwright or Chromium the tests are skipped with the reason. CI sets
``NBGRAD_REQUIRE_BROWSER=1``, which turns that skip into a failure so that CI cannot go
green without having run them. ``NBGRAD_CHROMIUM`` names another Chromium binary.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
TOKEN = "nbgrad-browser-test"
# JupyterLab user settings: render every cell (no windowing, so the DOM holds all cells and
# cell i of the page is cell i of the file), and no news or update checks over the network.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "checkForUpdates": False,
        "fetchNews": "false",
    },
}
SERVER_START_TIMEOUT = 120  # seconds; a loaded 2-core CI machine is slow to import jupyterlab


@dataclass
class JupyterLab:
    url: str  # http://127.0.0.1:PORT/ (with a trailing slash)
    token: str
    root: Path  # the temporary copy of notebooks/ that the server serves
    log: Path

    def api(self, path: str, method: str = "GET"):
        request = urllib.request.Request(
            f"{self.url}api/{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
        return json.loads(body) if body else None

    def lab_url(self) -> str:
        # ?reset: start from an empty workspace, not from tabs a previous page left open
        return f"{self.url}lab?reset&token={self.token}"

    def shut_down_all_kernels(self) -> None:
        for session in self.api("sessions"):
            self.api(f"sessions/{session['id']}", method="DELETE")
        for kernel in self.api("kernels"):
            self.api(f"kernels/{kernel['id']}", method="DELETE")

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:]


@pytest.fixture(scope="session")
def jupyterlab(browser, tmp_path_factory):
    """A JupyterLab server on 127.0.0.1, serving a temporary copy of notebooks/."""
    base = tmp_path_factory.mktemp("jupyterlab")
    root = base / "notebooks"
    shutil.copytree(NOTEBOOKS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    dirs = {name: base / name for name in ("config", "data", "runtime", "settings", "workspaces", "ipython")}
    for path in dirs.values():
        path.mkdir()
    for name, settings in LAB_SETTINGS.items():
        file = dirs["settings"] / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(settings))

    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(dirs["config"]),
        JUPYTER_DATA_DIR=str(dirs["data"]),
        JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
        JUPYTERLAB_SETTINGS_DIR=str(dirs["settings"]),
        JUPYTERLAB_WORKSPACES_DIR=str(dirs["workspaces"]),
        IPYTHONDIR=str(dirs["ipython"]),
        # the kernels import this checkout's nbgrad, whatever else is installed
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        PYDEVD_DISABLE_FILE_VALIDATION="1",
    )
    command = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        "--port=0",  # any free port; the server writes the one it took to its runtime file
        f"--IdentityProvider.token={TOKEN}",
        f"--ServerApp.root_dir={root}",
        "--expose-app-in-browser",  # window.jupyterapp: the test reads cell outputs' types
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    log = base / "jupyterlab.log"
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            command, cwd=root, env=env, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    lab = None
    try:
        runtime_file = dirs["runtime"] / f"jpserver-{process.pid}.json"
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while lab is None:
            if process.poll() is not None:
                pytest.fail(f"jupyter lab exited with {process.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter lab did not start in {SERVER_START_TIMEOUT} s:\n{log.read_text(errors='replace')[-3000:]}")
            if runtime_file.exists():
                try:
                    info = json.loads(runtime_file.read_text())
                    candidate = JupyterLab(url=info["url"], token=TOKEN, root=root, log=log)
                    candidate.api("status")
                    lab = candidate
                except (ValueError, KeyError, OSError, urllib.error.URLError):
                    pass  # the file is being written, or the server is not answering yet
            time.sleep(0.2)
        yield lab
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)  # the server shuts its kernels down on SIGTERM
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)
