"""The landing notebook and the ways into the course stay consistent.

JupyterLab (the README's "open the course" command) and Binder (the README's badge) both
open ``notebooks/README.ipynb``, which lists the chapters in reading order. These checks
are static and cheap; tests/browser runs the landing notebook in JupyterLab, nbval runs it
headless, and tests/test_fresh_setup.py starts the README's command.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from urllib.parse import parse_qs, urlparse

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
NOTEBOOKS = ROOT / "notebooks"
LANDING = NOTEBOOKS / "README.ipynb"


def landing_markdown() -> str:
    cells = json.loads(LANDING.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def test_readme_course_command_opens_the_landing_notebook_at_the_repository_root():
    line = next(line for line in README.read_text(encoding="utf-8").splitlines()
                if line.startswith("python3 -m venv .venv") and '".[lab]"' in line)
    jupyter = shlex.split(line.split(" && ")[-1])
    assert jupyter[:2] == ["jupyter", "lab"], line
    # the file browser shows the repository (exercises/ and solutions/ beside notebooks/)
    assert "--notebook-dir=." in jupyter, line
    opened = [arg for arg in jupyter[2:] if not arg.startswith("-")]
    assert opened == ["notebooks/README.ipynb"], line
    assert (ROOT / opened[0]).is_file()


def test_landing_notebook_links_every_chapter_in_order():
    links = re.findall(r"\]\(([^)\s]+\.ipynb)\)", landing_markdown())
    chapters = sorted(path.name for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    assert [link for link in links if re.fullmatch(r"\d\d_.*\.ipynb", link)] == chapters, (
        "notebooks/README.ipynb should link every chapter once, in order")
    broken = [link for link in links if not (NOTEBOOKS / link).is_file()]
    assert not broken, f"links in notebooks/README.ipynb to missing files: {broken}"


def test_landing_notebook_explains_exercises_and_solutions():
    text = landing_markdown()
    assert "exercises/" in text and "solutions/" in text


def test_binder_badge_opens_the_landing_notebook_and_builds_from_environment_yml():
    badges = re.findall(r"\((https://mybinder\.org/v2/gh/[^)\s]+)\)", README.read_text(encoding="utf-8"))
    assert len(badges) == 1, badges
    urlpath = parse_qs(urlparse(badges[0]).query)["urlpath"][0]
    assert urlpath.startswith("lab/tree/"), urlpath
    assert (ROOT / urlpath.removeprefix("lab/tree/")).is_file(), urlpath
    # Binder reads binder/ or .binder/ if there is one, and then ignores environment.yml at
    # the root: keep none, so that environment.yml (checked by test_packaging) is its recipe.
    for folder in ("binder", ".binder"):
        assert not (ROOT / folder).exists(), f"{folder}/ would hide environment.yml from Binder"
    environment = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s*- graphviz\b", environment, re.M), "Binder needs graphviz's `dot`"
    assert re.search(r"^\s*- -e \.\s*$", environment, re.M), "Binder must install this package"
