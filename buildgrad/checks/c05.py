"""Chapter 05's checks: version counters, the saved-tensor version check, the leaf rule and
in-place operations, each compared with nbgrad running the same program.

Each check runs small programs first, each testing one thing the task asks for, so that a
failure names it; then (task 4) whole programs against nbgrad."""

import re

import numpy as np

import nbgrad as ng
from buildgrad.checks import CheckFailed, Namespace, close, expect, fail, raises, task_checks

LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."
# nbgrad's version error, cut into its parts: the words, [kind [shape]], the node, the versions
VERSION_ERROR = re.compile(r"^(.*?: )(\[buildgrad\.\w+ \[[^\]]*\]\])(.*?)"
                           r"( is at version \d+; expected version \d+ instead\.)$")


def _message(action):
    """The first line of the error ``action()`` raises (``None`` if it raises none); an
    error other than RuntimeError is named, so that no comparison takes it for a message."""
    try:
        action()
    except (NotImplementedError, CheckFailed):
        raise
    except RuntimeError as raised:
        return str(raised).split("\n")[0]
    except Exception as raised:
        return f"(not a RuntimeError) {type(raised).__name__}: {raised}"
    return None


def _attempt(action, hint):
    """``action()``'s value; if the learner's code raises, a failure with ``hint``."""
    try:
        return action()
    except (NotImplementedError, CheckFailed):
        raise
    except Exception as raised:
        fail(hint, "no error", f"{type(raised).__name__}: {raised}")


# Task 1

def version_counter(ns):
    """Task 1: every new tensor has its own counter at 0; ``_version`` reads it."""
    Tensor, VersionCounter = ns["Tensor"], ns["VersionCounter"]
    def made():
        a, b = Tensor(np.array([1.0, 2.0, 3.0])), Tensor(np.ones(3), requires_grad=True)
        return a, b, (a.array, a.requires_grad, b.requires_grad)
    try:
        a, b, (values, a_requires, b_requires) = made()
    except (NotImplementedError, CheckFailed):
        raise
    except Exception as raised:
        hint = ("Making a tensor failed: `_version` is a property, it cannot be set: give the "
                "tensor its counter in `_version_counter`."
                if "setter" in str(raised) or "can't set" in str(raised) else
                "Making a tensor failed: run chapter 04's __init__ first (`_init_without_version`), "
                "then give the tensor its counter.")
        fail(hint, "no error", f"{type(raised).__name__}: {raised}")
    expect(np.allclose(values, [1.0, 2.0, 3.0]) and b_requires and not a_requires,
           "Run chapter 04's __init__ (`_init_without_version`) with the same arguments.",
           "the values [1, 2, 3], requires_grad False then True",
           f"{values}, requires_grad {a_requires} then {b_requires}")
    counter = getattr(a, "_version_counter", None)
    expect(isinstance(counter, VersionCounter),
           "Give every tensor a VersionCounter instance in `_version_counter` (`VersionCounter()`, "
           "not the class).", "a VersionCounter", repr(counter))
    expect(a._version_counter is not b._version_counter,
           "Make a NEW VersionCounter in __init__ for every tensor, not one shared by all.",
           "two counters", "the same object")
    version = _attempt(lambda: a._version, "Reading `_version` failed: it returns the counter's `version`.")
    expect(isinstance(version, (int, np.integer)) and not isinstance(version, bool),
           "`_version` is a number: the counter's `version`, not the counter itself.", 0, repr(version))
    expect(version == ng.tensor([1.0, 2.0, 3.0])._version == 0, "A new tensor starts at version 0.",
           0, version)
    a._version_counter.version += 1   # what an in-place write (task 4) does
    expect(a._version == 1 and b._version == 0,
           "`_version` must read the counter each time (a property), not a number copied once.",
           "versions 1 and 0", f"versions {a._version} and {b._version}")
    c = ns["tensor"]([1.0, 2.0]) * 2
    expect(c._version == 0 and c._version_counter is not a._version_counter,
           "A result of an out-of-place operation is a new tensor: a counter of its own, at 0.",
           "its own counter at 0", f"version {c._version}")


# Task 2

