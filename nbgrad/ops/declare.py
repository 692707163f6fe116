"""How an operation declares itself: one block, one decorator.

An operation is written as one block: its backward node(s) first, then the function that
computes the forward and records the node, decorated with ``@op``::

    class SinBackward0(Node):
        def apply(self, grad):
            (x,) = self.saved_values
            return (grad * x.cos(),)


    @op(SinBackward0)
    def sin(input):
        \"\"\"The sine of each element.\"\"\"
        return unary("sin", SinBackward0, input, np.sin, saves=INPUT)

The decorator is the op's whole entry in the rest of nbgrad. It binds the function as a
``Tensor`` method and as the operators it names, creates its in-place variant, and adds
it to ``OPS``, from which the package's exports, ``nn.functional`` and the layers of
``nn`` are generated. ``show_source(nbgrad.sin)`` shows the block, nodes and all.

The in-place variant's docstring and signature are made from the function's
(``inplace_docstring``, ``inplace_signature``): documenting the function documents both.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable
from typing import Any

from .inplace import apply_inplace
from .methods import OPERANDS, bind, bind_operator, describe
from .out import with_out

OPS: list["Op"] = []  # every declared operation, in the order the modules define them


class Op:
    """What ``@op`` knows about one operation (see ``op`` for the fields)."""

    __slots__ = ("function", "nodes", "names", "methods", "inplace", "functional", "layer")

    def __init__(self, function, nodes, names, methods, inplace, functional, layer):
        self.function = function
        self.nodes = nodes
        self.names = names
        self.methods = methods
        self.inplace = inplace
        self.functional = functional
        self.layer = layer

    @property
    def name(self):
        return self.function.__name__

    def __repr__(self):
        return f"<op {self.name}>"


def op(*nodes, aliases=(), export=True, method=True, operator=None, reflected="swapped",
       operands=OPERANDS, inplace=False, functional=False, layer=None):
    """Declare the decorated function an operation.

    * ``nodes``: the node classes it records, defined just above it (its block);
    * ``aliases``: more names for it (``divide`` for ``div``), as functions and methods;
    * ``export``: whether it is ``nbgrad.<name>`` (``x.view()`` is a method only);
    * ``method``: whether it is ``Tensor.<name>`` too (``cat`` is a function only);
    * ``operator``: the Python operator, ``"add"`` for ``x + y`` (``__add__``), with
      ``__radd__`` for ``2 + x``: ``reflected`` says how that one calls the op:
      ``"swapped"`` (``2 - x`` is ``sub(2, x)``), ``"same"`` (``2 * x`` records as
      ``x * 2``, as in PyTorch) or ``None`` (no reflected form, as for comparisons);
      ``operator="neg"`` on a one-argument op binds ``__neg__`` itself; ``operands``:
      the types the operator takes (for others Python reports an unsupported operand);
    * ``inplace``: also the in-place method ``<name>_`` (and ``__iadd__`` with an operator);
    * ``functional``: also ``nbgrad.nn.functional.<name>``;
    * ``layer``: also the layer ``nbgrad.nn.<layer>`` that applies it (``"Tanh"``).
    """
    def declare(function):
        names = (function.__name__, *aliases)
        methods = names if method else ()
        for name in methods:
            bind(name, function)
        if operator is not None:
            _bind_operators(function, operator, reflected, operands)
        if inplace:
            _bind_inplace(function, operator, public=bool(methods or export))
        OPS.append(Op(function, nodes, names if export else (), methods, inplace,
                      functional, layer))
        function.__op__ = OPS[-1]
        return function
    return declare


def _bind_operators(function, operator, reflected, operands):
    if len(inspect.signature(function).parameters) == 1:
        bind(f"__{operator}__", function)
        return
    bind_operator(f"__{operator}__", function, operands=operands)
    if reflected is not None:
        bind_operator(f"__r{operator}__", function, swapped=reflected == "swapped",
                      operands=operands)


def _bind_inplace(function, operator, public):
    name = function.__name__ + "_"

    def inplace_method(self, *args, **kwargs):
        return apply_inplace(self, function, *args, **kwargs)

    describe(inplace_method, name, function)
    inplace_method.__doc__ = inplace_docstring(function, public)
    inplace_method.__signature__ = inplace_signature(function)
    bind(name, inplace_method)
    if operator is not None:
        bind_operator(f"__i{operator}__", inplace_method)


INPLACE_RAISES = """\
RuntimeError
    If the result does not have this tensor's shape (the operands broadcast to it, not it
    to them) or its dtype cannot be cast to this tensor's (a float result into an integer
    tensor); with grad mode on, if this tensor is a leaf that requires grad, or a view of
    one."""


def inplace_signature(function: Callable[..., Any]) -> inspect.Signature:
    """The in-place method's signature: ``function``'s, its first parameter ``self``
    (the tensor changed), returning that tensor."""
    signature = inspect.signature(function)
    first, *rest = signature.parameters.values()
    this = first.replace(name="self", annotation=first.empty)
    return signature.replace(parameters=[this, *rest], return_annotation="Tensor")


def inplace_docstring(function: Callable[..., Any], public: bool = True) -> str:
    """The in-place method's docstring, made from ``function``'s: what it computes, its
    parameters but the first (this tensor), this tensor as its result, and when it raises;
    where ``function`` is ``public``, it is named, with a pointer to it for the rest."""
    name = function.__name__
    summary, sections = _sections(inspect.getdoc(function) or "")
    first = next(iter(inspect.signature(function).parameters))
    if public:
        lines = [f"In place ``{name}``: changes this tensor and bumps its version (chapter 05).",
                 ""]
        if summary:  # "The sine of..." reads "sin, with this tensor as input: the sine of..."
            summary = re.sub(r"^[A-Z][a-z]*\b", lambda word: word[0].lower(), summary)
            summary = f"``{name}``, with this tensor as ``{first}``: {summary}"
    else:
        lines = ["Changes this tensor in place and bumps its version (chapter 05).", ""]
    if summary:
        lines += [*textwrap.wrap(summary, 88), ""]
    parameters = _without(first, sections.get("Parameters", []))
    if parameters:
        lines += ["Parameters", "----------", *parameters, ""]
    lines += ["Returns", "-------", "Tensor", "    This tensor itself, now holding the result.",
              "", "Raises", "------", INPLACE_RAISES]
    if public:
        lines += ["", "See Also", "--------",
                  f"{name} : The out-of-place form, and its details."]
    return "\n".join(lines)


def _sections(doc: str) -> tuple[str, dict[str, list[str]]]:
    """A numpydoc docstring as its first paragraph, in one line, and ``{section title: its
    lines}``."""
    lines = doc.splitlines()
    starts = [i for i in range(len(lines) - 1)
              if lines[i].strip() and re.fullmatch(r"-{3,}", lines[i + 1].strip())]
    intro = lines[:starts[0]] if starts else lines
    paragraph = " ".join(line.strip() for line in
                         (intro[:intro.index("")] if "" in intro else intro))
    bounds = [*starts, len(lines)]
    sections = {lines[start].strip(): _trimmed(lines[start + 2:end])
                for start, end in zip(bounds, bounds[1:])}
    return paragraph, sections


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _without(name: str, parameters: list[str]) -> list[str]:
    """A Parameters section's lines without the entry of parameter ``name`` (or without
    ``name`` in a grouped entry such as ``input, other : Tensor``)."""
    kept: list[str] = []
    dropping = False
    for line in parameters:
        if line[:1].strip():  # an entry starts unindented: ``name : type``
            names, colon, kind = line.partition(" : ")
            others = [n.strip() for n in names.split(",") if n.strip() != name]
            dropping = not others
            line = ", ".join(others) + colon + kind
        if not dropping:
            kept.append(line)
    return kept


def exported():
    """``{name: function}`` of every exported operation: ``nbgrad``'s namespace of ops, where
    those that take ``out=`` in PyTorch take it (``out.py``; their methods do not)."""
    return {name: with_out(o.function, name) for o in OPS for name in o.names}
