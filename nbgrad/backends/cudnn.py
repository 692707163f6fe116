"""``nbgrad.backends.cudnn``: PyTorch's cuDNN flags.

nbgrad has no cuDNN kernels (CuPy computes its GPU operations), so the flags are plain
module attributes that programs may set and read (``cudnn.benchmark = True`` is common in
training scripts); they change nothing. ``is_available()`` is False and ``version()`` is
None, as PyTorch reports where cuDNN is missing.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["allow_tf32", "benchmark", "benchmark_limit", "deterministic", "enabled", "flags",
           "is_available", "version"]

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """Whether cuDNN can be used: never by nbgrad.

    Returns
    -------
    bool
        False.
    """
    return False


def version() -> None:
    """cuDNN's version: None, since nbgrad uses none.

    Returns
    -------
    None
    """


@contextlib.contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10,
          deterministic: bool = False, allow_tf32: bool = True) -> Iterator[None]:
    """Set every flag (those not given to PyTorch's defaults for ``flags``) inside the block,
    and restore them after it, as ``torch.backends.cudnn.flags`` does.

    Parameters
    ----------
    enabled, benchmark, benchmark_limit, deterministic, allow_tf32
        The flags' values inside the block.

    Yields
    ------
    None
    """
    module = globals()
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    previous = {name: module[name] for name in names}
    module.update(enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit,
                  deterministic=deterministic, allow_tf32=allow_tf32)
    try:
        yield
    finally:
        module.update(previous)
