"""``nbgrad.backends``: PyTorch's switches for its compute libraries, as far as programs
read them. nbgrad computes with NumPy (CPU) and CuPy (CUDA): there is no MPS backend, and
the cuDNN flags are kept (so that code setting them runs) but change nothing."""

from __future__ import annotations

from . import cudnn, mps

__all__ = ["cudnn", "mps"]
