"""Chapter 00's checks: the graph your package records, with nbgrad as the referee.

A recorded graph is compared with nbgrad's for the same expression as a list of nodes in
the order a walk over ``next_functions`` first meets them: each node's name and, per edge,
the number of the node it leads to (``None`` for an input that needs no gradient). A
leaf's ``AccumulateGrad`` is named after the leaf, so that "the same accumulator for a leaf
used twice" is part of the comparison.
"""

import gc
import weakref

import numpy as np
import nbgrad as ng

from buildgrad.checks import close, expect, fail, finite_difference, task_checks

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
    lone = ns["tensor"]([1.0], requires_grad=True)
    accumulator = weakref.ref(edge(lone)[0])
    gc.collect()
    expect(accumulator() is None,
           "The leaf keeps its AccumulateGrad alive: keep only a weak reference on the tensor "
           "(tensor._accumulator = weakref.ref(accumulator)), since the accumulator holds the leaf",
           "the accumulator freed once nothing else uses it", "still alive")
    again = edge(lone)
    expect(isinstance(again[0], AccumulateGrad) and again[0].variable is lone,
           "Once a leaf's accumulator is gone (its weak reference returns None), the leaf's next "
           "edge needs a new AccumulateGrad", "(<AccumulateGrad>, 0)", repr(again))


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
    expect(node is not None, "Nothing recorded although a and b require grad: an operation is "
           "recorded when ANY of its inputs requires grad (here x does not)",
           "a ProbeBackward0 as out.grad_fn", "grad_fn None")
    expect(isinstance(node, ProbeBackward0), "record makes a node of node_class and sets it as "
           "out.grad_fn", "a ProbeBackward0", repr(node))
    edges = node.next_functions
    expect(not isinstance(edges, list), "next_functions is a tuple, as in PyTorch, not a list",
           "a tuple of 3 edges", repr(edges))
    expect(isinstance(edges, tuple) and len(edges) == 3,
           "next_functions is a tuple with one edge per input, in the inputs' order",
           "3 edges", repr(edges))
    expect(edges[0][0] is not None and edges[0][0].variable is a and edges[1] == (None, 0)
           and edges[2][0].variable is b,
           "Each edge is gradient_edge(input): a's accumulator, (None, 0) for x, b's accumulator",
           "((<AccumulateGrad a>, 0), (None, 0), (<AccumulateGrad b>, 0))", repr(edges))
    saved = node.saved
    expect(len(saved) > 0, "Forgot to save `saved` on the node? backward reads node.saved",
           "(a, b)", repr(saved))
    expect(not (len(saved) == 1 and isinstance(saved[0], tuple)),
           "Saved the tuple `saved` as one item: Node.save takes the tensors one by one "
           "(node.saved must be (a, b), not ((a, b),))", "(a, b)", repr(saved))
    expect(len(saved) == 2 and saved[0] is a and saved[1] is b,
           "node.saved must be the tensors of `saved`, in their order", "(a, b)", repr(saved))
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


def _sum_to(array, shape):
    """``array`` summed over the axes that broadcasting added to ``shape``."""
    array = np.asarray(array)
    array = array.sum(axis=tuple(range(array.ndim - len(shape)))) if array.ndim > len(shape) else array
    return array.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True)


