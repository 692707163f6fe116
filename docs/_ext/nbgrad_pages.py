"""Pages of nbgrad's site that are generated at build time, never committed.

* ``api/``: one page per public module (the modules of ``PUBLIC_MODULES`` in
  ``tests/test_docstrings.py``), with autosummary tables whose ``:toctree:`` makes one page
  per public class and function; a class's page documents the methods and properties the
  class itself defines. A name exported by several modules (``nbgrad.nn.functional.relu``
  and ``nbgrad.relu``) is documented once, under the first module that exports it (the
  order of ``public_objects()``), and the others link there.
* A "run this chapter" box at the top of each chapter and a "get and do this exercise"
  box at the top of each exercise (a doctree transform: the notebooks stay untouched).
* Links to the repository's files that are not pages of the site (``buildgrad/track.py``,
  ``notebooks/README.ipynb``) point to them on GitHub.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import json
import os
import re
import shutil
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
API = DOCS / "api"
REPO_URL = "https://github.com/nbgrad/nbgrad"
BINDER = "https://mybinder.org/v2/gh/nbgrad/nbgrad/main?urlpath=lab/tree/"
SETUP = 'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[lab]"'


def public_modules() -> list[str]:
    """PUBLIC_MODULES, read from tests/test_docstrings.py (the one list of them)."""
    tree = ast.parse((ROOT / "tests" / "test_docstrings.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "PUBLIC_MODULES" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise RuntimeError("tests/test_docstrings.py defines no PUBLIC_MODULES")


def exports(module):
    for name in module.__all__:
        value = getattr(module, name)
        if not inspect.ismodule(value):
            yield name, value


def own_members(cls) -> tuple[list[str], list[str]]:
    """The public methods and the public properties ``cls`` itself defines."""
    methods, properties = [], []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property):
            properties.append(name)
        elif isinstance(value, (staticmethod, classmethod)) or inspect.isfunction(value):
            methods.append(name)
    return sorted(methods, key=str.lower), sorted(properties, key=str.lower)


def catalogue():
    """{module: [(name, kind, canonical full name)]} and {id(obj): canonical name}.

    kind is "class", "function", "data" or "alias" (documented under another module)."""
    canonical: dict[int, str] = {}
    table: dict[str, list[tuple[str, str, str]]] = {}
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        rows = []
        for name, value in exports(module):
            full = f"{module_name}.{name}"
            if inspect.isclass(value) or inspect.isroutine(value):
                if id(value) in canonical:
                    rows.append((name, "alias", canonical[id(value)]))
                    continue
                canonical[id(value)] = full
                rows.append((name, "class" if inspect.isclass(value) else "function", full))
            else:
                rows.append((name, "data", full))
        table[module_name] = rows
    return table, canonical


def underline(text: str, char: str) -> str:
    return f"{text}\n{char * len(text)}\n"


def write_api(app, config=None) -> None:
    table, _ = catalogue()
    if API.exists():
        shutil.rmtree(API)
    API.mkdir()
    members: dict[str, dict[str, list[str]]] = {}
    index = [
        underline("API reference", "="),
        "nbgrad follows PyTorch's API: ``nbgrad.X`` is ``torch.X``. Each public module has a page",
        "below, and each public class and function a page of its own, generated from its",
        "docstring. A name that several modules export is documented under the first of them;",
        "the others link to it.\n",
        ".. toctree::",
        "   :maxdepth: 1\n",
    ]
    for module_name, rows in table.items():
        index.append(f"   {module_name}")
        module = importlib.import_module(module_name)
        lines = [
            f".. title:: {module_name}\n",
            underline(f"``{module_name}``", "="),
            f".. automodule:: {module_name}\n   :no-members:\n",
            f".. currentmodule:: {module_name}\n",
        ]
        for kind, heading in (("class", "Classes"), ("function", "Functions")):
            names = [name for name, k, _ in rows if k == kind]
            if not names:
                continue
            lines += [underline(heading, "-"), ".. autosummary::", "   :toctree: generated/"]
            if kind == "class":
                # without ".rst": autosummary then looks for autosummary/nbgrad_class.rst
                lines.append("   :template: nbgrad_class")
            lines.append("")
            lines += [f"   {name}" for name in names]
            lines.append("")
        data = [name for name, k, _ in rows if k == "data"]
        if data:
            lines += [underline("Constants and type aliases", "-")]
            for name in data:
                lines += [f".. py:data:: {name}", "", f"   ``{object_repr(getattr(module, name))}``", ""]
        aliases = [(name, target) for name, k, target in rows if k == "alias"]
        if aliases:
            lines += [underline("Also exported here", "-"),
                      "These names are documented under the module that first exports them.\n"]
            lines += [f"* ``{name}``: :py:obj:`{target}`" for name, target in aliases]
            lines.append("")
        (API / f"{module_name}.rst").write_text("\n".join(lines))
        for name, kind, full in rows:
            if kind == "class":
                methods, properties = own_members(getattr(module, name))
                members[full] = {"methods": methods, "properties": properties}
    (API / "index.rst").write_text("\n".join(index) + "\n")
    app.config.autosummary_context = {"nbgrad_members": members}


def object_repr(value) -> str:
    text = getattr(value, "__name__", None) or repr(value)
    text = re.sub(r"\s+", " ", str(text))
    return text if len(text) < 120 else text[:117] + "..."


# --- boxes at the top of chapters and exercises --------------------------------------

def chapter_box(docname: str) -> nodes.Node | None:
    stem = docname.split("/", 1)[1]
    if docname.startswith("chapters/"):
        path = f"notebooks/{stem}.ipynb"
        title, body = "Run this chapter", [
            ("Locally, in JupyterLab", f"{SETUP}\njupyter lab {path}"),
        ]
    elif docname.startswith("exercise-notebooks/"):
        path = f"exercises/{stem}.ipynb"
        title, body = "Get and do this exercise", [
            ("Copy the exercises into your own folder, mywork/ (git ignores it), and open yours",
             f"{SETUP}\npython -m buildgrad.workspace\njupyter lab mywork/{stem}.ipynb"),
        ]
    else:
        return None
    box = nodes.admonition(classes=["tip", "nbgrad-run"])
    box += nodes.title(title, title)
    for label, command in body:
        box += nodes.paragraph(label + ":", label + ":")
        box += nodes.literal_block(command, command, language="bash")
    para = nodes.paragraph()
    para += nodes.Text("Or in the browser, with nothing installed: ")
    para += nodes.reference("", "open it on Binder", refuri=BINDER + path,
                            classes=["nbgrad-binder"])
    para += nodes.Text(" (mybinder.org; the first start takes a few minutes). Source: ")
    para += nodes.reference("", path, refuri=f"{REPO_URL}/blob/main/{path}")
    para += nodes.Text(".")
    box += para
    return box


def insert_boxes(app, doctree) -> None:
    box = chapter_box(app.env.docname) if "/" in app.env.docname else None
    if box is None:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return
    title = next((i for i, child in enumerate(section.children) if isinstance(child, nodes.title)), -1)
    section.insert(title + 1, box)


# --- links to the repository's files ----------------------------------------------------

def repository_link(app, env, node, contnode):
    """A Markdown link to a file of the repository that is not a page: link to GitHub."""
    if node.get("refdomain") not in ("", None, "doc") and node.get("reftype") != "myst":
        return None
    target = node.get("reftarget", "")
    if not target or "://" in target:
        return None
    base = Path(env.doc2path(node.get("refdoc", env.docname))).parent
    path = (base / target.split("#")[0]).resolve()
    try:
        relative = path.relative_to(ROOT.resolve())
    except ValueError:
        return None
    if not path.exists():
        return None
    if relative.parts[0] == "notebooks" and re.fullmatch(r"\d\d_.*\.ipynb", relative.name):
        return None  # a chapter: the page, which myst resolves itself
    kind = "tree" if path.is_dir() else "blob"
    ref = nodes.reference("", "", internal=False, refuri=f"{REPO_URL}/{kind}/main/{relative.as_posix()}")
    ref += contnode
    return ref


# --- Markdown links between the notebooks ----------------------------------------------

def _slug(anchor: str) -> str:
    """JupyterLab's heading anchor (``Ways-to-switch-gradients-off,-compared``) as myst's
    GitHub-style slug (``ways-to-switch-gradients-off-compared``)."""
    return re.sub(r"[^\w\- ]", "", anchor.strip().lower()).replace(" ", "-")


def notebook_links(app, doctree) -> None:
    """Point links between notebooks (``[chapter 05](05_inplace.ipynb)``) at their pages.

    ``docs/chapters`` and ``docs/exercise-notebooks`` are symlinks, and Sphinx resolves a
    relative link's path through them (``relfn2path`` calls ``Path.resolve``): the target
    comes out as ``<repo>/notebooks/05_inplace``, outside the source folder. This maps it
    back to the page's name (``chapters/deeper/05_...`` for a going-deeper page), and a
    JupyterLab-style anchor to myst's slug."""
    linked = {"notebooks": "chapters", "exercises": "exercise-notebooks"}
    for node in doctree.findall(addnodes.pending_xref):
        if node.get("reftype") != "myst" or node.get("refdomain") != "doc":
            continue
        target = Path(node["reftarget"])
        if not target.is_absolute():
            continue
        try:
            relative = target.relative_to(ROOT.resolve())
        except ValueError:
            continue
        if len(relative.parts) >= 2 and relative.parts[0] in linked:  # notebooks/deeper/ too
            node["reftarget"] = "/".join((linked[relative.parts[0]], *relative.parts[1:]))
            if node.get("reftargetid"):
                anchor = _slug(node["reftargetid"])
                if anchor in heading_slugs(ROOT / relative.parent / f"{relative.name}.ipynb"):
                    node["reftargetid"] = anchor
                else:
                    # a section the notebook does not have (yet): link to the page itself
                    LOGGER.info("%s: %s has no section %r, linked to its top",
                                app.env.docname, relative, anchor)
                    node["reftargetid"] = None