def _write(M, t, times=1, recorded=False):
    """An in-place change of ``t``: nbgrad's own; on yours by hand (values and counter), as
    task 4 will do it. ``recorded``: in grad mode, the change becomes ``t``'s history (an
    AddBackward0), else nothing is recorded (as under no_grad)."""
    if M is ng:
        if recorded:
            t.add_(1)
        else:
            with ng.no_grad():
                for _ in range(times):
                    t.add_(1)
        return
    if recorded:
        new = t + 1
        t.grad_fn = new.grad_fn
    t.array[...] = t.array + times
    t._version_counter.version += times


def _saved_input(M, values):       # a saved non-leaf input (a * a saves a), written twice
    x = M.tensor(values, requires_grad=True)
    a = x * x
    y = a * a
    _write(M, a, 2)
    return y


def _saved_input_changed_with_record(M, values):  # its grad_fn is replaced after saving
    x = M.tensor(values, requires_grad=True)
    a = x * x
    y = a.sin()
    _write(M, a, recorded=True)
    return y


def _saved_leaf(M, values):        # a saved leaf: no node produced it
    w = M.tensor(values, requires_grad=True)
    y = w.sin()
    _write(M, w)
    return y


def _saved_output(M, values):      # exp saves its output
    x = M.tensor(values, requires_grad=True)
    y = x.exp()
    _write(M, y)
    return y


RAISE = "unpack must raise once the counter's version differs from the version saved."
_VERSION_CASES = [  # (program, shape, what its node part needs, what raising needs)
    (_saved_input, (2, 3),
     "A saved input is named by its grad_fn ('output 0 of Mul'), read when unpack runs.", RAISE),
    (_saved_input_changed_with_record, (),
     "Name a saved input by its grad_fn when unpack runs, not when it was saved: a recorded "
     "in-place change has replaced it ('output 0 of Add').", RAISE),
    (_saved_leaf, (3,), "A leaf has no grad_fn: leave out the ', which is output 0 of ...,' part.",
     RAISE),
    (_saved_output, (4,),
     "An output of the saving node is named by that node ('output 0 of Exp'): keep its short "
     "name in `output_of` when it is saved (the tensor chapter 04 keeps has no grad_fn).",
     "For an output, watch the output's own counter (kept in `version_counter` when it is "
     "saved): chapter 04 keeps a new tensor over its array, whose counter never moves."),
]


def _compare_version_errors(ours, theirs, node_hint, raise_hint):
    expect(ours is not None and not ours.startswith("(not a RuntimeError)"), raise_hint, theirs, ours)
    start, kind, node, versions = VERSION_ERROR.match(theirs).groups()
    expect(ours.startswith(start), f"Use PyTorch's words: the message starts '{start.strip()}'.",
           theirs, ours)
    kind, shape = kind.split(" ", 1)
    expect(ours[len(start):].startswith(kind + " "),
           "Then the tensor's type, as PyTorch writes it: [buildgrad.FloatTensor for float32, "
           "[buildgrad.DoubleTensor for float64.", f"{kind} {shape}", ours)
    expect(ours[len(start) + len(kind) + 1:].startswith(shape),
           "Then the shape as a list, as PyTorch writes it: [2, 3], and [] for a 0-d tensor.",
           f"{kind} {shape}", ours)
    expect(ours.endswith(versions),
           "'is at version <the counter's version now>; expected version <the version saved> "
           "instead.'", versions.strip(), ours)
    if ours != theirs and "Backward" in ours:
        fail("PyTorch names the node without its 'Backward0' (`short_name`).", theirs, ours)
    expect(ours == theirs, node_hint, theirs, ours)


