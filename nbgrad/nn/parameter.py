"""``nn.Parameter`` is :class:`nbgrad.Parameter` (defined with ``Tensor`` in ``tensor.py``).

A parameter is a leaf tensor that requires grad by default; assigning one to a
``Module`` attribute registers it, so that ``parameters()`` and optimizers find it.
"""

from __future__ import annotations

from ..tensor import Parameter

__all__ = ["Parameter"]
