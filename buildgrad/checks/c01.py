"""Chapter 01's checks: the engine (``AccumulateGrad.backward``, ``count_dependencies``,
``run_backward`` with ``Tensor.backward``), with nbgrad's autograd as the referee."""

import numpy as np

from buildgrad.checks import close, expect, fail, raises, task_checks


def _nodes(root):
    """Every node reachable from ``root``, each once (the check's own walk)."""
    seen, stack = {root}, [root]
    while stack:
        for next_node, _ in stack.pop().next_functions:
            if next_node is not None and next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return seen


def _random_program(make_leaf, seed):
    """The same random program of operations on any PyTorch-like package: ``make_leaf``
    turns a float64 array into a leaf that requires grad. Returns (leaves, last result)."""
    rng = np.random.default_rng(seed)
    leaves = [make_leaf(rng.normal(size=4)) for _ in range(3)] + [make_leaf(rng.normal(size=()))]
    values = list(leaves)
    for _ in range(10):
        a, b = (values[i] for i in rng.integers(len(values), size=2))
        kind = rng.integers(9)
        values.append(a + b if kind == 0 else a - b if kind == 1 else a * b if kind == 2
                      else a / (b * b + 1.0) if kind == 3 else a.sin() if kind == 4
                      else a.cos() if kind == 5 else a.tanh().exp() if kind == 6
                      else a ** 2 if kind == 7 else a * 0.5 + b.sum())
    return leaves, values[-1]


def _nbgrad_grads(seed, gradient=None):
    import nbgrad as ng
    leaves, out = _random_program(lambda a: ng.tensor(a, dtype=ng.float64, requires_grad=True), seed)
    if gradient is None:
        out.sum().backward()
    else:
        out.backward(gradient=ng.tensor(gradient, dtype=ng.float64))
    return [None if t.grad is None else t.grad.numpy() for t in leaves]


def _yours(ns, seed):
    return _random_program(lambda a: ns["tensor"](a, dtype=np.float64, requires_grad=True), seed)


def _deep_chain(ns, depth=10_000):
    """x, w and h = x * w * ... * w: a graph far deeper than Python's recursion limit."""
    x = ns["tensor"](1.0, dtype=np.float64, requires_grad=True)
    w = ns["tensor"](1.0, dtype=np.float64, requires_grad=True)
    h = x
    for _ in range(depth):
        h = h * w
    return x, w, h


def _compare(leaves, expected, hint):
    for i, (leaf, want) in enumerate(zip(leaves, expected)):
        got = leaf.grad
        if want is None or got is None:
            expect(want is None and got is None, hint + " (a leaf the output does not use keeps "
                   "grad None; one it uses gets a gradient)", f"input {i}: {want}", f"input {i}: {got}")
            continue
        close(got.numpy(), want, hint, rtol=1e-9, atol=1e-12)


def accumulate_grad(ns):
    rng = np.random.default_rng(1)
    leaf = ns["tensor"]([1.0, 2.0, 3.0], requires_grad=True)  # float32
    node = ns["AccumulateGrad"](leaf)
    first, second = rng.normal(size=3), rng.normal(size=3)    # float64
    returned = node.backward(first)
    expect(isinstance(returned, tuple) and len(returned) == 0,
           "AccumulateGrad.backward returns one gradient per input, as a tuple: a leaf has no "
           "inputs, so the empty tuple ()", "()", repr(returned))
    got = leaf.grad
    expect(isinstance(got, ns["Tensor"]),
           "AccumulateGrad.backward must set leaf.grad to a Tensor (wrap the array: Tensor(...))",
           "a Tensor", type(got).__name__)
    expect(got.dtype == np.float32,
           "The first gradient is copied into .grad in the LEAF's dtype "
           "(np.array(grad, dtype=leaf.dtype)), as PyTorch keeps grad and tensor alike",
           "float32", got.dtype)
    close(got.numpy(), first, "The first gradient goes into .grad as it is (a copy of grad)",
          rtol=1e-6)
    kept = got.numpy().copy()
    first[:] = 0.0
    close(leaf.grad.numpy(), kept,
          "Copy the first gradient: .grad must not be the engine's array itself "
          "(np.array(grad, ...) copies; np.asarray does not)", rtol=0)
    node.backward(second)
    expect(isinstance(leaf.grad, ns["Tensor"]) and leaf.grad.dtype == np.float32,
           "A later gradient is ADDED into .grad, which keeps the leaf's dtype "
           "(float32 + float64 gives float64 in NumPy: cast the sum back)",
           "a float32 Tensor", f"{type(leaf.grad).__name__} {getattr(leaf.grad, 'dtype', '')}")
    close(leaf.grad.numpy(), kept + second,
          "A second backward ADDS into .grad (grad accumulates), it does not replace it", rtol=1e-6)
    wide = ns["tensor"](rng.normal(size=(2, 3)), dtype=np.float64, requires_grad=True)
    node = ns["AccumulateGrad"](wide)
    grads = rng.normal(size=(3, 2, 3))
    for g in grads:
        node.backward(g.copy())
    close(wide.grad.numpy(), grads.sum(axis=0),
          "Every gradient that reaches the leaf adds into .grad", rtol=1e-12)
    same = ns["tensor"](np.zeros(3), dtype=np.float64, requires_grad=True)
    given = rng.normal(size=3)
    ns["AccumulateGrad"](same).backward(given)
    expect(not np.shares_memory(same.grad.numpy(), given),
           "Copy the first gradient even when its dtype is already the leaf's: np.asarray "
           "(or Tensor(grad)) keeps the engine's own array, which it may change later",
           "a new array", "the engine's array itself")


