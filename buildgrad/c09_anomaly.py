# Generated from solutions/09_debugging.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 09: anomaly detection, to find the line of the forward pass behind a failing node.

While ``detect_anomaly()`` is on, every node made keeps the stack of the forward call that
made it, in ``node.metadata["traceback_"]`` as in PyTorch. When a node fails in backward,
the engine reports that stack in a warning before the error goes on; with ``check_nan`` a
node whose gradients hold nan fails too. Off, it costs one flag read per node made.
"""

import contextlib
import re
import sys
import traceback
import warnings

import numpy as np

from buildgrad.c08_training import *  # noqa: F403  (chapter 09 continues chapter 08)


class AnomalyMode:
    enabled = False    # PyTorch keeps this switch for the whole process, as here
    check_nan = True


def is_anomaly_enabled():
    return AnomalyMode.enabled


def is_anomaly_check_nan_enabled():
    return AnomalyMode.check_nan


Node._metadata = None


@extend(Node)
@property
def metadata(self):
    """PyTorch's ``grad_fn.metadata``: a dict of the node's own, made when first read."""
    if self._metadata is None:
        self._metadata = {}
    return self._metadata


_PACKAGE_MODULE = re.compile(r"buildgrad\.c\d\d_\w+")


def _in_package(frame):
    """Whether ``frame`` runs the package's own code: a chapter's module, or this module
    unless it is a notebook's (whose cells share ``__main__`` with the program)."""
    name = frame.f_globals.get("__name__", "")
    return bool(_PACKAGE_MODULE.fullmatch(name)) or (frame.f_globals is globals()
                                                     and name != "__main__")


def forward_stack():
    """The stack of the forward call running now, as ``traceback.format_stack()`` gives it,
    ending at the line of the program that called the package: the package's own frames,
    this function's and its caller's are left out."""
    frame = sys._getframe(2)
    while frame is not None and _in_package(frame):
        frame = frame.f_back
    return traceback.format_stack(frame) if frame is not None else []


ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime "
                   "and should only be enabled for debugging.")


@contextlib.contextmanager
def detect_anomaly(check_nan=True):
    """Anomaly detection on inside the block: PyTorch's ``torch.autograd.detect_anomaly``."""
    warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=3)
    before = AnomalyMode.enabled, AnomalyMode.check_nan
    AnomalyMode.enabled, AnomalyMode.check_nan = True, check_nan
    try:
        yield
    finally:
        AnomalyMode.enabled, AnomalyMode.check_nan = before


_init_without_anomaly = Node.__init__


@extend(Node)
def __init__(self, next_functions):
    _init_without_anomaly(self, next_functions)
    if AnomalyMode.enabled:
        self.metadata["traceback_"] = forward_stack()


_call_without_anomaly = Node.__call__


@extend(Node)
def __call__(self, grad):
    """While anomaly detection is on, a node that fails is reported before its error goes on."""
    try:
        grads = _call_without_anomaly(self, grad)
        if AnomalyMode.enabled and AnomalyMode.check_nan:
            for i, ((next_node, _), g) in enumerate(zip(self.next_functions, grads)):
                if next_node is not None and g is not None and np.isnan(g).any():
                    raise RuntimeError(f"Function '{self.name()}' returned nan values in its "
                                       f"{i}th output.")
    except Exception:
        if AnomalyMode.enabled:
            stack = self.metadata.get("traceback_")
            if stack is None:
                warnings.warn(f"Error detected in {self.name()}. No forward pass information "
                              "available. Enable detect anomaly during forward pass for more "
                              "information.", UserWarning)
            else:
                warnings.warn(f"Error detected in {self.name()}. Traceback of forward call "
                              "that caused the error:\n" + "".join(stack), UserWarning)
        raise
    return grads


__all__ = public_names(globals())
