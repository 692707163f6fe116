"""Reading the chapters: what each statement does to the module and to its classes."""

import ast
import builtins
import copy
import dataclasses

from buildgrad import track
from buildgrad.flatten.errors import FlattenError
from buildgrad.flatten.inline import inline
from buildgrad.flatten.items import (Accessor, Alias, ClassInfo, Code, Data, Extend, Forward, Func, Item,
                                     Machinery, Member, ModuleRef, Property, SameAs, Value)
from buildgrad.flatten.scopes import FUNCTIONS, bound_names, global_reads, name_uses
from buildgrad.flatten.text import Source, edit, rename_edits

MACHINERY = {"extend", "public_names"}  # chapter 00's tools for the chain: nothing to flatten


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
