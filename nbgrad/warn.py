"""Which warnings nbgrad gives, and how often: PyTorch's, never NumPy's.

*NumPy's floating-point warnings.* PyTorch is silent when ``x / 0``, ``log(0)`` or
``inf - inf`` makes an inf or a nan; NumPy warns (``RuntimeWarning: divide by zero
encountered in log``). NumPy attributes such a warning to the Python frame that called
the ufunc, which for a tensor operation is a module of nbgrad. So one filter, installed at
import, ignores exactly the RuntimeWarnings raised from nbgrad's own modules, and leaves
your own NumPy code warning as before. Python consults the filters only when a warning is
raised: the common path pays nothing (``np.errstate`` around every operation would cost a
microsecond or two each time).

What the filter cannot reach, and what wins over it:

* NumPy functions written in Python (``ndarray.sum``, ``ndarray.mean``) warn from
  NumPy's own frames: nbgrad calls the ufunc itself there (``np.add.reduce``);
* ``warnings.catch_warnings()`` restores, on exit, the filter list it found on entry, and
  pytest does so around every test: a list that nbgrad's filter was never put in. So the
  functions that make tensors (``tensor``, ``zeros``, ``rand``, ...) check that the list in
  force is the one the filter was last put in, and put it there when it is missing: one
  comparison per tensor made, nothing per operation;
* a filter added to the list after nbgrad's, such as ``warnings.simplefilter("error")``,
  comes first and decides: you asked for it. ``python -W error`` installs its filter
  before the import, so nbgrad's comes first and nbgrad stays as silent as PyTorch.

*Warnings given once.* Some of PyTorch's warnings are given once per process
(``TORCH_WARN_ONCE``) unless ``set_warn_always(True)``; ``warn_once`` does the same.
"""

from __future__ import annotations

import warnings

NUMPY_FILTER = dict(action="ignore", category=RuntimeWarning, module=r"nbgrad(\.|$)")

_filtered = [None, None]  # [the filter list nbgrad's filter was last checked in, the filter]
_warn_always = [False]
_given: set[str] = set()  # the messages warn_once has given


def silence_numpy_warnings():
    """Ignore NumPy's RuntimeWarnings raised from nbgrad's own modules (done at import).

    Needed again only after ``warnings.resetwarnings()``; a replaced filter list is
    taken care of (``keep_numpy_warnings_silenced``).
    """
    warnings.filterwarnings(**NUMPY_FILTER)
    _filtered[:] = warnings.filters, warnings.filters[0]


def keep_numpy_warnings_silenced():
    """Put nbgrad's filter back when the filter list in force was replaced by one without
    it (by ``catch_warnings`` or pytest); called where tensors are made."""
    filters = warnings.filters
    if filters is not _filtered[0]:
        if _filtered[1] in filters:
            _filtered[0] = filters
        else:
            silence_numpy_warnings()


def set_warn_always(b: bool) -> None:
    """Give the warnings PyTorch gives once per process every time (``b=True``) or once
    (``b=False``, the default), as ``torch.set_warn_always`` does.

    Parameters
    ----------
    b : bool
        Whether to warn every time.
    """
    _warn_always[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """Whether ``set_warn_always(True)`` is in force.

    Returns
    -------
    bool
    """
    return _warn_always[0]


def warn_once(message, category=UserWarning, stacklevel=2):
    """Warn with ``message`` the first time only (every time under ``set_warn_always``).

    Parameters
    ----------
    message : str
    category : type
        The warning's class.
    stacklevel : int
        As for ``warnings.warn``, counted from the caller of ``warn_once``.
    """
    if message in _given and not _warn_always[0]:
        return
    _given.add(message)
    warnings.warn(message, category, stacklevel=stacklevel + 1)
