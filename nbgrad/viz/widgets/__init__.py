"""One interactive widget per chapter; each plots gradients that nbgrad computes."""

from __future__ import annotations

from .base import GradientWidget

__all__ = ["GradientWidget"]
