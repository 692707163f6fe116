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
``autograd.grad`` uses the same loop but captures the gradients of its ``inputs`` instead
of accumulating into ``.grad``, and skips the nodes that do not lead to them.
"""

import heapq

import numpy as np

from .grad_mode import set_grad_enabled
from .node import AccumulateGrad


def run_backward(roots, root_grads, retain_graph, create_graph, capture=None):
    """Propagate ``root_grads`` from the edges ``roots`` through the graph.

    ``roots`` are ``(node, output_nr)`` edges. With ``capture`` (a list of edges), the
    gradients arriving at those edges are returned instead of being accumulated into
    leaves, and only the part of the graph that leads to them runs.
    """
    if capture is None:
        needed = captured = None
    else:
        needed = _nodes_leading_to({node for node, _ in capture}, [node for node, _ in roots])
        captured = {edge: None for edge in capture}

    buffers = {}  # node -> [gradient of output 0, gradient of output 1, ...]
    ready = []    # heap of (-sequence number, node): the most recently created node first
    for (node, output_nr), grad in zip(roots, root_grads):
        _accumulate(buffers, ready, node, output_nr, grad)

    pop, push = heapq.heappop, heapq.heappush  # local names: this loop is the hot path
    arrays_only = not create_graph  # then a node's fast_apply runs, where it has one
    # Like PyTorch, backward is silent about inf/nan it produces (e.g. sqrt' at 0).
    with set_grad_enabled(create_graph), np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while ready:
            node = pop(ready)[1]
            grads = buffers.pop(node)
            if node._hooks is not None or (type(node) is AccumulateGrad and node.variable._hooks):
                grads = _call_tensor_pre_hooks(node, grads)
            if captured is not None:
                _capture(node, grads, captured)
                if node not in needed:
                    continue
            apply = node.apply_without_graph if arrays_only else node.apply
            grad_inputs = apply(*grads) if node._hooks is None else _call_node(node, apply, grads)
            if node._saved and not retain_graph:
                node._release()
            for next_node, output_nr, grad in zip(node._next_nodes, node._output_nrs, grad_inputs):
                if next_node is None or grad is None:
                    continue
                # Gradients reaching the same output along several paths add up.
                buffer = buffers.get(next_node)
                if buffer is None:
                    buffer = buffers[next_node] = [None] * next_node.num_outputs
                    push(ready, (-next_node._sequence_nr, next_node))
                current = buffer[output_nr]
                buffer[output_nr] = grad if current is None else current + grad
    return None if captured is None else [captured[edge] for edge in capture]


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


def _capture(node, grads, captured):
    for output_nr, grad in enumerate(grads):
        if (node, output_nr) in captured:
            captured[(node, output_nr)] = grad


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
            if grads[output_nr] is None:
                break
            result = hook(grads[output_nr])
            if result is not None:
                grads[output_nr] = _checked(hook, grads[output_nr], result)
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
