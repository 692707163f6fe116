"""Utilities beside the autograd core, as in ``torch.utils``: ``data`` (datasets, samplers
and the ``DataLoader``) and ``dlpack`` (``to_dlpack`` / ``from_dlpack``)."""

from . import data, dlpack

__all__ = ["data", "dlpack"]
