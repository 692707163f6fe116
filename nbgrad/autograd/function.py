"""Custom operations: subclass ``Function``, write ``forward`` and ``backward``.

As in PyTorch::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)          # y.grad_fn is an ExpBackward node

``forward`` runs without recording (it sees tensors, but builds no graph); the ``ctx`` it
receives *is* the node that becomes the outputs' ``grad_fn``.

PyTorch 2.0's style is accepted too: a ``forward(*args)`` without ``ctx``, and a
``@staticmethod setup_context(ctx, inputs, output)`` that fills ``ctx`` afterwards.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..backend import array_module
from ..core.grad_mode import grad_mode, no_grad
from ..core.node import Node, SavedOutput, SavedTensor
from ..core.saved import hooks_in_use, packed
from ..tensor import IN_CUSTOM_FUNCTION, Tensor
from .graph import attach, next_edges, record, should_record

if TYPE_CHECKING:
    import numpy as np

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "InplaceFunction",
           "once_differentiable"]


class FunctionCtx:
    """What ``forward`` may tell ``backward``: saved tensors and flags.

    The ``ctx`` that ``forward`` (or ``setup_context``) and ``backward`` receive. Besides
    these methods it has ``needs_input_grad``, a bool per ``forward`` input, and any
    attribute ``forward`` sets on it (``ctx.dim = dim``) for ``backward`` to read.
    """

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Save tensors for ``backward``, which reads them as ``ctx.saved_tensors``.

        Saved this way (not as ``ctx.x = x``), each is checked against its version counter:
        changing one in place before backward is the error of chapter 05. Call it once: a
        second call replaces what the first saved.

        Parameters
        ----------
        *tensors : Tensor or None
            Inputs, outputs or intermediate tensors of ``forward`` (anything else raises
            ``TypeError``).
        """
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument 0 is of type "
                    f"{type(t).__name__}"
                )
        self.to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """The tensors given to ``save_for_backward``, version-checked, as a tuple.

        Returns
        -------
        tuple of (Tensor or None)

        Raises
        ------
        RuntimeError
            When one was changed in place since it was saved, or the graph was freed by
            an earlier backward.
        """
        # a FunctionCtx is always also a Node (BackwardCFunction), which unpacks them
        return tuple(self.saved_values)  # type: ignore[attr-defined]

    @property
    def saved_variables(self) -> tuple[Tensor | None, ...]:
        """Deprecated name of ``saved_tensors`` (it warns, as PyTorch's does).

        Returns
        -------
        tuple of (Tensor or None)
        """
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'",
                      DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare the tensors ``forward`` changed in place (and returns): their version moves on.

        Parameters
        ----------
        *tensors : Tensor
            Inputs that ``forward`` modified in place; each must be among its outputs.
        """
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Declare outputs that have no gradient (such as indices): they do not require grad.

        ``backward`` still receives a gradient for each (zeros, or None without
        materialized gradients).

        Parameters
        ----------
        *tensors : Tensor
            Outputs of ``forward``.
        """
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` gets zeros (``True``, the default) or ``None`` for outputs
        without a gradient.

        Parameters
        ----------
        value : bool
        """
        self.materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The node of a custom Function; each Function gets a subclass named ``<Name>Backward``.

    It is the ``ctx`` of ``forward`` and ``backward``: made by ``Function.apply``, never
    directly.

    Parameters
    ----------
    next_nodes : tuple of (Node or None)
        Where the gradient of each tensor input goes, as ``graph.next_edges`` gives them.
    output_nrs : tuple of int
        Which output of each of those nodes the input is.
    """

    _forward_cls: type[Function]
    input_shapes: dict[int, tuple[int, ...]]  # of the tensor inputs, by position

    def __init__(self, next_nodes: tuple[Node | None, ...] = (),
                 output_nrs: tuple[int, ...] = ()):
        super().__init__(next_nodes, output_nrs)
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad: tuple[bool, ...] = ()
        # per output: (shape, dtype, array module), or None for one that is not a tensor
        self.output_metas: tuple[Any, ...] = ()
        self.tensor_positions: tuple[int, ...] = ()
        self.num_outputs = 1
        self._dtype = None  # until an output is attached: the outputs may differ in dtype

    def input_dtype(self, output_nr: int) -> np.dtype:
        """The dtype that the gradient of output ``output_nr`` must have: that output's.

        Parameters
        ----------
        output_nr : int

        Returns
        -------
        numpy.dtype
            The array dtype of that output (the outputs of a Function may differ in dtype).
        """
        return self.output_metas[output_nr][1]

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        """Run the Function's ``backward`` on the gradients of its outputs.

        Missing gradients become zeros first (unless ``set_materialize_grads(False)``);
        a gradient that broadcasts to its input's shape is summed to it.

        Parameters
        ----------
        *grad_outputs : Tensor or None
            One per output of ``forward``.

        Returns
        -------
        tuple of (Tensor or None)
            One per tensor input of ``forward``.

        Raises
        ------
        RuntimeError
            When ``backward`` returns the wrong number of gradients, a gradient for an
            input that is not a tensor, or one of a shape that does not broadcast to the
            input's.
        """
        if self.materialize_grads:
            grad_outputs = tuple(
                Tensor._make(_zeros(meta)) if g is None and meta is not None else g
                for g, meta in zip(grad_outputs, self.output_metas)
            )
        with_backward = self._forward_cls.backward
        grads = with_backward(self, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        expected = len(self.needs_input_grad)
        if len(grads) > expected and all(g is None for g in grads[expected:]):
            grads = grads[:expected]  # extra gradients are allowed if they are all None
        if len(grads) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{expected}, got {len(grads)})"
            )
        result: list[Tensor | None] = []
        for position, grad in enumerate(grads):
            if position not in self.tensor_positions:
                if grad is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {position + 1}, but the corresponding forward input was not "
                        "a Variable"
                    )
                continue
            shape = self.input_shapes[position]
            if grad is not None and grad._data.shape != shape:
                if grad._data.size == 0 or _broadcastable(shape, grad._data.shape):
                    grad = grad.sum_to_size(shape)
                else:
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index "
                        f"{len(result)} - got {list(grad._data.shape)} but expected shape "
                        f"compatible with {list(shape)}"
                    )
            result.append(grad)
        return tuple(result)


def _zeros(meta):
    shape, dtype, xp = meta
    return xp.zeros(shape, dtype=dtype)


def _broadcastable(target, shape):
    if len(shape) < len(target):
        return False
    lead = len(shape) - len(target)
    return all(t == 1 or t == s for t, s in zip(target, shape[lead:]))


class Function:
    """Base class of user-defined differentiable operations.

    Subclass it with static ``forward`` and ``backward`` methods and call ``apply``; the
    module's docstring (``help(nbgrad.autograd.function)``) has an example. Each subclass
    gets its node class, ``<Name>Backward``.

    Parameters
    ----------
    *args, **kwargs
        Ignored: making an instance is deprecated (it warns, as in PyTorch), since every
        method is static.
    """

    _backward_cls: type[BackwardCFunction]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(cls.__name__ + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls})

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        """The computation, on tensors, as ``forward(ctx, *args)`` (or, PyTorch 2.0 style,
        ``forward(*args)`` with a ``setup_context(ctx, inputs, output)``); a static method.

        It runs under ``no_grad``: it sees tensors, but records no graph.

        Parameters
        ----------
        ctx : FunctionCtx
            Where to save what ``backward`` needs (absent in PyTorch 2.0's style).
        *args, **kwargs
            The arguments given to ``apply``.

        Returns
        -------
        Tensor or tuple
            The outputs; ``apply`` returns them joined to the graph.
        """
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        """PyTorch 2.0's style: fill ``ctx`` from ``inputs`` and ``output`` after a
        ``forward`` that takes no ``ctx``. Defining it is what selects that style.

        Parameters
        ----------
        ctx : FunctionCtx
        inputs : tuple
            The positional arguments of ``forward``, its defaults filled in.
        output : Tensor or tuple
            What ``forward`` returned.
        """
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """The vector-Jacobian product: one gradient per ``forward`` input (``None`` for
        inputs without one), from one gradient per output; a static method.

        Parameters
        ----------
        ctx : FunctionCtx
            The ``ctx`` that ``forward`` filled.
        *grad_outputs : Tensor or None
            The gradient of each output of ``forward`` (zeros for an output that got none,
            unless ``ctx.set_materialize_grads(False)``).

        Returns
        -------
        Tensor or None, or a tuple of them
            One per input of ``forward``; extra trailing Nones are allowed.
        """
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    def __init__(self, *args: Any, **kwargs: Any):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` and join its outputs to the graph with one node: how a custom
        Function is called (``Exp.apply(x)``), never ``forward`` directly.

        The outputs are joined when grad mode is on and a tensor argument requires grad;
        only floating-point outputs not marked non-differentiable then require grad.

        Parameters
        ----------
        *args, **kwargs
            ``forward``'s arguments; each tensor among the positional ones is an input
            of the node.

        Returns
        -------
        Tensor or tuple
            What ``forward`` returned, its tensors now outputs of the ``<Name>Backward``
            node (an input returned unchanged comes back as a new tensor, a view of it).
        """
        new_style = cls.setup_context is not Function.setup_context
        if new_style:  # PyTorch binds forward's defaults first: they count as inputs
            args, kwargs = _with_defaults(cls.forward, args, kwargs)
        tensor_positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        tensors = [args[i] for i in tensor_positions]
        recording = should_record(*tensors)
        ctx = cls._backward_cls(*next_edges(tensors)) if recording else cls._backward_cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        ctx.tensor_positions = tensor_positions
        ctx.input_shapes = {i: args[i]._data.shape for i in tensor_positions}
        with no_grad():
            if new_style:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        if recording:
            outputs = _connect(ctx, args, outputs)
        return outputs[0] if single else outputs


def _with_defaults(forward, args, kwargs):
    """``forward``'s arguments with its defaults filled in, as PyTorch binds them: the
    positional ones are ``setup_context``'s ``inputs``."""
    bound = inspect.signature(forward).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args, bound.kwargs


