"""Putting functions on ``Tensor``: as methods, as Python operators, as properties.

``x.exp()`` *is* ``nbgrad.exp(x)``: the function is attached to the class itself, with no
wrapper in between (a wrapper would cost a Python call on every operation). Operators get
a thin wrapper, because Python wants ``NotImplemented`` back for an operand the operator
does not know: then it reports ``unsupported operand type(s)`` as usual.

Each wrapper carries the name, docstring and signature of what it wraps, so that
``help(Tensor)`` and an IDE show ``__add__(input, other, *, alpha=1)`` with its docstring.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..tensor import Tensor

OPERANDS = (Tensor, float, int, bool, np.generic, np.ndarray)  # most frequent first

F = TypeVar("F", bound=Callable[..., Any])


def bind(name: str, function: Callable[..., Any]) -> None:
    """``Tensor.<name>`` is ``function``."""
    setattr(Tensor, name, function)


def bind_operator(name: str, function: Callable[..., Any], *, swapped: bool = False,
                  operands: tuple[type, ...] = OPERANDS) -> None:
    """``Tensor.<name>(self, other)`` calls ``function(self, other)``, or
    ``function(other, self)`` when ``swapped`` (``2 - x`` is ``sub(2, x)``)."""
    if swapped:
        def operator(self, other):
            if not isinstance(other, operands):
                return NotImplemented
            return function(other, self)
    else:
        def operator(self, other):
            if not isinstance(other, operands):
                return NotImplemented
            return function(self, other)
    describe(operator, name, function)
    # Its signature is (self, other), not the op's (nor an in-place method's): no keywords
    # reach the op. Unannotated: ``other`` may be any type (others get NotImplemented), and
    # ``__eq__`` must keep ``object``'s signature for type checkers.
    for attribute in ("__wrapped__", "__signature__"):
        vars(operator).pop(attribute, None)
    operator.__annotations__ = {}
    setattr(Tensor, name, operator)


def tensor_method(name: str | None = None) -> Callable[[F], F]:
    """Decorator: the function is also the method ``Tensor.<name>`` (default: its own name).

    For a method that is not an operation of its own, such as ``x.where(condition, y)``
    (which is ``where(condition, x, y)``) or ``x.new_zeros(size)``.
    """
    def bind_it(function: F) -> F:
        method = name or function.__name__
        function.__name__, function.__qualname__ = method, f"Tensor.{method}"  # for help()
        bind(method, function)
        return function
    return bind_it


def tensor_property(name: str) -> Callable[[F], F]:
    """Decorator: ``Tensor.<name>`` is a read-only property computed by the function."""
    def bind_it(function: F) -> F:
        setattr(Tensor, name, property(function, doc=function.__doc__))
        return function
    return bind_it


def describe(wrapper: Callable[..., Any], name: str, function: Callable[..., Any]) -> None:
    """Give ``wrapper`` the signature and docstring of ``function`` and the method name
    ``Tensor.<name>``, as ``help()`` and the stub show it."""
    functools.update_wrapper(wrapper, function)
    wrapper.__name__ = name
    wrapper.__qualname__ = f"Tensor.{name}"
