"""Containers: ``Sequential`` (a pipeline), ``ModuleList`` and ``ModuleDict`` (layers by
position or by name), ``ParameterList`` and ``ParameterDict``.

Their children are registered under the names ``"0"``, ``"1"``, ..., which is why a
``Sequential``'s parameters are called ``"0.weight"``, ``"0.bias"``, ``"2.weight"``...
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from itertools import islice

from ..tensor import Tensor
from .module import Module
from .parameter import Parameter

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


def _index(container, idx):
    """A valid non-negative position for ``idx`` (negative counts from the end)."""
    size = len(container)
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class Sequential(Module):
    """Modules applied one after another: ``Sequential(a, b)(x)`` is ``b(a(x))``."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def forward(self, input):
        """Apply the modules in order, each to the previous one's output."""
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return next(islice(self._modules.values(), _index(self, idx), None))

    def __setitem__(self, idx, module):
        key = next(islice(self._modules.keys(), _index(self, idx), None))
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, next(islice(self._modules.keys(), _index(self, idx), None)))
        # renumber, so that the names stay 0, 1, 2, ...
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{str(type(other))} is given.")
        return Sequential(*self, *other)

    def append(self, module):
        """Add ``module`` at the end; returns the Sequential."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential):
        """Add each module of ``sequential`` at the end; returns the Sequential."""
        for layer in sequential:
            self.append(layer)
        return self

    def insert(self, index, module):
        """Insert ``module`` at position ``index`` (negative counts from the end)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]


class ModuleList(Module):
    """A list whose modules are registered (so ``parameters()`` sees them); no ``forward``."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_index(self, idx))]

    def __setitem__(self, idx, module):
        setattr(self, str(_index(self, idx)), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_index(self, idx)))
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def append(self, module):
        """Add ``module`` at the end; returns the list."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        """Add each module of ``modules`` (an iterable) at the end; returns the list."""
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def insert(self, index, module):
        """Insert ``module`` before position ``index``."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]


class ModuleDict(Module):
    """A dict whose modules are registered under their keys (in insertion order); no
    ``forward``."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove the module under ``key`` and return it."""
        module = self[key]
        del self[key]
        return module

    def keys(self):
        """The keys, in order."""
        return self._modules.keys()

    def items(self):
        """``(key, module)`` pairs, in order."""
        return self._modules.items()

    def values(self):
        """The modules, in order."""
        return self._modules.values()

    def update(self, modules) -> None:
        """Add (or replace) the modules of a mapping or of an iterable of ``(key, module)``."""
        pairs = modules.items() if hasattr(modules, "items") else modules
        for j, pair in enumerate(pairs):
            if not hasattr(modules, "items") and len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length "
                                 f"{len(pair)}; 2 is required")
            key, module = pair
            self[key] = module


def _as_parameter(value):
    """PyTorch's containers turn a plain tensor into a ``Parameter``."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(name, value, tensor_name):
    if isinstance(value, Tensor):
        size = "x".join(str(s) for s in value.shape)
        device = f" ({value.device})" if value.device.type == "cuda" else ""
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        return f"  ({name}): {kind} containing: [{tensor_name(value)} of size {size}{device}]"
    return f"  ({name}): Object of type: {type(value).__name__}"


class ParameterList(Module):
    """A list of parameters, registered under ``"0"``, ``"1"``, ... (plain tensors become
    ``Parameter``s)."""

    def __init__(self, values=None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(self, idx)))

    def __setitem__(self, idx, param) -> None:
        setattr(self, str(_index(self, idx)), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value) -> "ParameterList":
        """Add ``value`` at the end."""
        self._size += 1
        setattr(self, str(self._size - 1), _as_parameter(value))
        return self

    def extend(self, values) -> "ParameterList":
        """Add each of ``values`` at the end."""
        for value in values:
            self.append(value)
        return self

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def extra_repr(self):
        return "\n".join(_describe(k, p, lambda t: t.dtype) for k, p in enumerate(self))


class ParameterDict(Module):
    """A dict of parameters registered under their keys (plain tensors become
    ``Parameter``s)."""

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}  # (an ordered set)
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def keys(self):
        """The keys, in order."""
        return self._keys.keys()

    def items(self):
        """``(key, parameter)`` pairs, in order."""
        return ((k, self[k]) for k in self._keys)

    def values(self):
        """The parameters, in order."""
        return (self[k] for k in self._keys)

    def pop(self, key: str):
        """Remove the parameter under ``key`` and return it."""
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        """Remove every parameter."""
        for key in list(self._keys):
            del self[key]

    def get(self, key: str, default=None):
        """The parameter under ``key``, or ``default``."""
        return self[key] if key in self else default

    def update(self, parameters) -> None:
        """Add (or replace) the parameters of a mapping or an iterable of pairs."""
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        return "\n".join(_describe(k, p, lambda t: t.type()) for k, p in self.items())