def mul(ns):
    tensor, MulBackward0 = ns["tensor"], ns["MulBackward0"]
    a = tensor([1.0, -2.0], requires_grad=True)
    try:
        with_numbers = [a * 2, 3 * a, a * 2.5]
    except (AttributeError, TypeError) as error:
        fail("A Python number as an operand (a * 2, 3 * a) must first become a tensor "
             "(as_tensor)", "a tensor", f"{type(error).__name__}: {error}")
    expect(all(t.dtype == np.float32 for t in with_numbers),
           "A Python number takes the tensor's dtype, as in PyTorch (float32 * 2 stays float32): "
           "as_tensor(number, like=the other operand)", "float32",
           ", ".join(str(t.dtype) for t in with_numbers))
    b, x = tensor([3.0, 4.0], requires_grad=True), tensor([5.0, 6.0])
    node = (a * b).grad_fn
    expect(node is not None, "a * b recorded nothing (grad_fn None): mul must hand its result "
           "to record, with MulBackward0", "a MulBackward0", "None")
    expect(isinstance(node, MulBackward0), "a * b must record a MulBackward0",
           "MulBackward0", repr(node))
    saved = node.saved
    expect(len(saved) == 2 and saved[0] is a and saved[1] is b,
           "MulBackward0 saves both input tensors, in order: its backward needs each to compute "
           "the other's gradient", "(a, b)", repr(saved))
    edges = (a * x).grad_fn.next_functions
    expect(edges[1] == (None, 0) and getattr(edges[0][0], "variable", None) is a,
           "The edges follow the operands' order: a * x leads first to a's accumulator, then "
           "nowhere for x", "((<AccumulateGrad a>, 0), (None, 0))", repr(edges))
    _compare_graphs(ns, [
        ("a * b", lambda a, b, x: a * b),
        ("a * x", lambda a, b, x: a * x),
        ("a * a", lambda a, b, x: a * a),
        ("3 * a * 2", lambda a, b, x: 3 * a * 2),
        ("x * x (nothing requires grad)", lambda a, b, x: x * x),
        ("(a * b).sum() * (a * x).exp()", lambda a, b, x: (a * b).sum() * (a * x).exp()),
    ], "Your mul records a different graph from nbgrad's (record a MulBackward0 with both "
       "operands as inputs)")
    for seed in range(3):
        a_value, b_value, _ = _inputs(seed)  # (3,) and (2, 3): a is broadcast
        weights = np.random.default_rng(10 + seed).normal(size=(2, 3))  # loss = sum(w * out)
        a, b = tensor(a_value, requires_grad=True), tensor(b_value, requires_grad=True)
        grads = (a * b).grad_fn.backward(weights)
        expect(isinstance(grads, tuple) and len(grads) == 2,
               "MulBackward0.backward returns one gradient per input, as a tuple",
               "(grad_a, grad_b)", repr(grads))
        grad_a, grad_b = np.asarray(grads[0]), np.asarray(grads[1])
        want_a = finite_difference(lambda v: float(np.sum(weights * v * b_value)), a_value)
        want_b = finite_difference(lambda v: float(np.sum(weights * a_value * v)), b_value)
        if grad_a.shape == a.shape and not np.allclose(grad_a, want_a, rtol=1e-5, atol=1e-6):
            expect(not np.allclose(grad_a, _sum_to(weights * a_value, a.shape), rtol=1e-5),
                   "d(a*b)/da is grad * b: multiply by the OTHER input, not by a itself",
                   np.array2string(want_a, precision=6), np.array2string(grad_a, precision=6))
            expect(not np.allclose(grad_a, _sum_to(np.ones((2, 3)) * b_value, a.shape), rtol=1e-5),
                   "Forgot the incoming gradient? backward(grad) gets dL/d(out) and returns "
                   "grad times the local derivative (the chain rule)",
                   np.array2string(want_a, precision=6), np.array2string(grad_a, precision=6))
        expect(grad_a.shape == a.shape and grad_b.shape == b.shape,
               "Each gradient has its input's shape: a (3,) was broadcast to (2, 3), so its "
               "gradient is summed back to (3,) (sum_to)",
               f"{a.shape} and {b.shape}", f"{grad_a.shape} and {grad_b.shape}")
        close(grad_a, want_a, "d(a*b)/da is grad * b, summed back to a's shape", rtol=1e-5, atol=1e-6)
        close(grad_b, want_b, "d(a*b)/db is grad * a (the OTHER input), in b's shape",
              rtol=1e-5, atol=1e-6)
        one = (a * a).grad_fn.backward(weights[0])
        close(np.asarray(one[0]) + np.asarray(one[1]), 2 * weights[0] * a_value,
              "For a * a each edge gets grad * a (together 2 a grad)", rtol=1e-5, atol=1e-6)


CHECKS = task_checks(globals(), [gradient_edge, record, mul])
