"""``torch.utils.dlpack``'s two functions: ``to_dlpack`` (a tensor's legacy capsule) and
``from_dlpack`` (a tensor from a capsule or any object with ``__dlpack__``)."""

from __future__ import annotations

from ..interop import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