def saved_version_check(ns):
    """Task 2: backward refuses a saved tensor whose version changed, with PyTorch's message."""
    mine, rng = Namespace(ns), np.random.default_rng(5)
    # what a saved tensor keeps
    saving = ("Saving a tensor failed: SavedTensor.__init__ does chapter 04's work first "
              "(`_save_without_version`), then keeps the counter and the version.")
    x = mine.tensor([1.0, 2.0], requires_grad=True)
    a = _attempt(lambda: x * x, saving)   # mul saves its inputs
    a._version_counter.version += 2       # written twice before it is saved again
    y, z = _attempt(lambda: (a.sin(), x.exp()), saving)   # sin saves its input; exp its output
    kept_input, kept_output = y.grad_fn._saved[0], z.grad_fn._saved[0]
    expect(getattr(kept_input, "version_counter", None) is a._version_counter,
           "Keep the tensor's counter itself in `version_counter` (the object that in-place "
           "writes bump), not its number.", "a's VersionCounter", repr(getattr(kept_input, "version_counter", None)))
    expect(getattr(kept_input, "saved_version", None) == 2,
           "`saved_version` is the tensor's version when it is saved (here 2), not 0.", 2,
           getattr(kept_input, "saved_version", None))
    expect(getattr(kept_output, "version_counter", None) is z._version_counter,
           "For an output, keep the OUTPUT's counter in `version_counter`: chapter 04 keeps a new "
           "tensor over its array (`self.tensor`), with a counter of its own.",
           "the output's VersionCounter", "another one")
    # the message, for inputs, a leaf and an output, of several dtypes and shapes
    for dtype in (np.float32, np.float64):
        for program, shape, node_hint, raise_hint in _VERSION_CASES:
            values = np.asarray(rng.normal(size=shape), dtype=dtype)
            ours_y, theirs_y = program(mine, values), program(ng, values)
            ours = _message(lambda: ours_y.sum().backward())
            theirs = _message(lambda: theirs_y.sum().backward()).split(" Hint:", 1)[0]
            theirs = theirs.replace("[nbgrad.", "[buildgrad.")
            _compare_version_errors(ours, theirs, f"{program.__name__[1:]}: {node_hint}",
                                    f"{program.__name__[1:]}: {raise_hint}")
    # unchanged saved tensors, one saved at version 2: backward runs, with nbgrad's gradients
    values = rng.normal(size=4).astype(np.float32)
    x, xn = mine.tensor(values, requires_grad=True), ng.tensor(values, requires_grad=True)
    _attempt(lambda: (x.exp() * x).sin().sum().backward(),
             "unpack returns the saved tensor while its version has not moved since it was saved.")
    (xn.exp() * xn).sin().sum().backward()
    close(x.grad.array, xn.grad.numpy(), "Unchanged saved tensors must unpack as before.", rtol=1e-5)
    x = mine.tensor(values, requires_grad=True)
    a = x * 1
    a._version_counter.version += 2   # written before it was saved: nothing to refuse
    _attempt(lambda: a.sin().sum().backward(),
             "A tensor written to BEFORE it was saved is fine: compare with the version it had "
             "when it was saved.")
    close(x.grad.array, np.cos(values), "Unchanged saved tensors must unpack as before.", rtol=1e-5)
    # the check must not replace chapter 04's: a freed graph still says so
    x = mine.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    raises(y.backward, RuntimeError, "Trying to backward through the graph a second time",
           "Call chapter 04's unpack first (`_unpack_without_check`): it knows freed tensors.")


# Task 3

def check_in_place(ns):
    """Task 3: the leaf rule, for a leaf and for a view of one, while recording."""
    tensor, check, no_grad = ns["tensor"], ns["check_in_place"], ns["no_grad"]
    w = tensor([1.0, 2.0], requires_grad=True)
    raises(lambda: check(w), RuntimeError, LEAF,
           "A leaf that requires grad may not change in place while recording (PyTorch's words).")
    raises(lambda: check(w[0]), RuntimeError, VIEW_OF_LEAF,
           "A view (`_base` set) of a leaf that requires grad: the other message.")
    raises(lambda: check(w.view(2)), RuntimeError, VIEW_OF_LEAF,
           "Every view counts, `view` and `t` too: test `_base`, not the kind of node.")
    for harmless, hint in ((tensor([1.0, 2.0]), "A leaf that does not require grad may change."),
                           (w * 2, "A result (non-leaf) may change: the change is recorded."),
                           ((w * 2)[0], "A view of a non-leaf may change.")):
        expect(_message(lambda: check(harmless)) is None, hint, "no error",
               _message(lambda: check(harmless)))
    with no_grad():
        refused = _message(lambda: check(w)) or _message(lambda: check(w[1]))
    expect(refused is None,
           "Under no_grad nothing is recorded: the leaf rule is off (an optimizer's step).",
           "no error", refused)


# Task 4

