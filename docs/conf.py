"""Sphinx configuration of nbgrad's documentation site.

Build it (from the repository root, with ``pip install -e ".[docs]"``)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The chapters are the committed notebooks, rendered with their outputs and never executed
(``nb_execution_mode = "off"``); ``docs/chapters`` is a committed symlink to ``../notebooks``.
The API pages, the exercise pages and the chapter list are generated at build time by
``docs/_ext/nbgrad_pages.py`` (into ``docs/api/`` and ``docs/exercises/``, both git-ignored);
``docs/_ext/nbgrad_xref.py`` turns inline code naming a public object into a link to its
reference page.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # this checkout's nbgrad, whatever else is installed
sys.path.insert(0, str(DOCS / "_ext"))

project = "nbgrad"
author = "the nbgrad authors"
copyright = "the nbgrad authors, MIT licence"
release = version = "0.1.0"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "nbgrad_pages",
    "nbgrad_xref",
]

# --- sources ------------------------------------------------------------------------
exclude_patterns = [
    "_build",
    "chapters/README.md",  # notebooks/README.md: what the folder holds, for GitHub's listing
    "exercise-notebooks/README.*",  # exercises/README.md: docs/exercises.md includes it
    "**/.ipynb_checkpoints",
]
# ".rst" first: autosummary writes its generated pages with the first suffix (they are reST)
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
templates_path = ["_templates"]

# --- notebooks: rendered from their committed outputs ---------------------------------
nb_execution_mode = "off"
nb_merge_streams = True
# the chapters write math as $...$ and $$...$$ (MathJax renders it in the reader's browser)
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath", "amsmath"]
myst_heading_anchors = 3
# the chapters link to each other and to the repository's files (../exercises, ...):
# those outside the site are sent to GitHub by nbgrad_pages instead of warning
suppress_warnings = [
    "myst.header",  # chapters start at "# Chapter NN" and skip levels in places
    # Pygments cannot lex a few outputs shown as code (a traceback whose message has a
    # backtick in it: "update parameters inside `with nbgrad.no_grad():`") and then shows
    # them unhighlighted, which is what a reader needs; nothing is lost
    "misc.highlighting_failure",
]

# --- API reference ------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()  # tests/test_docstrings.py validates them
add_module_names = False

# --- HTML -----------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = "nbgrad"
html_static_path = ["_static"]
html_css_files = ["nbgrad.css"]
html_theme_options = {
    "repository_url": "https://github.com/nbgrad/nbgrad",
    "repository_branch": "main",
    "path_to_docs": "docs",
    "use_repository_button": True,
    "use_issues_button": True,
    "use_download_button": True,
    "launch_buttons": {"binderhub_url": "https://mybinder.org", "notebook_interface": "jupyterlab"},
    "show_toc_level": 2,
    # the sidebar lists the chapters, the guides and the API's module pages, not the ~500
    # pages of classes and functions under them: drawing that whole tree on every page is
    # quadratic in the page count (it made the build several times slower)
    "max_navbar_depth": 2,
    "collapse_navbar": True,
    "navigation_with_keys": False,
}
html_last_updated_fmt = None
html_copy_source = True  # the download button offers a page's source (a chapter's .ipynb) from _sources/
