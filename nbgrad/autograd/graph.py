"""Connecting a new node to the graph: edges to the inputs, the output's ``grad_fn``.

Every operation does the same three things when it records itself:

1. decide whether to record at all: grad mode is on and some input requires grad;
2. build its node with one edge per input (``next_edges``);
3. make the node the output's ``grad_fn`` (``attach``, the one place that does).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar


from ..core.grad_mode import grad_mode
from ..core.node import AccumulateGrad, Node, SavedOutput, SavedTensor, attach
from ..core.saved import hook_stack, hooks_in_use, packed, pop_hooks, push_hooks
from ..tensor import Tensor

NodeT = TypeVar("NodeT", bound=Node)  # record returns the node of the class it is given

# PyTorch's torch.autograd.graph (the saved-tensor hooks), then how an operation joins the
# graph, the API every op in nbgrad/ops/ uses
__all__ = ["disable_saved_tensors_hooks", "save_on_cpu", "saved_tensors_hooks", "edge_of",
           "grad_accumulator", "next_edges", "record", "should_record"]

NO_EDGE = (None, 0)


def should_record(*operands: object) -> bool:
    """Whether an operation on ``operands`` joins the graph: grad mode is on, and one of
    them is a tensor that requires grad (numbers and ``None`` never do).

    Parameters
    ----------
    *operands
        The operation's inputs, of any kind.

    Returns
    -------
    bool
    """
    for value in operands:
        if getattr(value, "_requires_grad", False):
            return grad_mode.enabled
    return False


def grad_accumulator(leaf: Tensor) -> AccumulateGrad:
    """The leaf's ``AccumulateGrad`` node, shared by every graph that uses the leaf.

    The leaf holds it weakly (the node holds the leaf), so no reference cycle forms.

    Parameters
    ----------
    leaf : Tensor
        A leaf that requires grad.

    Returns
    -------
    AccumulateGrad
        The node that adds the gradients reaching it into ``leaf.grad``; made on first use.
    """
    ref = leaf._accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._accumulator = weakref.ref(node)
    return node


def next_edges(inputs: Sequence[object]) -> tuple[tuple[Node | None, ...], tuple[int, ...]]:
    """Where the gradient of each input goes, as a node's constructor takes it.

    A view whose base was changed in place since gets its ``grad_fn`` regenerated first.

    Parameters
    ----------
    inputs : sequence
        An operation's inputs: tensors, or numbers (which take no gradient).

    Returns
    -------
    nodes : tuple of (Node or None)
        Per input, the node its gradient goes to: its ``grad_fn``, a leaf's
        ``AccumulateGrad``, or None for an input that takes no gradient.
    output_nrs : tuple of int
        Per input, which output of that node it is (0 for None).
    """
    nodes: list[Node | None] = []
    output_nrs: list[int] = []
    for t in inputs:
        fn, output_nr = NO_EDGE  # a number, or a leaf that needs no gradient: nowhere
        if isinstance(t, Tensor):
            if t._base is not None and t._vc[0] != t._grad_fn_version:
                t._regenerate_grad_fn()  # a view whose base was changed in place since
            if t._grad_fn is not None:  # computed: to the node that computed it
                fn, output_nr = t._grad_fn, t._output_nr
            elif t._requires_grad and (t._base is None or not t._base._requires_grad):
                # a leaf that requires grad: to its accumulator (a view made under no_grad
                # requires grad only because its base does, and has none, as in PyTorch)
                fn, output_nr = grad_accumulator(t), 0
        nodes.append(fn)
        output_nrs.append(output_nr)
    nrs = tuple(output_nrs)
    # Nearly every edge leads to output 0: share those tuples rather than keep one per node.
    return tuple(nodes), _ALL_OUTPUT_0.get(nrs, nrs)


_ALL_OUTPUT_0 = {(0,) * n: (0,) * n for n in range(1, 9)}


def edge_of(tensor: object) -> tuple[Node | None, int]:
    """The edge ``(node, output_nr)`` that ``tensor``'s gradient takes (see ``next_edges``).

    Parameters
    ----------
    tensor : Tensor or number

    Returns
    -------
    tuple of (Node or None, int)
        ``(None, 0)`` when it takes no gradient.
    """
    (fn,), (output_nr,) = next_edges((tensor,))
    return fn, output_nr


OUTPUT = object()  # stands for the output in ``record(..., saved=...)``


def record(node_cls: type[NodeT], output: Tensor | tuple[Tensor, ...], inputs: Sequence[object],
           saved: Sequence[object] = (), **attributes: Any) -> NodeT:
    """Create the node for ``output = op(*inputs)`` and attach it.

    Parameters
    ----------
    node_cls : type
        The ``Node`` subclass of the operation (``MulBackward0``).
    output : Tensor or tuple of Tensor
        The result, or a tuple of results for an operation with several (``unbind``):
        result ``i`` is output ``i`` of the node.
    inputs : sequence
        The operands: a number among them has no edge.
    saved : sequence
        The values backward needs (tensors are version-checked); ``OUTPUT`` among them
        saves the (single) output itself. They are freed after backward.
    **attributes
        Plain values the formula needs, such as shapes or dims, set on the node (they are
        not freed after backward).

    Returns
    -------
    Node
        The new node, now ``output.grad_fn``.
    """
    node = node_cls(*next_edges(inputs))
    if type(output) is tuple:
        node.num_outputs = len(output)
        for output_nr, out in enumerate(output):
            attach(out, node, output_nr)
    else:
        attach(output, node)
    if attributes:
        for name, value in attributes.items():
            setattr(node, name, value)
    if saved:
        values = []
        for v in saved:
            if v is OUTPUT:
                v = SavedOutput(output)
            elif isinstance(v, Tensor):
                v = SavedTensor(v)
            values.append(v)
        node._saved = tuple(values)
        if hooks_in_use.count:  # saved_tensors_hooks: pack them
            node._saved = packed(node._saved, [output if v is OUTPUT else v for v in saved])
    return node


class saved_tensors_hooks:
    """Context manager: every tensor saved for backward inside it is packed.

    ``pack_hook(tensor)`` runs when a node saves ``tensor`` (an input or its output, and
    what a custom Function's ``save_for_backward`` names); backward then uses
    ``unpack_hook(packed)``, which must return a tensor with the same values. As in
    PyTorch the hooks are per thread, the innermost pair applies, and what they return is
    not version-checked.

    Parameters
    ----------
    pack_hook : callable
        ``tensor -> anything``.
    unpack_hook : callable
        ``what pack_hook returned -> tensor``.
    """

    def __init__(self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        push_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc):
        pop_hooks()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device for backward, as
    ``torch.autograd.graph.save_on_cpu`` does (on the CPU this changes nothing).

    Parameters
    ----------
    pin_memory : bool
        Accepted for PyTorch's signature; nbgrad does not pin memory.
    device_type : str
        Accepted for PyTorch's signature.
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack_to_cpu(tensor):
            return tensor.device, tensor.detach().cpu()

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Context manager in which ``saved_tensors_hooks`` may not be used: entering one
    raises ``RuntimeError(error_message)``.

    Parameters
    ----------
    error_message : str
        The message of that error.
    """

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self):
        self.previous = hook_stack.disabled
        hook_stack.disabled = self.error_message

    def __exit__(self, *exc):
        hook_stack.disabled = self.previous
        return False
