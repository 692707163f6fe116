"""The documentation site: it builds with warnings as errors, its internal links and
cross-references resolve, every public name has a reference page, and the chapters link
the names they mention to the API.

The site is built once per session (the ``site`` fixture, conftest.py). The internal links
are checked here from the built HTML (``sphinx -b linkcheck`` would try the internet):
every ``href`` and ``src`` that stays on the site must name a file of it, and its
``#fragment`` an ``id`` in that file.
"""

from __future__ import annotations

import html.parser
import importlib.util
import inspect
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
EXERCISES = sorted((ROOT / "exercises").glob("[0-9][0-9]_*.ipynb"))


def _docstring_test():
    spec = importlib.util.spec_from_file_location(
        "nbgrad_test_docstrings", ROOT / "tests" / "test_docstrings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Page(html.parser.HTMLParser):
    """The ids of a page and the links (href, src) it makes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (tag, url)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key) and not (tag == "link" and attrs.get("rel") in ("preconnect", "dns-prefetch")):
                self.links.append((tag, attrs[key]))


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def html_pages(site) -> list[Path]:
    return sorted(p for p in site.html.rglob("*.html") if "_static" not in p.parts)


def test_build_passes_with_warnings_as_errors(site):
    # the fixture fails when sphinx -W exits non-zero; this names what a log still shows
    assert not re.search(r"\bWARNING\b|\bERROR\b", site.log), site.log[-4000:]
    assert (site.html / "index.html").is_file()
    assert (site.html / "objects.inv").is_file()
    assert (site.html / "searchindex.js").is_file()


def test_every_chapter_and_exercise_has_a_page(site):
    for chapter in CHAPTERS:
        assert (site.html / "chapters" / f"{chapter.stem}.html").is_file(), chapter.name
    for exercise in EXERCISES:
        assert (site.html / "exercise-notebooks" / f"{exercise.stem}.html").is_file(), exercise.name
    # the solutions are not published
    assert not list(site.html.rglob("*solution*"))


def test_internal_links_and_fragments_resolve(site):
    cache: dict[Path, _Page] = {}

    def page_of(path: Path) -> _Page:
        if path not in cache:
            cache[path] = parse(path)
        return cache[path]

    broken = []
    for path in html_pages(site):
        for tag, url in page_of(path).links:
            parts = urlsplit(url)
            if parts.scheme or parts.netloc or url.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            rel = path.relative_to(site.html)
            if not target.exists():
                broken.append(f"{rel}: <{tag}> {url} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in page_of(target).ids:
                    broken.append(f"{rel}: <{tag}> {url} (no id {parts.fragment!r} there)")
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(broken[:60])


def test_every_public_name_has_a_reference_page(site):
    """Every public function, class, method and property (tests/test_docstrings.py's
    public_objects()) is an entry of the site's Python inventory, on a page that exists."""
    from sphinx.util.inventory import InventoryFile

    with open(site.html / "objects.inv", "rb") as f:
        inventory = InventoryFile.load(f, "", lambda base, uri: uri)
    data = inventory.data if hasattr(inventory, "data") else inventory
    entries: dict[str, str] = {}
    for kind, objects in data.items():
        if kind.startswith("py:"):
            for name, item in objects.items():
                entries[name] = item.uri if hasattr(item, "uri") else item[2]
    missing, no_page = [], []
    for name, _ in _docstring_test().public_objects():
        if name not in entries:
            missing.append(name)
        elif not (site.html / entries[name].split("#")[0]).is_file():
            no_page.append(f"{name}: {entries[name]}")
    assert not missing, f"{len(missing)} public names without a reference page: {missing[:40]}"
    assert not no_page, no_page[:20]
    for module in _docstring_test().PUBLIC_MODULES:
        assert (site.html / "api" / f"{module}.html").is_file(), module


# --- cross-references from the chapters to the API -----------------------------------------

def _xref_module():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import nbgrad_xref
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    return nbgrad_xref


@pytest.fixture(scope="module")
def xref():
    module = _xref_module()
    full, short = module.targets()
    return lambda text: module.resolve(text, full, short)


@pytest.mark.parametrize("literal, target", [
    ("nbgrad.autograd.grad", "nbgrad.autograd.grad"),
    ("autograd.grad", "nbgrad.autograd.grad"),
    ("retain_grad()", "nbgrad.Tensor.retain_grad"),
    ("retain_grad", "nbgrad.Tensor.retain_grad"),
    ("Tensor.backward", "nbgrad.Tensor.backward"),
    ("backward(gradient=...)", "nbgrad.Tensor.backward"),
    (".grad_fn", "nbgrad.Tensor.grad_fn"),
    ("is_leaf", "nbgrad.Tensor.is_leaf"),
    ("nn.Linear", "nbgrad.nn.Linear"),
    ("optim.SGD", "nbgrad.optim.SGD"),
    ("nbgrad.float32", "nbgrad.float32"),
    ("nbgrad.nn.functional.cross_entropy", "nbgrad.nn.functional.cross_entropy"),
])
def test_inline_literals_that_name_a_public_object_resolve(xref, literal, target):
    assert xref(literal) == target


@pytest.mark.parametrize("literal", [
    "torch.mm", "torch.Tensor.backward", "y.grad", "x + 1", "requires_grad=True", "None",
    "RuntimeError", "no_such_name", "", "nan", "float", "e", "int",
])
def test_other_literals_are_left_alone(xref, literal):
    assert xref(literal) is None


_XREF = re.compile(r'<a class="nbgrad-xref reference internal" href="([^"]+)"[^>]*>'
                   r'<code class="[^"]*"[^>]*><span class="pre">([^<]*)</span>')


def test_chapters_link_the_names_they_mention_to_the_api(site):
    """On each chapter page some inline code links to a reference page, and on chapter 03
    every `retain_grad` links to Tensor.retain_grad."""
    per_chapter = {}
    for chapter in CHAPTERS:
        text = (site.html / "chapters" / f"{chapter.stem}.html").read_text(encoding="utf-8")
        links = _XREF.findall(text)
        per_chapter[chapter.stem] = links
        assert links, f"{chapter.stem}: no inline code links to the API"
        for href, _ in links:
            assert "api/" in href, (chapter.stem, href)
    retain = [href for href, code in per_chapter.get("03_retain_grad", []) if code.startswith("retain_grad")]
    assert retain and all("nbgrad.Tensor.html#nbgrad.Tensor.retain_grad" in h for h in retain), retain
    # the exercises' `Tensor` is the learner's own package's: not linked to nbgrad's
    for exercise in EXERCISES:
        text = (site.html / "exercise-notebooks" / f"{exercise.stem}.html").read_text(encoding="utf-8")
        assert not _XREF.findall(text), exercise.stem


def test_chapter_pages_have_a_run_this_chapter_box(site):
    for chapter in CHAPTERS:
        text = (site.html / "chapters" / f"{chapter.stem}.html").read_text(encoding="utf-8")
        text = re.sub(r"<span[^>]*>|</span>", "", text)  # the command is highlighted
        assert "Run this chapter" in text, chapter.stem
        assert f"jupyter lab notebooks/{chapter.stem}.ipynb" in text, chapter.stem
        assert (f"https://mybinder.org/v2/gh/nbgrad/nbgrad/main?urlpath=lab/tree/notebooks/"
                f"{chapter.stem}.ipynb") in text.replace("&amp;", "&"), chapter.stem


def test_readme_sections_are_included_not_copied(site):
    """The README's sections appear on their pages, from README.md itself (docs/ holds only
    the {include} directives with the README's markers)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page, marker in [("instructors", "instructor"), ("build-track", "build-track"),
                         ("differences", "differences"), ("benchmarks", "benchmarks")]:
        assert f"<!-- docs:{marker}:start -->" in readme and f"<!-- docs:{marker}:end -->" in readme
        source = (ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8")
        assert f'"<!-- docs:{marker}:start -->"' in source and len(source) < 400, page
        assert (site.html / f"{page}.html").is_file(), page
    changelog = (site.html / "changelog.html").read_text(encoding="utf-8")
    assert "Issue 16" in changelog


def test_public_objects_are_what_the_pages_document(site):
    """A class's page documents the members that public_objects() lists for it (the
    extension's own_members() and the docstring test's members() agree)."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import nbgrad_pages
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    test = _docstring_test()
    import nbgrad

    for cls in (nbgrad.Tensor, nbgrad.nn.Module, nbgrad.autograd.Function):
        methods, properties = nbgrad_pages.own_members(cls)
        assert set(methods + properties) == {name for name, _ in test.members(cls)}, cls
        assert inspect.isclass(cls)
