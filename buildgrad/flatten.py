"""Your autograd in one file:  python -m buildgrad.flatten OUT.py [--folder DIR]

buildgrad grows chapter by chapter as a chain of patches: each chapter module imports the one
before it and changes its classes (``@extend(Tensor) def backward``, ``Tensor._hooks = ()``,
a wrapper that calls the version it replaces). This command writes the finished package as ONE
module that runs with NumPy alone and reads top to bottom, chapter by chapter, with no chain:

* every class is defined once, with all its final members in its body: what a later chapter
  adds comes after a ``# Chapter NN: ...`` comment inside the class, and what it replaces is
  replaced where it stood;
* a wrapper's call of the version it replaces (``_backward_without_checks(self, gradient)``)
  becomes that version's body, inlined, so that one ``backward`` shows every chapter's part;
* a function a later chapter defines again appears once, in its last version (one file has
  one namespace, so the last version is the one every chapter's code calls, as
  ``@extend(c00_graph)`` makes it in the chain);
* ``extend``, ``public_names``, ``__all__`` and the chapter imports disappear; each chapter's
  docstring gives the comment that opens its section.

Each chapter comes from your finished notebook in the folder (``NN_*.ipynb`` with no
``NotImplementedError`` stub left in its ``#| export`` cells) when there is one, and from the
reference module otherwise: the rule of ``buildgrad.track.use_my_work``. Everything here works
on the chapters' syntax trees (``ast``), not on a list of known functions, so your own version
of a chapter flattens the same way. A pattern that cannot be merged into plain classes
faithfully (an early ``return`` in a version that a wrapper calls, say) stops it with an error
that names the chapter, the line and the function.

    python -m buildgrad.flatten my_autograd.py                  # your notebooks, in this folder
    python -m buildgrad.flatten my_autograd.py --folder mywork
    python -c "import my_autograd as bg; print(bg.tensor([1., 2.]) * 2)"
"""

import argparse
import ast
import builtins
import copy
import dataclasses
import functools
import inspect
import io
import pathlib
import sys
import textwrap
import tokenize

from buildgrad import track

REFERENCE = pathlib.Path(__file__).resolve().parent
MACHINERY = {"extend", "public_names"}  # chapter 00's tools for the chain: nothing to flatten
NBGRADER_MARKERS = {"### BEGIN SOLUTION", "### END SOLUTION", "# YOUR CODE HERE"}
WIDTH = 92  # the course's line length


class FlattenError(Exception):
    """A chapter uses a pattern that flatten does not turn into plain classes."""


# ---------------------------------------------------------------------------------------------
# Which source each chapter comes from

@dataclasses.dataclass
class Chapter:
    number: int
    name: str      # the module's name: c03_hooks
    origin: str    # "yours (03_retain_grad.ipynb)" or "the reference"
    text: str      # the module's source

    def where(self, line=None):
        return f"chapter {self.number:02d} ({self.origin}{f', line {line}' if line else ''})"


def chapter_sources(folder="."):
    """Every chapter's source: your finished notebook in ``folder`` if there is one (as
    ``use_my_work`` picks it), else the reference module."""
    chapters = []
    for number, name in enumerate(track.CHAPTERS):
        mine = track.your_notebook(number, folder)
        if mine is not None:
            text, origin = track.module_source(mine), f"yours ({mine.name})"
        else:
            text, origin = (REFERENCE / f"{name}.py").read_text(), "the reference"
        chapters.append(Chapter(number, name, origin, without_markers(text)))
    return chapters


def without_markers(text):
    """The source without nbgrader's marker comments: they frame an exercise, not the code."""
    drop = {token.start[0] for token in _tokens(text)
            if token.type == tokenize.COMMENT and token.line.strip() in NBGRADER_MARKERS}
    return "".join(line for number, line in enumerate(text.splitlines(True), 1) if number not in drop)


def _tokens(text):
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


# ---------------------------------------------------------------------------------------------
# Source text: the whole lines of a statement, and the comments that ast leaves out

class Source:
    def __init__(self, text, chapter):
        self.text, self.chapter = text, chapter
        self.lines = text.splitlines()
        try:
            self.tree = ast.parse(text)
        except SyntaxError as error:
            raise FlattenError(f"{chapter.where(error.lineno)}: {error.msg}") from None
        self.tokens = _tokens(text)
        self.comment_lines = {t.start[0] for t in self.tokens
                              if t.type == tokenize.COMMENT and not t.line[:t.start[1]].strip()}
        self.trailing = {t.start[0]: t.string for t in self.tokens
                         if t.type == tokenize.COMMENT and t.line[:t.start[1]].strip()}

    def first_line(self, node):
        return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])

    def block(self, first, last):
        """Lines ``first`` to ``last`` (counted from 1), dedented."""
        return textwrap.dedent("\n".join(self.lines[first - 1:last]))

    def statement(self, node, decorators=True):
        """A statement's whole lines, dedented: it must have its lines to itself."""
        before = self.lines[node.lineno - 1][:node.col_offset]
        after = self.lines[node.end_lineno - 1][node.end_col_offset:].strip()
        if before.strip() or (after and not after.startswith("#")):
            raise FlattenError(f"{self.chapter.where(node.lineno)}: put one statement per line")
        return self.block(self.first_line(node) if decorators else node.lineno, node.end_lineno)

    def segment(self, node):
        return ast.get_source_segment(self.text, node)

    def colon_line(self, node):
        """The line of the colon that ends a ``class`` (or ``def``) header."""
        depth = 0
        for token in self.tokens:
            if token.start < (node.lineno, node.col_offset) or token.type != tokenize.OP:
                continue
            depth += token.string in "([{"
            depth -= token.string in ")]}"
            if token.string == ":" and depth == 0:
                return token.start[0]
        return node.lineno

    def gap(self, previous_end, node):
        """What lies between a statement and the one before it: the comment blocks that stand
        apart, the comment block right above the statement, and the blank lines above that."""
        lines = list(range(previous_end + 1, self.first_line(node)))
        attached = []
        while lines and lines[-1] in self.comment_lines:
            attached.insert(0, lines.pop())
        blank = 0
        while lines and not self.lines[lines[-1] - 1].strip():
            blank, _ = blank + 1, lines.pop()
        apart, run = [], []
        for line in lines + [None]:
            if line in self.comment_lines:
                run.append(line)
            elif run:
                apart.append(self.block(run[0], run[-1]))
                run = []
        return apart, self.block(attached[0], attached[-1]) if attached else "", blank


