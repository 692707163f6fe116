"""Reverse-mode automatic differentiation: PyTorch's ``torch.autograd`` API.

The graph itself and the engine are the core below ``Tensor`` (``nbgrad/core/``: read
``node.py`` and ``engine.py`` first). Here: ``graph.py`` (how an operation joins the
graph), ``functional.py`` (the entry points ``backward`` and ``grad``), ``function.py``
(custom operations), ``gradcheck.py`` and ``variable.py``.
"""

from __future__ import annotations

from .. import missing as _missing
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx
from .functional import backward, grad
from ..core.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

__all__ = [
    "Function", "FunctionCtx", "GradcheckError", "Variable", "backward", "detect_anomaly",
    "enable_grad", "grad", "gradcheck", "gradgradcheck", "inference_mode", "is_grad_enabled", "no_grad",
    "set_detect_anomaly", "set_grad_enabled",
]


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
