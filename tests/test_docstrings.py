"""What ``help()`` and an IDE show: every public module, function, class, method and
property of nbgrad has a docstring in NumPy's convention (checked with numpydoc: its
parameters and what it returns are documented, in the sections and order numpydoc knows),
type hints on its signature, and every module says what it exports (``__all__``)."""

import __future__
import importlib
import inspect
import pkgutil

import pytest

import nbgrad

ALL_MODULES = sorted(info.name for info in pkgutil.walk_packages(nbgrad.__path__, "nbgrad."))
# The modules a program imports, as it imports PyTorch's. The others (``ops``, ``core``,
# ``tensor``, ``creation``, ...) are what these are built of: their names reach users
# through these modules' ``__all__``, which is where this test finds them.
PUBLIC_MODULES = ["nbgrad", "nbgrad.autograd", "nbgrad.autograd.function",
                  "nbgrad.autograd.functional", "nbgrad.autograd.graph", "nbgrad.cuda",
                  "nbgrad.nn", "nbgrad.nn.functional", "nbgrad.nn.init", "nbgrad.nn.utils",
                  "nbgrad.nn.utils.rnn", "nbgrad.optim", "nbgrad.optim.lr_scheduler",
                  "nbgrad.utils", "nbgrad.utils.data", "nbgrad.linalg", "nbgrad.random",
                  "nbgrad.backends", "nbgrad.backends.cudnn", "nbgrad.backends.mps",
                  "nbgrad.utils.dlpack", "nbgrad.types", "nbgrad.viz"]
# numpydoc's checks that make a docstring say what a reader of help() needs: every
# parameter documented (PR01) and none that is not there (PR02), a Returns (RT01) or
# Yields (YD01) section where the function gives something back, and only the sections
# numpydoc knows (GL06), in its order (GL07)
NUMPYDOC_CHECKS = {"PR01", "PR02", "RT01", "YD01", "GL06", "GL07"}


def exports(module):
    for name in module.__all__:
        value = getattr(module, name)
        if not inspect.ismodule(value):
            yield name, value


def members(cls):
    """The public methods and properties ``cls`` itself defines, as (name, function or
    property)."""
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, (staticmethod, classmethod)):
            yield name, value.__func__
        elif isinstance(value, property) or inspect.isfunction(value):
            yield name, value


def public_objects():
    """Every public function, class, method and property once, as (qualified name, object)."""
    seen = set()
    for module_name in PUBLIC_MODULES:
        for name, value in exports(importlib.import_module(module_name)):
            # (a type alias of nbgrad.types is callable, but documented by its module)
            if not (inspect.isclass(value) or inspect.isroutine(value)) or id(value) in seen:
                continue
            seen.add(id(value))
            yield f"{module_name}.{name}", value
            if inspect.isclass(value):
                for member_name, member in members(value):
                    if id(member) not in seen:
                        seen.add(id(member))
                        yield f"{module_name}.{name}.{member_name}", member


PUBLIC_OBJECTS = dict(public_objects())


def unhinted(obj):
    """The parameters of ``obj``'s signature without a type hint (and ``return`` when its
    result has none)."""
    if isinstance(obj, property):
        obj = obj.fget
    elif inspect.isclass(obj):
        if "__init__" not in vars(obj) and "__new__" not in vars(obj):
            return []
        obj = vars(obj).get("__init__") or vars(obj)["__new__"]
        if isinstance(obj, staticmethod):
            obj = obj.__func__
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return ["<no signature>"]
    params = list(signature.parameters.values())
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    missing = [p.name for p in params if p.annotation is p.empty]
    if getattr(obj, "__name__", "") not in ("__init__", "__new__") and (
            signature.return_annotation is signature.empty):
        missing.append("return")
    return missing


def numpydoc_errors(obj):
    from numpydoc.validate import get_doc_object, validate

    if isinstance(obj, property):
        obj = obj.fget
    result = validate(get_doc_object(obj))
    return [f"{code}: {message}" for code, message in result["errors"]
            if code in NUMPYDOC_CHECKS]


@pytest.mark.parametrize("module_name", ALL_MODULES)
def test_every_module_says_what_it_is_for(module_name):
    assert inspect.getdoc(importlib.import_module(module_name)), f"{module_name}: no docstring"


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_public_module_says_what_it_exports(module_name):
    module = importlib.import_module(module_name)
    assert hasattr(module, "__all__"), f"{module_name}: no __all__"
    # a module's own ``from __future__ import annotations`` is no export
    features = [name for name in module.__all__
                if isinstance(getattr(module, name), __future__._Feature)]
    assert not features, f"{module_name} exports {features}"


@pytest.mark.parametrize("name", sorted(PUBLIC_OBJECTS))
def test_every_public_name_has_a_docstring(name):
    obj = PUBLIC_OBJECTS[name]
    assert (inspect.getdoc(obj) or "").strip(), f"{name}: no docstring"


@pytest.mark.parametrize("name", sorted(PUBLIC_OBJECTS))
def test_every_docstring_follows_numpy_style(name):
    pytest.importorskip("numpydoc", reason="numpydoc is not installed (it is in the [test] extra)")
    errors = numpydoc_errors(PUBLIC_OBJECTS[name])
    assert not errors, f"{name}:\n" + "\n".join(errors)


@pytest.mark.parametrize("name", sorted(PUBLIC_OBJECTS))
def test_every_public_signature_has_type_hints(name):
    missing = unhinted(PUBLIC_OBJECTS[name])
    assert not missing, f"{name}: no type hint for {missing}"


def test_the_checks_catch_a_bare_function():
    def scale(x, factor=2):
        """Scale x."""
        return x * factor

    assert unhinted(scale) == ["x", "factor", "return"]
    pytest.importorskip("numpydoc", reason="numpydoc is not installed (it is in the [test] extra)")
    codes = {error.split(":")[0] for error in numpydoc_errors(scale)}
    assert codes == {"PR01", "RT01"}
