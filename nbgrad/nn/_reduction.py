"""PyTorch's deprecated ``size_average`` and ``reduce`` arguments, read as a ``reduction``
(``torch.nn._reduction.legacy_get_string``): shared by the loss functions and layers."""

from __future__ import annotations

import warnings


def legacy_reduction(size_average: bool | None, reduce: bool | None,
                     stacklevel: int = 3) -> str:
    """The ``reduction`` that ``size_average`` and ``reduce`` spell (each ``True`` when
    ``None``), with PyTorch's deprecation warning; ``stacklevel`` points it at the caller."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else ("sum" if reduce else "none")
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
        stacklevel=stacklevel,
    )
    return ret
