"""Backward: run the graph's nodes in reverse, each once, after all of its consumers.

Reading guide. ``run_backward`` is the whole algorithm.

*The order.* A node is created after the nodes of its inputs (it needs their outputs to
exist), so every node's sequence number — a counter stamped at creation — is larger than
those of the nodes it sends gradients to. Running nodes from the largest sequence number
down is therefore a topological order of the reversed graph: when a node runs, every node
that uses its output has already run and delivered its gradient. No recursion, no separate
sort: a heap of the nodes that have received a gradient, largest sequence number first.
(PyTorch's engine also orders its ready queue by sequence number.)

*The loop.* Take the node with the largest sequence number; call the hooks on its
outputs and its ``apply`` with the gradients of its outputs (or its ``fast_apply``, the same
formula on the arrays, where it has one and backward builds no graph); pass each result along its
edge into that node's buffer, where gradients arriving along different paths are summed
(the chain rule's sum over paths). A node enters the heap when its first gradient arrives.
Unless ``retain_graph=True``, each node drops its saved tensors once it has run.

Leaves receive their gradient through their ``AccumulateGrad`` node. A non-leaf keeps its
gradient only if it called ``retain_grad()``, which is a hook on its ``grad_fn``.
``backward(inputs=...)`` and ``autograd.grad`` use the same loop but skip the nodes that do
not lead to their ``inputs`` (hooks included); ``autograd.grad`` captures the gradients of
its ``inputs`` instead of accumulating into ``.grad``.

*Reentrant passes.* ``execute``, the entry point, runs ``run_backward``; a pass nested
deeply inside others (a Function's backward that calls ``autograd.grad``) moves to a fresh
thread, so that nesting is not limited by Python's stack.

*Dtypes.* A gradient has the dtype of the tensor it is the gradient of: a gradient computed
in another dtype (``x32.sum(dtype=float64)``) is cast on its way into the node's buffer.
"""

from __future__ import annotations

import heapq
import threading

import numpy as np

from ..dtypes import from_numpy_dtype
from .anomaly import anomaly, check_nan, report_failure
from .grad_mode import set_grad_enabled
from .node import AccumulateGrad
from .saved import hook_stack, restore_hooks


def execute(roots, root_grads, retain_graph, create_graph, inputs=None, capture=False):
    """``run_backward``, the entry point of ``backward`` and ``autograd.grad``.

    A backward pass started inside another (a custom Function's ``backward`` that calls
    ``autograd.grad``, as checkpointing does) nests Python calls. Past ``MAX_NESTING`` nested
    passes on one thread the pass runs on a fresh thread, whose Python stack starts empty,
    and this thread waits for it: as PyTorch's engine hands a deep reentrant backward to
    another thread, so that thousands of nested passes do not overflow the stack.
    """
    depth = _nesting.depth
    if depth >= MAX_NESTING:
        return _on_fresh_thread(execute, roots, root_grads, retain_graph, create_graph,
                                inputs, capture)
    _nesting.depth = depth + 1
    hooks = hook_stack.pairs  # saved-tensor hooks: the pass leaves them as it found them
    try:
        return run_backward(roots, root_grads, retain_graph, create_graph, inputs, capture)
    finally:
        _nesting.depth = depth
        restore_hooks(hooks)


class _Nesting(threading.local):
    depth = 0  # backward passes this thread is running, one inside another


_nesting = _Nesting()
MAX_NESTING = 16  # nested passes per thread: a few hundred Python frames


def _on_fresh_thread(function, *args):
    """``function(*args)`` run on a new thread; its result returned, its exception raised."""
    outcome = {}

    def target():
        try:
            outcome["result"] = function(*args)
        except BaseException as error:  # noqa: BLE001 - re-raised in the calling thread
            outcome["error"] = error

    thread = threading.Thread(target=target, name="nbgrad reentrant backward")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=None, capture=False):
    """Propagate ``root_grads`` from the edges ``roots`` through the graph.

    ``roots`` are ``(node, output_nr)`` edges. With ``inputs`` (a list of edges), only the
    part of the graph that leads to them runs: the inputs' own nodes run too
    (``backward(inputs=...)``: leaves accumulate, hooks fire), or, with ``capture=True``
    (``autograd.grad``), the gradients arriving at those edges are returned instead.
    """
    if inputs is None:
        partial = None
    else:
        partial = _Partial(inputs, [node for node, _ in roots], capture)

    buffers = {}  # node -> [gradient of output 0, gradient of output 1, ...]
    ready = []    # heap of (-sequence number, node): the most recently created node first
    for (node, output_nr), grad in zip(roots, root_grads):
        _accumulate(buffers, ready, node, output_nr, grad)

    pop, push = heapq.heappop, heapq.heappush  # local names: this loop is the hot path
    arrays_only = not create_graph  # then a node's fast_apply runs, where it has one
    # Like PyTorch, backward is silent about inf/nan it produces (e.g. sqrt' at 0).
    checks_nan = anomaly.enabled and anomaly.check_nan
    node = None
    with set_grad_enabled(bool(create_graph)), np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        try:
            while ready:
                node = pop(ready)[1]
                grads = buffers.pop(node)
                if partial is not None:
                    grads = partial.visit(node, grads)
                    if grads is None:
                        continue
                elif node._hooks is not None or (type(node) is AccumulateGrad and node.variable._hooks):
                    grads = _call_tensor_pre_hooks(node, grads)
                apply = node.apply_without_graph if arrays_only else node.apply
                grad_inputs = apply(*grads) if node._hooks is None else _call_node(node, apply, grads)
                if checks_nan:
                    check_nan(node, grad_inputs)
                if node._saved and not retain_graph:
                    node._release()
                for next_node, output_nr, grad in zip(node._next_nodes, node._output_nrs, grad_inputs):
                    if next_node is None or grad is None:
                        continue
                    if grad._data.dtype is not next_node._dtype:
                        grad = _as_input_dtype(grad, next_node, output_nr)
                    # Gradients reaching the same output along several paths add up.
                    buffer = buffers.get(next_node)
                    if buffer is None:
                        buffer = buffers[next_node] = [None] * next_node.num_outputs
                        push(ready, (-next_node._sequence_nr, next_node))
                    current = buffer[output_nr]
                    buffer[output_nr] = grad if current is None else current + grad
        except Exception:
            if anomaly.enabled and node is not None:
                report_failure(node)  # detect_anomaly: where the forward pass made the node
            raise
    return partial.captured_grads() if capture else None


