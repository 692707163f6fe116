"""Chapter 07's checks: ``detach()`` shares memory and the version counter (so the
saved-tensor check catches a change made through it), ``.data`` shares memory only (the
same change goes unnoticed: the same wrong gradient as nbgrad's), ``detach_()`` turns a
result into a leaf and refuses views, each compared with nbgrad."""

import numpy as np

import nbgrad as ng

from buildgrad.checks import Namespace, close, expect, nbgrad_says, raises, task_checks


def _array(t):
    return t.array if hasattr(t, "array") else t.detach().numpy()


def _alias_cases(data):
    """(name, make): a leaf that requires grad, a result, a plain leaf."""
    return [("a leaf x (requires grad)", lambda M: M.tensor(data, requires_grad=True)),
            ("a result y = x.exp()", lambda M: M.tensor(data, requires_grad=True).exp()),
            ("a plain leaf", lambda M: M.tensor(data))]


def _shares(alias, t, what, hint):
    expect(alias is not t, f"{what} must return a new tensor, not the tensor itself.", "a new tensor", "the same one")
    expect(np.shares_memory(_array(alias), _array(t)),
           f"{what} must share the tensor's memory (Tensor(self.array), no copy). {hint}",
           "the same memory", "a copy")
    expect(alias.grad_fn is None and not alias.requires_grad,
           f"{what} has no history: grad_fn None, requires_grad False. {hint}",
           "grad_fn=None, requires_grad=False", f"grad_fn={alias.grad_fn}, requires_grad={alias.requires_grad}")


def detach(ns):
    """``detach()``: same memory, same version counter, no history; it stops the gradient."""
    mine = Namespace(ns)
    rng = np.random.default_rng(7)
    hint = "Give the new tensor self's _version_counter object, so in-place changes stay visible."
    for _ in range(2):
        data = rng.normal(size=(2, 3))
        for name, make in _alias_cases(data):
            t, t_ng = make(mine), make(ng)
            d, d_ng = t.detach(), t_ng.detach()
            _shares(d, t, f"detach() of {name}", hint)
            expect(d._version_counter is t._version_counter, f"detach() of {name}: {hint}",
                   "the same VersionCounter object", "another one")
            d.add_(1.0)
            d_ng.add_(1.0)
            close(_array(t), _array(t_ng), "A change through detach() must reach the tensor.")
            expect(t._version == t_ng._version == 1, f"detach() of {name}: {hint}",
                   f"version {t_ng._version} after d.add_(1.0)", f"version {t._version}")

        # the change through detach() is caught by backward, as in nbgrad and PyTorch
        def program(M):
            x = M.tensor(data, requires_grad=True)
            y = x.exp()                  # saves its output
            y.detach().zero_()
            return y.sum()
        phrase = nbgrad_says(lambda: program(ng).backward())
        phrase = phrase.split(": [")[0]   # the tensor's type name differs: nbgrad vs buildgrad
        raises(lambda: program(mine).backward(), RuntimeError, phrase,
               "y.detach().zero_() changed a tensor ExpBackward0 saved; with the shared counter "
               "backward must refuse, as nbgrad and PyTorch do. " + hint)

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
    hint = ".data is Tensor(self.array): a NEW version counter (that is how it differs from detach())."
    for _ in range(2):
        values = rng.normal(size=(2, 3))
        for name, make in _alias_cases(values):
            t, t_ng = make(mine), make(ng)
            d, d_ng = t.data, t_ng.data
            _shares(d, t, f".data of {name}", hint)
            expect(d._version_counter is not t._version_counter and d._version == d_ng._version,
                   f".data of {name}: {hint}", f"a counter of its own at {d_ng._version}",
                   "the tensor's own counter" if d._version_counter is t._version_counter
                   else f"version {d._version}")
            d.mul_(2.0)
            d_ng.mul_(2.0)
            close(_array(t), _array(t_ng), "A change through .data must reach the tensor.")
            expect(t._version == t_ng._version == 0, f".data of {name}: {hint}",
                   f"the tensor still at version {t_ng._version}", f"version {t._version}")

        # a tensor changed in place five times: its .data starts a counter of its own at 0
        t, t_ng = mine.tensor(values), ng.tensor(values)
        for _ in range(5):
            t.add_(1.0)
            t_ng.add_(1.0)
        expect((t._version, t.data._version) == (t_ng._version, t_ng.data._version), hint,
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
                  "gradient. " + hint)


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
        out = t.detach_()
        t_ng.detach_()
        expect(out is t, "detach_() works in place: it returns the tensor itself.", "self", out)
        expect((t.grad_fn, t.requires_grad, t.is_leaf) == (t_ng.grad_fn, t_ng.requires_grad, t_ng.is_leaf),
               f"detach_() of a {kind}: drop the grad_fn and set _requires_grad to False.",
               (t_ng.grad_fn, t_ng.requires_grad, t_ng.is_leaf), (t.grad_fn, t.requires_grad, t.is_leaf))
        close(_array(t), _array(t_ng), "detach_() keeps the values.")

    for make_view in (lambda a: a.view(6), lambda a: a[0], lambda a: a.t()):
        base = mine.tensor(values, requires_grad=True) * 1.0
        base_ng = ng.tensor(values, requires_grad=True) * 1.0
        phrase = nbgrad_says(lambda: make_view(base_ng).detach_())
        raises(lambda: make_view(base).detach_(), RuntimeError, phrase,
               "A view (its _base is set) shares its base's history: detach_() must refuse it "
               "with PyTorch's message (DETACH_VIEW_IN_PLACE).")


CHECKS = task_checks(globals(), [detach, data, detach_in_place])