# ---------------------------------------------------------------------------------------------
# Scopes: which names a piece of code binds, and which scope each name it uses belongs to

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
SCOPES = FUNCTIONS + COMPREHENSIONS + (ast.Lambda, ast.ClassDef)


def bound_names(scope):
    """The names a module, class, function, lambda or comprehension binds in its own scope."""
    names, declared = set(), set()
    if isinstance(scope, FUNCTIONS + (ast.Lambda,)):
        a = scope.args
        names |= {arg.arg for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if arg}
        body = [scope.body] if isinstance(scope, ast.Lambda) else scope.body
    elif isinstance(scope, COMPREHENSIONS):
        body = [g.target for g in scope.generators]
    else:
        body = scope.body

    def visit(node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        if isinstance(node, SCOPES):
            if isinstance(node, FUNCTIONS + (ast.ClassDef,)):
                names.add(node.name)
            for child in _runs_outside(node):
                visit(child)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    for node in body:
        visit(node)
    return names - declared


def _runs_outside(scope):
    """The parts of a nested scope that run in the scope around it."""
    if isinstance(scope, FUNCTIONS + (ast.Lambda,)):
        a = scope.args
        return getattr(scope, "decorator_list", []) + a.defaults + [d for d in a.kw_defaults if d]
    if isinstance(scope, ast.ClassDef):
        return scope.decorator_list + scope.bases + [k.value for k in scope.keywords]
    return [scope.generators[0].iter]


def _runs_inside(scope):
    if isinstance(scope, FUNCTIONS + (ast.ClassDef,)):
        return scope.body
    if isinstance(scope, ast.Lambda):
        return [scope.body]
    first, *rest = scope.generators
    parts = [first.target] + first.ifs + [p for g in rest for p in [g.target, g.iter] + g.ifs]
    return parts + ([scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt])


def name_uses(tree):
    """Every ``Name`` in ``tree``, with the scope node it belongs to (``None`` for a global)."""
    uses = []

    def visit(node, scopes):
        if isinstance(node, ast.Name):
            owner = None
            for depth, (scope, names) in enumerate(reversed(scopes)):
                if isinstance(scope, ast.ClassDef) and depth > 0:
                    continue  # a class body's names are not seen by the methods in it
                if node.id in names:
                    owner = scope
                    break
            uses.append((node, owner))
        if isinstance(node, SCOPES):
            for child in _runs_outside(node):
                visit(child, scopes)
            for child in _runs_inside(node):
                visit(child, scopes + [(node, bound_names(node))])
            return
        for child in ast.iter_child_nodes(node):
            visit(child, scopes)

    visit(tree, [])
    return uses


def global_reads(tree):
    return {node.id for node, owner in name_uses(tree) if owner is None and isinstance(node.ctx, ast.Load)}


def all_names(tree):
    """Every identifier the code binds or uses, in any scope: what a new name must avoid."""
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
    for node in ast.walk(tree):
        if isinstance(node, SCOPES):
            names |= bound_names(node)
    return names


# ---------------------------------------------------------------------------------------------
# Text edits at the positions ast gives (lines counted from 1, columns in UTF-8 bytes), so
# that everything not edited keeps its layout and its comments

def edit(text, edits):
    """``text`` with each span ``((line, col), (end_line, end_col), new_text)`` replaced."""
    starts = [0]
    for line in text.encode().splitlines(True):
        starts.append(starts[-1] + len(line))
    data = text.encode()
    for (line, col), (end_line, end_col), new in sorted(edits, key=lambda e: e[0], reverse=True):
        data = data[:starts[line - 1] + col] + new.encode() + data[starts[end_line - 1] + end_col:]
    return data.decode()


def rename_edits(text, nodes, new_text):
    """Edits replacing each Name node by ``new_text[node.id]``, after checking that the text
    at its position is that name (a guard against odd positions inside f-strings)."""
    lines = text.encode().splitlines()
    edits = []
    for node in nodes:
        if lines[node.lineno - 1][node.col_offset:node.end_col_offset].decode() != node.id:
            raise FlattenError(f"cannot rename {node.id!r} at line {node.lineno} safely")
        edits.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset),
                      new_text[node.id]))
    return edits


def indent(text, prefix):
    return "\n".join(prefix + line if line.strip() else "" for line in text.split("\n"))


# ---------------------------------------------------------------------------------------------
# What a module-level name, or a class member, stands for while the chapters are read

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
    fset: Func = None
    fdel: Func = None

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


# ---------------------------------------------------------------------------------------------
# Inlining: a wrapper's call of the version it replaces becomes that version's body

