"""Committed notebooks are executed, and carry nothing that changes from run to run."""

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXECUTED = [path for folder in ("notebooks", "notebooks/deeper", "solutions")
            for path in sorted((ROOT / folder).glob("*.ipynb"))]
ALL = EXECUTED + sorted((ROOT / "exercises").glob("*.ipynb"))
MACHINE_PATHS = re.compile(r'(File \\"/|/root/|/home/|/tmp/|/work/|site-packages)')


def _cells(path):
    return json.loads(path.read_text())["cells"]


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_code_cell_is_executed(path):
    code = [c for c in _cells(path) if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    unexecuted = [i for i, c in enumerate(code) if c.get("execution_count") is None]
    assert not unexecuted, f"run `python tools/run_notebooks.py {path.relative_to(ROOT)}`"


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_timings_or_machine_paths(path):
    cells = _cells(path)
    assert not [i for i, c in enumerate(cells) if "execution" in c.get("metadata", {})], (
        "cells carry execution timestamps (run notebooks with tools/run_notebooks.py)")
    outputs = json.dumps([c.get("outputs", []) for c in cells])
    assert not MACHINE_PATHS.search(outputs), "outputs show a machine path"


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_kernelspec_is_the_one_jupyterlab_writes(path):
    """JupyterLab rewrites a notebook's kernelspec from the kernel it starts: committed any
    other way, opening an untouched chapter would mark it modified (the browser test opens
    them). ipykernel's spec is "Python 3 (ipykernel)", not nbformat's old "Python 3"."""
    kernelspec = pytest.importorskip("jupyter_client.kernelspec", reason="needs jupyter_client")
    spec = kernelspec.KernelSpecManager().get_kernel_spec("python3")
    committed = json.loads(path.read_text())["metadata"]["kernelspec"]
    assert committed == {"display_name": spec.display_name, "language": spec.language,
                         "name": "python3"}, "run `python tools/run_notebooks.py` on it"
