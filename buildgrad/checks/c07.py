"""Chapter 07's checks: ``detach()`` shares memory and the version counter (so the
saved-tensor check catches a change made through it), ``.data`` shares memory only (the
same change goes unnoticed: the same wrong gradient as nbgrad's), ``detach_()`` turns a
result into a leaf and refuses views, each compared with nbgrad."""

import numpy as np

import nbgrad as ng

from buildgrad.checks import Namespace, close, expect, fail, nbgrad_says, raises, task_checks


def _array(t):
    return t.array if hasattr(t, "array") else t.detach().numpy()


def _alias_cases(data):
    """(name, make): a leaf that requires grad, a result, a view, a plain leaf."""
    return [("a leaf x (requires grad)", lambda M: M.tensor(data, requires_grad=True)),
            ("a result y = x.exp()", lambda M: M.tensor(data, requires_grad=True).exp()),
            ("a view x.exp()[0]", lambda M: M.tensor(data, requires_grad=True).exp()[0]),
            ("a plain leaf", lambda M: M.tensor(data))]


def _shares(alias, t, what):
    """What detach() and .data have in common: a new tensor on t's memory, no history."""
    expect(alias is not t, f"{what} must return a new tensor, not the tensor itself (detach_() "
           "is the one that works in place).", "a new tensor", "the same one")
    expect(type(alias) is type(t), f"{what} must return a Tensor over the tensor's array, not "
           "the array itself.", type(t).__name__, type(alias).__name__)
    expect(np.shares_memory(_array(alias), _array(t)),
           f"{what} must share the tensor's memory, not copy it: a change made through it "
           "must reach the tensor.", "the same memory", "a copy")
    expect(alias.grad_fn is None and not alias.requires_grad,
           f"{what} must have no history: a new leaf (grad_fn None) that does not require grad, "
           "whatever the tensor's own flag.",
           "grad_fn=None, requires_grad=False", f"grad_fn={alias.grad_fn}, requires_grad={alias.requires_grad}")


def detach(ns):
    """``detach()``: same memory, same version counter, no history; it stops the gradient."""
    mine = Namespace(ns)
    rng = np.random.default_rng(7)
    shared = ("detach() must share the tensor's version counter (the very VersionCounter object, "
              "not a new one nor a copy of its number): a change made through it must move the "
              "version that backward checks.")
    for _ in range(2):
        data = rng.normal(size=(2, 3))
        for name, make in _alias_cases(data):
            t, t_ng = make(mine), make(ng)
            d, d_ng = t.detach(), t_ng.detach()
            _shares(d, t, f"detach() of {name}")
            expect(d._version_counter is t._version_counter, shared,
                   "the same VersionCounter object", "another one")
            d.add_(1.0)
            d_ng.add_(1.0)
            close(_array(t), _array(t_ng), "A change through detach() must reach the tensor.")
            expect(t._version == t_ng._version, shared,
                   f"{name} at version {t_ng._version} after d.add_(1.0)", f"version {t._version}")

        # the change through detach() is caught by backward, as in nbgrad and PyTorch
        def program(M):
            x = M.tensor(data, requires_grad=True)
            y = x.exp()                  # saves its output
            y.detach().zero_()
            return y.sum()
        phrase = nbgrad_says(lambda: program(ng).backward())
        phrase = phrase.split(": [")[0]   # the tensor's type name differs: nbgrad vs buildgrad
        raises(lambda: program(mine).backward(), RuntimeError, phrase,
               "y.detach().zero_() changed a tensor ExpBackward0 saved: " + shared)

        # stop-gradient: x * x.detach() has the gradient x (not 2x)
        x, x_ng = mine.tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
        (x * x.detach()).sum().backward()
        (x_ng * x_ng.detach()).sum().backward()
        close(x.grad.array, x_ng.grad.numpy(),
              "x * x.detach(): no gradient flows through the detached factor, so x.grad is x.")