def count_dependencies(ns):
    count = ns["count_dependencies"]
    for seed in range(5):
        _, out = _yours(ns, seed)
        root = out.grad_fn
        got = count(root)
        expect(isinstance(got, dict), "count_dependencies returns a dict: node -> number of edges "
               "leading into it", "a dict", type(got).__name__)
        expect(None not in got, "Skip the edges whose node is None (inputs that need no gradient)",
               "no None key", "None counted")
        expect(root not in got, "The root is not a key of the dict: no edge leads into it "
               "(every count in the dict is at least 1)", "no key for the root",
               f"{root.name()}: {got.get(root)}")
        nodes = _nodes(root)
        expected = {node: 0 for node in nodes}
        for node in nodes:
            for next_node, _ in node.next_functions:
                if next_node is not None:
                    expected[next_node] += 1
        for node in nodes - {root}:
            expect(got.get(node, 0) == expected[node],
                   "Count EVERY edge into a node (x * x has two into x's AccumulateGrad), but walk "
                   "a node's own next_functions only once, however many paths reach it "
                   f"(graph {seed}, node {node.name()})", expected[node], got.get(node, 0))
    x, w, h = _deep_chain(ns)
    try:
        got = count(h.grad_fn)
    except RecursionError:
        fail("A recursive walk dies on a deep graph: keep your own stack (a list) and loop",
             "counts for a 10 000-deep chain", "RecursionError")
    into_w = got.get(ns["gradient_edge"](w)[0], 0)
    expect(into_w == 10_000,
           "The 10 000-deep chain h = h * w has 10 000 edges into w's AccumulateGrad",
           10_000, into_w)
    expect(len(got) == 10_001,
           "Below the root of the 10 000-deep chain: 9 999 MulBackward0 nodes and 2 accumulators, "
           "each a key of the dict", 10_001, len(got))


def _engine(action):
    """Run ``action`` (a backward), naming the engine mistakes that raise."""
    try:
        action()
    except RecursionError:
        fail("A recursive engine dies on a deep graph: loop over a heap (or list) of ready nodes",
             "a 10 000-deep backward", "RecursionError")
    except TypeError as error:
        if "'<' not supported" not in str(error):
            raise
        fail("heapq compared two nodes, which cannot be compared: push a key that orders them "
             "(-sequence_nr, which never ties) together with the node, (key, node)",
             "a heap of (key, node)", f"TypeError: {error}")


def _none_gradients(ns):
    """Two graphs in which a node gives no gradient (None) to an input, as a Function may."""
    tensor = ns["tensor"]
    hint = ("A None gradient delivers nothing, but its edge has delivered: lower the count all "
            "the same (PyTorch does), or a node that other edges reach never runs")
    a = tensor(2.0, dtype=np.float64, requires_grad=True)
    b = tensor(3.0, dtype=np.float64, requires_grad=True)
    p = a * b
    inner = p.grad_fn.backward
    p.grad_fn.backward = lambda grad: (inner(grad)[0], None)   # no gradient for b along p
    try:
        (p + b * 5.0).backward()
    except Exception as error:
        fail(hint, "a.grad = 3, b.grad = 5", f"{type(error).__name__}: {error}")
    for name, leaf, want in (("a", a, 3.0), ("b", b, 5.0)):
        expect(leaf.grad is not None, hint, f"{name}.grad = {want}", f"{name}.grad = None")
        close(leaf.grad.numpy(), want, hint + f" ({name}.grad)")
    hint = ("A node that only None reached has no gradient: do not call it, but give None to "
            "each of its inputs in turn (their counts go down; nothing is added)")
    a = tensor(2.0, dtype=np.float64, requires_grad=True)
    b = tensor(3.0, dtype=np.float64, requires_grad=True)
    p = (a * 2.0) * b
    inner = p.grad_fn.backward
    p.grad_fn.backward = lambda grad: (None, inner(grad)[1])   # nothing reaches a * 2.0
    try:
        (p + a).backward()
    except Exception as error:
        fail(hint, "a.grad = 1, b.grad = 4", f"{type(error).__name__}: {error}")
    for name, leaf, want in (("a", a, 1.0), ("b", b, 4.0)):
        expect(leaf.grad is not None, hint, f"{name}.grad = {want}", f"{name}.grad = None")
        close(leaf.grad.numpy(), want, hint + f" ({name}.grad)")


