# Generated from solutions/01_chain_rule.ipynb by tools/make_exercises.py: edit the notebook, not this file.
"""Chapter 01: the engine applies the chain rule along the recorded graph.

Backward starts at the output with gradient 1 and visits every node after all the nodes
that use its result, so that the gradient reaching a node is complete: the sum over every
path. The order is PyTorch's: count how many edges lead into each node, then run a node
when its count has dropped to zero, newest first (a node is always created after the
nodes of its inputs). No recursion, so graphs of any depth work.
"""

import heapq
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
    in_flight = {root: grad}                  # gradients summed so far, per node
    ready = [(-root.sequence_nr, root)]       # sequence numbers never tie: nodes are not compared
    while ready:
        _, node = heapq.heappop(ready)
        node_grad = in_flight.pop(node, None)
        if node_grad is None:                 # only None reached it: nothing to pass on
            grads = (None,) * len(node.next_functions)
        else:
            grads = node(node_grad)
        for (next_node, _), next_grad in zip(node.next_functions, grads):
            if next_node is None:             # an input that needs no gradient
                continue
            if next_grad is not None:         # None delivers nothing, but the edge is done
                if next_node in in_flight:
                    in_flight[next_node] = in_flight[next_node] + next_grad  # paths add up
                else:
                    in_flight[next_node] = next_grad
            dependencies[next_node] -= 1
            if dependencies[next_node] == 0:  # every edge into it has delivered
                heapq.heappush(ready, (-next_node.sequence_nr, next_node))


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
