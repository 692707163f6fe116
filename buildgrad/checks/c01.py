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
    node.backward(first)
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
        expect(got.get(root, 0) == 0, "No edge leads into the root: it must not be counted",
               0, got.get(root))
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
    counted = len([node for node in got if got[node]])
    expect(counted == 10_001,
           "Below the root of the 10 000-deep chain: 9 999 MulBackward0 nodes and 2 accumulators",
           10_001, counted)


def run_backward(ns):
    for seed in range(6):
        leaves, out = _yours(ns, seed)
        calls = {}
        for node in _nodes(out.grad_fn):
            def counted(grad, node=node, inner=node.backward):
                calls[node] = calls.get(node, 0) + 1
                return inner(grad)
            node.backward = counted
        out.sum().backward()
        twice = [node.name() for node, n in calls.items() if n > 1]
        expect(not twice, "Run a node once, when its dependency count reaches 0 (every path into "
               "it has delivered); until then, add what arrives into its buffer",
               "each node run once", f"ran more than once: {twice}")
        _compare(leaves, _nbgrad_grads(seed),
                 f"Random graph {seed}: your gradients differ from nbgrad's autograd. Gradients "
                 "that reach a node along several paths must be ADDED before the node runs")
    rng = np.random.default_rng(7)
    for seed in range(6, 9):
        leaves, out = _yours(ns, seed)
        gradient = rng.normal(size=out.shape)
        ns["run_backward"](out.grad_fn, gradient)
        _compare(leaves, _nbgrad_grads(seed, gradient),
                 f"run_backward(root, grad) starts from grad, the gradient of root's output "
                 f"(graph {seed}, a non-scalar output)")
    x = ns["tensor"]([0.5, -1.0, 2.0], dtype=np.float64, requires_grad=True)
    y = ((x * x).sin() + x * 3.0 + (x * x).exp()).sum()   # x reached along four paths
    y.backward()
    a = np.array([0.5, -1.0, 2.0])
    close(x.grad.numpy(), np.cos(a * a) * 2 * a + 3 + np.exp(a * a) * 2 * a,
          "Fan-out: x is used four times; its gradient is the SUM over the paths", rtol=1e-12)
    x, w, h = _deep_chain(ns)
    try:
        h.backward()
    except RecursionError:
        fail("A recursive engine dies on a deep graph: loop over a heap (or list) of ready nodes",
             "a 10 000-deep backward", "RecursionError")
    close([x.grad.item(), w.grad.item()], [1.0, 10_000.0],
          "A 10 000-deep chain h = h * w: dh/dx = 1 and dh/dw = 10 000 (one path per factor)")
    vector = ns["tensor"]([1.0, 2.0], requires_grad=True) * 2.0
    raises(lambda: vector.backward(), RuntimeError, "grad can be implicitly created only for scalar outputs",
           "backward() with no gradient starts from 1 only for a scalar (one element) output; "
           "for any other raise PyTorch's RuntimeError")
    s = ns["tensor"]([2.0], requires_grad=True)
    (s * s).backward()   # one element: allowed, gradient 1 of the output's shape
    close(s.grad.numpy(), [4.0], "A one-element output starts from gradient 1, shaped like it")


CHECKS = task_checks(globals(), [accumulate_grad, count_dependencies, run_backward])
