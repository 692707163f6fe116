"""Chapter 03's checks: hooks, ``retain_grad`` and the ``.grad`` warning, with nbgrad as
the referee (the same programs, the same hooks, on both). Each check tries one rule at a
time, so that the hint of the first rule broken names the mistake."""

import gc
import warnings

import numpy as np
import nbgrad as ng

from buildgrad.checks import CheckFailed, close, expect, fail, nbgrad_message, raises, task_checks


def _attempt(action, hint):
    """``action()`` runs the learner's code: if it raises, fail with ``hint`` (its usual cause)."""
    try:
        return action()
    except (CheckFailed, NotImplementedError):
        raise
    except Exception as error:
        fail(hint, "no error", f"{type(error).__name__}: {error}")


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


# -- Task 1: register_hook ---------------------------------------------------------------------

def register_hook(ns):
    tensor = ns["tensor"]
    message = nbgrad_message(lambda: ng.ones(3).register_hook(lambda g: g))
    raises(lambda: tensor([1.0, 2.0]).register_hook(lambda g: g), RuntimeError, message,
           "register_hook: a tensor that does not require grad has no gradient to hook: raise "
           "PyTorch's error.")

    f, g, k = (lambda grad: grad), (lambda grad: 2 * grad), (lambda grad: grad + 1)
    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    on_result = ("register_hook on a result raised: a result's hooks go on the node that "
                 "produced it (t.grad_fn.pre_hooks, with the handles' ids in pre_hooks_ids).")
    handle = _attempt(lambda: y.register_hook(f), on_result)
    expect(callable(getattr(handle, "remove", None)),
           "register_hook returns the handle (a RemovableHandle) whose remove() takes the hook "
           "off again.", "a handle with .remove()", repr(handle))
    _attempt(lambda: y.register_hook(g), on_result)
    hooks = tuple(y.grad_fn.pre_hooks)
    expect(hooks != (), "register_hook: a result's hooks go on its grad_fn (t.grad_fn.pre_hooks): "
           "the engine looks there when it takes that node, the moment the result's gradient is "
           "complete.", "y.grad_fn.pre_hooks == (f, g)", f"y.grad_fn.pre_hooks = {hooks!r}")
    expect(hooks != (g, f), "register_hook: hooks run in registration order: a new hook goes at "
           "the END of the tuple.", "(f, g)", "(g, f)")
    expect(hooks == (f, g), "register_hook: each call adds its hook once to the owner's tuple, "
           "keeping those already there.", "y.grad_fn.pre_hooks == (f, g)", repr(hooks))
    z = y * 3  # another result: its node has hooks of its own
    expect(tuple(z.grad_fn.pre_hooks) == (),
           "register_hook: hooks of y must go on y's own node only, never on Node (the class) "
           "or on every node.", "z.grad_fn.pre_hooks == ()", f"{z.grad_fn.pre_hooks!r}")
    handle.remove()
    expect(tuple(y.grad_fn.pre_hooks) == (g,),
           "handle.remove() took nothing off: it finds its id in the owner's ids (attribute + "
           "'_ids', here pre_hooks_ids), which register_hook must keep in step with the hooks.",
           "after handle.remove(): (g,)", repr(y.grad_fn.pre_hooks))

    on_leaf = ("register_hook on a leaf raised: a leaf has no grad_fn; its hooks go on the tensor "
               "itself (t._hooks, with the handles' ids in t._hooks_ids).")
    accumulator = ns["gradient_edge"](x)[0]
    first = _attempt(lambda: x.register_hook(g), on_leaf)
    _attempt(lambda: x.register_hook(k), on_leaf)
    expect(tuple(accumulator.pre_hooks) == (g, k),
           "register_hook: a leaf's hooks go on the tensor itself (t._hooks), where its "
           "AccumulateGrad node reads them.", "x's AccumulateGrad sees (g, k) in x._hooks",
           repr(accumulator.pre_hooks))
    expect(tuple(y.grad_fn.pre_hooks) == (g,), "register_hook: a leaf's hooks do not go on a "
           "result's node.", "y.grad_fn.pre_hooks == (g,)", repr(y.grad_fn.pre_hooks))
    first.remove()
    expect(tuple(accumulator.pre_hooks) == (k,),
           "handle.remove() on a leaf's hook took nothing off: register_hook must keep the "
           "handles' ids in t._hooks_ids, in step with t._hooks.", "after remove(): (k,)",
           repr(accumulator.pre_hooks))
    again = x.register_hook(k)  # the same function a second time
    again.remove()
    expect(tuple(accumulator.pre_hooks) == (k,),
           "handle.remove() takes off its own registration only: a function registered twice "
           "stays registered once (each handle's id, in the same position as its hook)",
           "(k,) after registering k twice and removing the second handle",
           repr(accumulator.pre_hooks))


