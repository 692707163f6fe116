"""Chapter 03's checks: hooks, ``retain_grad`` and the ``.grad`` warning, with nbgrad as
the referee (the same programs, the same hooks, on both)."""

import gc
import warnings

import numpy as np
import nbgrad as ng

from buildgrad.checks import CheckFailed, close, expect, fail, nbgrad_message, raises, task_checks


def _grad(t):
    """``t.grad`` without the non-leaf warning (a check reads every tensor's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = t.grad
    return None if g is None else np.array(g.numpy(), dtype=np.float64)


def _same_grad(got, expected, hint):
    if got is None or expected is None:
        expect(got is None and expected is None, hint,
               "None" if expected is None else np.array2string(expected, precision=6),
               "None" if got is None else np.array2string(got, precision=6))
    else:
        close(got, expected, hint)


def register_hook(ns):
    tensor = ns["tensor"]
    hint = ("register_hook: the usual mistake is storing every hook in one place. A leaf's "
            "hooks go on the tensor (t._hooks, which its AccumulateGrad node reads), a result's "
            "on its grad_fn (grad_fn.pre_hooks), appended in order, and the handle must take "
            "off exactly its hook.")
    message = nbgrad_message(lambda: ng.ones(3).register_hook(lambda g: g))
    raises(lambda: tensor([1.0, 2.0]).register_hook(lambda g: g), RuntimeError, message,
           "register_hook on a tensor that does not require grad must raise PyTorch's error.")

    f, g, k = (lambda grad: grad), (lambda grad: 2 * grad), (lambda grad: grad + 1)
    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    handle = y.register_hook(f)
    expect(hasattr(handle, "remove"), hint, "a handle with .remove()", repr(handle))
    y.register_hook(g)
    expect(tuple(y.grad_fn.pre_hooks) == (f, g), hint, "y.grad_fn.pre_hooks == (f, g)",
           f"y.grad_fn.pre_hooks = {y.grad_fn.pre_hooks!r}")
    z = y * 3  # another result: its node has hooks of its own
    expect(tuple(z.grad_fn.pre_hooks) == (), hint, "z.grad_fn.pre_hooks == ()",
           f"{z.grad_fn.pre_hooks!r} (hooks of y leaked onto z's node)")
    handle.remove()
    expect(tuple(y.grad_fn.pre_hooks) == (g,), hint, "after handle.remove(): (g,)",
           repr(y.grad_fn.pre_hooks))

    accumulator = ns["gradient_edge"](x)[0]
    first = x.register_hook(g)
    x.register_hook(k)
    expect(tuple(accumulator.pre_hooks) == (g, k), hint,
           "x's AccumulateGrad sees (g, k) in x._hooks", repr(accumulator.pre_hooks))
    expect(tuple(y.grad_fn.pre_hooks) == (g,), hint, "a leaf's hooks do not go on a result's node",
           repr(y.grad_fn.pre_hooks))
    first.remove()
    expect(tuple(accumulator.pre_hooks) == (k,), hint, "after remove(): (k,)", repr(accumulator.pre_hooks))
    again = x.register_hook(k)  # the same function a second time
    again.remove()
    expect(tuple(accumulator.pre_hooks) == (k,),
           "handle.remove() takes off its own registration only: a function registered twice "
           "stays registered once (find the handle's id among the owner's ids)",
           "(k,) after registering k twice and removing the second handle",
           repr(accumulator.pre_hooks))


def retain_grad(ns):
    tensor = ns["tensor"]
    hint = ("retain_grad: the usual mistake is marking leaves too. A leaf keeps its gradient "
            "anyway, so retain_grad() leaves it alone and its retains_grad stays False; a "
            "result records a weak reference to itself in grad_fn.retains.")
    message = nbgrad_message(lambda: ng.ones(3).retain_grad())
    raises(lambda: tensor([1.0, 2.0]).retain_grad(), RuntimeError, message,
           "retain_grad on a tensor that does not require grad must raise PyTorch's error.")

    def program(T, retain):
        x = T.tensor([0.5, -1.0], dtype=T.float64, requires_grad=True)
        c = T.tensor([2.0, 3.0], dtype=T.float64)
        y = x * c
        h = y.tanh()
        out = (h * h).sum()
        for t in [[x, c, y, h, out][i] for i in retain]:
            t.retain_grad()
        return {"x": x, "c": c, "y": y, "h": h, "out": out}

    for retain in ([], [2], [0, 3], [2, 2, 4], [0, 2, 3, 4]):
        mine = program(_Bg(ns), retain)
        theirs = program(ng, [i for i in retain if i != 1])
        for name in ("x", "y", "h", "out"):
            expect(mine[name].retains_grad == theirs[name].retains_grad, hint,
                   f"{name}.retains_grad == {theirs[name].retains_grad} (retained: {retain})",
                   mine[name].retains_grad)
        expect(mine["c"].retains_grad is False, hint, "c.retains_grad is False (c requires no grad)",
               mine["c"].retains_grad)
        for name in ("y", "h", "out"):
            node = mine[name].grad_fn
            if theirs[name].retains_grad:
                expect(node.retains is not None and node.retains() is mine[name], hint,
                       f"{name}.grad_fn.retains() is {name}", repr(node.retains))
            else:
                expect(node.retains is None, hint, f"{name}.grad_fn.retains is None", repr(node.retains))

    x = tensor([1.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    node = y.grad_fn
    del y
    gc.collect()
    expect(node.retains() is None, "retain_grad: keep a *weak* reference (weakref.ref(self)): the "
           "node must not keep its output alive.", "None once y is gone", repr(node.retains()))


def grad_warning(ns):
    tensor = ns["tensor"]
    hint = ("the .grad property: the usual mistake is warning for every tensor. Warn (UserWarning, "
            "PyTorch's text) only for a non-leaf that did not call retain_grad(), and return "
            "self._grad in every case.")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ng_y = ng.tensor([1.0], requires_grad=True) * 2
        ng_y.grad
    expected_text = str(caught[0].message)
    phrase = "is not a leaf Tensor is being accessed"
    assert phrase in expected_text and "retain_grad()" in expected_text

    def read(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = t.grad
        return value, [w for w in caught if issubclass(w.category, UserWarning)]

    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    value, warned = read(y)
    expect(value is None and len(warned) == 1 and phrase in str(warned[0].message)
           and "retain_grad()" in str(warned[0].message), hint,
           f"None and one UserWarning: {expected_text[:80]}...",
           f"{value!r} and {[str(w.message)[:80] for w in warned]}")
    for name, t in (("a leaf", x), ("a tensor without grad", tensor([1.0]))):
        value, warned = read(t)
        expect(value is None and not warned, hint, f"{name}: None and no warning",
               f"{value!r} and {[str(w.message)[:80] for w in warned]}")
    y.retain_grad()
    value, warned = read(y)
    expect(value is None and not warned, hint, "a retaining non-leaf: None and no warning",
           f"{value!r} and {[str(w.message)[:80] for w in warned]}")
    stored = tensor([5.0, 6.0])
    x.grad = stored
    value, warned = read(x)
    expect(value is stored and not warned, hint, "x.grad is what was assigned", repr(value))
    x.grad = None
    expect(read(x)[0] is None, hint, "None after x.grad = None", repr(read(x)[0]))


def _hook(kind, seen, T):
    """One hook of each kind, for either package (``seen`` collects what 'look' hooks see)."""
    if kind == "look":
        return lambda g: seen.append(np.array(g.numpy(), dtype=np.float64))
    if kind == "double":
        return lambda g: g * 2
    if kind == "shift":
        return lambda g: g + 1
    return lambda g: g * T.tensor([1.0, -1.0, 0.5], dtype=T.float64)  # "flip": a new tensor


def _program(T, seed, plan):
    """A small program on package ``T`` with hooks and retains from ``plan``; the tensors
    by name, and what each named 'look' hook saw. ``plan``: (action, tensor name, remove?)."""
    r = np.random.default_rng(seed)
    x = T.tensor(r.normal(size=3), dtype=T.float64, requires_grad=True)
    w = T.tensor(r.normal(size=3), dtype=T.float64, requires_grad=True)
    c = T.tensor(r.normal(size=3), dtype=T.float64)
    y = x * w + c
    h = y.tanh()
    s = y.sin()
    out = (h * h + s * x).sum()
    named = {"x": x, "w": w, "y": y, "h": h, "s": s, "out": out}
    seen, handles = {}, []
    for action, name, remove in plan:
        if action == "retain":
            named[name].retain_grad()
            continue
        looks = seen.setdefault(f"{name}:{len(seen)}", [])
        handle = named[name].register_hook(_hook(action, looks, T))
        if remove:
            handles.append(handle)
    for handle in handles:
        handle.remove()
    return named, seen


class _Bg:
    def __init__(self, ns):
        self.tensor, self.float64 = ns["tensor"], np.float64


def _compare(ns, seed, plan, backwards=1):
    mine, seen_mine = _program(_Bg(ns), seed, plan)
    theirs, seen_theirs = _program(ng, seed, plan)
    where = "hooks/retains " + ", ".join(
        f"{a} {n}" + (" (removed)" if r else "") for a, n, r in plan)
    for _ in range(backwards):
        mine["out"].backward()
        theirs["out"].backward(retain_graph=True)
    hint = ("Node.__call__: the usual mistakes are running hooks in the wrong order, ignoring a "
            "hook's returned tensor (it replaces the gradient for the next hook and for the "
            "node), or storing the retained gradient before the hooks have run (retain_grad "
            "runs last, and accumulates).")
    for key, looks in seen_theirs.items():
        got = seen_mine[key]
        expect(len(got) == len(looks), hint, f"{where}: the 'look' hook {key} runs {len(looks)} time(s)",
               f"{len(got)} time(s)")
        for g, e in zip(got, looks):
            close(g, e, f"{hint}\n  ({where}: what the 'look' hook {key} saw)")
    for name in mine:
        t = theirs[name]
        expected = None if t.grad_fn is not None and not t.retains_grad else t.grad
        expected = None if expected is None else np.array(expected.numpy(), dtype=np.float64)
        _same_grad(_grad(mine[name]), expected, f"{hint}\n  ({where}: {name}.grad)")


PROGRAMS = [
    [("look", "y", False), ("double", "y", False), ("look", "y", False), ("look", "out", False)],
    [("shift", "h", False), ("look", "h", False), ("double", "s", False), ("look", "x", False),
     ("double", "x", False), ("flip", "w", False)],
    [("double", "y", True), ("shift", "y", False), ("look", "y", False), ("flip", "y", True),
     ("look", "x", True), ("double", "w", False)],
    [("retain", "y", False), ("double", "y", False), ("look", "y", False), ("retain", "h", False)],
    [("look", "h", False), ("retain", "h", False), ("flip", "h", False), ("retain", "out", False),
     ("retain", "x", False), ("shift", "x", False)],
    [("retain", "s", False), ("retain", "s", False), ("shift", "s", True), ("double", "s", False),
     ("look", "out", False), ("double", "out", False)],
]


def call_hooks(ns):
    tensor = ns["tensor"]
    for seed, plan in enumerate(PROGRAMS):
        for repeat in range(2):
            try:
                _compare(ns, 10 * seed + repeat, plan)
            except CheckFailed:
                raise
            except Exception as error:  # the learner's code raised: name the usual cause
                fail("Node.__call__: backward with hooks raised. The usual mistake is passing the "
                     "hooks the bare NumPy array (wrap it: Tensor(grad)) or not unwrapping what "
                     "they return (as_tensor(result).array).", "backward to run",
                     f"{type(error).__name__}: {error}")

    # the gradient a retaining tensor stores accumulates over backward calls
    hint = ("Node.__call__: a retained gradient accumulates like a leaf's (copy it the first "
            "time, add it in afterwards).")
    for T in (ng, _Bg(ns)):
        x = T.tensor([1.0, -2.0], dtype=T.float64, requires_grad=True)
        y = x + 1  # saves nothing: two graphs may pass through it in every chapter
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        (y * y).sum().backward()
        first = _grad(y)
        (y * 3).sum().backward()
        both = (first, _grad(y), _grad(x))
        if T is ng:
            expected = both
    for got, want, what in zip(both, expected, ("y.grad after one backward", "y.grad after two",
                                                "x.grad after two")):
        close(got, want, f"{hint} ({what})")
    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g))
    (y * y).sum().backward()
    expect(len(seen) == 1 and isinstance(seen[0], ns["Tensor"]), "Node.__call__: a hook "
           "receives the gradient as a Tensor (wrap the array: Tensor(grad)).",
           "one call with a Tensor", [type(s).__name__ for s in seen])


CHECKS = task_checks(globals(), [register_hook, retain_grad, grad_warning, call_hooks])