def run_backward(ns):
    x, w, h = _deep_chain(ns)
    _engine(h.backward)
    for seed in range(6):
        leaves, out = _yours(ns, seed)
        calls, order = {}, []
        for node in _nodes(out.grad_fn):
            def counted(grad, node=node, inner=node.backward):
                calls[node] = calls.get(node, 0) + 1
                order.append(node)
                return inner(grad)
            node.backward = counted
        _engine(out.sum().backward)
        twice = [node.name() for node, n in calls.items() if n > 1]
        expect(not twice, "Run a node once, when its dependency count reaches 0 (every path into "
               "it has delivered); until then, add what arrives into its buffer",
               "each node run once", f"ran more than once: {twice}")
        _compare(leaves, _nbgrad_grads(seed),
                 f"Random graph {seed}: your gradients differ from nbgrad's autograd. Gradients "
                 "that reach a node along several paths must be ADDED before the node runs")
        numbers = [node.sequence_nr for node in order]
        expect(numbers == sorted(numbers, reverse=True),
               "Ready nodes run newest first, the largest sequence_nr first (PyTorch's order): "
               "heapq pops the SMALLEST item, so key the heap on -sequence_nr",
               "decreasing sequence numbers", numbers)
    close([x.grad.item(), w.grad.item()], [1.0, 10_000.0],
          "A 10 000-deep chain h = h * w: dh/dx = 1 and dh/dw = 10 000 (one path per factor)")
    rng = np.random.default_rng(7)
    for seed in range(6, 9):
        leaves, out = _yours(ns, seed)
        gradient = rng.normal(size=out.shape)
        _engine(lambda: ns["run_backward"](out.grad_fn, gradient))
        _compare(leaves, _nbgrad_grads(seed, gradient),
                 f"run_backward(root, grad) starts from grad, the gradient of root's output "
                 f"(graph {seed}, a non-scalar output)")
    x = ns["tensor"]([0.5, -1.0, 2.0], dtype=np.float64, requires_grad=True)
    y = ((x * x).sin() + x * 3.0 + (x * x).exp()).sum()   # x reached along four paths
    y.backward()
    a = np.array([0.5, -1.0, 2.0])
    close(x.grad.numpy(), np.cos(a * a) * 2 * a + 3 + np.exp(a * a) * 2 * a,
          "Fan-out: x is used four times; its gradient is the SUM over the paths", rtol=1e-12)
    _none_gradients(ns)
    # Tensor.backward, the entry point
    vector = ns["tensor"]([1.0, 2.0], requires_grad=True) * 2.0
    raises(lambda: vector.backward(), RuntimeError, "grad can be implicitly created only for scalar outputs",
           "backward() with no gradient starts from 1 only for a scalar (one element) output; "
           "for any other raise PyTorch's RuntimeError")
    x = ns["tensor"]([0.5, -1.0, 2.0], dtype=np.float64, requires_grad=True)
    v = ns["tensor"]([1.0, 0.5, -1.0], dtype=np.float64)
    hint = ("backward(gradient) gets a Tensor, as in PyTorch; the engine and the nodes work on "
            "NumPy arrays: hand the engine the Tensor's array")
    try:
        (x * x).backward(v)
    except Exception as error:
        fail(hint, "x.grad = v * 2x", f"{type(error).__name__}: {error}")
    got = x.grad
    expect(isinstance(got, ns["Tensor"]) and isinstance(got.array, np.ndarray)
           and got.array.dtype == np.float64, hint, "x.grad a float64 Tensor",
           f"{type(got).__name__} over {type(getattr(got, 'array', None)).__name__}")
    close(got.numpy(), [1.0, -1.0, -4.0], hint)
    s = ns["tensor"]([2.0], requires_grad=True)
    (s * s).backward()   # one element: allowed, gradient 1 of the output's shape
    close(s.grad.numpy(), [4.0], "A one-element output starts from gradient 1, shaped like it")
    leaf = ns["tensor"]([2.0], requires_grad=True)
    hint = ("leaf.backward() starts at the leaf's own AccumulateGrad (where its gradient goes: "
            "gradient_edge), not at its grad_fn, which a leaf does not have")
    try:
        leaf.backward()
    except Exception as error:
        fail(hint, "leaf.grad = [1.]", f"{type(error).__name__}: {error}")
    expect(leaf.grad is not None, hint, "leaf.grad = [1.]", "None")
    close(leaf.grad.numpy(), [1.0], "backward() with no gradient starts from 1 shaped like the "
          "output (a one-element leaf gets .grad of shape (1,), not a 0-d array)")


CHECKS = task_checks(globals(), [accumulate_grad, count_dependencies, run_backward])
