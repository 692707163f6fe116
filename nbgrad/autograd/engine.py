"""Backward: run the graph's nodes in reverse, each once, in dependency order.

Reading guide. ``run_backward`` is the whole algorithm:

1. *Count dependencies.* Walk the graph from the root nodes (iteratively: graphs can be a
   million nodes deep) and count, for every node, how many edges lead into it. A node may
   run only when all of them have delivered their gradient.
2. *Run ready nodes.* The roots start in a ready queue. Take a node out, call its hooks
   and its ``apply`` with the gradients of its outputs, then pass each result along its
   edge: gradients arriving at the same node are summed (this is the chain rule's sum
   over paths). When a node's count drops to zero it becomes ready. Among ready nodes the
   one created last runs first, as in PyTorch.
3. *Free.* Unless ``retain_graph=True``, each node drops its saved tensors once it ran.

Leaves receive their gradient through their ``AccumulateGrad`` node. A non-leaf keeps its
gradient only if it called ``retain_grad()``, which is a hook on its ``grad_fn``.
``autograd.grad`` uses the same loop but captures the gradients of its ``inputs`` instead
of accumulating into ``.grad``.
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
    root_nodes = list({node: None for node, _ in roots})
    dependencies = _count_dependencies(root_nodes)
    if capture is None:
        needed = captured = None
    else:
        needed = _nodes_leading_to({node for node, _ in capture}, root_nodes)
        captured = {edge: None for edge in capture}

    buffers = {}  # node -> [gradient of output 0, gradient of output 1, ...]
    for (node, output_nr), grad in zip(roots, root_grads):
        _accumulate(buffers, node, output_nr, grad)
    ready = [(-node._sequence_nr, id(node), node) for node in root_nodes if node not in dependencies]
    heapq.heapify(ready)

    # Like PyTorch, backward is silent about inf/nan it produces (e.g. sqrt' at 0).
    with set_grad_enabled(create_graph), np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while ready:
            node = heapq.heappop(ready)[2]
            grads = buffers.pop(node)
            if node._hooks is not None or type(node) is AccumulateGrad:
                grads = _call_tensor_pre_hooks(node, grads)
            if captured is not None:
                _capture(node, grads, captured)
                if node not in needed:
                    _release_dependants(node, dependencies, ready, buffers)
                    continue
            grad_inputs = node.apply(*grads) if node._hooks is None else _call_node(node, grads)
            if not retain_graph:
                node._release()
            for (next_node, output_nr), grad in zip(node.next_functions, grad_inputs):
                if next_node is None:
                    continue
                if grad is not None:
                    # Gradients reaching the same output along several paths add up.
                    buffer = buffers.get(next_node)
                    if buffer is None:
                        buffer = buffers[next_node] = [None] * next_node.num_outputs
                    current = buffer[output_nr]
                    buffer[output_nr] = grad if current is None else current + grad
                remaining = dependencies[next_node] - 1
                dependencies[next_node] = remaining
                if remaining == 0:
                    if next_node in buffers:
                        heapq.heappush(ready, (-next_node._sequence_nr, id(next_node), next_node))
                    else:  # no gradient reached it along any path: nothing to compute
                        _release_dependants(next_node, dependencies, ready, buffers)
    return None if captured is None else [captured[edge] for edge in capture]


def _count_dependencies(root_nodes):
    """How many edges lead into each node reachable from the roots."""
    dependencies = {}
    stack = list(root_nodes)
    seen = set(stack)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies


def _nodes_leading_to(targets, root_nodes):
    """The nodes from which a target can be reached: only they need to run."""
    needed = set()
    on_path = {}  # node -> whether a target is reachable from it
    stack = [(node, False) for node in root_nodes]
    while stack:  # an iterative post-order walk
        node, children_done = stack.pop()
        if children_done:
            reaches = any(on_path.get(n, False) or n in targets
                          for n, _ in node.next_functions if n is not None)
            on_path[node] = reaches
            if reaches:
                needed.add(node)
            continue
        if node in on_path:
            continue
        on_path[node] = False
        stack.append((node, True))
        stack.extend((n, False) for n, _ in node.next_functions if n is not None and n not in on_path)
    return needed


def _capture(node, grads, captured):
    for output_nr, grad in enumerate(grads):
        if (node, output_nr) in captured:
            captured[(node, output_nr)] = grad


def _release_dependants(node, dependencies, ready, buffers):
    """Skip ``node`` without running it, counting its outgoing edges as done."""
    stack = [node]
    while stack:
        for next_node, _ in stack.pop().next_functions:
            if next_node is None:
                continue
            remaining = dependencies[next_node] - 1
            dependencies[next_node] = remaining
            if remaining == 0:
                if next_node in buffers:
                    heapq.heappush(ready, (-next_node._sequence_nr, id(next_node), next_node))
                else:
                    stack.append(next_node)


def _accumulate(buffers, node, output_nr, grad):
    buffer = buffers.get(node)
    if buffer is None:
        buffer = buffers[node] = [None] * node.num_outputs
    current = buffer[output_nr]
    buffer[output_nr] = grad if current is None else current + grad


def _call_tensor_pre_hooks(node, grads):
    """Hooks registered on the tensor whose gradient this is, then ``retain_grad``."""
    if type(node) is AccumulateGrad:
        leaf_hooks = getattr(node.variable, "_hooks", None)
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
        current = getattr(tensor, "_grad", None)
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


def _call_node(node, grads):
    hooks = node._hooks
    if hooks is not None:
        for hook in tuple(hooks.pre.values()):
            result = hook(tuple(grads))
            if result is not None:
                grads = list(result)
    grad_inputs = node.apply(*grads)
    if hooks is not None and hooks.post:
        for hook in tuple(hooks.post.values()):
            result = hook(tuple(grad_inputs), tuple(grads))
            if result is not None:
                grad_inputs = tuple(result)
    return grad_inputs
