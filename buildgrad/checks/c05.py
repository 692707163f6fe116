"""Chapter 05's checks: version counters, the saved-tensor version check, the leaf rule and
in-place operations, each compared with nbgrad running the same program."""

import numpy as np

import nbgrad as ng
from buildgrad.checks import Namespace, close, expect, fail, raises, task_checks

MODIFIED = "has been modified by an inplace operation"


def _message(action):
    """The first line of the RuntimeError ``action()`` raises (``None`` if it does not)."""
    try:
        action()
    except RuntimeError as raised:
        return str(raised).split("\n")[0]
    return None


def _tail(message):
    """A version error after its ``[kind [shape]]``: the node and the two versions (without
    the hint to enable anomaly detection that nbgrad, like PyTorch, adds after them)."""
    return message.split("]]", 1)[-1].split(" Hint:", 1)[0] if message else message


def version_counter(ns):
    """Task 1: every new tensor has its own counter at 0; ``_version`` reads it."""
    tensor = ns["tensor"]
    a, b = tensor([1.0, 2.0, 3.0]), tensor([1.0, 2.0, 3.0])
    expect(getattr(a, "_version", None) == ng.tensor([1.0, 2.0, 3.0])._version == 0,
           "A new tensor starts at version 0.", 0, getattr(a, "_version", None))
    expect(a._version_counter is not b._version_counter,
           "Make a NEW VersionCounter in __init__ for every tensor, not one shared by all.",
           "two counters", "the same object")
    a._version_counter.version += 1   # what an in-place write (task 4) does
    expect(a._version == 1 and b._version == 0,
           "`_version` must read the counter each time (a property), not a number copied once.",
           "versions 1 and 0", f"versions {a._version} and {b._version}")
    c = a * 2
    expect(c._version == 0, "A result of an out-of-place operation is a new tensor: version 0.",
           0, c._version)


def saved_version_check(ns):
    """Task 2: backward refuses a saved tensor whose version changed, with PyTorch's message."""
    mine, rng = Namespace(ns), np.random.default_rng(5)

    def write(M, t, times=1):
        """An in-place change: nbgrad's own; on yours by hand (values and counter), as task 4
        will do it, and without recording anything (as under no_grad)."""
        if M is ng:
            with ng.no_grad():
                for _ in range(times):
                    t.add_(1)
        else:
            t.array[...] = t.array + times
            t._version_counter.version += times

    def exp_output(M, values):       # exp saves its output
        x = M.tensor(values, requires_grad=True)
        y = x.exp()
        write(M, y)
        return _message(lambda: y.sum().backward())

    def input_twice(M, values):      # a saved non-leaf input, written twice
        x = M.tensor(values, requires_grad=True)
        a = x * x
        y = a.sin()
        write(M, a, 2)
        return _message(lambda: y.sum().backward())

    def leaf(M, values):             # a saved leaf: no node produced it
        w = M.tensor(values, requires_grad=True)
        y = w.sin()
        write(M, w)
        return _message(lambda: y.sum().backward())

    cases = [(exp_output, "unpack must compare the counter's version now with the version "
                          "saved in __init__; an output is named by this node ('output 0 of Exp')."),
             (input_twice, "A saved input is named by ITS grad_fn ('output 0 of Mul'), and the "
                           "versions are the counter's now (2) and the saved one (0)."),
             (leaf, "A leaf has no grad_fn: no 'which is output 0 of ...' part.")]
    for trial in range(3):
        values = rng.normal(size=3).astype(np.float32)
        for program, hint in cases:
            ours, theirs = program(mine, values), program(ng, values)
            expect(ours is not None and MODIFIED in ours and _tail(ours) == _tail(theirs),
                   f"{program.__name__}: {hint}", theirs, ours)
    # unchanged saved tensors: backward runs, with nbgrad's gradients
    values = rng.normal(size=4).astype(np.float32)
    x, xn = mine.tensor(values, requires_grad=True), ng.tensor(values, requires_grad=True)
    (x.exp() * x).sin().sum().backward()
    (xn.exp() * xn).sin().sum().backward()
    close(x.grad.array, xn.grad.numpy(), "Unchanged saved tensors must unpack as before.", rtol=1e-5)
    # the check must not replace chapter 04's: a freed graph still says so
    x = mine.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    raises(y.backward, RuntimeError, "Trying to backward through the graph a second time",
           "Call chapter 04's unpack first (`_unpack_without_check`): it knows freed tensors.")


