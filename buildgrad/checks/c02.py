"""Chapter 02's checks: the leaf rules of ``requires_grad``, grad mode, ``record`` under
``no_grad`` and ``backward``'s refusal without a graph, each compared with nbgrad."""

import numpy as np

import nbgrad as ng

from buildgrad.checks import CheckFailed, close, expect, fail, nbgrad_says, raises, task_checks


def _restore_grad_mode(ns):
    """Switch recording back on if the learner's code left it off, so later cells work."""
    mode = ns.get("GradMode")
    if mode is not None and hasattr(mode, "enabled"):
        mode.enabled = True


def _error(action):
    """The error ``action()`` raises, or None (a stub's or a check's own failure goes on)."""
    try:
        action()
    except (NotImplementedError, CheckFailed):
        raise
    except Exception as raised:
        return raised
    return None


def _said(error):
    return "no error" if error is None else f"{type(error).__name__}: {error}"


# Task 1

def _refused(action, expected, hint, message_hint):
    """``action()`` must raise RuntimeError saying exactly ``expected``: ``hint`` when it
    raises nothing (or another error), ``message_hint`` when the message differs."""
    error = _error(action)
    if not isinstance(error, RuntimeError):
        fail(hint, f"RuntimeError: {expected}", _said(error))
    expect(str(error).split("\n")[0] == expected, message_hint,
           f"RuntimeError: {expected}", _said(error))


def requires_grad_setter(ns):
    """``t.requires_grad = value``: yours on a float leaf, refused on a result and for integers."""
    tensor = ns["tensor"]
    rng = np.random.default_rng(2)
    for trial in range(3):
        data = rng.normal(size=(2, 3))
        for dtype in (np.float32, np.float64):
            mine, theirs = tensor(data.astype(dtype)), ng.tensor(data.astype(dtype))
            for value in (True, False, True):
                hint = (f"A float leaf's flag is yours to set ({np.dtype(dtype).name}): after "
                        f"`t.requires_grad = {value}` it reads {value}.")
                error = _error(lambda: setattr(mine, "requires_grad", value))
                if error is not None:
                    fail(hint, "no error", _said(error))
                theirs.requires_grad = value
                expect(mine.requires_grad == theirs.requires_grad and mine.is_leaf, hint,
                       f"requires_grad={theirs.requires_grad}, is_leaf=True",
                       f"requires_grad={mine.requires_grad}, is_leaf={mine.is_leaf}")

        # a result: the flag states a fact, so neither value may be set
        x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
        y, y_ng = x * 2.0, x_ng * 2.0
        for value in (False, True):
            expected = nbgrad_says(lambda: setattr(y_ng, "requires_grad", value))
            _refused(lambda: setattr(y, "requires_grad", value), expected,
                     f"Setting `requires_grad = {value}` on a computed tensor (it has a grad_fn) "
                     "must raise RuntimeError, whatever the value: only a leaf's flag can change.",
                     "For `requires_grad = False` on a result PyTorch adds the remedy: "
                     "ONLY_LEAVES + USE_DETACH." if not value else
                     "For `requires_grad = True` on a result the message is ONLY_LEAVES alone: "
                     "the .detach() remedy is for False only.")
            expect(y.requires_grad and y.grad_fn is not None,
                   "A refused change must leave the result as it was.",
                   "requires_grad=True with its grad_fn", f"requires_grad={y.requires_grad}")

        # integers and booleans: False is fine, True is refused
        for data_int in (rng.integers(-5, 5, size=3), np.array([True, False])):
            theirs = ng.tensor(data_int)
            made = []
            error = _error(lambda: made.append(tensor(data_int)))  # __init__ sets False
            if error is None:
                mine = made[0]
                error = _error(lambda: setattr(mine, "requires_grad", False))
            expect(error is None and not mine.requires_grad,
                   f"`requires_grad = False` is allowed for any dtype ({data_int.dtype} here): "
                   "only True is refused for a tensor that is not floating point.",
                   "no error, requires_grad=False",
                   _said(error) if error else f"requires_grad={mine.requires_grad}")
            expected = nbgrad_says(lambda: setattr(theirs, "requires_grad", True))
            _refused(lambda: setattr(mine, "requires_grad", True), expected,
                     f"A {data_int.dtype} leaf cannot require grad: only a floating-point dtype "
                     "(dtype.kind 'f') may; refuse True for every other kind, integer and bool.",
                     "The setter's message is ONLY_FLOAT with a lower-case first letter, "
                     "'only Tensors ...' (the factory tensor(...) writes 'Only').")
            expect(not mine.requires_grad,
                   "A refused change must leave the flag as it was: check the rules before "
                   "storing anything.", "requires_grad=False", f"requires_grad={mine.requires_grad}")