# -- Task 2: retain_grad and retains_grad --------------------------------------------------------

class _Bg:
    def __init__(self, ns):
        self.tensor, self.float64 = ns["tensor"], np.float64


def retain_grad(ns):
    tensor = ns["tensor"]
    message = nbgrad_message(lambda: ng.ones(3).retain_grad())
    raises(lambda: tensor([1.0, 2.0]).retain_grad(), RuntimeError, message,
           "retain_grad on a tensor that does not require grad must raise PyTorch's error.")

    x = tensor([1.0, 2.0], requires_grad=True)
    _attempt(x.retain_grad, "retain_grad() on a leaf raised: a leaf keeps its gradient anyway "
             "(and has no grad_fn), so retain_grad() leaves it alone.")
    leaf_says = _attempt(lambda: x.retains_grad, "retains_grad on a leaf raised: a leaf has no "
                         "grad_fn; it reports False, as in PyTorch.")
    expect(leaf_says is False, "retains_grad: a leaf reports False, as in PyTorch, even after "
           "retain_grad() (it keeps its gradient without asking).", False, leaf_says)

    y = x * 2
    says = _attempt(lambda: y.retains_grad, "retains_grad on a result raised.")
    expect(says is False, "retains_grad is True only for a non-leaf that called retain_grad(): "
           "having a grad_fn is not enough.", "y.retains_grad is False before y.retain_grad()", says)
    y.retain_grad()
    node = y.grad_fn
    expect(node.retains is not None, "retain_grad() on a result must record it on its node: "
           "t.grad_fn.retains, a weak reference to t.", "y.grad_fn.retains set", repr(node.retains))
    expect(callable(node.retains) and not isinstance(node.retains, ns["Tensor"]),
           "retain_grad: grad_fn.retains is a weak reference to the tensor (weakref.ref(t)), "
           "which the engine calls to get the tensor back, not the tensor itself.",
           "weakref.ref(y)", repr(node.retains))
    expect(node.retains() is y, "retain_grad: grad_fn.retains() must give the tensor itself.",
           "y", repr(node.retains()))
    says = y.retains_grad
    expect(says is True, "retains_grad must be True once a non-leaf called retain_grad().", True, says)

    def program(T, retain):
        x = T.tensor([0.5, -1.0], dtype=T.float64, requires_grad=True)
        c = T.tensor([2.0, 3.0], dtype=T.float64)
        y = x * c
        h = y.tanh()
        out = (h * h).sum()
        for t in [[x, c, y, h, out][i] for i in retain]:
            t.retain_grad()
        return {"x": x, "c": c, "y": y, "h": h, "out": out}

    hint = ("retain_grad: only the tensors that called it retain, each on its own node "
            "(grad_fn.retains() is that tensor); leaves report False.")
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


# -- Task 3: the .grad property --------------------------------------------------------------

