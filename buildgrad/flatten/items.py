"""What a module-level name, or a class member, stands for while the chapters are read, and
the pieces of the one file."""

import ast
import dataclasses
import functools


@dataclasses.dataclass
class Func:
    """A function: its ``def`` (dedented, without the decorators), and where it came from."""
    text: str
    chapter: int
    decorators: list = dataclasses.field(default_factory=list)  # kept as written
    notes: list = dataclasses.field(default_factory=list)       # (chapter, a later docstring)
    chapters: list = dataclasses.field(default_factory=list)    # the chapters it merges

    @property
    def node(self):
        return _parse(self.text).body[0]


@functools.lru_cache(maxsize=None)
def _parse(text):
    """The syntax tree of a piece of text, parsed once (no caller changes a tree it gets)."""
    return ast.parse(text)


@dataclasses.dataclass
class Property:
    fget: Func
    fset: Func | None = None
    fdel: Func | None = None

    def parts(self):
        return [(kind, f) for kind, f in [("getter", self.fget), ("setter", self.fset),
                                          ("deleter", self.fdel)] if f]

    @property
    def chapters(self):
        return sorted({c for _, f in self.parts() for c in f.chapters})


@dataclasses.dataclass
class Code:
    """Statements (or a comment block) kept as written."""
    text: str
    chapter: int


@dataclasses.dataclass
class Value:
    """The value a class member is set to, as written: ``x = <text>`` in the class body."""
    text: str
    chapter: int
    trailing: str = ""  # the comment at the end of its line


@dataclasses.dataclass
class Forward:
    """A member that is a module-level function: a method that calls it, as chapter 00's
    ``def exp(self): return exp(self)``."""
    target: str
    args: ast.arguments


@dataclasses.dataclass
class SameAs:
    """A member that is another member: ``__iadd__ = add_``."""
    owner: str   # the class that has that member
    member: str


@dataclasses.dataclass
class Alias:
    """``_backward_without_checks = Tensor.backward``: a name for the version being replaced."""
    func: Func
    name: str


@dataclasses.dataclass
class Accessor:
    """``prop.setter`` (or ``getter``, ``deleter``) used as a decorator."""
    prop: Property
    kind: str

    def apply(self, func):
        field = {"setter": "fset", "getter": "fget", "deleter": "fdel"}[self.kind]
        return dataclasses.replace(self.prop, **{field: func})


@dataclasses.dataclass
class Extend:
    """``extend(Tensor)`` or ``extend(c00_graph)`` used as a decorator."""
    target: object


class ModuleRef:
    """A chapter module (``from buildgrad import c00_graph``): in one file, the file itself."""


class Machinery:
    """``extend`` and ``public_names``: the chain's tools, left out."""


@dataclasses.dataclass
class Data:
    """A module-level name bound by a statement kept as written (``sign = ...``)."""
    item: object
    value: ast.AST


@dataclasses.dataclass
class Member:
    names: list         # what it binds in the class body (nothing for a docstring)
    value: object       # Func, Property, Code, Value, Forward or SameAs
    chapter: int        # the chapter that put it there
    blank: int = 1      # blank lines above it
    comment: str = ""   # the comment block right above it


@dataclasses.dataclass
class ClassInfo:
    name: str
    header: str         # its decorators and ``class`` line
    members: list
    chapter: int
    bases: list


@dataclasses.dataclass
class Item:
    """One top-level piece of the one file."""
    value: object       # Func, ClassInfo or Code
    names: set
    chapter: int        # the section it stands in
    blank: int = 2
    comment: str = ""
