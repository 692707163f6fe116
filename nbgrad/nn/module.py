"""``Module``: the base class of every layer and model.

A module is a Python object that *registers* what it is made of. Assigning a
``Parameter`` or another ``Module`` to an attribute (``self.fc = Linear(2, 3)``) files
it under ``_parameters`` or ``_modules`` (``__setattr__`` decides which). That registry
is what everything else walks:

* ``parameters()`` / ``named_parameters()``: this module's parameters, then each child's,
  depth first, named with dots (``"0.weight"``, ``"encoder.fc.bias"``), each once;
* ``state_dict()`` / ``load_state_dict()``: the same names mapped to detached tensors;
* ``train()`` / ``eval()``, ``zero_grad()``, ``to()``, ``requires_grad_()``, ``repr()``.

Calling a module (``model(x)``) runs its ``forward``, with any forward hooks around it.
Everything follows ``torch.nn.Module``, names and error messages included, with one
difference inside: each registry also keeps its entries in the instance ``__dict__``
(see ``registry.py``), so that ``self.weight`` is an ordinary attribute lookup rather
than a call to ``__getattr__``.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Self, cast

from ..core.grad_mode import no_grad
from ..core.node import RemovableHandle, add_hook
from ..ops.conversion import _parse as _parse_to
from ..tensor import Parameter, Tensor
from .hooks import BackwardHook
from .registry import Registry

if TYPE_CHECKING:
    from ..types import DeviceLike

_REGISTRIES = ("_parameters", "_buffers", "_modules")


def typename(obj: object) -> str:
    """``torch.typename``: ``"nbgrad.FloatTensor"`` for a tensor, else the qualified class name."""
    if isinstance(obj, Tensor):
        return cast(str, obj.type())  # type() without a dtype is the name
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    if module in ("builtins", "__builtin__", None):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def _addindent(text, spaces):
    """Indent every line but the first (how a child's repr nests inside its parent's)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    lines = [(spaces * " ") + line if line.strip() else "" for line in lines]
    return first + "\n" + "\n".join(lines)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict(strict=False)`` returns."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _register(hooks, with_kwargs_ids, hook, prepend, with_kwargs):
    handle = add_hook(hooks, hook)
    if with_kwargs:
        with_kwargs_ids.add(handle.id)
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _forward_unimplemented(self: Module, *input: Any) -> Any:
    """The computation of the module, run by ``module(*input)``: every subclass defines it.

    Call the module rather than ``forward`` itself: the call also runs the hooks.

    Parameters
    ----------
    *input
        What the module is called with (each subclass names its own parameters).

    Returns
    -------
    Any
        The module's output, usually a tensor.
    """
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


def clear_grad(param: Tensor, set_to_none: bool = True) -> None:
    """Forget a parameter's gradient: ``grad = None`` (default), or fill it with zeros
    (detached first, so a gradient built with ``create_graph=True`` leaves its graph)."""
    grad = param._grad
    if grad is None:
        return
    if set_to_none:
        param._grad = None
        return
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()


