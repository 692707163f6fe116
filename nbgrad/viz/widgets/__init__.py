"""One interactive widget per chapter; each plots gradients that nbgrad computes."""

from .base import GradientWidget

__all__ = ["GradientWidget"]
