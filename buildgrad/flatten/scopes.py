"""Scopes: which names a piece of code binds, and which scope each name it uses belongs to."""

import ast

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
