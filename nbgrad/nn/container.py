"""Containers: ``Sequential`` (a pipeline), ``ModuleList`` and ``ModuleDict`` (layers by
position or by name), ``ParameterList`` and ``ParameterDict``.

Their children are registered under the names ``"0"``, ``"1"``, ..., which is why a
``Sequential``'s parameters are called ``"0.weight"``, ``"0.bias"``, ``"2.weight"``...
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from itertools import islice
from typing import TYPE_CHECKING, Any, overload

from ..tensor import Tensor
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


def _index(container, idx):
    """A valid non-negative position for ``idx`` (negative counts from the end)."""
    size = len(container)
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class Sequential(Module):
    """Modules applied one after another: ``Sequential(a, b)(x)`` is ``b(a(x))``.

    Parameters
    ----------
    *args : Module, or one OrderedDict of str to Module
        The modules, registered as ``"0"``, ``"1"``, ...; or a single ``OrderedDict``,
        whose keys become their names.
    """

    @overload
    def __init__(self, *args: Module) -> None: ...

    @overload
    def __init__(self, arg: OrderedDict[str, Module], /) -> None: ...

    # (Any: which of the two signatures above is told apart at run time)
    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, arg in enumerate(args):
                self.add_module(str(idx), arg)

    def forward(self, input: Any) -> Any:
        """Apply the modules in order, each to the previous one's output.

        Parameters
        ----------
        input : Any
            What the first module takes (usually a Tensor).

        Returns
        -------
        Any
            What the last module returns; ``input`` itself when there are none.
        """
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx: int | slice) -> Module | Sequential:
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return next(islice(self._modules.values(), _index(self, idx), None))

    def __setitem__(self, idx: int, module: Module) -> None:
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

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{str(type(other))} is given.")
        return Sequential(*self, *other)

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end.

        Parameters
        ----------
        module : Module

        Returns
        -------
        Sequential
            This Sequential.
        """
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Add each module of ``sequential`` (any iterable of modules) at the end.

        Parameters
        ----------
        sequential : iterable of Module

        Returns
        -------
        Sequential
            This Sequential.
        """
        for layer in sequential:
            self.append(layer)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Insert ``module`` at position ``index``, shifting the later ones up by one.

        Parameters
        ----------
        index : int
            From ``-len(self)`` to ``len(self)``; negative counts from the end.
        module : Module

        Returns
        -------
        Sequential
            This Sequential.

        Raises
        ------
        AssertionError
            When ``module`` is not a Module (as PyTorch).
        IndexError
            When ``index`` is out of range.
        """
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

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]


class ModuleList(Module):
    """A list whose modules are registered (so ``parameters()`` sees them); no ``forward``.

    Parameters
    ----------
    modules : iterable of Module, optional
        The first modules, registered as ``"0"``, ``"1"``, ...
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Module | ModuleList:
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_index(self, idx))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_index(self, idx)), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_index(self, idx)))
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end.

        Parameters
        ----------
        module : Module

        Returns
        -------
        ModuleList
            This list.
        """
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Add each module of ``modules`` at the end.

        Parameters
        ----------
        modules : iterable of Module

        Returns
        -------
        ModuleList
            This list.
        """
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``, shifting the later ones up by one.

        Parameters
        ----------
        index : int
            From 0 to ``len(self)``; a negative one raises ``KeyError``, as in PyTorch.
        module : Module
        """
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]


class ModuleDict(Module):
    """A dict whose modules are registered under their keys (in insertion order); no
    ``forward``.

    Parameters
    ----------
    modules : mapping of str to Module, or iterable of (str, Module) pairs, optional
        The first modules, added as by ``update``.
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None
                 ) -> None:
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

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove the module under ``key`` and return it.

        Parameters
        ----------
        key : str

        Returns
        -------
        Module

        Raises
        ------
        KeyError
            When there is no module under ``key``.
        """
        module = self[key]
        del self[key]
        return module

    def keys(self) -> KeysView[str]:
        """The keys, in order.

        Returns
        -------
        KeysView of str
        """
        return self._modules.keys()

    def items(self) -> ItemsView[str, Module]:
        """``(key, module)`` pairs, in order.

        Returns
        -------
        ItemsView of (str, Module)
        """
        return self._modules.items()

    def values(self) -> ValuesView[Module]:
        """The modules, in order.

        Returns
        -------
        ValuesView of Module
        """
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add (or replace) the modules of a mapping or of an iterable of ``(key, module)``.

        Parameters
        ----------
        modules : mapping of str to Module, or iterable of (str, Module) pairs
            A mapping is anything with an ``items`` method; new keys are added in its order.

        Raises
        ------
        ValueError
            When an element of an iterable is not a pair.
        """
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
    ``Parameter`` objects).

    Parameters
    ----------
    values : iterable, optional
        The first entries: tensors (made ``Parameter`` objects) or, as PyTorch allows, other objects,
        kept as plain attributes.
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return self.__class__([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(self, idx)))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, str(_index(self, idx)), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def append(self, value: Any) -> ParameterList:
        """Add ``value`` at the end (a plain tensor becomes a ``Parameter``).

        Parameters
        ----------
        value : Tensor or Any

        Returns
        -------
        ParameterList
            This list.
        """
        self._size += 1
        setattr(self, str(self._size - 1), _as_parameter(value))
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Add each of ``values`` at the end, as ``append`` does.

        Parameters
        ----------
        values : iterable

        Returns
        -------
        ParameterList
            This list.
        """
        for value in values:
            self.append(value)
        return self

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def extra_repr(self) -> str:
        """One line per entry: its kind, dtype and size (PyTorch's format).

        Returns
        -------
        str
        """
        return "\n".join(_describe(k, p, lambda t: t.dtype) for k, p in enumerate(self))


class ParameterDict(Module):
    """A dict of parameters registered under their keys (plain tensors become
    ``Parameter`` objects).

    Parameters
    ----------
    parameters : mapping of str to Tensor, or iterable of (str, Tensor) pairs, optional
        The first entries, added as by ``update``.
    """

    def __init__(self, parameters: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None
                 ) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}  # (an ordered set)
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> KeysView[str]:
        """The keys, in order.

        Returns
        -------
        KeysView of str
        """
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(key, parameter)`` pairs, in order.

        Returns
        -------
        iterator of (str, Parameter)
        """
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        """The parameters, in order.

        Returns
        -------
        iterator of Parameter
        """
        return (self[k] for k in self._keys)

    def pop(self, key: str) -> Any:
        """Remove the parameter under ``key`` and return it.

        Parameters
        ----------
        key : str

        Returns
        -------
        Parameter

        Raises
        ------
        KeyError
            When there is no parameter under ``key``.
        """
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        """Remove every parameter."""
        for key in list(self._keys):
            del self[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The parameter under ``key``, or ``default`` when there is none.

        Parameters
        ----------
        key : str
        default : Any

        Returns
        -------
        Parameter or Any
        """
        return self[key] if key in self else default

    def update(self, parameters: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
        """Add (or replace) the parameters of a mapping or an iterable of pairs.

        Parameters
        ----------
        parameters : mapping of str to Tensor, or iterable of (str, Tensor) pairs
            A mapping is anything with an ``items`` method; plain tensors become
            ``Parameter`` objects.
        """
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        """One line per entry: its kind, type and size (PyTorch's format).

        Returns
        -------
        str
        """
        return "\n".join(_describe(k, p, lambda t: t.type()) for k, p in self.items())