def inline(outer, alias, where):
    """``outer`` with its one call of ``alias`` replaced by the body of the version the alias
    names: parameters mapped to the arguments, locals renamed where they would clash, and the
    final ``return X`` turned into what the call's statement did with the value."""
    what = f"{where}: {outer.node.name} calls {alias.name} (the previous {alias.func.node.name})"
    o, i = outer.node, alias.func.node
    calls = [n for n, owner in name_uses(o) if n.id == alias.name and owner is None]
    if len(calls) != 1:
        raise FlattenError(f"{what} {len(calls)} times: flatten inlines one call")
    statement, ancestors = _calling_statement(o, calls[0])
    if statement is None:
        raise FlattenError(f"{what} inside an expression: make the call a statement of its own, "
                           f"`x = {alias.name}(...)`, `return {alias.name}(...)` or `{alias.name}(...)`")
    if alias.func.decorators:
        raise FlattenError(f"{what}, which has decorators: flatten does not inline it")
    _check_inlinable(i, what)
    renames, prelude = _map_names(outer, o, alias.func, i, statement, ancestors, what)
    body = _inlined_body(alias.func, i, renames, statement, outer.text)

    lines = outer.text.split("\n")
    here = lines[statement.lineno - 1][:statement.col_offset]
    trailing = lines[statement.end_lineno - 1][statement.end_col_offset:].strip()
    block = ([here + trailing] if trailing else []) + [here + line for line in prelude]
    lines[statement.lineno - 1:statement.end_lineno] = block + indent(body, here).split("\n")
    text, notes = _merge_docstrings("\n".join(lines), alias.func, outer)
    try:
        compile(text, "<inlined>", "exec")  # compile, not parse: scopes are checked too
    except SyntaxError as error:  # flatten's mistake, not the chapter's
        raise FlattenError(f"{what}: inlining gave invalid code ({error})") from None
    return Func(text, outer.chapter, list(outer.decorators), notes,
                sorted(set(alias.func.chapters) | set(outer.chapters)))


def _calling_statement(function, name_node):
    """The statement whose whole value is the call of ``name_node``, and the statements
    around it; ``(None, None)`` when the call is part of a larger expression."""
    def search(node, ancestors):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, SCOPES):
                continue
            if (isinstance(child, (ast.Expr, ast.Return, ast.Assign, ast.AnnAssign))
                    and isinstance(child.value, ast.Call) and child.value.func is name_node):
                return child, ancestors
            if isinstance(child, ast.stmt):
                found = search(child, ancestors + [child])
                if found[0] is not None:
                    return found
        return None, None
    return search(function, [])