def _programs():
    """Programs with in-place changes: (name, program(M, values) -> (leaves, tensors))."""
    def non_leaf(M, v):
        x = M.tensor(v[:3], requires_grad=True)
        a = x * x
        a.add_(x)
        a.mul_(x.sin())
        a -= x
        a *= 2
        return [x], [a], (a * a).sum()

    def after_mm(M, v):
        x = M.tensor(v[:2].reshape(1, 2))
        W = M.tensor(v[2:6].reshape(2, 2), requires_grad=True)
        h = x.mm(W)
        h.mul_(3)
        return [W], [h], (h * h).sum()

    def select_view(M, v):
        x = M.tensor(v[:3], requires_grad=True)
        a = x * 1
        a[0].mul_(3)
        return [x], [a], (a * a).sum()

    def slice_assignment(M, v):
        x = M.tensor(v[:3], requires_grad=True)
        z = M.tensor(v[3:5], requires_grad=True)
        h = x.exp()
        h = h * 2
        h[1:] = z * 3
        return [x, z], [h], (h * h).sum()

    def view_times_tensor(M, v):
        x = M.tensor(v[:3], requires_grad=True)
        y = M.tensor(v[3:5], requires_grad=True)
        a = x * 1
        a[1:].mul_(y)
        a[0] = 2.0
        return [x, y], [a], (a * a.sin()).sum()

    def matrix_rows(M, v):
        x = M.tensor(v[:6].reshape(2, 3), requires_grad=True)
        h = x * x
        h[0].add_(x[1])
        h[:, 1:].mul_(0.5)
        return [x], [h], (h * h).sum()

    def copy_and_zero(M, v):
        x = M.tensor(v[:3], requires_grad=True)
        z = M.tensor(v[3:6], requires_grad=True)
        a = x * 2
        a.copy_(z * z)
        b = x * 3
        b.zero_()
        return [x, z], [a, b], (a * x).sum() + b.sum()

    def view_of_a_view(M, v):
        x = M.tensor(v[:4], requires_grad=True)
        a = x * 1
        a[1:][1:].mul_(x[0] * 3)
        return [x], [a], (a * a).sum()

    def reshaped_and_transposed_views(M, v):
        x = M.tensor(v[:4], requires_grad=True)
        a = x * 1
        a.view(2, 2).t()[1].mul_(5)
        return [x], [a], (a * M.tensor([1.0, 2.0, 3.0, 4.0])).sum()

    def chapter_05s_trace(M, v):
        x = M.tensor(v[:3], requires_grad=True)
        a = x * x
        y = a * a
        view = a[1:]
        view.mul_(10)
        if M is not ng:
            said = _message(lambda: y.sum().backward())
            expect(said is not None and "is at version 1; expected version 0" in said,
                   "chapter_05s_trace: y's node saved a before the change: backward through y "
                   "must refuse it.", "the version error", said)
        return [x], [a, view], a.sum()

    def a_view_made_before_its_base_changed(M, v):
        x = M.tensor(v[:4], requires_grad=True)
        a = x * 1
        view = a[1:]
        a.mul_(2)  # the view shows the new a: its history must say so
        return [x], [a, view], (view * view).sum()

    return [non_leaf, after_mm, select_view, slice_assignment, view_times_tensor,
            matrix_rows, copy_and_zero, view_of_a_view, reshaped_and_transposed_views,
            chapter_05s_trace, a_view_made_before_its_base_changed]


RETURNS_SELF = "in_place returns self: `a.add_(1)` is `a` (so `a += 1` keeps `a`)."
NOTHING_RECORDED = ("When op records nothing (no_grad, or nothing requires grad), write and "
                    "count, and leave grad_fn as it was: a leaf stays a leaf, a result keeps its history.")
VIEW_RECORD = ("Backward through a change made via a view failed: the base's CopySlices needs "
               "op_node (the operation's node), positions (`positions_in_base(self)`) and its "
               "edges (the base's old edge, then the op node's edges for its other inputs).")
SNAPSHOT_FLAG = ("A result's snapshot stands where self stood by taking its grad_fn alone (it then "
                 "requires grad): chapter 02's setter refuses to set a result's requires_grad.")


def _attempt_in_place(action, hint):
    """``_attempt`` for task 4, naming one more mistake: a requires_grad flag set on a
    result's snapshot, which chapter 02's setter refuses."""
    def run():
        try:
            return action()
        except RuntimeError as raised:
            if "only change requires_grad flags of leaf variables" in str(raised):
                fail(SNAPSHOT_FLAG, "no error", f"RuntimeError: {raised}")
            raise
    return _attempt(run, hint)


