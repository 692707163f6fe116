"""Chapter 00's checks: the graph your package records, with nbgrad as the referee.

A recorded graph is compared with nbgrad's for the same expression as a list of nodes in
the order a walk over ``next_functions`` first meets them: each node's name and, per edge,
the number of the node it leads to (``None`` for an input that needs no gradient). A
leaf's ``AccumulateGrad`` is named after the leaf, so that "the same accumulator for a leaf
used twice" is part of the comparison.
"""

import numpy as np
import nbgrad as ng

from buildgrad.checks import close, expect, finite_difference, task_checks

SHAPES = ((3,), (2, 3), (3,))  # a, b, x: b broadcasts against a and x


def _inputs(seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 1.5, shape) * rng.choice((-1.0, 1.0), shape) for shape in SHAPES]


def _structure(out, leaves):
    """The graph behind ``out`` as comparable lines (``None`` when it has no ``grad_fn``)."""
    if out.grad_fn is None:
        return None
    numbers, order, queue = {}, [], [out.grad_fn]
    numbers[out.grad_fn] = 0
    while queue:
        node = queue.pop(0)
        order.append(node)
        for next_node, _ in node.next_functions:
            if next_node is not None and next_node not in numbers:
                numbers[next_node] = len(numbers)
                queue.append(next_node)
    lines = []
    for node in order:
        if hasattr(node, "variable"):
            leaf = next((name for name, t in leaves.items() if t is node.variable), "?")
            name = f"AccumulateGrad({leaf})"
        else:
            name = node.name()
        edges = [(None if n is None else numbers[n], nr) for n, nr in node.next_functions]
        lines.append(f"{numbers[node]}: {name} -> {edges}")
    return lines


def _compare_graphs(ns, expressions, hint):
    for text, build in expressions:
        for seed in (0, 1):
            arrays = _inputs(seed)
            mine = {name: ns["tensor"](value, requires_grad=name != "x")
                    for name, value in zip("abx", arrays)}
            theirs = {name: ng.tensor(value, requires_grad=name != "x")
                      for name, value in zip("abx", arrays)}
            got, want = build(**mine), build(**theirs)
            expect(_structure(got, mine) == _structure(want, theirs), f"{hint} (for {text})",
                   _structure(want, theirs), _structure(got, mine))
            close(np.asarray(got.array, dtype=np.float64), want.detach().numpy().astype(np.float64),
                  f"{hint}: the forward value is wrong (for {text})", rtol=1e-5, atol=1e-6)


def gradient_edge(ns):
    Tensor, Node, AccumulateGrad = ns["Tensor"], ns["Node"], ns["AccumulateGrad"]
    edge = ns["gradient_edge"]
    leaf = ns["tensor"]([1.0, 2.0], requires_grad=True)
    first = edge(leaf)
    expect(isinstance(first, tuple) and len(first) == 2, "An edge is a pair (node, output_nr)",
           "(<AccumulateGrad>, 0)", repr(first))
    expect(isinstance(first[0], AccumulateGrad) and first[1] == 0,
           "A leaf that requires grad sends its gradient to its AccumulateGrad, output 0",
           "(<AccumulateGrad>, 0)", repr(first))
    expect(first[0].variable is leaf, "The accumulator's .variable must be the leaf itself",
           "accumulator.variable is leaf", repr(first[0].variable))
    expect(edge(leaf)[0] is first[0],
           "Made a new AccumulateGrad at every call? A leaf has ONE accumulator while a graph "
           "uses it: keep it on the tensor (tensor._accumulator) and reuse it",
           "the same AccumulateGrad object twice", "two different objects")
    other = ns["tensor"]([1.0, 2.0], requires_grad=True)
    expect(edge(other)[0] is not first[0], "Each leaf has its own accumulator (not one shared "
           "by every tensor: store it on the tensor, not on the class or in a global)",
           "a different AccumulateGrad for another leaf", "the same object")
    data = ns["tensor"]([1.0, 2.0])
    expect(edge(data) == (None, 0), "A leaf that does not require grad has no edge: (None, 0)",
           (None, 0), repr(edge(data)))
    result = Tensor(np.array([3.0]))
    result.grad_fn = Node(())
    expect(edge(result) == (result.grad_fn, 0),
           "A result (a tensor with a grad_fn) sends its gradient to its grad_fn, output 0",
           f"({result.grad_fn!r}, 0)", repr(edge(result)))


