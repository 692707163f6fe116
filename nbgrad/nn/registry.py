"""A module's registry of parameters, buffers or children, mirrored into its ``__dict__``.

PyTorch keeps ``self.weight`` only in ``_parameters`` and finds it there through
``Module.__getattr__``: a Python call every time a layer reads its weight, on every forward
pass (measured: 3% of a small MLP's training step). nbgrad keeps each entry in the module's
``__dict__`` as well, so the read is an ordinary attribute lookup, and ``__getattr__`` is
left for names that are not there.

The registry is the truth and the ``__dict__`` entry its copy: every way of changing the
registry (through the module, ``module._parameters[name] = p``, ``del``, ``pop``,
``update``, ...) updates the copy. A copy or a pickle of a registry is a plain dict, which
the module it is restored into turns back into a registry of its own (``Module.__setstate__``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


class Registry(dict[str, Any]):
    """A dict of names to parameters (or buffers, or modules) that mirrors itself into
    ``attributes``, the owning module's ``__dict__``."""

    __slots__ = ("_attributes",)

    def __init__(self, attributes: dict[str, Any],
                 entries: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        super().__init__()
        self._attributes = attributes
        self.update(entries)

    def __setitem__(self, name: str, value: Any) -> None:
        super().__setitem__(name, value)
        self._attributes[name] = value

    def __delitem__(self, name: str) -> None:
        super().__delitem__(name)
        self._attributes.pop(name, None)

    def pop(self, name: str, *default: Any) -> Any:
        if name in self:
            self._attributes.pop(name, None)
        return super().pop(name, *default)

    def popitem(self) -> tuple[str, Any]:
        name, value = super().popitem()
        self._attributes.pop(name, None)
        return name, value

    def clear(self) -> None:
        for name in self:
            self._attributes.pop(name, None)
        super().clear()

    def setdefault(self, name: str, default: Any = None) -> Any:
        if name not in self:
            self[name] = default
        return self[name]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for name, value in dict(*args, **kwargs).items():
            self[name] = value

    # `|=` returns the registry itself, `|` a new dict: mypy wants their types to agree
    def __ior__(  # type: ignore[misc, override]
            self, other: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> Registry:
        self.update(other)
        return self

    def detach(self) -> None:
        """Stop mirroring (the module has replaced this registry): its entries leave the
        module's ``__dict__``, and later changes to it no longer reach the module."""
        for name, value in self.items():
            if self._attributes.get(name) is value:
                del self._attributes[name]
        self._attributes = {}

    def __reduce__(self) -> tuple[type[dict], tuple[dict[str, Any]]]:
        return (dict, (dict(self),))