def _own_nodes(function):
    """The nodes of a function's body, without those of the functions nested in it."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _check_inlinable(function, what):
    own = list(_own_nodes(function))
    early = [n for n in own if isinstance(n, ast.Return) and n is not function.body[-1]]
    if early:
        raise FlattenError(f"{what}, which returns early (line {early[0].lineno} of its def): "
                           "flatten inlines a version whose one `return` is its last statement")
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in own):
        raise FlattenError(f"{what}, a generator or coroutine: flatten does not inline it")
    if any(isinstance(n, ast.Name) and n.id == "super" for n in ast.walk(function)):
        raise FlattenError(f"{what}, which calls super(): flatten does not inline it")


def _bind(function, call, what):
    """Each parameter of ``function`` -> (how, expression) for this call: "argument",
    "star" (``*args``), "dstar" (``**kwargs``), "default", or "empty" (an unfilled ``*args``)."""
    a = function.args
    positional = a.posonlyargs + a.args
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(a.defaults):]], a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    bound = {}
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            if not (a.vararg and index == len(positional) == len(call.args) - 1):
                raise FlattenError(f"{what} with *{ast.unparse(arg.value)} in a place flatten cannot map")
            bound[a.vararg.arg] = ("star", arg.value)
        elif index < len(positional):
            bound[positional[index].arg] = ("argument", arg)
        else:
            raise FlattenError(f"{what} with more positional arguments than it names")
    for keyword in call.keywords:
        if keyword.arg is None and a.kwarg and a.kwarg.arg not in bound:
            bound[a.kwarg.arg] = ("dstar", keyword.value)
        elif keyword.arg in {p.arg for p in positional + a.kwonlyargs} - set(bound):
            bound[keyword.arg] = ("argument", keyword.value)
        else:
            raise FlattenError(f"{what} with {ast.unparse(keyword)}: flatten cannot map it")
    for param in positional + a.kwonlyargs:
        if param.arg not in bound:
            if not _is_constant(defaults.get(param.arg)):
                raise FlattenError(f"{what} without {param.arg}=, whose default is not a constant")
            bound[param.arg] = ("default", defaults[param.arg])
    for packed, empty in ((a.vararg, "()"), (a.kwarg, "{}")):
        if packed and packed.arg not in bound:
            bound[packed.arg] = ("empty", empty)
    return bound


def _is_constant(node):
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.Tuple) and all(_is_constant(e) for e in node.elts)) or (
        isinstance(node, ast.UnaryOp) and _is_constant(node.operand))


def _map_names(outer, o, inner, i, statement, ancestors, what):
    """How the previous version's names become the wrapper's: ``renames`` (a parameter to
    its argument's name or constant, a clashing local to a fresh name) and ``prelude``
    (``param = argument`` lines, for arguments that are not a plain name)."""
    outer_names, inner_names = all_names(o), all_names(i)
    taken = outer_names | inner_names
    assigned = {n.id for n, owner in name_uses(i) if owner is i and isinstance(n.ctx, ast.Store)}
    stored_by_outer = {n.id for n, owner in name_uses(o) if owner is o and isinstance(n.ctx, ast.Store)}

    def fresh(base):
        number = 2
        while f"{base}{number}" in taken:
            number += 1
        taken.add(f"{base}{number}")
        return f"{base}{number}"

    renames, prelude = {}, []
    for param, (kind, arg) in _bind(i, statement.value, what).items():
        text = arg if kind == "empty" else ast.get_source_segment(
            inner.text if kind == "default" else outer.text, arg)
        if isinstance(arg, ast.Name) and arg.id not in inner_names - {param}:
            # the parameter may become the argument's own name: same object, and either the
            # previous version never assigns it or the wrapper no longer reads it afterwards
            packed = {"star": o.args.vararg, "dstar": o.args.kwarg}.get(kind)
            same = kind == "argument" or (packed is not None and packed.arg == arg.id
                                          and arg.id not in stored_by_outer)
            if same and (param not in assigned or not _read_after(o, statement, ancestors, arg.id)):
                renames[param] = arg.id
                continue
        if kind in ("star", "dstar"):
            text = f"{'tuple' if kind == 'star' else 'dict'}({text})"
        elif kind in ("argument", "default") and _is_constant(arg) and param not in assigned:
            renames[param] = text  # a constant stands where the parameter was read
            continue
        name = param if param not in outer_names else fresh(param)
        taken.add(name)
        renames[param] = name
        prelude.append(f"{name} = {text}")
    target = (statement.targets[0].id if isinstance(statement, ast.Assign) and len(statement.targets) == 1
              and isinstance(statement.targets[0], ast.Name) else None)
    in_try = any(isinstance(a, ast.Try) for a in ancestors)
    a = i.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p}
    for local in sorted(bound_names(i) - params):
        # the call's own target may be reused: the wrapper sees only its final value
        if local in outer_names and not (local == target and not in_try):
            renames[local] = fresh(local)
    clash = sorted(global_reads(i) & bound_names(o))
    if clash:
        raise FlattenError(f"{what}: the previous version reads the global {', '.join(clash)}, "
                           f"which is a local name of the wrapper: rename one of them")
    return renames, prelude


def _read_after(function, statement, ancestors, name):
    """Whether ``function`` may read ``name`` once ``statement`` has run."""
    loops = [a for a in ancestors if isinstance(a, (ast.For, ast.While, ast.AsyncFor))]
    in_loops = {id(n) for loop in loops for n in ast.walk(loop)}
    end = (statement.end_lineno, statement.end_col_offset)
    return any(node.id == name and isinstance(node.ctx, ast.Load)
               and ((node.lineno, node.col_offset) > end or id(node) in in_loops)
               for node, _ in name_uses(function))


def _inlined_body(inner, node, renames, statement, outer_text):
    """The previous version's body without its docstring, renamed, with its final ``return``
    made into what the calling statement did: ``return X``, ``y = X``, or ``X`` alone."""
    call = statement.value
    if statement.lineno != call.lineno:
        raise FlattenError(f"line {statement.lineno}: write `x = previous(...)` on one line")
    line = outer_text.encode().split(b"\n")[statement.lineno - 1]
    prefix = line[statement.col_offset:call.col_offset].decode()  # "return ", "grads = " or ""
    uses = [n for n, owner in name_uses(node) if owner is node and n.id in renames]
    edits = rename_edits(inner.text, uses, renames)
    last, ending = node.body[-1], None
    if isinstance(last, ast.Return):
        start, value = (last.lineno, last.col_offset), last.value
        whole = (start, (last.end_lineno, last.end_col_offset))
        if value is None:
            edits.append(whole + ("return" if isinstance(statement, ast.Return)
                                  else "" if isinstance(statement, ast.Expr) else prefix + "None",))
        elif isinstance(statement, ast.Expr) and isinstance(value, (ast.Name, ast.Constant)):
            edits.append(whole + ("",))  # a value nobody uses, and reading it does nothing
        else:
            edits.append((start, (value.lineno, value.col_offset), prefix))
    elif not isinstance(statement, ast.Expr):
        ending = "return" if isinstance(statement, ast.Return) else prefix + "None"
    text = edit(inner.text, edits)
    first = _body_start(text, ast.parse(text).body[0])
    body = textwrap.dedent("\n".join(text.split("\n")[first - 1:])).strip("\n")
    body = "\n".join(line.rstrip() for line in body.split("\n")).strip("\n")
    if ending:
        body = f"{body}\n{ending}".strip("\n")
    return body or "pass"


def _body_start(text, function):
    """The first line of a def's body after its docstring (comment lines included)."""
    if ast.get_docstring(function, clean=False) is not None:
        return function.body[0].end_lineno + 1
    depth = 0
    for token in _tokens(text):
        if token.start < (function.lineno, function.col_offset) or token.type != tokenize.OP:
            continue
        depth += token.string in "([{"
        depth -= token.string in ")]}"
        if token.string == ":" and depth == 0:
            return token.start[0] + 1
    return function.body[0].lineno


def _merge_docstrings(text, inner, outer):
    """The merged function keeps the first version's docstring, which says what the function
    is; a later version's docstring says what it changed, and becomes a note under it."""
    inner_node, outer_node = inner.node, outer.node
    inner_doc = ast.get_docstring(inner_node, clean=False)
    outer_doc = ast.get_docstring(outer_node, clean=False)
    if inner_doc is None:
        return text, inner.notes + outer.notes
    first = inner_node.body[0]
    doc = textwrap.dedent("\n".join(inner.text.split("\n")[first.lineno - 1:first.end_lineno]))
    tree = ast.parse(text).body[0]
    lines = text.split("\n")
    here = lines[tree.body[0].lineno - 1][:tree.body[0].col_offset]
    if outer_doc is None:
        start = _body_start(text, tree)
        lines[start - 1:start - 1] = indent(doc, here).split("\n")
        return "\n".join(lines), inner.notes + outer.notes
    lines[tree.body[0].lineno - 1:tree.body[0].end_lineno] = indent(doc, here).split("\n")
    return "\n".join(lines), inner.notes + [(outer.chapter, inspect.cleandoc(outer_doc))] + outer.notes


# ---------------------------------------------------------------------------------------------
# Reading the chapters: what each statement does to the module and to its classes

class Flattener:
    """Reads the chapters in order, keeping the one file's items and what each name means."""

    def __init__(self, chapters):
        self.chapters = chapters
        self.items = []        # the one file's top-level pieces, in order
        self.names = {}        # module-level name -> what it stands for now
        self.imports = []      # the chapters' import lines, once each
        self.titles = {}       # chapter -> the first line of its docstring
        self.changes = {}      # chapter -> [("adds" | "changes", "Tensor.backward"), ...]
        self.namespaces = []   # chapter -> the names its own code sees
        self.modules = set()   # names bound to modules (``import *`` does not pass them on)
        self.builtins_used = False
        # A builtin that some chapter defines at module level (c06's max) is hidden in one
        # file: the code of the chapters that saw the builtin has to say builtins.max.
        sources = [Source(chapter.text, chapter) for chapter in chapters]
        self.hiding = set(dir(builtins)) & set().union(*(bound_names(s.tree) for s in sources))
        for source in sources:
            self.read(source)
        self.check_aliases_are_gone()

    # -- a chapter, statement by statement --------------------------------------------------

    def read(self, source):
        self.source, self.chapter = source, source.chapter
        chapter, tree = source.chapter, source.tree
        self.titles[chapter.number] = self.title(ast.get_docstring(tree), chapter)
        self.namespaces.append(self.namespace(chapter.number, tree))
        end = 0
        for node in tree.body:
            apart, self.comment, self.blank = self.source.gap(end, node)
            for text in apart:
                self.items.append(Item(Code(text, chapter.number), set(), chapter.number, 1))
            if node is not tree.body[0] or ast.get_docstring(tree) is None:
                self.statement(node)
            end = node.end_lineno

    def title(self, docstring, chapter):
        first = (docstring or chapter.name).strip().split("\n")[0].strip()
        return first if first.lower().startswith("chapter") else f"Chapter {chapter.number:02d}: {first}"

    def namespace(self, number, tree):
        """The names a chapter's own code sees: its own, and those ``from <previous> import *``
        brought (``public_names``: public, hiding no builtin, no module)."""
        self.modules |= {(a.asname or a.name).split(".")[0] for node in tree.body
                         if isinstance(node, ast.Import)
                         or isinstance(node, ast.ImportFrom) and node.module == "buildgrad"
                         for a in node.names}
        inherited = self.namespaces[number - 1] if number else set()
        return bound_names(tree) | {name for name in inherited if not name.startswith("_")
                                    and not hasattr(builtins, name) and name not in self.modules}

    def statement(self, node):
        handler = {ast.Import: self.an_import, ast.ImportFrom: self.an_import,
                   ast.FunctionDef: self.a_def, ast.AsyncFunctionDef: self.a_def,
                   ast.ClassDef: self.a_class, ast.Assign: self.an_assignment,
                   ast.For: self.a_loop, ast.Expr: self.an_expression}
        handler.get(type(node), self.as_written)(node)

    def fail(self, node, message):
        raise FlattenError(f"{self.chapter.where(getattr(node, 'lineno', None))}: {message}")

    def finish(self, text, mode="exec"):
        """A piece of this chapter's code as it must read in one file: ``c00_graph.record``
        is ``record``, and a builtin this chapter saw, which a function of another chapter
        hides in one file, is ``builtins.max``."""
        tree = ast.parse(text, mode=mode)
        modules = {n for n, v in self.names.items() if isinstance(v, ModuleRef)}
        edits = [((n.lineno, n.col_offset), (n.value.end_lineno, n.value.end_col_offset + 1), "")
                 for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                 and isinstance(n.value, ast.Name) and n.value.id in modules]
        hidden = [n for n, owner in name_uses(tree) if owner is None and isinstance(n.ctx, ast.Load)
                  and n.id in self.hiding and n.id not in self.namespaces[self.chapter.number]]
        if hidden:
            self.builtins_used = True
            edits += rename_edits(text, hidden, {n.id: f"builtins.{n.id}" for n in hidden})
        return edit(text, edits) if edits else text

    # -- imports ------------------------------------------------------------------------------

    def an_import(self, node):
        modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
        if isinstance(node, ast.ImportFrom) and node.level:
            self.fail(node, "a relative import: the one file has no package around it")
        if any(m.split(".")[0] == "nbgrad" for m in modules):
            self.fail(node, "imports nbgrad: the one file runs with NumPy alone")
        if all(m.split(".")[0] != "buildgrad" for m in modules):
            line = ast.unparse(node)
            if line not in self.imports:
                self.imports.append(line)
            return
        for alias in node.names:  # a chapter: in one file, everything is in the file itself
            if isinstance(node, ast.ImportFrom) and node.module == "buildgrad":
                # from buildgrad import c00_graph: c00_graph.record is record
                chapter, binding = alias.name, alias.asname or alias.name
            elif isinstance(node, ast.ImportFrom):  # from buildgrad.c01_engine import *
                chapter, binding = node.module.split(".", 1)[1], None
                if alias.asname not in (None, alias.name):
                    self.fail(node, f"imports {alias.name} as {alias.asname}: use its own name")
            else:  # import buildgrad.c00_graph as g
                chapter, binding = alias.name.split(".", 1)[-1], alias.asname
                if binding is None:
                    self.fail(node, f"`import {alias.name}`: write `from buildgrad import {chapter}`")
            if chapter not in track.CHAPTERS:
                self.fail(node, f"imports buildgrad.{chapter}: the one file has no buildgrad around it")
            if binding:
                self.names[binding] = ModuleRef()

    # -- functions ----------------------------------------------------------------------------

    def a_def(self, node):
        if node.name in MACHINERY:
            self.names[node.name] = Machinery()
            return
        value, placed = self.function(node), False
        for decorator in reversed(node.decorator_list):  # the nearest to the def first
            what = self.resolve(decorator)
            if placed:
                self.fail(node, f"{node.name}: a decorator above @extend(...) is not supported")
            if isinstance(what, Extend) and isinstance(what.target, ClassInfo):
                self.set_member(what.target, node.name, value)
                placed = True
            elif isinstance(what, Extend) and isinstance(what.target, ModuleRef) and isinstance(value, Func):
                self.define_function(node.name, value, node)
                placed = True
            else:
                value = self.decorate(value, decorator, node)
        self.names[node.name] = value
        if not placed and isinstance(value, Func):
            self.define_function(node.name, value, node)
        # (a property made at module level only counts once a class gets it: Tensor.x = x)

    def function(self, node):
        """A def as a Func, every call of an earlier version (an alias) inlined."""
        func = Func(self.finish(self.source.statement(node, decorators=False)), self.chapter.number,
                    chapters=[self.chapter.number])
        for _ in range(100):
            aliases = [n.id for n, owner in name_uses(func.node)
                       if owner is None and isinstance(self.names.get(n.id), Alias)]
            if not aliases:
                return func
            func = inline(func, self.names[aliases[0]], self.chapter.where(node.lineno))
        self.fail(node, f"{node.name}: too many earlier versions to inline")

    def decorate(self, value, decorator, node, members=None):
        """Apply a decorator other than ``extend`` to a Func or a Property."""
        if (isinstance(decorator, ast.Name) and decorator.id == "property"
                and "property" not in self.names and isinstance(value, Func)):
            return Property(value)
        what = self.resolve(decorator, members)
        if isinstance(what, Accessor) and isinstance(value, Func):
            return what.apply(value)
        if isinstance(value, Func):
            value.decorators.insert(0, self.finish(self.source.segment(decorator), "eval"))
            return value
        self.fail(node, f"@{self.source.segment(decorator)} over a property: not supported")

    def define_function(self, name, func, node, move=False):
        """A module-level function, new or a later version of one. A later version stands
        where the first one stood, unless ``move``: made by a decorator that a later chapter
        defines, it must come after that decorator."""
        old = self.item_named(name)
        if old is None:
            self.items.append(Item(func, {name}, self.chapter.number, 2, self.comment))
            return
        if not isinstance(old.value, Func):
            self.fail(node, f"{name} was not a function before (chapter {old.chapter:02d})")
        self.check_not_bound_before(lambda v: isinstance(v, Forward) and v.target == name, name, node)
        if old.chapter != self.chapter.number:
            self.note("changes", name)
        if move:
            self.items.remove(old)
            self.items.append(Item(func, {name}, self.chapter.number, 2, old.comment))
        else:
            old.value = func

    def item_named(self, name):
        return next((item for item in self.items if name in item.names), None)

    def note(self, kind, what):
        entries = self.changes.setdefault(self.chapter.number, [])
        if (kind, what) not in entries and ("adds", what) not in entries:
            entries.append((kind, what))

    # -- classes ------------------------------------------------------------------------------

    def a_class(self, node):
        if isinstance(self.names.get(node.name), ClassInfo):
            self.fail(node, f"class {node.name} is defined again: one file keeps one class per name")
        header = self.source.block(self.source.first_line(node), self.source.colon_line(node))
        cls = ClassInfo(node.name, self.finish(header + "\n    pass").rsplit("\n", 1)[0], [],
                        self.chapter.number, [b.id for b in node.bases if isinstance(b, ast.Name)])
        end = self.source.colon_line(node)
        for statement in node.body:
            apart, comment, blank = self.source.gap(end, statement)
            for text in apart:
                cls.members.append(Member([], Code(text, cls.chapter), cls.chapter, 1))
            self.class_statement(cls, statement, comment, blank)
            end = statement.end_lineno
        self.names[node.name] = cls
        self.items.append(Item(cls, {node.name}, self.chapter.number, 2, self.comment))

    def class_statement(self, cls, node, comment, blank):
        """One statement of a class body, as a member."""
        chapter = self.chapter.number
        if isinstance(node, FUNCTIONS):
            value = self.function(node)
            members = {name: m.value for m in cls.members for name in m.names}
            for decorator in reversed(node.decorator_list):
                value = self.decorate(value, decorator, node, members)
            existing = next((m for m in cls.members if node.name in m.names), None)
            if existing is not None:  # @x.setter def x: the property x, now with a setter
                existing.value = value
                return
            cls.members.append(Member([node.name], value, chapter, blank, comment))
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            value = Value(self.finish(self.source.segment(node.value), "eval"), chapter,
                          self.source.trailing.get(node.end_lineno, ""))
            cls.members.append(Member([t.id for t in node.targets], value, chapter, blank, comment))
        else:
            names = sorted(bound_names(ast.Module([node], [])))
            cls.members.append(Member(names, Code(self.finish(self.source.statement(node)), chapter),
                                      chapter, blank, comment))

    def member(self, cls, name):
        """The member ``name`` of a class, looked up in its bases too, as Python does."""
        for m in cls.members:
            if name in m.names:
                return m.value
        for base in cls.bases:
            if isinstance(self.names.get(base), ClassInfo):
                found = self.member(self.names[base], name)
                if found is not None:
                    return found
        return None

    def set_member(self, cls, name, value):
        """``Class.name = value``, merged into the class body: a new member goes after the
        others, under its chapter's title; a replaced one stays where it stood."""
        chapter = self.chapter.number
        for index, m in enumerate(cls.members):
            if name in m.names:
                self.check_not_bound_before(
                    lambda v: isinstance(v, SameAs) and (v.owner, v.member) == (cls.name, name),
                    f"{cls.name}.{name}", None)
                if len(m.names) > 1:  # a = b = (): only this name gets the new value
                    m.names.remove(name)
                    cls.members.insert(index + 1, Member([name], value, chapter, 0))
                else:
                    m.value = value
                if chapter not in (cls.chapter, m.chapter):
                    self.note("changes", f"{cls.name}.{name}")
                return
        self.add_member(cls, [name], value)

    def check_not_bound_before(self, points_here, what, node):
        """``Tensor.__iadd__ = Tensor.add_`` binds add_ as it is then; in one file
        ``__iadd__ = add_`` (or a method calling a function) gets the last version. So a
        later version of something a member was bound to would change that member: refused."""
        for item in self.items:
            members = item.value.members if isinstance(item.value, ClassInfo) else []
            for m in members:
                if points_here(m.value):
                    self.fail(node, f"{item.value.name}.{m.names[0]} was bound to {what} before "
                                    f"this chapter replaces {what}: in one file it would get the new "
                                    "version; write it as a method that calls the one it means")

    def add_member(self, cls, names, value):
        chapter = self.chapter.number
        comment, self.comment = self.comment, ""  # a statement's comment goes with it once
        cls.members.append(Member(names, value, chapter, 1, comment if chapter != cls.chapter else ""))
        if chapter != cls.chapter:
            for name in names:
                self.note("adds", f"{cls.name}.{name}")

    # -- assignments --------------------------------------------------------------------------

    def an_assignment(self, node):
        targets = node.targets
        if [getattr(t, "id", None) for t in targets] == ["__all__"]:
            return
        if (len(targets) == 1 and isinstance(targets[0], ast.Tuple) and isinstance(node.value, ast.Tuple)
                and len(targets[0].elts) == len(node.value.elts)
                and all(self.class_attribute(t) for t in targets[0].elts)):
            for target, value in zip(targets[0].elts, node.value.elts):  # A.x, A.y = a, b
                self.set_member(self.names[target.value.id], target.attr,
                                self.member_value(self.names[target.value.id], value, node))
            return
        if all(self.class_attribute(t) for t in targets):
            classes = [self.names[t.value.id] for t in targets]
            if len(targets) > 1 and all(c is classes[0] for c in classes) and not any(
                    t.attr in m.names for t in targets for m in classes[0].members):
                # Tensor._hooks = Tensor._hooks_ids = (): one statement in the body too
                self.add_member(classes[0], [t.attr for t in targets],
                                self.member_value(classes[0], node.value, node))
                return
            for cls, target in zip(classes, targets):
                self.set_member(cls, target.attr, self.member_value(cls, node.value, node))
            return
        if len(targets) == 1 and isinstance(targets[0], ast.Name) and self.a_rebinding(targets[0].id, node):
            return
        self.as_written(node)

    def class_attribute(self, target):
        return (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and isinstance(self.names.get(target.value.id), ClassInfo))

    def member_value(self, cls, expression, node):
        """What ``Class.x = expression`` puts in the class: the function or property itself,
        another member (``SameAs``), a method calling a module-level function (``Forward``),
        or the expression as written."""
        what = self.resolve(expression)
        what = what.func if isinstance(what, Alias) else what
        if isinstance(what, (Func, Property)):
            owner = self.owner(what)
            if isinstance(owner, tuple):
                return SameAs(owner[0].name, owner[1])
            if isinstance(owner, Item) and isinstance(what, Func):
                return Forward(next(iter(owner.names)), what.node.args)
            return what
        if isinstance(what, Data):
            return Forward(next(iter(what.item.names)), self.signature(what.value))
        trailing = self.source.trailing.get(node.end_lineno, "")
        if any(isinstance(n, ast.Name) and n.id == cls.name for n in ast.walk(expression)):
            # Tensor.x = Tensor.y: in the body of Tensor, y is a name of its own
            return Value(self.finish(ast.unparse(_OwnMembers(cls, self).visit(copy.deepcopy(expression))),
                                     "eval"), self.chapter.number, trailing)
        text = self.source.segment(expression) if hasattr(expression, "end_col_offset") else None
        return Value(self.finish(text or ast.unparse(expression), "eval"), self.chapter.number, trailing)

    def owner(self, value):
        """Where ``value`` already is: (class, member name), a module item, or None."""
        for item in self.items:
            if item.value is value:
                return item
            if isinstance(item.value, ClassInfo):
                for m in item.value.members:
                    if m.value is value and m.names:
                        return item.value, m.names[0]
        return None

    def signature(self, expression):
        """The parameters of what ``expression`` makes: for a call of a factory that returns
        a function it defines, that function's; else ``*args, **kwargs``."""
        factory = self.resolve(expression.func) if isinstance(expression, ast.Call) else None
        if isinstance(factory, Func):
            body = factory.node.body
            if isinstance(body[-1], ast.Return) and isinstance(body[-1].value, ast.Name):
                for node in body:
                    if isinstance(node, FUNCTIONS) and node.name == body[-1].value.id:
                        return node.args
        return ast.parse("def f(*args, **kwargs): pass").body[0].args

    def a_rebinding(self, name, node):
        """``_old = Tensor.backward`` (an alias, inlined where it is called), or
        ``view = extend(c00_graph)(view_op(c00_graph.view))`` (a later version made by a
        decorator: the def moves here, decorated). True if the statement was one of them."""
        expression, target = self.without_extend(node.value)
        what = self.resolve(expression)
        if isinstance(what, (Func, Property)) and target is None:
            self.names[name] = Alias(what, name) if isinstance(what, Func) else what
            return True
        if not (isinstance(expression, ast.Call) and len(expression.args) == 1 and not expression.keywords):
            return False
        old = self.resolve(expression.args[0])
        if not isinstance(old, Func) or self.names.get(name) is not old or isinstance(target, ClassInfo):
            return False
        decorator = self.finish(self.source.segment(expression.func), "eval")
        func = dataclasses.replace(old, decorators=[decorator] + old.decorators,
                                   chapters=sorted(set(old.chapters) | {self.chapter.number}))
        self.define_function(name, func, node, move=True)
        self.names[name] = func
        return True

    def without_extend(self, expression):
        """``extend(target)(x)`` -> (x, target); anything else -> (it, None)."""
        if isinstance(expression, ast.Call) and len(expression.args) == 1:
            what = self.resolve(expression.func)
            if isinstance(what, Extend):
                return expression.args[0], what.target
        return expression, None

    # -- loops, calls, and what is kept as written -------------------------------------------

    def a_loop(self, node):
        """``for f in (a, b): setattr(Tensor, f.__name__, f)``: unrolled, a member each."""
        if not self.changes_a_class(node):
            return self.as_written(node)
        if not (isinstance(node.target, ast.Name) and isinstance(node.iter, (ast.Tuple, ast.List))
                and not node.orelse):
            self.fail(node, "a loop that changes a class: flatten unrolls only "
                            "`for name in (a, b, ...):` over a tuple written out")
        for element in node.iter.elts:
            for statement in node.body:
                unrolled = _Substitute(node.target.id, element).visit(copy.deepcopy(statement))
                if isinstance(unrolled, ast.Expr):
                    self.an_expression(unrolled)
                elif isinstance(unrolled, ast.Assign):
                    self.an_assignment(unrolled)
                else:
                    self.fail(node, "a loop that changes a class with statements other than "
                                    "setattr(Class, ...) or Class.x = ...")

    def an_expression(self, node):
        call = node.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "setattr"
                and len(call.args) == 3 and isinstance(self.resolve(call.args[0]), ClassInfo)):
            return self.as_written(node)
        if not (isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str)):
            self.fail(node, "setattr(Class, name, ...) with a name flatten cannot tell in advance")
        cls = self.resolve(call.args[0])
        self.set_member(cls, call.args[1].value, self.member_value(cls, call.args[2], node))

    def changes_a_class(self, node):
        for n in ast.walk(node):
            if (isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del))
                    and isinstance(self.resolve(n.value), ClassInfo)):
                return True
            if isinstance(n, ast.Call) and (
                    isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr") and n.args
                    and isinstance(self.resolve(n.args[0]), ClassInfo)
                    or isinstance(self.resolve(n.func), Machinery)):
                return True
        return False

    def as_written(self, node):
        """A statement kept as it is, where it is (a constant, ``sign = ...``, an ``if``)."""
        if isinstance(node, ast.AugAssign) and getattr(node.target, "id", None) == "__all__":
            return
        if self.changes_a_class(node):
            self.fail(node, "this statement changes a class in a way flatten cannot merge into the "
                            "class body: write `@extend(Class) def ...`, `Class.x = ...` or "
                            "`setattr(Class, 'x', ...)`")
        names = bound_names(ast.Module([node], []))
        for name in names:
            old = self.item_named(name)
            if old is None or isinstance(old.value, Code) and not isinstance(node, ast.Assign):
                continue
            if isinstance(old.value, Code) and old.names == {name} and name not in global_reads(node):
                self.items.remove(old)  # a constant set again: one file keeps its last value only
            elif not isinstance(old.value, Code):
                self.fail(node, f"{name} is bound again (it was defined in chapter {old.chapter:02d}): "
                                "in one file that would define it twice")
        item = Item(Code(self.finish(self.source.statement(node)), self.chapter.number), names,
                    self.chapter.number, min(self.blank, 2), self.comment)
        self.items.append(item)
        for name in names:
            self.names[name] = Data(item, getattr(node, "value", node))

    # -- what a name or an expression stands for --------------------------------------------

    def resolve(self, expression, members=None):
        if isinstance(expression, ast.Name):
            if members is not None and expression.id in members:
                return members[expression.id]
            return self.names.get(expression.id)
        if isinstance(expression, ast.Attribute):
            base = self.resolve(expression.value, members)
            if isinstance(base, ClassInfo):
                return self.member(base, expression.attr)
            if isinstance(base, ModuleRef):
                return self.names.get(expression.attr)
            if isinstance(base, Property) and expression.attr in ("setter", "getter", "deleter"):
                return Accessor(base, expression.attr)
            return None
        if (isinstance(expression, ast.Call) and len(expression.args) == 1 and not expression.keywords
                and isinstance(self.resolve(expression.func), Machinery)):
            return Extend(self.resolve(expression.args[0]))
        return None

    def check_aliases_are_gone(self):
        """Every alias has been inlined: no code of the one file may still read one."""
        aliases = {name for name, value in self.names.items() if isinstance(value, Alias)}
        for where, text in self.all_code():
            used = aliases & global_reads(ast.parse(text))
            if used:
                raise FlattenError(
                    f"{where} uses {', '.join(sorted(used))}, an earlier version of a function, "
                    "other than by calling it as a statement of the version that replaces it: "
                    "flatten cannot inline that")

    def all_code(self):
        for item in self.items:
            if isinstance(item.value, ClassInfo):
                for m in item.value.members:
                    for func in _funcs(m.value):
                        yield f"{item.value.name}.{m.names[0]}", func.text
            else:
                for func in _funcs(item.value):
                    yield ", ".join(sorted(item.names)), func.text
                if isinstance(item.value, Code):
                    yield ", ".join(sorted(item.names)) or "a statement", item.value.text


