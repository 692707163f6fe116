"""Reverse-mode automatic differentiation: the graph, the engine and their API.

Read in this order: ``node.py`` (what a graph is made of), ``graph.py`` (how an
operation joins it), ``engine.py`` (how backward walks it), ``functional.py`` (the entry
points), then ``function.py`` for custom operations.
"""

from .function import Function, FunctionCtx
from .functional import backward, grad
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck
from .variable import Variable

__all__ = [
    "Function", "FunctionCtx", "GradcheckError", "Variable", "backward", "enable_grad",
    "grad", "gradcheck", "is_grad_enabled", "no_grad", "set_grad_enabled",
]