@functools.cache
def heading_slugs(path: Path) -> frozenset[str]:
    """myst's anchors (levels 1 to 3, ``myst_heading_anchors``) of a notebook's headings."""
    if not path.is_file():
        return frozenset()
    slugs = set()
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "markdown":
            for m in re.finditer(r"^#{1,3}\s+(.+?)\s*#*\s*$", "".join(cell["source"]), re.M):
                slugs.add(_slug(m[1]))
    return frozenset(slugs)


def setup(app):
    app.connect("config-inited", write_api)
    app.connect("doctree-read", notebook_links)
    app.connect("doctree-read", insert_boxes)
    app.connect("missing-reference", repository_link)
    app.connect("include-read", rebase_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# --- README sections included in pages ------------------------------------------------

_LINK = re.compile(r"\]\((?!https?://|mailto:|#)([^)\s]+)\)")


def rebase_links(app, relative_path, parent_docname, content) -> None:
    """Relative links of an included file of the repository (README.md's sections) point
    where they point from that file: a chapter to its page, anything else to GitHub."""
    included = (Path(app.srcdir) / relative_path).resolve() if not Path(relative_path).is_absolute() else Path(relative_path)
    if included.parent == DOCS.resolve() or DOCS.resolve() in included.parents:
        return
    page_dir = (Path(app.srcdir) / parent_docname).parent

    def replace(m: re.Match) -> str:
        target, _, anchor = m[1].partition("#")
        path = (included.parent / target).resolve()
        relative = path.relative_to(ROOT.resolve()).as_posix()
        if relative.startswith("notebooks/") and re.fullmatch(r"\d\d_.*\.ipynb", path.name):
            page = Path(app.srcdir) / "chapters" / path.name
            new = Path(os.path.relpath(page, page_dir)).as_posix()
        else:
            kind = "tree" if path.is_dir() else "blob"
            new = f"{REPO_URL}/{kind}/main/{relative}"
        return f"]({new}{'#' + anchor if anchor else ''})"

    content[0] = _LINK.sub(replace, content[0])
