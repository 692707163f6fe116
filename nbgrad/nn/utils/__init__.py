"""Utilities for ``nn``, as in ``torch.nn.utils``: ``rnn`` (``pad_sequence``)."""

from ... import missing as _missing
from . import rnn

__all__ = ["rnn"]


# A name nbgrad lacks: the AttributeError says whether PyTorch has it (missing.py).
__getattr__ = _missing.module_getattr(__name__)