def _read(t):
    """``t.grad``, and the UserWarnings reading it gave (this line is the reader)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = t.grad
    return value, [w for w in caught if issubclass(w.category, UserWarning)]


def grad_warning(ns):
    tensor = ns["tensor"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ng_y = ng.tensor([1.0], requires_grad=True) * 2
        ng_y.grad
    expected_text = str(caught[0].message)
    phrase = "is not a leaf Tensor is being accessed"
    assert phrase in expected_text and "retain_grad()" in expected_text

    def shown(value, warned):
        return f"{value!r} and {[str(w.message)[:60] for w in warned]}"

    for name, t in (("a leaf", tensor([1.0, 2.0], requires_grad=True)),
                    ("a tensor without grad", tensor([1.0]))):
        value, warned = _read(t)
        expect(not warned, "the .grad property warns too often: a leaf keeps its gradient, so "
               "reading a leaf's .grad never warns (warn for a non-leaf only).",
               f"{name}: None and no warning", shown(value, warned))
        expect(value is None, "the .grad property must return the stored gradient (self._grad).",
               f"{name}: None", repr(value))

    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    value, warned = _read(y)
    expect(len(warned) == 1, "the .grad property: reading .grad of a non-leaf that did not call "
           "retain_grad() must warn, once (warnings.warn with NON_LEAF_GRAD, a UserWarning).",
           "one UserWarning", shown(value, warned))
    expect(str(warned[0].message) == expected_text, "the .grad property: the warning is PyTorch's "
           "text, NON_LEAF_GRAD.", expected_text[:80] + "...", str(warned[0].message)[:80])
    expect(warned[0].filename == __file__, "the .grad property: the warning must point at the line "
           "that read .grad, not at your property (warnings.warn(..., stacklevel=2)).",
           f"the reader's file, {__file__}", warned[0].filename)
    expect(value is None, "the .grad property must return the stored gradient (self._grad).",
           "None", repr(value))

    z = x * 3
    stored = tensor([5.0, 6.0])
    z.grad = stored
    value, warned = _read(z)
    expect(not warned, "the .grad property: warn only while the non-leaf has no gradient "
           "(self._grad is None): one assigned to .grad reads silently, as in PyTorch.",
           "z.grad is the assigned tensor, no warning", shown(value, warned))
    expect(value is stored, "the .grad property must return the stored gradient (self._grad).",
           "the assigned tensor", repr(value))

    y.retain_grad()
    value, warned = _read(y)
    expect(not warned, "the .grad property: a non-leaf that called retain_grad() reads its "
           ".grad silently (check self.retains_grad).", "None and no warning", shown(value, warned))
    x.grad = stored
    value, warned = _read(x)
    expect(value is stored and not warned, "the .grad property must return the stored gradient "
           "(self._grad).", "x.grad is what was assigned", shown(value, warned))
    x.grad = None
    expect(_read(x)[0] is None, "the .grad property must return the stored gradient (self._grad).",
           "None after x.grad = None", repr(_read(x)[0]))


# -- Task 4: Node.__call__ runs the hooks, then retain_grad ------------------------------------------

def _backward(out, hint):
    _attempt(out.backward, hint)


RAISED = ("Node.__call__: backward with hooks raised. A hook receives the gradient as a Tensor "
          "(wrap the array: Tensor(grad)) and may return one (unwrap it: as_tensor(result).array).")


def _plain(T, hooked=None):
    """out = sum(tanh(x * w)), x and w leaves; ``hooked(x, y)`` adds hooks before backward."""
    x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
    w = T.tensor([1.5, 0.5, -0.25], dtype=T.float64, requires_grad=True)
    y = x * w
    out = y.tanh().sum()
    if hooked is not None:
        hooked(x, y)
    return x, w, y, out


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


def _compare(ns, seed, plan):
    mine, seen_mine = _program(_Bg(ns), seed, plan)
    theirs, seen_theirs = _program(ng, seed, plan)
    where = "hooks/retains " + ", ".join(
        f"{a} {n}" + (" (removed)" if r else "") for a, n, r in plan)
    mine["out"].backward()
    theirs["out"].backward()
    hint = ("Node.__call__: on programs with several hooks and retains, what a hook sees or a "
            ".grad holds differs from nbgrad: the hooks of each tensor in registration order, "
            "each on what the one before returned, then retain_grad, then the node.")
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
    mine, theirs = _Bg(ns), ng

    # 1. no hook and no retain_grad: the node runs as before
    x, w, _, out = _plain(mine)
    _backward(out, "Node.__call__: a backward without any hook or retain_grad raised. "
              "self.retains is None until retain_grad() is called, and the node must still run "
              "and return its gradients (_call_without_hooks(self, grad)).")
    nx, nw, _, nout = _plain(theirs)
    nout.backward()
    for name, got, want in (("x", x, nx), ("w", w, nw)):
        _same_grad(_grad(got), _grad(want), "Node.__call__: without hooks the node must run on the "
                   f"gradient as before and return what it returns ({name}.grad)")

    # 2. a hook that looks: it gets the complete gradient, as a Tensor, before the node runs
    def looking(T, seen):
        def hooked(x, y):
            y.register_hook(lambda g: seen.append(("y", g, _grad(x))))
            x.register_hook(lambda g: seen.append(("x", g, _grad(x))))
        return _plain(T, hooked)

    seen, expected = [], []
    _backward(looking(mine, seen)[3], RAISED)
    looking(theirs, expected)[3].backward()
    expect([who for who, _, _ in seen] == ["y", "x"],
           "Node.__call__: every hook in self.pre_hooks runs, once, when its node is called "
           "(a leaf's in its AccumulateGrad node).", "hooks of y, then of x",
           [who for who, _, _ in seen])
    expect(all(isinstance(g, ns["Tensor"]) for _, g, _ in seen),
           "Node.__call__: a hook receives the gradient as a Tensor (wrap the array: Tensor(grad)).",
           "Tensors", [type(g).__name__ for _, g, _ in seen])
    for (who, g, x_grad), (_, e, _) in zip(seen, expected):
        close(g.numpy(), e.numpy(), f"Node.__call__: a hook on {who} sees {who}'s complete gradient")
    expect(seen[1][2] is None, "Node.__call__: the hooks run BEFORE the node: a leaf's hook sees "
           "its gradient before AccumulateGrad adds it into .grad (and a returned one must reach "
           "the node).", "x.grad still None inside x's hook", seen[1][2])

    # 3. a hook that returns a tensor replaces the gradient, for the node
    def replacing(T):
        return _plain(T, lambda x, y: y.register_hook(lambda g: g * 10))

    x, w, _, out = replacing(mine)
    _backward(out, "Node.__call__: after a hook returned a Tensor, backward raised: the node "
              "runs on an array, so unwrap what the hook returned (as_tensor(result).array).")
    nx, nw, _, nout = replacing(theirs)
    nout.backward()
    for name, got, want in (("x", x, nx), ("w", w, nw)):
        _same_grad(_grad(got), _grad(want), "Node.__call__: a hook's returned tensor replaces "
                   f"the gradient: the node must run on it ({name}.grad: y's hook multiplied "
                   "y's gradient by 10)")

    # 4. several hooks: each sees what the one before returned
    def chained(T, seen):
        def hooked(x, y):
            y.register_hook(lambda g: g + 1)
            y.register_hook(lambda g: g * 2)
            y.register_hook(lambda g: seen.append(g.numpy().copy()))
        return _plain(T, hooked)

    seen, expected = [], []
    x, *_, out = chained(mine, seen)
    _backward(out, RAISED)
    nx, *_, nout = chained(theirs, expected)
    nout.backward()
    close(seen[0], expected[0], "Node.__call__: each hook receives what the hook before it "
          "returned (registered g+1, then g*2, then a look: it sees (g + 1) * 2)")
    _same_grad(_grad(x), _grad(nx), "Node.__call__: the node runs on what the LAST hook returned")

    # 5. retain_grad stores the gradient after the hooks, even a hook registered later
    def retaining(T):
        def hooked(x, y):
            y.retain_grad()
            y.register_hook(lambda g: g * 10)
        return _plain(T, hooked)

    x, _, y, out = retaining(mine)
    _backward(out, "Node.__call__: backward raised with a retaining tensor: self.retains() gives "
              "the tensor, whose gradient goes into its _grad.")
    nx, _, ny, nout = retaining(theirs)
    nout.backward()
    got, want = _grad(y), _grad(ny)
    expect(got is not None, "Node.__call__: a tensor that called retain_grad() must get its "
           "gradient in _grad (self.retains() gives the tensor).", "y.grad set", "None")
    expect(not np.allclose(got, want / 10), "Node.__call__: retain_grad runs AFTER the hooks, "
           "whatever the registration order: y.grad is the gradient that flowed on.",
           np.array2string(want), np.array2string(got))
    close(got, want, "Node.__call__: y.grad is the gradient that flowed on from y's node")
    expect(isinstance(y.grad, ns["Tensor"]), "Node.__call__: a retained gradient is a Tensor "
           "in _grad.", "a Tensor", type(y.grad).__name__)

    # 6. a retained gradient accumulates over backward calls, like a leaf's
    hint = ("Node.__call__: a retained gradient accumulates like a leaf's (a copy the first "
            "time, added to what is there afterwards).")
    for T in (theirs, mine):
        x = T.tensor([1.0, -2.0], dtype=T.float64, requires_grad=True)
        y = x + 1  # saves nothing: two graphs may pass through it in every chapter
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        (y * y).sum().backward()
        first = _grad(y)
        (y * 3).sum().backward()
        both = (first, _grad(y), _grad(x))
        if T is theirs:
            expected = both
    for got, want, what in zip(both, expected, ("y.grad after one backward", "y.grad after two",
                                                "x.grad after two")):
        close(got, want, f"{hint} ({what})")

    # 7. ... and is an array of its own
    x = mine.tensor([1.0, -2.0, 0.5], dtype=np.float64, requires_grad=True)
    y = x * 2
    z = y + 1  # z's gradient passes to y unchanged: the same array reaches both nodes
    returned = mine.tensor([3.0, 4.0, 5.0], dtype=np.float64)
    y.retain_grad()
    z.retain_grad()
    y.register_hook(lambda g: returned)
    _backward(z.sum(), RAISED)
    kept = {"y.grad": y.grad.numpy(), "z.grad": z.grad.numpy()}
    for name, array in kept.items():
        others = {"the tensor y's hook returned": returned.numpy(), **kept}
        for other, shared in others.items():
            expect(other == name or not np.shares_memory(array, shared),
                   "Node.__call__: a retained gradient must be a copy of its own (grad.copy()): "
                   f"{name} shares its array with {other}.", "a new array", "a shared one")
        expect(array.flags.writeable, "Node.__call__: a retained gradient must be a copy of its "
               f"own (grad.copy()): {name} is a read-only view of the engine's array (sum's "
               "gradient is broadcast).", "a writeable array", "a read-only view")

    # 8. the retaining tensor may be gone before backward runs
    x = mine.tensor([1.0, 2.0], dtype=np.float64, requires_grad=True)
    y = x * 2
    y.retain_grad()
    out = (y + 1).sum()  # nothing saves y
    del y
    gc.collect()
    _backward(out, "Node.__call__: the tensor that called retain_grad() may be gone (self.retains() "
              "then returns None): store nothing then, and run the node.")
    close(_grad(x), [2.0, 2.0], "Node.__call__: when the retaining tensor is gone the node still "
          "runs as before")

    # 9. many programs, against nbgrad
    for seed, plan in enumerate(PROGRAMS):
        for repeat in range(2):
            _attempt(lambda: _compare(ns, 10 * seed + repeat, plan), RAISED)


CHECKS = task_checks(globals(), [register_hook, retain_grad, grad_warning, call_hooks])
