"""Utilities beside the autograd core, as in ``torch.utils``: ``data`` (datasets, samplers
and the ``DataLoader``) and ``dlpack`` (``to_dlpack`` / ``from_dlpack``)."""

from __future__ import annotations

from .. import missing as _missing
from . import data, dlpack

__all__ = ["data", "dlpack"]


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
