"""The ``dim`` arguments of reductions: which axes, and PyTorch's NumPy spellings of them.

Below every reduction (``reductions.py``, ``nondifferentiable.py``, ``scans.py``, ...), so
that each can read its dims without importing the others.
"""

from __future__ import annotations

from .. import dtypes

__all__ = ["broadcast_axes", "normalize_dims", "numpy_spelling"]


def normalize_dims(dim, ndim):
    """``dim`` (None, an int, or a sequence) as a sorted tuple of non-negative axes.

    A 0-d tensor accepts dim 0 and -1 (PyTorch's ``maybe_wrap_dim`` treats it as having one
    dimension) but has no axis to reduce: its axes are ``()``, so its reduction is itself.
    """
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        axes = []
        for d in dim:
            axis = dtypes.dim_index(d, ndim)
            if axis in axes:
                raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
            axes.append(axis)
        if not axes:  # dim=(): every dimension, as in PyTorch
            return tuple(range(ndim))
        axes = tuple(sorted(axes))
    else:
        axes = (dtypes.dim_index(dim, ndim),)
    return axes if ndim else ()


def broadcast_axes(shape, size):
    """The axes of ``shape`` that broadcasting ``size`` up to it added (leading ones) or
    stretched (from 1): summing over them sums ``shape`` back down to ``size``."""
    lead = len(shape) - len(size)
    return tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                     if s == 1 and shape[lead + i] != 1)


def numpy_spelling(op, dim, axis, keepdim=False, keepdims=None):
    """``(dim, keepdim)`` from PyTorch's NumPy spellings, ``axis=`` for ``dim=`` and
    ``keepdims=`` for ``keepdim=``; both spellings at once is PyTorch's TypeError.

    Called only when an alias was given (``if axis is not None or keepdims is not None``),
    so that calls without one pay two comparisons and nothing else."""
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{op}() got an unexpected keyword argument 'axis'")
        dim = axis
    if keepdims is not None:
        if keepdim:
            raise TypeError(f"{op}() got an unexpected keyword argument 'keepdims'")
        keepdim = keepdims
    return dim, keepdim