def check_in_place(ns):
    """Task 3: the leaf rule, for a leaf and for a view of one, while recording."""
    tensor, check, no_grad = ns["tensor"], ns["check_in_place"], ns["no_grad"]
    leaf_message = _message(lambda: ng.tensor([1.0, 2.0], requires_grad=True).add_(1))
    view_message = _message(lambda: ng.tensor([1.0, 2.0], requires_grad=True)[0].mul_(2))
    w = tensor([1.0, 2.0], requires_grad=True)
    raises(lambda: check(w), RuntimeError, leaf_message,
           "A leaf that requires grad may not change in place while recording (PyTorch's words).")
    raises(lambda: check(w[0]), RuntimeError, view_message,
           "A view (`_base` set) of a leaf that requires grad: the other message.")
    raises(lambda: check(w.view(2)), RuntimeError, view_message,
           "Every view counts, `view` and `t` too: test `_base`, not the kind of node.")
    for harmless, hint in ((tensor([1.0, 2.0]), "A leaf that does not require grad may change."),
                           (w * 2, "A result (non-leaf) may change: the change is recorded."),
                           ((w * 2)[0], "A view of a non-leaf may change.")):
        expect(_message(lambda: check(harmless)) is None, hint, "no error",
               _message(lambda: check(harmless)))
    with no_grad():
        expect(_message(lambda: check(w)) is None and _message(lambda: check(w[1])) is None,
               "Under no_grad nothing is recorded: the leaf rule is off (an optimizer's step).",
               "no error", "RuntimeError")


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

    def a_view_made_before_its_base_changed(M, v):
        x = M.tensor(v[:4], requires_grad=True)
        a = x * 1
        view = a[1:]
        a.mul_(2)  # the view shows the new a: its history must say so
        return [x], [a, view], (view * view).sum()

    return [non_leaf, after_mm, select_view, slice_assignment, view_times_tensor,
            matrix_rows, copy_and_zero, view_of_a_view, reshaped_and_transposed_views,
            a_view_made_before_its_base_changed]


def in_place(ns):
    """Task 4: in-place operations: values, versions and gradients as nbgrad's."""
    mine, rng = Namespace(ns), np.random.default_rng(7)
    for program in _programs():
        for trial in range(3):
            values = rng.normal(size=6).astype(np.float32)
            try:
                leaves, changed, loss = program(mine, values)
                loss.backward()
            except NotImplementedError:
                raise
            except Exception as raised:
                fail(f"{program.__name__}: in_place must run this program (and backward) as nbgrad does.",
                     "no error", f"{type(raised).__name__}: {raised}")
            leaves_n, changed_n, loss_n = program(ng, values)
            loss_n.backward()
            for t, tn in zip(changed, changed_n):
                close(t.array, tn.detach().numpy(),
                      f"{program.__name__}: write the result INTO self's array (`self.array[...] = ...`).",
                      rtol=1e-5)
                expect(t._version == tn._version,
                       f"{program.__name__}: every in-place write bumps the (shared) counter once.",
                       tn._version, t._version)
            for i, (t, tn) in enumerate(zip(leaves, leaves_n)):
                expect(t.grad is not None,
                       f"{program.__name__}: leaf {i} got no gradient: record the change as "
                       "the operation's node (on the base, through CopySlices, for a view).",
                       "a gradient", None)
                close(t.grad.array, tn.grad.numpy(),
                      f"{program.__name__}: leaf {i}'s gradient differs from nbgrad's: for a view, "
                      "the view's region goes through the operation's node, the rest unchanged.",
                      rtol=1e-4, atol=1e-5)
    # the rules around it: a leaf refused, no_grad allowed, a saved tensor caught
    tensor, no_grad = ns["tensor"], ns["no_grad"]
    w = tensor([1.0, 2.0], requires_grad=True)

    def add_to_w():
        nonlocal w
        w += 1
    raises(add_to_w, RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation.",
           "Call check_in_place(self) before writing.")
    expect(w._version == 0 and np.allclose(w.array, [1.0, 2.0]),
           "A refused change must change nothing: check first, write after.", "[1, 2] at version 0",
           f"{w.array} at version {w._version}")
    loss = (w * w).sum()
    with no_grad():
        w -= 0.5
    expect(w.is_leaf and w.requires_grad and w._version == 1 and np.allclose(w.array, [0.5, 1.5]),
           "Under no_grad an in-place change writes and counts, but records nothing: w stays a leaf.",
           "leaf [0.5, 1.5] at version 1", f"is_leaf={w.is_leaf}, {w.array} at version {w._version}")
    raises(loss.backward, RuntimeError, "is at version 1; expected version 0 instead.",
           "The write must bump the counter that the saved w shares.")


CHECKS = task_checks(globals(), [version_counter, saved_version_check, check_in_place, in_place])
