"""Inline code that names a public object of nbgrad links to its reference page.

The chapters are notebooks and stay untouched: their Markdown says `retain_grad()`,
`Tensor.backward` or `nbgrad.autograd.grad` as inline code, and this transform, run on
every page outside the API reference, wraps each such literal in a Python cross-reference
to the object's page. A literal names an object when, after dropping a call's parentheses
(`retain_grad()`, `backward(gradient=...)`) and a leading dot (`.grad`), it is

* a public name, full (`nbgrad.nn.functional.cross_entropy`) or without ``nbgrad.``
  (`nn.Linear`, `Tensor.backward`, `autograd.grad`);
* or a bare name that is ``nbgrad.<name>`` or ``nbgrad.Tensor.<name>`` (`detach`, `mm`,
  `is_leaf`) and not a constant (`nan`, `float` stay words), or else the last part of exactly one public name (`register_hook` is
  ambiguous; `SGD` is ``nbgrad.optim.SGD``).

Names of PyTorch (`torch.mm`) are left alone, as are literals in headings, code cells
and existing links, and the exercises' pages (their `Tensor` is the learner's own).
"""

from __future__ import annotations

import importlib
import inspect
import re

from docutils import nodes
from sphinx import addnodes

from nbgrad_pages import catalogue, own_members

# the constants and type aliases (nbgrad.nan, nbgrad.float32): linked only by a full name
_DATA: set[str] = set()
# bare names that are Python's types before they are Tensor methods (`float`, `int`)
_PYTHON_TYPES = {"bool", "int", "float", "complex", "str", "list", "tuple", "dict", "type"}
_CALL = re.compile(r"^([A-Za-z_][\w.]*)(\(.*\))?$")


def targets() -> tuple[dict[str, str], dict[str, set[str]]]:
    """{public full name: the canonical name documented}, {last part: canonical names}."""
    table, _ = catalogue()
    full: dict[str, str] = {}
    for module_name, rows in table.items():
        module = importlib.import_module(module_name)
        for name, kind, target in rows:
            full[f"{module_name}.{name}"] = target
            if kind == "data":
                _DATA.add(target)
            value = getattr(module, name)
            if inspect.isclass(value):
                methods, properties = own_members(value)
                for member in methods + properties:
                    full[f"{module_name}.{name}.{member}"] = f"{target}.{member}"
    short: dict[str, set[str]] = {}
    for target in set(full.values()) - _DATA:
        short.setdefault(target.rsplit(".", 1)[-1], set()).add(target)
    return full, short


def resolve(text: str, full: dict[str, str], short: dict[str, set[str]]) -> str | None:
    """The canonical name that the inline literal ``text`` names, or None."""
    text = text.strip()
    if text.startswith("."):
        text = text[1:]
    m = _CALL.match(text)
    if not m:
        return None
    name = m[1].rstrip(".")
    if name.startswith("torch") or not name:
        return None
    for candidate in (name, f"nbgrad.{name}"):
        if candidate in full and ("." in name or full[candidate] not in _DATA):
            return full[candidate]
    if "." in name or name in _PYTHON_TYPES:
        return None
    # a bare name: never a constant (`nan`, `float`, `e` are words or Python's own there)
    for candidate in (f"nbgrad.{name}", f"nbgrad.Tensor.{name}"):
        if candidate in full and full[candidate] not in _DATA:
            return full[candidate]
    found = short.get(name, set())
    return next(iter(found)) if len(found) == 1 else None


def link_literals(app, doctree) -> None:
    # not in the API pages (they link themselves), nor in the exercises, where `Tensor`
    # and `retain_grad` are the learner's own package's, not nbgrad's
    if app.env.docname.startswith(("api/", "exercise-notebooks/")):
        return
    if not hasattr(app.env, "nbgrad_xref_targets"):
        app.env.nbgrad_xref_targets = targets()
    full, short = app.env.nbgrad_xref_targets
    for literal in list(doctree.findall(nodes.literal)):
        if isinstance(literal, nodes.literal_block):
            continue
        parent = literal.parent
        if any(isinstance(a, (nodes.title, nodes.reference, addnodes.pending_xref, nodes.literal_block))
               for a in _ancestors(literal)):
            continue
        target = resolve(literal.astext(), full, short)
        if target is None:
            continue
        xref = addnodes.pending_xref(
            "", refdomain="py", reftype="obj", reftarget=target, refexplicit=True,
            refwarn=True, refdoc=app.env.docname, classes=["nbgrad-xref"],
        )
        parent.replace(literal, xref)
        xref += literal


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def setup(app):
    app.connect("doctree-read", link_literals)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