class _OwnMembers(ast.NodeTransformer):
    """``Tensor.y`` -> ``y`` in a value set on ``Tensor``: its body runs before the name exists."""

    def __init__(self, cls, flattener):
        self.cls, self.flattener = cls, flattener

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == self.cls.name:
            if self.flattener.member(self.cls, node.attr) is None:
                raise FlattenError(f"{self.cls.name}.{node.attr} is read before it is set")
            return ast.copy_location(ast.Name(node.attr, ast.Load()), node)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id == self.cls.name:
            raise FlattenError(f"a value set on {self.cls.name} uses the class itself")
        return node


class _Substitute(ast.NodeTransformer):
    """A loop's variable replaced by one element; ``f.__name__`` by the name ``f`` is bound
    to (the course gives every function the name it is bound to)."""

    def __init__(self, variable, element):
        self.variable, self.element = variable, element

    def visit_Attribute(self, node):
        if (node.attr == "__name__" and isinstance(node.value, ast.Name) and node.value.id == self.variable
                and isinstance(self.element, ast.Name)):
            return ast.copy_location(ast.Constant(self.element.id), node)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id == self.variable and isinstance(node.ctx, ast.Load):
            return copy.deepcopy(self.element)  # its own position: its own text in the source
        return node


def _funcs(value):
    if isinstance(value, Func):
        return [value]
    return [f for _, f in value.parts()] if isinstance(value, Property) else []


# ---------------------------------------------------------------------------------------------
# Writing the one file

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


# ---------------------------------------------------------------------------------------------

def flatten_chapters(chapters):
    """The one file's text for these chapters (a list of ``Chapter``, numbered from 0)."""
    text = Writer(Flattener(chapters)).write()
    check_names_are_defined(text)
    return text


def flatten(folder="."):
    """The one file's text for the chapters in ``folder`` (yours where finished), and them."""
    chapters = chapter_sources(folder)
    return flatten_chapters(chapters), chapters


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the file to write, e.g. my_autograd.py")
    parser.add_argument("--folder", default=".", help="where your notebooks are (default: here)")
    args = parser.parse_args(argv)
    try:
        text, chapters = flatten(args.folder)
    except FlattenError as error:
        print(f"flatten: {error}", file=sys.stderr)
        return 2
    pathlib.Path(args.out).write_text(text)
    for chapter in chapters:
        print(f"chapter {chapter.number:02d}: {chapter.origin}")
    print(f"{args.out}: {len(text.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
