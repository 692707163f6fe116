"""Writing the one file: what the reader kept, as one module that reads top to bottom."""

import ast
import builtins
import copy
import sys
import textwrap

from buildgrad.flatten.errors import FlattenError
from buildgrad.flatten.items import ClassInfo, Code, Forward, Func, Property, SameAs, Value
from buildgrad.flatten.scopes import bound_names, global_reads
from buildgrad.flatten.text import _body_start, indent

WIDTH = 92  # the course's line length


class Writer:
    def __init__(self, flattener):
        self.f = flattener

    def write(self):
        body = self.body()
        return f"{self.header()}\n\n{self.import_lines(body)}\n\n\n{body}\n"

    def header(self):
        sources = "\n".join(f"    chapter {c.number:02d} ({c.name}): {c.origin}" for c in self.f.chapters)
        return (f'"""My autograd: the buildgrad package in one file, chapters 00 to '
                f'{self.f.chapters[-1].number:02d}.\n\n'
                f"Written by ``python -m buildgrad.flatten`` from\n\n{sources}\n\n"
                "Every class is whole: what a later chapter adds to it comes under that chapter's\n"
                "title, and a function that later chapters wrap shows every version's part in one\n"
                "body. It runs with NumPy alone: ``import my_autograd as bg``.\n"
                '"""')

    def import_lines(self, body):
        """The chapters' imports, once each, the standard library's first. Those the one
        file never reads are left out (``builtins`` and ``types`` served ``public_names``)."""
        read = global_reads(ast.parse(body))
        lines = [line for line in self.f.imports
                 if bound_names(ast.parse(line)) & read or line.startswith("from __future__")]
        if self.f.builtins_used and "import builtins" not in lines:
            lines.append("import builtins")
        def order(line):
            return not line.startswith("from __future__"), line.startswith("from"), line
        stdlib = sorted((line for line in lines if line.split()[1].split(".")[0] in sys.stdlib_module_names),
                        key=order)
        others = sorted(set(lines) - set(stdlib), key=order)
        return "\n".join(stdlib) + ("\n\n" + "\n".join(others) if others else "")

    def body(self):
        pieces, section, previous = [], None, None
        for item in self.f.items:
            if item.chapter != section:
                section = item.chapter
                pieces.append(("\n\n\n" if pieces else "") + self.section_header(section))
                previous = "header"
            block = isinstance(item.value, (Func, ClassInfo))
            blank = 2 if block or previous in ("header", "block") else min(item.blank, 2)
            pieces.append("\n" * (blank + 1) + self.item(item))
            previous = "block" if block else "line"
        return "".join(pieces)

    def section_header(self, number):
        rule = f"# {'=' * (WIDTH - 2)}"
        lines = [rule, f"# {self.f.titles[number]}"]
        changes = self.f.changes.get(number, [])
        added = [what for kind, what in changes if kind == "adds"]
        changed = [what for kind, what in changes if kind == "changes"]
        if added:
            lines += _comment(f"Adds to the classes above: {', '.join(added)}.")
        if changed:
            lines += _comment(f"Changes, above: {', '.join(changed)}.")
        return "\n".join(lines + [rule])

    def item(self, item):
        prefix = item.comment + "\n" if item.comment else ""
        if isinstance(item.value, Code):
            return prefix + item.value.text
        if isinstance(item.value, Func):
            return prefix + _history(item.value.chapters, item.chapter) + self.func(
                item.value, next(iter(item.names)))
        return prefix + self.a_class(item.value)

    def a_class(self, cls):
        out, group, previous_one_line = [cls.header], cls.chapter, None
        for m in cls.members:
            text = self.member(cls, m)
            one_line = "\n" not in text
            blank = min(m.blank, 1)
            if m.chapter != group:  # the first member a later chapter adds: its title
                group, blank = m.chapter, 1
                text = f"# {self.f.titles[group]}\n{text}"
            elif m.chapter != cls.chapter:  # later additions: one-liners stay together
                blank = 0 if one_line and previous_one_line else 1
            if m.comment:
                text = f"{m.comment}\n{text}"
            if previous_one_line is None:
                blank = 0
            out.append("\n" * blank + indent(text, "    "))
            previous_one_line = one_line
        return "\n".join(out)

    def member(self, cls, m):
        value = m.value
        if isinstance(value, Code):
            return value.text
        if isinstance(value, Value):
            trailing = f"  {value.trailing}" if value.trailing else ""
            return " = ".join(m.names) + f" = {value.text}{trailing}"
        if isinstance(value, Forward):
            return _forwarder(m.names[0], value)
        if isinstance(value, SameAs):
            owner = "" if value.owner == cls.name else value.owner + "."
            return f"{m.names[0]} = {owner}{value.member}"
        history = _history(value.chapters, m.chapter)
        if isinstance(value, Property):
            decorators = {"getter": "@property", "setter": f"@{m.names[0]}.setter",
                          "deleter": f"@{m.names[0]}.deleter"}
            return history + "\n\n".join(self.func(f, m.names[0], [decorators[kind]])
                                         for kind, f in value.parts())
        return history + self.func(value, m.names[0])

    def func(self, func, name, decorators=()):
        """A function's text: decorators, the def named as it is bound, and the notes that
        later versions' docstrings left, under its own docstring."""
        node, lines = func.node, func.text.split("\n")
        if node.name != name:
            lines[0] = lines[0].replace(f"def {node.name}(", f"def {name}(", 1)
        if func.notes:
            at = _body_start(func.text, node) - 1
            here = " " * node.body[0].col_offset
            notes = [indent(line, here) for chapter, doc in func.notes
                     for line in _comment(f"Chapter {chapter:02d}: {doc}")]
            lines[at:at] = notes
        above = list(decorators) + [f"@{d}" for d in func.decorators]
        return "".join(d + "\n" for d in above) + "\n".join(lines)


def _history(chapters, placed_in):
    """A comment for a piece that is not (only) the work of the chapter it stands in."""
    chapters = sorted(set(chapters))
    if chapters in ([placed_in], []):
        return ""
    if len(chapters) == 1:
        return f"# Chapter {chapters[0]:02d}'s version.\n"
    names = [f"{c:02d}" for c in chapters]
    return f"# From chapters {', '.join(names[:-1])} and {names[-1]}.\n"


def _forwarder(name, forward):
    """``def max(self): return max(self)``: a method that calls the module-level function."""
    args = copy.deepcopy(forward.args)
    positional = args.posonlyargs + args.args
    if positional:
        positional[0].arg = "self"
    passed = [a.arg for a in positional] + ([f"*{args.vararg.arg}"] if args.vararg else [])
    passed += [f"{a.arg}={a.arg}" for a in args.kwonlyargs] + ([f"**{args.kwarg.arg}"] if args.kwarg else [])
    return f"def {name}({ast.unparse(args)}): return {forward.target}({', '.join(passed)})"


def _comment(text):
    lines = []
    for paragraph in text.split("\n"):
        lines += textwrap.wrap(paragraph, WIDTH - 2, break_on_hyphens=False, break_long_words=False) or [""]
    return [f"# {line}".rstrip() for line in lines]


def check_names_are_defined(text):
    """Every global the one file reads must be defined in it (or be a builtin)."""
    tree = ast.parse(text)
    missing = global_reads(tree) - bound_names(tree) - set(dir(builtins))
    if missing:
        raise FlattenError(
            f"the one file would read {', '.join(sorted(missing))} without defining it: in the "
            "chapters it comes from a module namespace that one file does not have (a name "
            "that only @extend bound, or a chapter module)")
