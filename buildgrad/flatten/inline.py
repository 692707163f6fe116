"""Inlining: a wrapper's call of the version it replaces becomes that version's body."""

import ast
import inspect
import textwrap

from buildgrad.flatten.errors import FlattenError
from buildgrad.flatten.items import Func
from buildgrad.flatten.scopes import SCOPES, all_names, bound_names, global_reads, name_uses
from buildgrad.flatten.text import _body_start, edit, indent, rename_edits


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