class Module:
    """Base class for all neural network modules; subclasses define ``forward``.

    A subclass calls ``super().__init__()`` first, then assigns its parameters and
    submodules as attributes: they are registered (see the module's docstring).

    Parameters
    ----------
    *args, **kwargs
        None are accepted (``TypeError``, as in PyTorch): a subclass takes its own.
    """

    training: bool
    forward = _forward_unimplemented

    def __init__(self, *args: Any, **kwargs: Any):
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        # object.__setattr__: these must exist before our own __setattr__ can work.
        set_ = super().__setattr__
        set_("training", True)
        set_("_parameters", Registry(self.__dict__))
        set_("_buffers", Registry(self.__dict__))
        set_("_non_persistent_buffers_set", set())
        set_("_modules", Registry(self.__dict__))
        set_("_forward_pre_hooks", OrderedDict())
        set_("_forward_hooks", OrderedDict())
        set_("_forward_pre_hooks_with_kwargs", set())
        set_("_forward_hooks_with_kwargs", set())
        set_("_backward_hooks", OrderedDict())
        set_("_backward_pre_hooks", OrderedDict())

    # -- calling ----------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks):
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def _call_with_hooks(self, args, kwargs):
        for key, hook in tuple(self._forward_pre_hooks.items()):
            if key in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        backward_hook = None
        if self._backward_hooks or self._backward_pre_hooks:
            backward_hook = BackwardHook(self, self._backward_hooks, self._backward_pre_hooks)
            args = backward_hook.setup_input_hook(args)
        output = self.forward(*args, **kwargs)
        for key, hook in tuple(self._forward_hooks.items()):
            if key in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        if backward_hook is not None:
            output = backward_hook.setup_output_hook(output)
        return output

    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Run ``hook(module, args)`` before ``forward``; it may return new args.

        Parameters
        ----------
        hook : callable
            ``hook(module, args)``, where ``args`` is the tuple of positional arguments;
            it returns None, or the new args (a tuple, or one value).
        prepend : bool
            Run it before the forward pre-hooks already registered, not after.
        with_kwargs : bool
            Call ``hook(module, args, kwargs)`` instead, which returns None or a tuple
            ``(args, kwargs)``.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        return _register(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs, hook,
                         prepend, with_kwargs)

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False) -> RemovableHandle:
        """Run ``hook(module, args, output)`` after ``forward``; it may return a new output.

        Parameters
        ----------
        hook : callable
            ``hook(module, args, output)``; what it returns, unless None, replaces the
            output.
        prepend : bool
            Run it before the forward hooks already registered, not after.
        with_kwargs : bool
            Call ``hook(module, args, kwargs, output)`` instead.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        return _register(self._forward_hooks, self._forward_hooks_with_kwargs, hook, prepend,
                         with_kwargs)

    def register_full_backward_hook(self, hook: Callable[..., Any],
                                    prepend: bool = False) -> RemovableHandle:
        """Run ``hook(module, grad_input, grad_output)`` once the gradients with respect to
        the module's inputs are computed; it may return a replacement ``grad_input``.

        Both are tuples with one entry per positional argument (or output), ``None`` where
        that is not a tensor or gets no gradient; as in PyTorch, the outputs are then aliases
        recorded behind a ``BackwardHookFunctionBackward`` node (see ``nn/hooks.py``).

        Parameters
        ----------
        hook : callable
            ``hook(module, grad_input, grad_output)``, returning None or a new
            ``grad_input``.
        prepend : bool
            Run it before the backward hooks already registered, not after.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        return _register(self._backward_hooks, set(), hook, prepend, False)

    def register_full_backward_pre_hook(self, hook: Callable[..., Any],
                                        prepend: bool = False) -> RemovableHandle:
        """Run ``hook(module, grad_output)`` once the gradients with respect to the module's
        outputs are known; it may return a replacement ``grad_output``.

        Parameters
        ----------
        hook : callable
            ``hook(module, grad_output)``, returning None or a new ``grad_output``.
        prepend : bool
            Run it before the backward pre-hooks already registered, not after.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        return _register(self._backward_pre_hooks, set(), hook, prepend, False)

    # -- registration -----------------------------------------------------------------
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add ``param`` (a ``Parameter``, or ``None``) as the parameter ``name``.

        Parameters
        ----------
        name : str
            Not empty, without ``.``, and not an attribute the module already has.
        param : Parameter or None

        Raises
        ------
        TypeError, KeyError, ValueError
            As PyTorch: for a plain tensor, a bad name, a name already taken, or a
            parameter that is not a leaf.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(nbgrad.nn.Parameter or None required)"
            )
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        else:
            self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not a parameter (such as ``running_mean``).

        It then moves and casts with the module, and is an attribute like a parameter.

        Parameters
        ----------
        name : str
            Not empty, without ``.``, and not an attribute the module already has.
        tensor : Tensor or None
        persistent : bool
            Save it in ``state_dict`` (and expect it in ``load_state_dict``).
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(nbgrad Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add ``module`` (or ``None``) as the child ``name``: its parameters become this
        module's, under ``name.``. ``register_module`` is the same.

        Parameters
        ----------
        name : str
            Not empty, without ``.``, and not an attribute the module already has.
        module : Module or None
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        def remove_from(*containers):
            for c in containers:
                if name in c:
                    if isinstance(c, dict):
                        del c[name]
                    else:
                        c.discard(name)

        params = self.__dict__.get("_parameters")
        if name in _REGISTRIES and isinstance(self.__dict__.get(name), Registry):
            self._replace_registry(name, value)
        elif isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(nbgrad.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{typename(value)}' as child module '{name}' "
                        "(nbgrad.nn.Module or None expected)"
                    )
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            f"cannot assign '{typename(value)}' as buffer '{name}' "
                            "(nbgrad Tensor or None expected)"
                        )
                    buffers[name] = value
                else:
                    super().__setattr__(name, value)

    def _replace_registry(self, name, entries):
        """``self._modules = OrderedDict(...)``: the new entries, mirrored; the old ones go."""
        if not isinstance(entries, Mapping):
            raise TypeError(f"cannot assign '{typename(entries)}' as {name} (a dict expected)")
        self.__dict__[name].detach()
        self.__dict__[name] = Registry(self.__dict__, entries)

    def __setstate__(self, state):
        # A copy or an unpickled module gets registries of its own, mirroring into its own
        # __dict__ (a registry is copied and pickled as a plain dict).
        self.__dict__.update(state)
        for name in _REGISTRIES:
            if name in state:
                self.__dict__[name] = Registry(self.__dict__, state[name])

    def __getattr__(self, name):
        # Only called when ordinary lookup fails. Registered entries are mirrored into the
        # instance __dict__, so one reaches here only if something went around the registry
        # (object.__setattr__ on it, say); PyTorch's modules come here on every access.
        d = self.__dict__
        for registry in _REGISTRIES:
            entries = d.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = set(dir(self.__class__)) | set(self.__dict__)  # registered names are in both
        return sorted(k for k in keys if not k[0].isdigit())

    # -- walking the tree -------------------------------------------------------------
    def named_modules(self, memo: set[Module] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for this module and every descendant, depth first.

        Parameters
        ----------
        memo : set of Module, optional
            Modules to skip, with their descendants; the recursion adds each module it
            yields, so that a module shared by two parents comes once.
        prefix : str
            Put before every name, with a dot (this module's name is ``prefix`` itself).
        remove_duplicate : bool
            Yield a shared module once (False: once per path to it).

        Yields
        ------
        tuple of (str, Module)
            The dotted name (``""`` for this module) and the module.
        """
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name,
                                            remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """Every module of the tree, this one first, each once (``named_modules`` without names).

        Parameters
        ----------
        remove_duplicate : bool
            Yield a shared module once (False: once per path to it).

        Yields
        ------
        Module
        """
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` of the direct children, each once.

        Yields
        ------
        tuple of (str, Module)
        """
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct children, each once.

        Yields
        ------
        Module
        """
        for _, module in self.named_children():
            yield module

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()  # ids: a tensor's == compares values, so tensors are tracked by id
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)``: own parameters first, then each child's, each once.

        Parameters
        ----------
        prefix : str
            Put before every name, with a dot.
        recurse : bool
            Include the submodules' parameters (False: only this module's own).
        remove_duplicate : bool
            Yield a parameter shared by several modules once (False: once per module).

        Yields
        ------
        tuple of (str, Parameter)
        """
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter of this module and (``recurse=True``) its submodules, each once:
        what an optimizer takes.

        Parameters
        ----------
        recurse : bool
            Include the submodules' parameters.

        Yields
        ------
        Parameter
        """
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` of every buffer (such as ``running_mean``), each once.

        Parameters
        ----------
        prefix : str
            Put before every name, with a dot.
        recurse : bool
            Include the submodules' buffers (False: only this module's own).
        remove_duplicate : bool
            Yield a buffer shared by several modules once (False: once per module).

        Yields
        ------
        tuple of (str, Tensor)
        """
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer of this module and (``recurse=True``) its submodules, each once.

        Parameters
        ----------
        recurse : bool
            Include the submodules' buffers.

        Yields
        ------
        Tensor
        """
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``""`` is this module).

        Parameters
        ----------
        target : str
            Such as ``"encoder.fc"``.

        Returns
        -------
        Module

        Raises
        ------
        AttributeError
            A part of the path is missing, or is not a module.
        """
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target`` (``"0.weight"``).

        Parameters
        ----------
        target : str

        Returns
        -------
        Parameter

        Raises
        ------
        AttributeError
            The path is missing, or names something that is not a ``Parameter``.
        """
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def apply(self, fn: Callable[[Module], object]) -> Self:
        """Call ``fn(m)`` on every submodule (children first), then on this module.

        Typically to initialize the weights: ``model.apply(init_weights)``.

        Parameters
        ----------
        fn : callable
            ``fn(module)``; what it returns is ignored.

        Returns
        -------
        Module
            This module.
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- modes and gradients ----------------------------------------------------------
    def train(self, mode: bool = True) -> Self:
        """Set training mode (``mode=True``) on this module and every submodule; returns it.

        Layers such as ``Dropout`` and ``BatchNorm`` behave differently in training and in
        evaluation. It does not turn gradients on or off (that is ``no_grad``, chapter 02).

        Parameters
        ----------
        mode : bool
            Training (True) or evaluation (False); anything but a bool raises
            ``ValueError``.

        Returns
        -------
        Module
            This module.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Self:
        """Evaluation mode: ``train(False)``. Gradients are still recorded (use ``no_grad``).

        Returns
        -------
        Module
            This module.
        """
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Self:
        """Set ``requires_grad`` on every parameter (``False`` freezes the module); returns it.

        Parameters
        ----------
        requires_grad : bool

        Returns
        -------
        Module
            This module.
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's ``.grad``: ``None`` (``set_to_none=True``, the default, as
        in PyTorch 2.x) or zeros in place.

        Parameters
        ----------
        set_to_none : bool
            Set ``.grad`` to None rather than fill it with zeros (a gradient that has a
            graph, from ``create_graph=True``, is detached before it is zeroed).
        """
        for p in self.parameters():
            clear_grad(p, set_to_none)

    # -- state ------------------------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *, destination: dict[str, Tensor] | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Tensor]:
        """Parameters and persistent buffers by dotted name, detached (sharing storage).

        Parameters
        ----------
        destination : dict, optional
            Fill this mapping (and return it) instead of a new ``OrderedDict``.
        prefix : str
            Put before every name (no dot is added).
        keep_vars : bool
            Keep the parameters and buffers themselves, not detached tensors.

        Returns
        -------
        dict of str to Tensor
            An ``OrderedDict``: this module's entries first, then each child's.
        """
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, strict, missing_keys, unexpected_keys,
                              error_msgs):
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                        persistent.items()) if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected nbgrad.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(input_param)}"
                )
                continue
            if param.dim() == 0 and input_param.dim() == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {input_param.shape} "
                    f"from checkpoint, the shape in current model is {param.shape}."
                )
                continue
            try:
                with no_grad():
                    param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.size()} and whose dimensions in the checkpoint are "
                    f"{input_param.size()}, an exception occurred : {ex.args}."
                )
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any],
                        strict: bool = True) -> _IncompatibleKeys:
        """Copy values into this module's parameters and buffers (in place, under no_grad).

        Parameters
        ----------
        state_dict : mapping
            Dotted names to tensors, as ``state_dict()`` gives them; a one-element tensor
            may fill a 0-d parameter.
        strict : bool
            The keys must be exactly this module's: any missing or unexpected key raises.

        Returns
        -------
        named tuple
            ``(missing_keys, unexpected_keys)``, lists of names (empty unless
            ``strict=False``); its repr says ``<All keys matched successfully>`` when
            both are empty.

        Raises
        ------
        RuntimeError
            Listing every problem: a key missing or unexpected (with ``strict``), a shape
            that differs, a value that is not a tensor.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            module._load_from_state_dict(local_state_dict, prefix, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items()
                                 if k.startswith(child_prefix)}, child_prefix)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # -- dtype and device -------------------------------------------------------------
    def _apply(self, fn):
        """Replace every parameter's (and its grad's) values by ``fn`` of them, keeping the
        ``Parameter`` objects, so that optimizers built earlier still hold them."""
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
                grad = param.grad
                if grad is not None:
                    grad.data = fn(grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Self:
        """Move and/or cast the parameters and buffers, in place: ``to(device)``,
        ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` (its device and dtype).

        Only floating-point tensors change dtype; the others only move. The ``Parameter``
        objects stay the same, so an optimizer made before still holds them.

        Parameters
        ----------
        *args, **kwargs
            As for ``Tensor.to``: a device, a floating-point dtype (another raises
            ``TypeError``) or a tensor, or ``device=``, ``dtype=``, ``non_blocking=``.

        Returns
        -------
        Module
            This module.
        """
        device, dtype, _ = _parse_to(args, dict(kwargs))
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )

        def convert(t):
            return t.to(device=device, dtype=dtype if t.is_floating_point() else None)

        return self._apply(convert)

    def cpu(self) -> Self:
        """Move every parameter and buffer to the CPU (NumPy); returns the module.

        Returns
        -------
        Module
            This module.
        """
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: DeviceLike | None = None) -> Self:
        """Move every parameter and buffer to a CUDA device (CuPy); returns the module.

        Parameters
        ----------
        device : nbgrad.device or str or int, optional
            The current CUDA device when omitted.

        Returns
        -------
        Module
            This module.
        """
        return self._apply(lambda t: t.cuda(device))

    def float(self) -> Self:
        """Cast the floating-point parameters and buffers to float32; returns the module.

        Returns
        -------
        Module
            This module.
        """
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Self:
        """Cast the floating-point parameters and buffers to float64; returns the module.

        Returns
        -------
        Module
            This module.
        """
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Self:
        """Cast the floating-point parameters and buffers to float16; returns the module.

        Returns
        -------
        Module
            This module.
        """
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    # -- printing ---------------------------------------------------------------------
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr; override it.

        Returns
        -------
        str
            Such as ``"in_features=2, out_features=3, bias=True"``; it may span lines.
        """
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"
