# Generated from solutions/01_chain_rule.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 01: the engine applies the chain rule along the recorded graph.

Backward starts at the output with gradient 1 and visits every node after all the nodes
that use its result, so that the gradient reaching a node is complete: the sum over every
path. The order is PyTorch's: count how many edges lead into each node, then run a node
when its count has dropped to zero, newest first (a node is always created after the
nodes of its inputs). No recursion, so graphs of any depth work.
"""

import heapq
import itertools
import numpy as np

from buildgrad.c00_graph import *  # noqa: F403  (chapter 01 continues chapter 00)


@extend(Node)
def __call__(self, grad):
    """Run the node's local derivative: one gradient per input, as a tuple."""
    grads = self.backward(grad)
    return grads if isinstance(grads, tuple) else (grads,)


@extend(AccumulateGrad)
def backward(self, grad):
    """A leaf's gradient is complete: add it into ``.grad`` (a copy the first time), which
    keeps the leaf's dtype."""
    leaf = self.variable
    if leaf.grad is None:
        leaf.grad = Tensor(np.array(grad, dtype=leaf.dtype))
    else:
        leaf.grad = Tensor((leaf.grad.array + grad).astype(leaf.dtype, copy=False))
    return ()


def count_dependencies(root):
    """How many edges lead into each node reachable from ``root`` (walked without recursion)."""
    dependencies, stack, seen = {}, [root], {root}
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


def run_backward(root, grad):
    """Send ``grad`` (the gradient of the output of ``root``) through the graph."""
    dependencies = count_dependencies(root)
    in_flight = {root: grad}            # gradients summed so far, per node
    tie_breaker = itertools.count()
    ready = [(-root.sequence_nr, next(tie_breaker), root)]
    while ready:
        _, _, node = heapq.heappop(ready)
        grads = node(in_flight.pop(node))
        for (next_node, _), next_grad in zip(node.next_functions, grads):
            if next_node is None or next_grad is None:  # no gradient wanted, or none given
                continue
            if next_node in in_flight:
                in_flight[next_node] = in_flight[next_node] + next_grad  # paths add up
            else:
                in_flight[next_node] = next_grad
            dependencies[next_node] -= 1
            if dependencies[next_node] == 0:   # every path into it is done
                heapq.heappush(ready, (-next_node.sequence_nr, next(tie_breaker), next_node))


@extend(Tensor)
def backward(self, gradient=None):
    """Fill ``.grad`` of every leaf this tensor was computed from.

    ``gradient`` is d(loss)/d(self), 1 for a scalar loss (chapter 04 uses others).
    """
    if gradient is None:
        if self.array.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        gradient = np.ones_like(self.array)
    run_backward(gradient_edge(self)[0], as_tensor(gradient).array)


__all__ = public_names(globals())
