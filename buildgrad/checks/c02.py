"""Chapter 02's checks: the leaf rules of ``requires_grad``, grad mode, ``record`` under
``no_grad`` and ``backward``'s refusal without a graph, each compared with nbgrad."""

import numpy as np

import nbgrad as ng

from buildgrad.checks import close, expect, fail, nbgrad_says, raises, task_checks


def _restore_grad_mode(ns):
    """Switch recording back on if the learner's code left it off, so later cells work."""
    mode = ns.get("GradMode")
    if mode is not None and hasattr(mode, "enabled"):
        mode.enabled = True


def requires_grad_setter(ns):
    """``t.requires_grad = value``: yours on a float leaf, refused on a result and for integers."""
    tensor = ns["tensor"]
    rng = np.random.default_rng(2)
    for trial in range(3):
        data = rng.normal(size=(2, 3))
        for dtype in (np.float32, np.float64):
            mine, theirs = tensor(data.astype(dtype)), ng.tensor(data.astype(dtype))
            for value in (True, False, True):
                mine.requires_grad = value
                theirs.requires_grad = value
                expect(mine.requires_grad == theirs.requires_grad and mine.is_leaf,
                       f"A float leaf's flag is yours to set: after `t.requires_grad = {value}` "
                       f"it reads {value} (store it, as a bool, in `_requires_grad`).",
                       f"requires_grad={theirs.requires_grad}, is_leaf=True",
                       f"requires_grad={mine.requires_grad}, is_leaf={mine.is_leaf}")

        # a result: the flag states a fact, so neither value may be set
        x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
        y, y_ng = x * 2.0, x_ng * 2.0
        for value in (False, True):
            phrase = nbgrad_says(lambda: setattr(y_ng, "requires_grad", value))
            raises(lambda: setattr(y, "requires_grad", value), RuntimeError, phrase,
                   f"Setting `requires_grad = {value}` on a computed tensor (it has a grad_fn) "
                   "must raise before changing anything: only leaves' flags can change"
                   + (" (and say to use .detach())." if not value else "."))
            expect(y.requires_grad and y.grad_fn is not None,
                   "A refused change must leave the result as it was.",
                   "requires_grad=True with its grad_fn", f"requires_grad={y.requires_grad}")

        # integers and booleans: False is fine, True is refused
        for data_int in (rng.integers(-5, 5, size=3), np.array([True, False])):
            mine, theirs = tensor(data_int), ng.tensor(data_int)
            mine.requires_grad = False
            expect(mine.requires_grad is False or mine.requires_grad == 0,
                   "`requires_grad = False` is allowed for any dtype.", "False", mine.requires_grad)
            phrase = nbgrad_says(lambda: setattr(theirs, "requires_grad", True))
            raises(lambda: setattr(mine, "requires_grad", True), RuntimeError, phrase,
                   f"A {data_int.dtype} leaf cannot require grad: check `self.dtype.kind` "
                   "(only 'f', floating point, may), after the leaf rule.")
            expect(not mine.requires_grad, "A refused change must leave the flag False.",
                   "False", mine.requires_grad)


def _modes(is_grad_enabled, set_grad_enabled, no_grad, enable_grad):
    """is_grad_enabled() at each step of a fixed sequence of nested blocks."""
    seen = [is_grad_enabled()]
    with no_grad():
        seen.append(is_grad_enabled())
        with set_grad_enabled(True):
            seen.append(is_grad_enabled())
            with no_grad():
                seen.append(is_grad_enabled())
            seen.append(is_grad_enabled())
        seen.append(is_grad_enabled())
        with enable_grad():
            seen.append(is_grad_enabled())
        seen.append(is_grad_enabled())
    seen.append(is_grad_enabled())
    with set_grad_enabled(False):
        seen.append(is_grad_enabled())
        with set_grad_enabled(False):
            seen.append(is_grad_enabled())
        seen.append(is_grad_enabled())
    seen.append(is_grad_enabled())
    return [bool(mode) for mode in seen]


def grad_mode(ns):
    """``set_grad_enabled(mode)`` and ``no_grad()`` switch recording for a block and restore it."""
    names = ("is_grad_enabled", "set_grad_enabled", "no_grad", "enable_grad")
    try:
        mine = _modes(*(ns[name] for name in names))
    finally:
        _restore_grad_mode(ns)
    ng.set_grad_enabled(True)
    theirs = _modes(*(getattr(ng, name) for name in names))
    expect(mine == theirs,
           "Each block sets the mode on entry and puts back the mode it found (not always "
           "True) on exit: remember the previous mode in __enter__.",
           theirs, mine)
    try:
        with ns["no_grad"]():
            raise ValueError("raised inside the block")
    except ValueError:
        pass
    after = bool(ns["is_grad_enabled"]())
    _restore_grad_mode(ns)
    expect(after, "An error inside `with no_grad():` must still restore the mode: do it in __exit__.",
           "is_grad_enabled() is True after the block", f"is_grad_enabled() is {after}")