# Task 2

def _modes(M):
    """(step, the block's own mode, is_grad_enabled()) at each step of nested blocks."""
    steps = [("at the start", None, bool(M.is_grad_enabled()))]
    no_grad = (M.no_grad, "no_grad()", False)
    on = (lambda: M.set_grad_enabled(True), "set_grad_enabled(True)", True)
    off = (lambda: M.set_grad_enabled(False), "set_grad_enabled(False)", False)
    enable = (M.enable_grad, "enable_grad()", True)

    def block(kind, inner=(), where=""):
        make, name, mode = kind
        with make():
            steps.append((f"entering {name}{where}", mode, bool(M.is_grad_enabled())))
            for inner_kind, inner_inner in inner:
                block(inner_kind, inner_inner, f" inside {name}{where}")
        steps.append((f"leaving {name}{where}", mode, bool(M.is_grad_enabled())))

    block(no_grad, [(no_grad, []), (on, [(no_grad, [])]), (enable, [])])
    block(off, [(off, []), (enable, [(off, [])])])
    block(enable, [(on, [])])
    return steps


def _blocks(ns):
    names = ("set_grad_enabled(True)", "set_grad_enabled(False)", "no_grad()", "enable_grad()")
    makers = (lambda: ns["set_grad_enabled"](True), lambda: ns["set_grad_enabled"](False),
              ns["no_grad"], ns["enable_grad"])
    for name, make in zip(names, makers):
        try:
            made = make()
        finally:
            _restore_grad_mode(ns)
        expect(not isinstance(made, type) and hasattr(made, "__enter__") and hasattr(made, "__exit__"),
               f"{name} must give a block for `with` (an object with __enter__ and __exit__, "
               "as set_grad_enabled(mode) is), not switch the mode itself.",
               "a context manager", repr(made))


def grad_mode(ns):
    """``set_grad_enabled(mode)`` and ``no_grad()`` switch recording for a block and restore it."""
    _blocks(ns)
    M = type("Mine", (), {name: staticmethod(ns[name]) for name in
                          ("is_grad_enabled", "set_grad_enabled", "no_grad", "enable_grad")})
    mine = []
    try:
        error = _error(lambda: mine.extend(_modes(M)))
    finally:
        _restore_grad_mode(ns)
    ng.set_grad_enabled(True)
    theirs = _modes(ng)
    if error is not None:
        fail("Nested blocks must run without an error: each block remembers the mode it found "
             "on entering, and puts it back on leaving.", "no error", _said(error))
    for (step, mode, want), (_, _, got) in zip(theirs, mine):
        if got == want:
            continue
        if step.startswith("entering"):
            hint = ("On entering, a block sets grad mode to its own mode: set_grad_enabled(mode) "
                    "to mode, no_grad() to False, enable_grad() to True.")
        elif got != mode:
            hint = ("On leaving, a block puts back the mode it found on entering, whatever its own "
                    "mode: not True, not the opposite of its mode.")
        else:
            hint = ("On leaving, a block puts back the mode IT found on entering: each block "
                    "remembers its own (on self), before it sets its mode.")
        fail(f"{hint} ({step})", f"is_grad_enabled() is {want}", f"is_grad_enabled() is {got}")

    def raise_inside():
        with ns["no_grad"]():
            raise ValueError("raised inside the block")

    try:
        error = _error(raise_inside)
        after = bool(ns["is_grad_enabled"]())
    finally:
        _restore_grad_mode(ns)
    expect(isinstance(error, ValueError),
           "An error inside `with no_grad():` must reach the caller: __exit__ must not return "
           "True (that swallows the error).", "ValueError: raised inside the block", _said(error))
    expect(after, "An error inside `with no_grad():` must still restore the mode: __exit__ puts "
           "it back however the block ended.",
           "is_grad_enabled() is True after the block", f"is_grad_enabled() is {after}")


# Task 3

PROGRAMS = {"x * x + x": lambda t: t * t + t, "(x ** 3).mean()": lambda t: (t ** 3).mean(),
            "x.exp().sum()": lambda t: t.exp().sum()}


def _in_block(block, no_grad, enable_grad, program, t):
    if block == "outside any block":
        return program(t)
    with no_grad():
        if block == "under no_grad":
            return program(t)
        with enable_grad():
            return program(t)