def record(ns):
    Node, Tensor, tensor, record_ = ns["Node"], ns["Tensor"], ns["tensor"], ns["record"]

    class ProbeBackward0(Node):
        pass

    a = tensor([1.0, 2.0], requires_grad=True)
    b = tensor([3.0, 4.0], requires_grad=True)
    x = tensor([5.0, 6.0])
    out = Tensor(np.array([0.0, 0.0]))
    got = record_(ProbeBackward0, out, (a, x, b), saved=(a, b), exponent=3)
    expect(got is out, "record must return the output tensor it was given (`return out`)",
           "the same tensor", repr(got))
    node = out.grad_fn
    expect(isinstance(node, ProbeBackward0), "record makes a node of node_class and sets it as "
           "out.grad_fn", "a ProbeBackward0", repr(node))
    edges = node.next_functions
    expect(isinstance(edges, tuple) and len(edges) == 3,
           "next_functions is a tuple with one edge per input, in the inputs' order",
           "3 edges", repr(edges))
    expect(edges[0][0] is not None and edges[0][0].variable is a and edges[1] == (None, 0)
           and edges[2][0].variable is b,
           "Each edge is gradient_edge(input): a's accumulator, (None, 0) for x, b's accumulator",
           "((<AccumulateGrad a>, 0), (None, 0), (<AccumulateGrad b>, 0))", repr(edges))
    saved = node.saved
    expect(len(saved) == 2 and saved[0] is a and saved[1] is b,
           "Forgot node.save(*saved)? backward reads node.saved", "(a, b)", repr(saved))
    expect(getattr(node, "exponent", None) == 3,
           "The keyword fields must become attributes of the node (node.exponent == 3)",
           3, repr(getattr(node, "exponent", None)))
    first = node.sequence_nr
    again = record_(ProbeBackward0, Tensor(np.array(1.0)), (out,))
    expect(again.grad_fn.next_functions == ((node, 0),),
           "An input that is a result leads to its grad_fn", f"(({node!r}, 0),)",
           repr(again.grad_fn.next_functions))
    expect(again.grad_fn.sequence_nr > first, "A node is made after the nodes of its inputs "
           "(Node.__init__ numbers them): make the node inside record, after its inputs'",
           f"sequence_nr > {first}", again.grad_fn.sequence_nr)
    plain = Tensor(np.array([0.0]))
    got = record_(ProbeBackward0, plain, (x, tensor([1.0])), saved=(x,))
    expect(got is plain and plain.grad_fn is None,
           "Recorded a node although no input requires grad? Then nothing is recorded: the "
           "output stays a leaf (grad_fn None) and is returned as it is",
           "grad_fn None", repr(plain.grad_fn))
    _compare_graphs(ns, [
        ("(a + x).exp().sum()", lambda a, b, x: (a + x).exp().sum()),
        ("(b - a).tanh() + b", lambda a, b, x: (b - a).tanh() + b),
        ("(a ** 2).sum(0) + a.mean()", lambda a, b, x: (a ** 2).sum(0) + a.mean()),
        ("(x ** 2 + 1).log() (nothing requires grad)",
         lambda a, b, x: (x ** 2 + 1).log()),
        ("b.mm(a.view(3, 1))", lambda a, b, x: b.mm(a.view(3, 1))),
    ], "Your graph differs from nbgrad's: compare the node names and where each edge leads")


def mul(ns):
    tensor, MulBackward0 = ns["tensor"], ns["MulBackward0"]
    _compare_graphs(ns, [
        ("a * b", lambda a, b, x: a * b),
        ("a * x", lambda a, b, x: a * x),
        ("a * a", lambda a, b, x: a * a),
        ("3 * a * 2", lambda a, b, x: 3 * a * 2),
        ("x * x (nothing requires grad)", lambda a, b, x: x * x),
        ("(a * b).sum() * (a * x).exp()", lambda a, b, x: (a * b).sum() * (a * x).exp()),
    ], "Your mul records a different graph from nbgrad's (call record with MulBackward0 and "
       "both inputs, as tensors: as_tensor turns a number into one)")
    for seed in range(3):
        a_value, b_value, _ = _inputs(seed)
        weights = np.random.default_rng(10 + seed).normal(size=(2, 3))  # loss = sum(w * out)
        a, b = tensor(a_value, requires_grad=True), tensor(b_value, requires_grad=True)
        node = (a * b).grad_fn
        expect(isinstance(node, MulBackward0), "a * b must record a MulBackward0",
               "MulBackward0", repr(node))
        grads = node.backward(weights)
        expect(isinstance(grads, tuple) and len(grads) == 2,
               "MulBackward0.backward returns one gradient per input, as a tuple",
               "(grad_a, grad_b)", repr(grads))
        loss = lambda a_, b_: float(np.sum(weights * a_ * b_))
        want_a = finite_difference(lambda v: loss(v, b_value), a_value)
        want_b = finite_difference(lambda v: loss(a_value, v), b_value)
        close(grads[0], want_a, "d(a*b)/da is grad * b, summed back to a's shape with sum_to "
              "(a was broadcast from (3,) to (2, 3))", rtol=1e-5, atol=1e-6)
        close(grads[1], want_b, "d(a*b)/db is grad * a (the OTHER input), in b's shape",
              rtol=1e-5, atol=1e-6)
        one = (a * a).grad_fn.backward(weights[0])
        close(np.asarray(one[0]) + np.asarray(one[1]), 2 * weights[0] * a_value,
              "For a * a each edge gets grad * a (together 2 a grad)", rtol=1e-5, atol=1e-6)


CHECKS = task_checks(globals(), [gradient_edge, record, mul])
