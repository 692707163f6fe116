"""The README's two Quick start commands, on a fresh copy of the repository.

Each command's set-up part (everything up to and including its `pip install`) runs exactly
as README.md writes it, read from README.md so the two cannot drift, in a new copy of the
repository (the files git knows, as a fresh clone has them) with a new virtual environment
and no Python environment of ours leaking in: PATH without our venv, no PYTHONPATH. Then,
instead of the command's last part (JupyterLab in a browser, or the whole suite, which CI
runs anyway), a smoke test of what it needs:

* "open the course": the `lab` extra alone imports everything the chapters import, has
  the widgets' JupyterLab extension, runs the landing notebook, and the README's
  `jupyter lab ...` starts a server at the repository root that opens the landing notebook;
* "run the test suite": the `test` extra imports the test tools and runs a test file.

Expensive (two venvs, two pip installs: a minute or two with pip's cache warm, more
without), so it runs only with NBGRAD_FRESH_SETUP=1, which .ci/run sets.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

pytestmark = pytest.mark.skipif(
    os.environ.get("NBGRAD_FRESH_SETUP") != "1",
    reason="creates fresh venvs and pip-installs into them (minutes): set NBGRAD_FRESH_SETUP=1 (CI does)",
)

INSTALL_TIMEOUT = 900  # s, for one command's set-up: pip may have to download everything
TOKEN = "nbgrad-fresh-setup"


def readme_command(extra: str) -> tuple[str, str]:
    """The README's one-line command that installs `.[extra]`, split into (set-up, rest):
    the set-up ends with the `pip install -e ".[extra]"` step."""
    pattern = rf'^python3 -m venv \.venv && .*pip install -e "\.\[{extra}\]"'
    lines = [line for line in README.read_text(encoding="utf-8").splitlines() if re.match(pattern, line)]
    assert len(lines) == 1, f"README.md should have exactly one line matching {pattern!r}, has {lines}"
    steps = lines[0].split(" && ")
    install = next(i for i, step in enumerate(steps) if step.startswith("pip install -e"))
    return " && ".join(steps[: install + 1]), " && ".join(steps[install + 1 :])


def fresh_copy(destination: Path) -> Path:
    """The repository's files as a clone has them: those git tracks, plus new files it does
    not ignore (outside a git checkout: everything but environments and build output)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT, check=True, capture_output=True,
        ).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(ROOT, destination, ignore=shutil.ignore_patterns(
            ".git", ".venv*", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis", "build", "dist"))
        return destination
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # skips files deleted but not yet committed
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def clean_env(home: Path) -> dict[str, str]:
    """Our environment, less anything that would hand the fresh venv our Python packages."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX", "PYTHONUSERBASE"}}
    ours = os.environ.get("VIRTUAL_ENV")
    if ours:
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                      if Path(p) != Path(ours) / "bin")
    env.update(PIP_NO_INPUT="1", PYTHONNOUSERSITE="1",
               JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), IPYTHONDIR=str(home / "ipython"))
    return env


def bash(script: str, cwd: Path, env: dict, timeout: float) -> str:
    """Run `script` with bash -e in `cwd`; fail with its output if it fails."""
    started = time.monotonic()
    result = subprocess.run(["bash", "-ec", script], cwd=cwd, env=env, timeout=timeout,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, (
        f"exit code {result.returncode} after {time.monotonic() - started:.0f} s from\n{script}\n"
        f"--- output (last 6000 characters) ---\n{output[-6000:]}")
    return output


def set_up(tmp_path: Path, extra: str) -> tuple[Path, dict, str, str]:
    """A fresh copy with the README command's set-up run in it; (copy, env, setup, rest)."""
    setup, rest = readme_command(extra)
    copy = fresh_copy(tmp_path / "nbgrad")
    env = clean_env(tmp_path / "home")
    bash(setup, copy, env, INSTALL_TIMEOUT)
    return copy, env, setup, rest


def chapter_imports(notebooks: Path) -> set[str]:
    """The top-level modules that the code cells of the notebooks import."""
    modules = set()
    for path in sorted(notebooks.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            # IPython syntax (%magic, !shell) is not Python: blank those lines out
            source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                               for line in "".join(cell["source"]).splitlines())
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Import):
                    modules.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    modules.add(node.module.split(".")[0])
    return modules


def test_readme_open_the_course_command(tmp_path):
    copy, env, setup, rest = set_up(tmp_path, "lab")
    activate = ". .venv/bin/activate"
    assert activate in setup.split(" && ")

    # everything the chapters import is there, from the lab extra alone
    modules = sorted(chapter_imports(copy / "notebooks") | {"ipywidgets", "matplotlib", "graphviz"})
    program = f"import importlib\nfor name in {modules!r}:\n    importlib.import_module(name)"
    bash(f"{activate}\npython -c {shlex.quote(program)}", copy, env, 300)

    # the widgets' front-end is installed and enabled in JupyterLab
    extensions = bash(f"{activate}\njupyter labextension list", copy, env, 300)
    widgets = [line for line in extensions.splitlines() if "jupyterlab_widgets" in line]
    assert widgets and "enabled" in widgets[0] and "OK" in widgets[0], extensions

    # a kernel of this venv runs the landing notebook (nbclient: cells tagged
    # raises-exception may raise, any other error fails)
    bash(f"{activate}\njupyter nbconvert --to notebook --execute --output-dir={tmp_path / 'executed'} "
         "notebooks/README.ipynb", copy, env, 300)

    # the README's `jupyter lab ...`, without a browser: it serves the repository root and
    # opens the landing notebook
    assert rest.startswith("jupyter lab "), rest
    command = (f"{activate}\nexec {rest} --no-browser --ip=127.0.0.1 --port=0 "
               f"--IdentityProvider.token={TOKEN}" + (" --allow-root" if os.geteuid() == 0 else ""))
    runtime = Path(env["JUPYTER_RUNTIME_DIR"])
    log = (tmp_path / "jupyterlab.log").open("w")
    server = subprocess.Popen(["bash", "-ec", command], cwd=copy, env=env, stdout=log,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not list(runtime.glob("jpserver-file-to-run-*-open.html")):
            assert server.poll() is None, (tmp_path / "jupyterlab.log").read_text()[-3000:]
            assert time.monotonic() < deadline, (tmp_path / "jupyterlab.log").read_text()[-3000:]
            time.sleep(0.5)
        info = json.loads(next(runtime.glob("jpserver-[0-9]*.json")).read_text())
        assert Path(info["root_dir"]).resolve() == copy.resolve(), info
        opens = next(runtime.glob("jpserver-file-to-run-*-open.html")).read_text()
        assert "/lab/tree/notebooks/README.ipynb" in opens, opens

        def api(path):
            request = urllib.request.Request(f"{info['url']}api/contents/{path}",
                                             headers={"Authorization": f"token {TOKEN}"})
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.load(response)

        assert api("notebooks/README.ipynb")["type"] == "notebook"
        top = {item["name"] for item in api("")["content"]}
        assert {"notebooks", "exercises", "solutions", "nbgrad"} <= top, top
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)
        log.close()


def test_readme_run_the_test_suite_command(tmp_path):
    copy, env, setup, rest = set_up(tmp_path, "test")
    assert rest.startswith("python -m pytest"), rest
    activate = ". .venv/bin/activate"
    program = ("import nbgrad, pytest, xdist, hypothesis, nbval, sklearn, playwright, jupyterlab, "
               "ipywidgets, matplotlib, graphviz\nprint('nbgrad from', nbgrad.__file__)")
    where = bash(f"{activate}\npython -c {shlex.quote(program)}", copy, env, 300)
    # the package imported is the copy's (pip install -e), not the repository we run from
    assert f"nbgrad from {copy.resolve()}" in where, where
    bash(f"{activate}\npython -m pytest tests/test_packaging.py -q -p no:cacheprovider", copy, env, 300)