def record_in_grad_mode(ns):
    """Under ``no_grad()`` operations record nothing: results are leaves that do not require grad."""
    tensor, no_grad, enable_grad = ns["tensor"], ns["no_grad"], ns["enable_grad"]
    rng = np.random.default_rng(22)
    hint = ("`record` must return `out` untouched while grad mode is off (no node, no grad_fn) "
            "and record as before while it is on.")

    def flags(t):
        return (bool(t.requires_grad), bool(t.is_leaf), t.grad_fn is None)

    try:
        for trial in range(3):
            data = rng.uniform(0.5, 2.0, size=(2, 3))
            x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
            programs = {"x * 2": lambda m, t: t * 2.0, "x.exp().sum()": lambda m, t: t.exp().sum(),
                        "x * x + x": lambda m, t: t * t + t}
            for name, program in programs.items():
                for block in ("outside", "no_grad", "no_grad, then enable_grad"):
                    def run(m, t, no_grad_, enable_grad_):
                        if block == "outside":
                            return program(m, t)
                        with no_grad_():
                            if block == "no_grad":
                                return program(m, t)
                            with enable_grad_():
                                return program(m, t)
                    out = run(ns, x, no_grad, enable_grad)
                    out_ng = run(ng, x_ng, ng.no_grad, ng.enable_grad)
                    expect(flags(out) == flags(out_ng), hint + f" ({name}, {block})",
                           "(requires_grad, is_leaf, grad_fn is None) = %s" % (flags(out_ng),),
                           "(requires_grad, is_leaf, grad_fn is None) = %s" % (flags(out),))
                    close(out.array, out_ng.detach().numpy(), "The values must not depend on grad mode.")

            # no_grad stops recording, it does not change flags: a new leaf still requires grad
            with no_grad():
                made = tensor(data, requires_grad=True)
            expect(made.requires_grad and made.is_leaf,
                   "`no_grad` changes recording only: a tensor created inside it with "
                   "requires_grad=True still requires grad.", "True", made.requires_grad)

            # a value computed under no_grad is a constant for backward
            with no_grad():
                constant = x * x
            (x * constant).sum().backward()
            with ng.no_grad():
                constant_ng = x_ng * x_ng
            (x_ng * constant_ng).sum().backward()
            close(x.grad.array, x_ng.grad.numpy(),
                  "x * x computed under no_grad is a constant: d/dx sum(x * c) = c = x², not 3x².")
    finally:
        _restore_grad_mode(ns)


def backward_needs_grad(ns):
    """``backward()`` refuses a tensor that does not require grad (no graph to run)."""
    tensor, no_grad = ns["tensor"], ns["no_grad"]
    rng = np.random.default_rng(202)
    for trial in range(3):
        data = rng.normal(size=3)
        a, a_ng = tensor(data), ng.tensor(data)
        phrase = nbgrad_says(lambda: (a_ng * 2.0).sum().backward())
        hint = ("Before running the engine, `backward` must check `self.requires_grad` and raise "
                "PyTorch's RuntimeError when it is False.")
        raises(lambda: (a * 2.0).sum().backward(), RuntimeError, phrase, hint + " (data only)")
        x = tensor(data, requires_grad=True)
        try:
            with no_grad():
                loss = (x * x).sum()
        finally:
            _restore_grad_mode(ns)
        raises(lambda: loss.backward(), RuntimeError, phrase, hint + " (computed under no_grad)")
        expect(x.grad is None, "A refused backward must not touch any .grad.", None, x.grad)

        # with a graph, backward works as in chapter 01; a leaf that requires grad has one too
        x_ng = ng.tensor(data, requires_grad=True)
        (x * x).sum().backward()
        (x_ng * x_ng).sum().backward()
        if x.grad is None:
            fail("backward must still run the engine when the tensor requires grad.",
                 np.array2string(x_ng.grad.numpy()), None)
        close(x.grad.array, x_ng.grad.numpy(), "backward must still run the engine when the "
              "tensor requires grad: call the earlier backward after the check.")
        leaf, leaf_ng = tensor(float(data[0]), requires_grad=True), ng.tensor(float(data[0]), requires_grad=True)
        leaf.backward()
        leaf_ng.backward()
        expect(leaf.grad is not None, "A scalar leaf that requires grad may call backward() "
               "itself (its gradient is 1).", leaf_ng.grad, leaf.grad)
        close(leaf.grad.array, leaf_ng.grad.numpy(), "A scalar leaf's own gradient is 1.")


CHECKS = task_checks(globals(), [requires_grad_setter, grad_mode, record_in_grad_mode, backward_needs_grad])