def _the_leaf_rule_first(ns):
    tensor = ns["tensor"]
    w = tensor([1.0, 2.0], requires_grad=True)
    raises(lambda: w.add_(1.0), RuntimeError, LEAF,
           "Call check_in_place(self) first: `w.add_(1)` on a leaf that requires grad must raise.")
    expect(w._version == 0 and np.allclose(w.array, [1.0, 2.0]),
           "A refused change must change nothing: check first, write after.", "[1, 2] at version 0",
           f"{w.array} at version {w._version}")
    raises(lambda: w[0].mul_(2.0), RuntimeError, VIEW_OF_LEAF,
           "Call check_in_place(self) first: a change through a view of a parameter must raise.")


def _written_into_memory_and_counted(ns, values):
    tensor = ns["tensor"]
    x = tensor(values[:3], requires_grad=True)
    a = x * 1
    view = a[1:]                      # made before the change: it must see it
    got = _attempt_in_place(lambda: a.sub_(1.0), "`a.sub_(1)` on a result failed.")
    expect(got is a, RETURNS_SELF, "a", repr(got))
    expect(np.allclose(a.array, values[:3] - 1),
           "self must hold op(self, other), self's old values first: `a.sub_(1)` is a - 1.",
           values[:3] - 1, a.array)
    expect(np.allclose(view.array, values[1:3] - 1),
           "Write the result INTO self's array (`self.array[...] = ...`): assigning a new array "
           "to `self.array` leaves its views with the old values.", values[1:3] - 1, view.array)
    expect((a._version, view._version) == (1, 1),
           "Each in-place write bumps self's counter (shared with its base and views) by one.",
           "versions (1, 1) for a and its view", (a._version, view._version))
    got = _attempt_in_place(lambda: view.mul_(2.0), "`a[1:].mul_(2)`, a change through a view, failed.")
    expect(got is view, RETURNS_SELF, "the view", repr(got))
    expect(np.allclose(a.array[1:], 2 * (values[1:3] - 1)),
           "A write through a view must reach its base: write into the view's array, which is "
           "the base's memory.", 2 * (values[1:3] - 1), a.array[1:])
    expect((a._version, view._version) == (2, 2),
           "Each in-place write bumps self's counter (shared with its base and views) by one.",
           "versions (2, 2) for a and its view", (a._version, view._version))


def _recorded_on_a_tensor_of_its_own(ns, values):
    tensor = ns["tensor"]
    x, y = tensor(values[:3], requires_grad=True), tensor(values[3:6], requires_grad=True)
    a = x * 1
    old = a.array.copy()
    _attempt_in_place(lambda: a.mul_(y), "`a.mul_(y)` failed.")
    said = _message(lambda: a.sum().backward())
    expect(said is None or "modified by an inplace operation" not in said,
           "Compute op on a NEW tensor holding self's old values: the node saves its input, and "
           "self's version moves right after (here backward refused it).", "no error", said)
    expect(said is None, "Backward after `a.mul_(y)` failed.", "no error", said)
    expect(y.grad is not None,
           "Record the change: self's grad_fn becomes the operation's node (here y, the other "
           "operand, got no gradient).", "y.grad", None)
    expect(not np.allclose(y.grad.array, a.array) or np.allclose(a.array, old),
           "The node saved self's NEW values: compute op on a copy of self's old values (its "
           "own array), since the write goes into self's memory.", old, y.grad.array)
    expect(x.grad is not None,
           "The operation's input for self's old value must stand where self stood in the "
           "graph (self's grad_fn): x got no gradient.", "x.grad", None)
    close(y.grad.array, old, "d(sum a)/dy is a's old values: the node must save those.", rtol=1e-5)
    close(x.grad.array, values[3:6], "d(sum a)/dx = y: the gradient goes through the operation's "
          "node, then on to a's old history.", rtol=1e-5)


