"""What ``help()`` and an IDE show: every public module, function, class, method and
property of nbgrad has a docstring, and every module says what it exports (``__all__``)."""

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
                  "nbgrad.nn.utils.rnn", "nbgrad.optim", "nbgrad.utils", "nbgrad.utils.data",
                  "nbgrad.linalg", "nbgrad.random", "nbgrad.backends", "nbgrad.autograd.graph",
                  "nbgrad.viz"]


def exports(module):
    for name in module.__all__:
        value = getattr(module, name)
        if not inspect.ismodule(value):
            yield name, value


def undocumented_members(cls):
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property) or inspect.isfunction(value):
            if not inspect.getdoc(getattr(cls, name) if not isinstance(value, property)
                                  else value):
                yield f"{cls.__qualname__}.{name}"


@pytest.mark.parametrize("module_name", ALL_MODULES)
def test_every_module_says_what_it_is_for(module_name):
    assert inspect.getdoc(importlib.import_module(module_name)), f"{module_name}: no docstring"


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_public_name_has_a_docstring(module_name):
    module = importlib.import_module(module_name)
    assert hasattr(module, "__all__"), f"{module_name} has no __all__"
    missing = []
    for name, value in exports(module):
        if inspect.isclass(value):
            if value.__doc__ is None:
                missing.append(name)
            missing += undocumented_members(value)
        elif callable(value) and not (value.__doc__ or "").strip():
            missing.append(name)
    assert not missing, f"{module_name}: no docstring: {missing}"