def data(ns):
    """``.data``: same memory, a counter of its own: the change goes unnoticed."""
    mine = Namespace(ns)
    rng = np.random.default_rng(17)
    own = (".data must have a version counter of its own, not the tensor's (sharing it is what "
           "detach() does): a change made through .data goes unnoticed.")
    fresh = (".data's version counter is a new one, at 0 like any new tensor's, whatever the "
             "tensor's version: not a copy of the tensor's counter.")
    for _ in range(2):
        values = rng.normal(size=(2, 3))
        for name, make in _alias_cases(values):
            t, t_ng = make(mine), make(ng)
            d, d_ng = t.data, t_ng.data
            _shares(d, t, f".data of {name}")
            expect(d._version_counter is not t._version_counter, own,
                   "a counter of its own", "the tensor's own counter")
            d.mul_(2.0)
            d_ng.mul_(2.0)
            close(_array(t), _array(t_ng), "A change through .data must reach the tensor.")
            expect(t._version == t_ng._version, own,
                   f"{name} still at version {t_ng._version}", f"version {t._version}")

        # a tensor changed in place five times: its .data starts a counter of its own at 0
        t, t_ng = mine.tensor(values), ng.tensor(values)
        for _ in range(5):
            t.add_(1.0)
            t_ng.add_(1.0)
        expect((t._version, t.data._version) == (t_ng._version, t_ng.data._version), fresh,
               f"(version, .data's version) = {(t_ng._version, t_ng.data._version)}",
               (t._version, t.data._version))

        # the same program through .data: backward runs, with the changed values: the same
        # wrong gradient as nbgrad's
        for program in ("exp_then_zero", "square_then_shift"):
            grads = []
            for M in (mine, ng):
                x = M.tensor(values, requires_grad=True)
                if program == "exp_then_zero":
                    loss = x.exp()
                    loss.data.zero_()
                    loss = loss.sum()
                else:
                    loss = (x * x).sum()
                    x.data.add_(1.0)
                loss.backward()
                grads.append(_array(x.grad))
            close(grads[0], grads[1],
                  f"{program} through .data: backward must run unaware and give nbgrad's (wrong) "
                  "gradient. " + own)


def detach_in_place(ns):
    """``detach_()``: the tensor itself becomes a leaf that requires no grad; views refuse."""
    mine = Namespace(ns)
    rng = np.random.default_rng(27)
    values = rng.normal(size=(2, 3))
    for kind in ("result", "leaf"):
        t = mine.tensor(values, requires_grad=True)
        t_ng = ng.tensor(values, requires_grad=True)
        if kind == "result":
            t, t_ng = t * 2.0, t_ng * 2.0
        try:
            out = t.detach_()
        except RuntimeError as error:
            fail(f"detach_() refuses only a view (a tensor whose _base is set): a {kind} that is "
                 "no view must become a leaf.", "no error", f"RuntimeError: {error}")
        t_ng.detach_()
        expect(out is t, "detach_() works in place: it must return the tensor itself, changed "
               "(detach() is the one that returns a new tensor).", "self", out)
        expect(t.grad_fn is None and t.is_leaf, f"detach_() of a {kind}: the tensor must lose its "
               "history (grad_fn None): it becomes a leaf.", (t_ng.grad_fn, t_ng.is_leaf),
               (t.grad_fn, t.is_leaf))
        expect(t.requires_grad == t_ng.requires_grad, f"detach_() of a {kind}: the tensor must no "
               "longer require grad (its own flag, _requires_grad, False).",
               f"requires_grad={t_ng.requires_grad}", f"requires_grad={t.requires_grad}")
        close(_array(t), _array(t_ng), "detach_() keeps the values.")

    refuse = ("detach_() must refuse a view (a tensor whose _base is set): it shows its base's "
              "memory and history, so it cannot leave the graph alone.")
    for make_view in (lambda a: a.view(6), lambda a: a[0], lambda a: a.t()):
        base = mine.tensor(values, requires_grad=True) * 1.0
        base_ng = ng.tensor(values, requires_grad=True) * 1.0
        phrase = nbgrad_says(lambda: make_view(base_ng).detach_())
        view = make_view(base)
        try:
            view.detach_()
        except RuntimeError as error:
            expect(phrase in str(error), "detach_() must refuse a view with PyTorch's message, "
                   "DETACH_VIEW_IN_PLACE, not a message of its own.", phrase, str(error))
        except Exception as error:
            fail("detach_() must refuse a view with a RuntimeError, PyTorch's kind of error.",
                 f"RuntimeError saying '{phrase}'", f"{type(error).__name__}: {error}")
        else:
            fail(refuse, f"RuntimeError saying '{phrase}'", "no error")
        expect(view.grad_fn is not None and view.requires_grad,
               "detach_() must refuse a view before it changes anything: the view keeps its "
               "history and its flag.", "grad_fn set, requires_grad True",
               f"grad_fn={view.grad_fn}, requires_grad={view.requires_grad}")


CHECKS = task_checks(globals(), [detach, data, detach_in_place])
