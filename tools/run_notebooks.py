"""Execute notebooks in place so that their committed outputs match the package.

    python tools/run_notebooks.py notebooks/01_chain_rule.ipynb   # one
    python tools/run_notebooks.py                                 # notebooks/ and solutions/

Run it after changing a notebook or the package code a chapter displays: nbval compares
the committed outputs with a fresh run. Cells tagged ``raises-exception`` may raise.
"""

import pathlib
import sys

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent


def kernelspec(name="python3"):
    """The kernelspec metadata JupyterLab writes into a notebook it opens with kernel
    ``name`` ("Python 3 (ipykernel)"): committed as it is, opening a chapter leaves it unmodified."""
    spec = KernelSpecManager().get_kernel_spec(name)
    return {"display_name": spec.display_name, "language": spec.language, "name": name}


def run(path):
    notebook = nbformat.read(path, as_version=4)
    # record_timing=False: no execution timestamps in the committed cells' metadata
    NotebookClient(notebook, timeout=120, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    notebook.metadata.kernelspec = kernelspec()
    nbformat.write(notebook, path)


def main(paths):
    if not paths:
        paths = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "solutions").glob("*.ipynb"))
    for path in map(pathlib.Path, paths):
        print(f"executing {path}")
        run(path.resolve())


if __name__ == "__main__":
    main(sys.argv[1:])