class InplaceFunction(Function):
    """Kept for old code, as in PyTorch: a ``Function`` whose instances carry ``inplace``.

    Parameters
    ----------
    inplace : bool
        Stored as ``self.inplace``, for the subclass to read.
    """

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace


ONCE_DIFFERENTIABLE = ("trying to differentiate twice a function that was marked with "
                       "@once_differentiable")


class Error(Node):
    """The node behind a ``@once_differentiable`` backward's results: differentiating it
    raises (PyTorch's ``DelayedError``, named ``Error``)."""

    __slots__ = ("num_outputs",)

    def apply(self, *grads):
        raise RuntimeError(ONCE_DIFFERENTIABLE)


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a Function's ``backward`` that cannot itself be differentiated.

    It runs without recording; when a double backward could pass through it (a gradient
    it receives requires grad), its results are joined to an ``Error`` node, so that
    differentiating them raises PyTorch's "trying to differentiate twice a function that
    was marked with @once_differentiable".

    Parameters
    ----------
    fn : callable
        The ``backward(ctx, *grad_outputs)`` to wrap (decorate it below ``@staticmethod``).

    Returns
    -------
    callable
        The wrapped ``backward``.
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not grad_mode.enabled or not any(getattr(a, "_requires_grad", False) for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        results = (outputs,) if single else outputs
        present = [out for out in results if out is not None]
        if not present:
            return outputs
        # As PyTorch: each result becomes an alias whose graph leads to the Error node.
        fakes = [out.detach().requires_grad_() for out in present]
        aliases = tuple(Tensor._make(fake._data, fake._counter()) for fake in fakes)
        record(Error, aliases, fakes)
        replaced = iter(aliases)
        results = tuple(None if out is None else next(replaced) for out in results)
        return results[0] if single else results

    return wrapper


def _connect(ctx, args, outputs):
    """Make ``ctx`` the ``grad_fn`` of the outputs and turn saved tensors into saved values."""
    dirty = {id(t) for t in ctx.dirty_tensors}
    non_differentiable = {id(t) for t in ctx.non_differentiable}
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    _check_dirty(ctx, inputs, outputs)
    connected, metas = [], []
    for output_nr, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            connected.append(out)
            metas.append(None)
            continue
        is_dirty = id(out) in dirty
        if id(out) in inputs and not is_dirty:
            out = out.view_as(out)  # an input returned unchanged: a new tensor, as PyTorch
        if is_dirty:
            _check_dirty_output(out, len(outputs))
            out._bump_version()  # as in PyTorch, mark_dirty counts as a modification
        metas.append((out._data.shape, out._data.dtype, array_module(out._data)))
        if id(out) not in non_differentiable and out._data.dtype.kind == "f":
            if is_dirty:
                out._rebase_history(ctx, output_nr)  # ops/inplace.py: as an in-place op
            else:
                attach(out, ctx, output_nr)
                if out._base is not None:  # a view that this Function's backward stands for
                    out._creation_meta = IN_CUSTOM_FUNCTION
        connected.append(out)
    ctx.num_outputs = len(outputs)
    ctx.output_metas = tuple(metas)
    ctx._saved = tuple(
        None if t is None else (SavedOutput(t) if t._grad_fn is ctx else SavedTensor(t))
        for t in ctx.to_save
    )
    if hooks_in_use.count:  # saved_tensors_hooks: pack them
        ctx._saved = packed(ctx._saved, ctx.to_save)
    ctx.to_save = ()
    return tuple(connected)


def _check_dirty(ctx, inputs, outputs):
    """``mark_dirty`` names tensors changed in place: they must be returned, and should be
    inputs (PyTorch's checks)."""
    returned = {id(out) for out in outputs}
    for t in ctx.dirty_tensors:
        if id(t) not in returned:
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the Function."
            )
        if id(t) not in inputs:
            warnings.warn(
                "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
                "that have been mutated should be passed to ctx.mark_dirty().", UserWarning,
                stacklevel=4)


def _check_dirty_output(out, n_outputs):
    """The leaf rule for a tensor that ``forward`` changed in place, and PyTorch's limit for
    a view: its base can be rewritten only for a Function of one output."""
    if out._grad_fn is None and out._requires_grad and out._base is None:
        raise RuntimeError(
            "a leaf Variable that requires grad has been used in an in-place operation."
        )
    if out._base is not None:
        out._check_inplace(True)  # ops/inplace.py: a view of a leaf, or made specially
        if n_outputs > 1:
            raise RuntimeError(
                "If your Function modifies inplace an input that is a view of another Tensor, "
                "your Function cannot return more than one Tensor. This is not supported by the "
                "current autograd engine. You should either make sure the input is not a view "
                "(using .clone() for example) or make your Function only return one Tensor "
                "(potentially splitting it into two Functions: one doing the inplace that returns "
                "a single Tensor and a second one that does the other operations). You can ask on "
                "the forum https://discuss.pytorch.org/ if you need help to do this change."
            )
