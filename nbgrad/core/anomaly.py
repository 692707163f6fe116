"""Anomaly detection's switch, and what it adds to the graph and the engine while on.

While it is on (``autograd.detect_anomaly``), each node keeps the stack of the forward
call that created it, in ``node.metadata["traceback_"]`` as PyTorch does; when a node's
backward fails the engine warns with that stack, and with ``check_nan`` a node whose
backward returns nan raises. Off, it costs one flag check per node created
(``Node.__init__``) and nothing in the engine until an error is raised.

The switch is global, not per thread, as in PyTorch.
"""

from __future__ import annotations

import os
import traceback
import warnings

from ..backend import array_module


class AnomalyMode:
    """The switch: ``anomaly.enabled`` and ``anomaly.check_nan``."""

    __slots__ = ("check_nan", "enabled")

    def __init__(self):
        self.enabled = False
        self.check_nan = True


anomaly = AnomalyMode()

# The frames of nbgrad's operation machinery, left out of a node's forward stack: what the
# user wants to see ends at the line that called the operation.
_PACKAGE = os.path.dirname(os.path.dirname(__file__))
_MACHINERY = (*(os.path.join(_PACKAGE, part) + os.sep for part in ("core", "ops", "autograd")),
              os.path.join(_PACKAGE, "tensor.py"))


def forward_stack():
    """The current stack, formatted as ``traceback.format_stack`` does, without nbgrad's
    own operation frames at its end."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_MACHINERY):
        frames.pop()
    return traceback.format_list(frames)


def report_failure(node):
    """Warn, as PyTorch does, with the forward stack of the node whose backward failed."""
    stack = "".join(node.metadata.get("traceback_", ()))
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                  f"error:\n{stack}", UserWarning, stacklevel=4)


def check_nan(node, grad_inputs):
    """PyTorch's ``check_nan``: a node's backward must not return nan."""
    for position, grad in enumerate(grad_inputs):
        if grad is not None and grad._data.dtype.kind in "fc" and _has_nan(grad._data):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its "
                               f"{position}th output.")


def _has_nan(array):
    return bool(array_module(array).isnan(array).any())