def record_in_grad_mode(ns):
    """Under ``no_grad()`` operations record nothing: results are leaves that do not require grad."""
    tensor, no_grad, enable_grad = ns["tensor"], ns["no_grad"], ns["enable_grad"]
    rng = np.random.default_rng(22)

    def flags(t):
        return (bool(t.requires_grad), bool(t.is_leaf), t.grad_fn is None)

    try:
        for trial in range(3):
            data = rng.uniform(0.5, 2.0, size=(2, 3))
            x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
            for name, program in PROGRAMS.items():
                for block in ("outside any block", "under no_grad", "in enable_grad inside no_grad"):
                    made = []
                    error = _error(lambda: made.append(
                        _in_block(block, no_grad, enable_grad, program, x)))
                    out = made[0] if made else None
                    out_ng = _in_block(block, ng.no_grad, ng.enable_grad, program, x_ng)
                    if out is None:
                        fail(f"`record` returns the result in either mode: with grad mode off, "
                             f"`out` itself, unrecorded ({name}, {block}).", "a tensor",
                             _said(error) if error else None)
                    hint = ("While grad mode is off, `record` returns `out` unrecorded (no node, "
                            "no grad_fn), whatever its inputs." if block == "under no_grad" else
                            "While grad mode is on, `record` records as chapter 00's did.")
                    expect(flags(out) == flags(out_ng), f"{hint} ({name}, {block})",
                           "(requires_grad, is_leaf, grad_fn is None) = %s" % (flags(out_ng),),
                           "(requires_grad, is_leaf, grad_fn is None) = %s" % (flags(out),))
                    close(out.array, out_ng.detach().numpy(),
                          f"The values must not depend on grad mode ({name}, {block}).")
                    if block == "under no_grad":
                        continue
                    # recorded: backward needs what the node saved and its fields
                    x.grad, x_ng.grad = None, None
                    error = _error(lambda: out.sum().backward())
                    out_ng.sum().backward()
                    hint = ("In grad mode, pass every argument on to chapter 00's record: the node "
                            f"needs its saved tensors and fields for backward ({name}, {block}).")
                    if error is not None or x.grad is None:
                        fail(hint, np.array2string(x_ng.grad.numpy(), precision=6), _said(error))
                    close(x.grad.array, x_ng.grad.numpy(), hint)

            # no_grad stops recording, it does not change flags: a new leaf still requires grad
            with no_grad():
                made = tensor(data, requires_grad=True)
            expect(made.requires_grad and made.is_leaf,
                   "`no_grad` changes recording only: a tensor created inside it with "
                   "requires_grad=True still requires grad.", "True", made.requires_grad)

            # a value computed under no_grad is a constant for backward
            x.grad, x_ng.grad = None, None
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


# Task 4

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

        # with a graph, backward works as in chapter 01, `gradient` included
        x_ng = ng.tensor(data, requires_grad=True)
        error = _error(lambda: (x * x).sum().backward())
        (x_ng * x_ng).sum().backward()
        run_hint = ("backward must still run the engine when the tensor requires grad: call the "
                    "earlier backward after the check.")
        if error is not None or x.grad is None:
            fail(run_hint, np.array2string(x_ng.grad.numpy()), _said(error))
        close(x.grad.array, x_ng.grad.numpy(), run_hint)

        weights = rng.normal(size=3)
        x, x_ng = tensor(data, requires_grad=True), ng.tensor(data, requires_grad=True)
        error = _error(lambda: (x * 3.0).backward(tensor(weights)))
        (x_ng * 3.0).backward(ng.tensor(weights))
        gradient_hint = ("Pass `gradient` on to chapter 01's backward: y.backward(gradient) of a "
                         "non-scalar y starts from that gradient.")
        if error is not None or x.grad is None:
            fail(gradient_hint, np.array2string(x_ng.grad.numpy()), _said(error))
        close(x.grad.array, x_ng.grad.numpy(), gradient_hint)

        # a leaf that requires grad has no grad_fn, and may call backward() itself
        leaf, leaf_ng = tensor(float(data[0]), requires_grad=True), ng.tensor(float(data[0]), requires_grad=True)
        error = _error(leaf.backward)
        leaf_ng.backward()
        leaf_hint = ("A scalar leaf that requires grad may call backward() itself (its gradient "
                     "is 1): it has no grad_fn, so test requires_grad, not grad_fn.")
        if error is not None or leaf.grad is None:
            fail(leaf_hint, leaf_ng.grad, _said(error))
        close(leaf.grad.array, leaf_ng.grad.numpy(), leaf_hint)


CHECKS = task_checks(globals(), [requires_grad_setter, grad_mode, record_in_grad_mode, backward_needs_grad])