class _Partial:
    """Backward towards ``inputs`` only: which nodes run, and the gradients captured."""

    def __init__(self, inputs, root_nodes, capture):
        self.inputs = inputs
        self.targets = {node for node, _ in inputs}
        self.needed = _nodes_leading_to(self.targets, root_nodes)
        if capture:
            self.captured = {edge: None for edge in inputs}
        else:
            self.captured = None
            self.needed |= self.targets  # backward(inputs=): the inputs' nodes run as well

    def visit(self, node, grads):
        """The gradients ``node`` runs with, after its tensors' hooks; ``None`` when it need
        not run. A node that leads to no input is skipped, hooks included, as in PyTorch."""
        runs = node in self.needed
        if not runs and node not in self.targets:
            return None
        grads = _call_tensor_pre_hooks(node, grads)
        if self.captured is not None:
            for output_nr, grad in enumerate(grads):
                if (node, output_nr) in self.captured:
                    self.captured[(node, output_nr)] = grad
        return grads if runs else None

    def captured_grads(self):
        return [self.captured[edge] for edge in self.inputs]


def _as_input_dtype(grad, node, output_nr):
    """A gradient has the dtype of the tensor it is the gradient of, whatever dtype the
    formula computed it in (``x32.sum(dtype=float64)`` sends float64 back to float32 ``x``).
    PyTorch casts the same way, per edge, before gradients are summed (validate_outputs)."""
    dtype = node.input_dtype(output_nr)
    if grad._data.dtype == dtype:  # an equal dtype that is not the same object
        return grad
    return grad.to(from_numpy_dtype(dtype))


def _nodes_leading_to(targets, root_nodes):
    """The nodes from which a target can be reached: only they need to run."""
    needed = set()
    on_path = {}  # node -> whether a target is reachable from it
    stack = [(node, False) for node in root_nodes]
    while stack:  # an iterative post-order walk
        node, children_done = stack.pop()
        if children_done:
            reaches = any(on_path.get(n, False) or n in targets
                          for n in node._next_nodes if n is not None)
            on_path[node] = reaches
            if reaches:
                needed.add(node)
            continue
        if node in on_path:
            continue
        on_path[node] = False
        stack.append((node, True))
        stack.extend((n, False) for n in node._next_nodes if n is not None and n not in on_path)
    return needed


def _accumulate(buffers, ready, node, output_nr, grad):
    buffer = buffers.get(node)
    if buffer is None:
        buffer = buffers[node] = [None] * node.num_outputs
        heapq.heappush(ready, (-node._sequence_nr, node))
    current = buffer[output_nr]
    buffer[output_nr] = grad if current is None else current + grad


def _call_tensor_pre_hooks(node, grads):
    """Hooks registered on the tensor whose gradient this is, then ``retain_grad``."""
    if type(node) is AccumulateGrad:
        leaf_hooks = node.variable._hooks
        for hook in tuple(leaf_hooks.values()) if leaf_hooks else ():
            result = hook(grads[0])
            if result is not None:
                grads = [_checked(hook, grads[0], result)]
        return grads
    hooks = node._hooks
    if hooks is None:
        return grads
    grads = list(grads)
    for output_nr, tensor_hooks in hooks.tensor_pre.items():
        for hook in tuple(tensor_hooks.values()):
            # An output that received no gradient (an unused piece of unbind): hook(None).
            grad = grads[output_nr]
            result = hook(grad)
            if result is not None:
                grads[output_nr] = result if grad is None else _checked(hook, grad, result)
    # retain_grad runs after the tensor's other hooks, so it stores what they returned.
    for output_nr, ref in hooks.retains_grad.items():
        tensor = ref()
        grad = grads[output_nr]
        if tensor is None or grad is None:
            continue
        current = tensor._grad
        tensor._grad = grad.detach().clone() if current is None else current + grad.detach()
    return grads


def _checked(hook, grad, result):
    """A tensor hook may replace a gradient, but not change its shape or dtype."""
    name = getattr(hook, "__name__", type(hook).__name__)
    if not hasattr(result, "_data"):
        raise TypeError(f"hook '{name}' returned {type(result).__name__}, expected a Tensor or None")
    if result._data.shape != grad._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if result._data.dtype != grad._data.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {grad.type()} got {result.type()})"
        )
    return result


def _call_node(node, apply, grads):
    hooks = node._hooks
    if hooks is not None:
        for hook in tuple(hooks.pre.values()):
            result = hook(tuple(grads))
            if result is not None:
                grads = list(result)
    grad_inputs = apply(*grads)
    if hooks is not None and hooks.post:
        for hook in tuple(hooks.post.values()):
            result = hook(tuple(grad_inputs), tuple(grads))
            if result is not None:
                grad_inputs = tuple(result)
    return grad_inputs
