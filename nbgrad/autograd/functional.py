"""The entry points into the engine: ``backward`` and ``grad``, with their checks."""

from __future__ import annotations

from collections.abc import Sequence

from .. import backend
from ..core.engine import execute
from ..ops.methods import tensor_method
from ..tensor import Tensor
from ..warn import warn_once
from . import graph

__all__ = ["backward", "grad"]


def _tensor_list(value, what):
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, Tensor) for v in value):
        return list(value)
    raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, got {type(value).__name__}")


def _root_edges(outputs):
    edges = []
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn\n"
                "nbgrad hint: nothing it was computed from has requires_grad=True "
                "(chapter 02), or it was computed under no_grad."
            )
        edges.append(graph.edge_of(out))
    return edges


def _root_grads(outputs, grad_outputs):
    """The starting gradients: ``grad_outputs`` checked, or ones for scalar outputs."""
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    else:
        grad_outputs = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)
    for grad in grad_outputs:
        if grad is not None and not isinstance(grad, Tensor):
            raise TypeError(
                f"gradients can be either Tensors or None, but got {type(grad).__name__}"
            )
    # As in PyTorch: too few gradients is an error, extra ones are ignored (zip).
    if len(grad_outputs) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    grads = []
    for i, (out, grad) in enumerate(zip(outputs, grad_outputs)):
        if grad is None:
            if out._data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs\n"
                    "nbgrad hint: pass gradient= with the output's shape, or reduce it first "
                    "(chapter 04)."
                )
            data = out._data
            grad = Tensor._make(backend.array_module(data).ones(data.shape, data.dtype))
        else:
            if grad._data.shape != out._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {grad.shape!r} and "
                    f"output[{i}] has a shape of {out.shape!r}."
                )
            if grad.device != out.device:
                raise RuntimeError(
                    f"invalid gradient at index {i} - expected device {out.device} but got "
                    f"{grad.device}"
                )
            if grad._data.dtype != out._data.dtype:
                grad = grad.to(out.dtype)
        grads.append(grad)
    return grads


def backward(tensors: Tensor | Sequence[Tensor],
             grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False,
             inputs: Tensor | Sequence[Tensor] | None = None) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the graph's leaves.

    Parameters
    ----------
    tensors : Tensor or sequence of Tensor
        The outputs to differentiate; each must require grad.
    grad_tensors : Tensor or sequence of (Tensor or None), optional
        The gradient of each output (the vector of the vector-Jacobian product), of its
        shape and device (another dtype is cast to the output's). ``None`` stands for
        ones, and only for an output with one element. Extra gradients are ignored.
    retain_graph : bool, optional
        Keep the saved values, so that the graph can be differentiated again; defaults to
        ``create_graph``.
    create_graph : bool
        Record the backward pass itself, for higher derivatives (it warns, once, of the
        reference cycle between a parameter and its ``.grad``, as PyTorch does).
    inputs : Tensor or sequence of Tensor, optional
        Accumulate into these tensors only (a non-leaf among them retains its gradient
        from then on); all the leaves when omitted.

    Raises
    ------
    RuntimeError
        When an output does not require grad, an implicit gradient is asked for an output
        of more than one element, a gradient's shape or device does not match, or the
        graph was already freed by an earlier backward.
    """
    outputs = _tensor_list(tensors, "tensors")
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(outputs)
    grads = _root_grads(outputs, grad_tensors)
    edges = None if inputs is None else _backward_input_edges(inputs)
    if create_graph and inputs is None:  # with inputs=, PyTorch does not warn
        warn_once(REFERENCE_CYCLE_WARNING, UserWarning, stacklevel=3)  # at the user's backward()
    execute(roots, grads, retain_graph, create_graph, inputs=edges)


def _backward_input_edges(inputs):
    """The edges of ``backward(inputs=...)``. As in PyTorch, a non-leaf among them retains
    its gradient from now on; an input named twice (``x.type_as(x)`` is ``x``) is one node,
    which runs once."""
    inputs = _tensor_list(inputs, "inputs")
    if not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    edges = [_input_edge(t) for t in inputs]
    for tensor in inputs:
        if tensor._grad_fn is not None:
            tensor.retain_grad()
    return edges


REFERENCE_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)


@tensor_method("backward")
def tensor_backward(self: Tensor, gradient: Tensor | None = None, retain_graph: bool | None = None,
                    create_graph: bool = False,
                    inputs: Tensor | Sequence[Tensor] | None = None) -> None:
    """Compute the gradient of this tensor with respect to the graph's leaves (chapter 01).

    The gradients are accumulated (added) into the leaves' ``.grad``; this is
    ``nbgrad.autograd.backward(self, gradient, ...)``.

    Parameters
    ----------
    gradient : Tensor, optional
        The gradient of this tensor, of its shape; may be omitted only when it has one
        element (the gradient is then 1).
    retain_graph : bool, optional
        Keep the saved values, so that the graph can be differentiated again; defaults to
        ``create_graph``.
    create_graph : bool
        Record the backward pass itself, for higher derivatives.
    inputs : Tensor or sequence of Tensor, optional
        Accumulate into these tensors only; all the leaves when omitted.
    """
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _input_edge(tensor):
    if not tensor._requires_grad:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return graph.edge_of(tensor)


def grad(outputs: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
         grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated.

    No ``.grad`` changes.

    Parameters
    ----------
    outputs : Tensor or sequence of Tensor
        What is differentiated; each must require grad.
    inputs : Tensor or sequence of Tensor
        With respect to what; each must require grad.
    grad_outputs : Tensor or sequence of (Tensor or None), optional
        The gradient of each output, as ``backward``'s ``grad_tensors``: ``None`` stands
        for ones, for an output of one element.
    retain_graph : bool, optional
        Keep the saved values for another backward; defaults to ``create_graph``.
    create_graph : bool
        Record the backward pass, so that the gradients returned can be differentiated.
    allow_unused : bool, optional
        Return None for an input that the outputs do not depend on, instead of raising;
        defaults to ``materialize_grads``.
    is_grads_batched : bool
        PyTorch's vmap over ``grad_outputs``: not supported (True raises
        ``NotImplementedError``).
    materialize_grads : bool
        Return zeros rather than None for unused inputs (``allow_unused=False`` with it
        raises ``ValueError``).

    Returns
    -------
    tuple of (Tensor or None)
        One gradient per input, in order.

    Raises
    ------
    RuntimeError
        When an output or input does not require grad, or an input is unused and
        ``allow_unused`` is false.
    """
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched is not supported by nbgrad")
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    outputs = _tensor_list(outputs, "outputs")
    inputs = _tensor_list(inputs, "inputs")
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(outputs)
    grads = _root_grads(outputs, grad_outputs)
    result = execute(roots, grads, retain_graph, create_graph,
                          inputs=[_input_edge(t) for t in inputs], capture=True)
    for i, (tensor, g) in enumerate(zip(inputs, result)):
        if g is None:
            if materialize_grads:
                # zeros_like(input, requires_grad=create_graph), as PyTorch materializes them
                zeros = Tensor._make(backend.array_module(tensor._data).zeros_like(tensor._data))
                zeros._requires_grad = create_graph
                result[i] = zeros
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
    return tuple(result)