def _nothing_recorded(ns, values):
    tensor, no_grad = ns["tensor"], ns["no_grad"]
    x = tensor(values[:3], requires_grad=True)
    a = x * 2
    node = a.grad_fn

    def under_no_grad():
        with no_grad():
            a.add_(1.0)
            a[0].mul_(3.0)
    _attempt_in_place(under_no_grad, NOTHING_RECORDED)
    expect(a.grad_fn is node, NOTHING_RECORDED, f"a.grad_fn still {node.name()}", repr(a.grad_fn))
    expect(np.allclose(a.array, (2 * values[:3] + 1) * [3.0, 1.0, 1.0]) and a._version == 2,
           "Under no_grad an in-place change still writes and counts.", "the new values at version 2",
           f"{a.array} at version {a._version}")
    t = tensor([1.0, 2.0, 3.0])

    def nothing_requires_grad():
        t[0] = 5.0
        t.add_(1.0)
    _attempt_in_place(nothing_requires_grad, NOTHING_RECORDED)
    expect(np.allclose(t.array, [6.0, 3.0, 4.0]) and t.grad_fn is None and not t.requires_grad,
           NOTHING_RECORDED, "[6, 3, 4], a leaf without grad", f"{t.array}, grad_fn {t.grad_fn}")
    w = tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).sum()

    def optimizer_step():
        nonlocal w
        with no_grad():
            w -= 0.5
    _attempt_in_place(optimizer_step, NOTHING_RECORDED)
    expect(w.is_leaf and w.requires_grad and w._version == 1 and np.allclose(w.array, [0.5, 1.5]),
           NOTHING_RECORDED, "leaf [0.5, 1.5] at version 1",
           f"is_leaf={w.is_leaf}, {w.array} at version {w._version}")
    raises(loss.backward, RuntimeError, "is at version 1; expected version 0 instead.",
           "The write must bump the counter that the saved w shares.")


def _recorded_on_the_base(ns, values):
    tensor = ns["tensor"]
    x, y = tensor(values[:3], requires_grad=True), tensor(values[3:5], requires_grad=True)
    a = x * x
    old_node = a.grad_fn
    _attempt_in_place(lambda: a[1:].mul_(y), "`a[1:].mul_(y)` failed.")
    node = a.grad_fn
    expect(node is not None and node.name() == "CopySlices",
           "A change through a view is recorded on its BASE: the base's grad_fn becomes a "
           "CopySlices node.", "a.grad_fn: CopySlices", repr(node))
    expect(tuple(node.next_functions[0]) == (old_node, 0),
           "CopySlices's first edge is the base's edge before the change (`gradient_edge(base)`).",
           f"({old_node!r}, 0)", node.next_functions[0])
    _attempt_in_place(lambda: (a * a).sum().backward(), VIEW_RECORD)
    expect(y.grad is not None,
           "CopySlices's edges: after the base's old edge, the operation node's edges for its "
           "other inputs (here y's): y got no gradient.", "y.grad", None)
    v = values[:3].astype(np.float64)
    scale = np.array([1.0, *values[3:5]])
    close(x.grad.array, 2 * (v * v * scale) * scale * 2 * v,
          "The base's gradient: the positions the view shows (`positions_in_base(self)`) go through "
          "op_node, the other elements pass unchanged.", rtol=1e-4, atol=1e-5)


def in_place(ns):
    """Task 4: in-place operations: values, versions and gradients as nbgrad's."""
    mine, rng = Namespace(ns), np.random.default_rng(7)
    values = rng.normal(size=6).astype(np.float32)
    _the_leaf_rule_first(ns)
    _written_into_memory_and_counted(ns, values)
    _recorded_on_a_tensor_of_its_own(ns, values)
    _nothing_recorded(ns, values)
    _recorded_on_the_base(ns, values)
    for program in _programs():
        for trial in range(3):
            values = rng.normal(size=6).astype(np.float32)
            leaves, changed, loss = _attempt_in_place(lambda: program(mine, values),
                                             f"{program.__name__}: in_place must run this program as nbgrad does.")
            _attempt_in_place(loss.backward, f"{program.__name__}: backward must run as nbgrad's does.")
            leaves_n, changed_n, loss_n = program(ng, values)
            loss_n.backward()
            for t, tn in zip(changed, changed_n):
                close(t.array, tn.detach().numpy(),
                      f"{program.__name__}: the values differ from nbgrad's.", rtol=1e-5)
                expect(t._version == tn._version,
                       f"{program.__name__}: every in-place write bumps the (shared) counter once.",
                       tn._version, t._version)
            for i, (t, tn) in enumerate(zip(leaves, leaves_n)):
                expect(t.grad is not None,
                       f"{program.__name__}: leaf {i} got no gradient: record the change as "
                       "the operation's node (on the base, through CopySlices, for a view).",
                       "a gradient", None)
                close(t.grad.array, tn.grad.numpy(),
                      f"{program.__name__}: leaf {i}'s gradient differs from nbgrad's.",
                      rtol=1e-4, atol=1e-5)


CHECKS = task_checks(globals(), [version_counter, saved_version_check, check_in_place, in_place])
