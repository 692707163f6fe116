"""Anomaly detection: ``detect_anomaly``, ``set_detect_anomaly`` (PyTorch's
``torch.autograd.anomaly_mode``). What it changes is in ``core/anomaly.py``."""

from __future__ import annotations

import warnings

from ..core.anomaly import anomaly

__all__ = ["detect_anomaly", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
           "set_detect_anomaly"]


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on.

    Returns
    -------
    bool
    """
    return anomaly.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection, when on, also raises on a backward that returns nan.

    Returns
    -------
    bool
    """
    return anomaly.check_nan


class detect_anomaly:
    """Context manager that turns anomaly detection on inside it.

    While on, every node records the stack of the forward call that created it
    (``grad_fn.metadata["traceback_"]``); when a node's backward raises, a ``UserWarning``
    "Error detected in <Node>. Traceback of forward call that caused the error:" shows
    that stack, and the in-place error's hint points to it. With ``check_nan`` a node
    whose backward returns nan raises "Function '<Node>' returned nan values in its
    <i>th output.". Creating it warns that it slows things down, as PyTorch's does.

    Parameters
    ----------
    check_nan : bool
        Also raise on nan gradients (default True).
    """

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        self.previous = (anomaly.enabled, anomaly.check_nan)  # at creation, as PyTorch
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the "
                      "runtime and should only be enabled for debugging.", UserWarning,
                      stacklevel=2)

    def __enter__(self):
        anomaly.enabled, anomaly.check_nan = True, self.check_nan

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.previous
        return False


class set_detect_anomaly:
    """Turn anomaly detection on or off, at once; as a context manager it restores the
    previous mode on exit.

    Parameters
    ----------
    mode : bool
        On (True) or off (False).
    check_nan : bool
        Also raise on nan gradients while on (default True).
    """

    def __init__(self, mode: bool, check_nan: bool = True):
        self.previous = (anomaly.enabled, anomaly.check_nan)
        anomaly.enabled, anomaly.check_nan = mode, check_nan

    def __enter__(self):
        pass  # the call already switched it

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.previous
        return False
