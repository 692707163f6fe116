"""Chapter 09's checks: ``detect_anomaly`` turns anomaly detection on and back, each node made
while it is on keeps the stack of its forward call, and the engine reports a failing node
with that stack before the error goes on (with ``check_nan``, a node whose gradients hold nan
fails), each compared with nbgrad and with PyTorch's wording."""

import contextlib
import io
import re
import warnings

import numpy as np

import nbgrad as ng

from buildgrad.checks import close, expect, fail, task_checks

# PyTorch's texts (torch 2.13): the switch's warning, the engine's two reports, the nan error
ENABLED = ("Anomaly Detection has been enabled. This mode will increase the runtime and should "
           "only be enabled for debugging.")
WITH_STACK = "Error detected in {}. Traceback of forward call that caused the error:\n{}"
NO_STACK = ("Error detected in {}. No forward pass information available. Enable detect anomaly "
            "during forward pass for more information.")
NAN = "Function '{}' returned nan values in its {}th output."


def _reset(ns):
    """Anomaly detection off, as a fresh process has it (a failed run may have left it on)."""
    ns["AnomalyMode"].enabled, ns["AnomalyMode"].check_nan = False, True


def _state(ns):
    return ns["is_anomaly_enabled"](), ns["is_anomaly_check_nan_enabled"]()


@contextlib.contextmanager
def _watched(seen):
    """Inside: every warning recorded and what is printed captured, into ``seen``; NumPy's own
    warnings (0 ** -0.5) silenced."""
    printed = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"), \
            contextlib.redirect_stdout(printed):
        warnings.simplefilter("always")
        try:
            yield
        finally:
            seen["warnings"] = [(w.category, str(w.message)) for w in caught]
            seen["printed"] = printed.getvalue()


def _run(action):
    """``action()`` watched: (the error it raised or None, its warnings, what it printed)."""
    seen, error = {}, None
    with _watched(seen):
        try:
            action()
        except NotImplementedError:
            raise
        except Exception as raised:
            error = raised
    return error, seen["warnings"], seen["printed"]


def _said(error):
    return "no error" if error is None else f"{type(error).__name__}: {error}"


# Task 1 ---------------------------------------------------------------------------------

def anomaly_switch(ns):
    """``detect_anomaly(check_nan=True)``: warns as PyTorch does, turns anomaly detection on
    inside its block with the ``check_nan`` given, and restores both settings as they were
    before the block when it ends, even by an error."""
    _reset(ns)
    detect = ns["detect_anomaly"]
    inside = []

    def block(check_nan=None, then=None):
        with (detect() if check_nan is None else detect(check_nan=check_nan)):
            inside.append(_state(ns))
            if then is not None:
                then()

    error, warned, printed = _run(block)
    if isinstance(error, (TypeError, AttributeError, RuntimeError)) and (
            "generator" in str(error) or "iterator" in str(error) or "__enter__" in str(error)):
        fail("detect_anomaly is a generator under @contextlib.contextmanager (given): the block "
             "runs where it yields, once (`yield`, inside try/finally)", "a block that runs",
             _said(error))
    expect(error is None, "`with detect_anomaly():` raised: the block must run, once",
           "no error", _said(error))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ng.autograd.detect_anomaly():
            pass
    expect([str(w.message) for w in caught] == [ENABLED], "(the check itself is wrong)",
           ENABLED, [str(w.message) for w in caught])
    if not warned and ENABLED.split(".")[0] in printed:
        fail("warn with warnings.warn(..., UserWarning), as PyTorch does: a printed message is "
             "no warning (warning filters, and the tests of a program, cannot see it)",
             f"UserWarning: {ENABLED}", f"printed: {printed.strip()}")
    expect(len(warned) == 1,
           "detect_anomaly warns when its block starts, once, as PyTorch's does: "
           f"warnings.warn('{ENABLED}', UserWarning)", f"one warning: {ENABLED}",
           [m for _, m in warned] or "no warning")
    category, message = warned[0]
    expect(message == ENABLED, "the warning's text is PyTorch's, word for word", ENABLED, message)
    expect(issubclass(category, UserWarning), "the warning is a UserWarning, as PyTorch's",
           "UserWarning", category.__name__)
    expect(inside == [(True, True)],
           "inside the block anomaly detection is on (AnomalyMode.enabled = True), and with "
           "check_nan=True (the default) so is the nan check",
           "is_anomaly_enabled() True, is_anomaly_check_nan_enabled() True",
           f"{inside[0][0]}, {inside[0][1]}")
    expect(_state(ns) == (False, True),
           "when the block ends, both settings are restored as they were before it (here off, "
           "with check_nan True)", "(False, True)", _state(ns))

    inside.clear()
    error, _, _ = _run(lambda: block(check_nan=False))
    expect(error is None, "`with detect_anomaly(check_nan=False):` raised", "no error", _said(error))
    expect(inside == [(True, False)],
           "check_nan=False turns the nan check off inside the block (AnomalyMode.check_nan = "
           "check_nan), anomaly detection itself on", "(True, False)", inside[0])
    expect(_state(ns) == (False, True),
           "when the block ends, both settings are restored as they were before it: check_nan "
           "True again", "(False, True)", _state(ns))

    # a block inside another: the inner one's end gives back the outer one's settings
    inside.clear()
    after_inner = []
    error, _, _ = _run(lambda: block(check_nan=False, then=lambda: (
        block(), after_inner.append(_state(ns)))))
    expect(error is None, "a block inside another raised", "no error", _said(error))
    expect(inside == [(True, False), (True, True)], "each block sets its own check_nan",
           [(True, False), (True, True)], inside)
    expect(after_inner == [(True, False)],
           "restore the settings as they were before the block (save them when it starts): after "
           "a block inside `with detect_anomaly(check_nan=False):` the outer block's settings are "
           "back, on with check_nan False, not off", "(True, False)", after_inner[0])
    expect(_state(ns) == (False, True), "after both blocks, anomaly detection is off again",
           "(False, True)", _state(ns))

    # a block that raises: the error goes on, and the settings are restored all the same
    problem = KeyError("raised inside the block")

    def raising():
        raise problem
    error, _, _ = _run(lambda: block(check_nan=False, then=raising))
    expect(error is problem, "an error raised inside the block goes on, unchanged: the context "
           "manager must not swallow it", _said(problem), _said(error))
    if _state(ns) != (False, True):
        state = _state(ns)
        _reset(ns)
        fail("restore the settings even when the block raises (try: yield / finally: restore), "
             "as the end of any `with` block does: an error left anomaly detection on",
             "(False, True)", state)


# Task 2 ---------------------------------------------------------------------------------

def _nodes(out):
    """The nodes of a chain out.grad_fn -> its first input's node -> ... (AccumulateGrad last)."""
    node, nodes = out.grad_fn, []
    while node is not None:
        nodes.append(node)
        node = node.next_functions[0][0] if node.next_functions else None
    return nodes


def _program(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y * 3.0
    return z


LINES = {"MulBackward0": "z = y * 3.0", "ExpBackward0": "y = x.exp()", "AccumulateGrad": "y = x.exp()"}


def _last_frame(stack):
    """(function, line) of a formatted stack's last frame."""
    found = re.findall(r'File "[^"]*", line \d+, in (\S+)\n +(.+)', "".join(stack))
    return found[-1] if found else None


def node_keeps_its_stack(ns):
    """While anomaly detection is on (whatever ``check_nan``), every node made keeps the list
    ``forward_stack()`` returns in ``node.metadata["traceback_"]``; while off, nothing."""
    _reset(ns)
    Namespace = type("Namespace", (), {"tensor": staticmethod(ns["tensor"])})
    names = [n.name() for n in _nodes(_program(Namespace))]
    expect(names == list(LINES), "(the check itself is wrong)", list(LINES), names)
    for node in _nodes(_program(Namespace)):
        expect(node.metadata == {},
               "while anomaly detection is off a node keeps nothing (test AnomalyMode.enabled "
               "first): that is what makes it cost nothing when you do not ask for it",
               f"{node.name()}.metadata == {{}}", node.metadata)

    for check_nan in (True, False):
        made = []
        error, _, _ = _run(lambda: made.extend(_nodes(_with(ns, check_nan, lambda: _program(Namespace)))))
        expect(error is None, "making nodes inside `with detect_anomaly():` raised", "no error",
               _said(error))
        for node in made:
            where = f"{node.name()}, made inside `with detect_anomaly(check_nan={check_nan}):`"
            stack = node.metadata.get("traceback_")
            if stack is None and not check_nan and any(
                    "traceback_" in n.metadata for n in _nodes(_with(ns, True, lambda: _program(Namespace)))):
                fail("check_nan only turns the nan check on or off: a node keeps its stack "
                     "whenever anomaly detection is on (AnomalyMode.enabled)",
                     f"{where}: a stack", "none")
            expect(stack is not None,
                   "while anomaly detection is on every node made keeps its forward stack in "
                   "node.metadata['traceback_'] (PyTorch's key; metadata, given, is the node's dict)",
                   f"{where}: metadata['traceback_']", f"metadata = {node.metadata}")
            expect(isinstance(stack, list) and all(isinstance(s, str) for s in stack),
                   "keep the list of strings forward_stack() returns, one per frame (PyTorch's "
                   "metadata['traceback_'] is that list, not one string)",
                   "a list of str", type(stack).__name__)
            expected = ("_program", LINES[node.name()])
            got = _last_frame(stack)
            expect(got == expected,
                   "keep what the given forward_stack() returns, called in __init__ itself: it "
                   "leaves out the package's own frames and __init__'s, so that the stack ends at "
                   "the line of the program that made the node (traceback.format_stack() called "
                   "in __init__ ends inside the package)",
                   f"{where}: the last frame in {expected[0]}: {expected[1]}",
                   f"in {got[0]}: {got[1]}" if got else (stack[-1] if stack else "[]"))
            expect(any("in node_keeps_its_stack" in s for s in stack[:-1]),
                   "keep the whole stack forward_stack() returns, from the outermost frame to "
                   "the program's line", "the frames that called the program too", stack)
    for node in _nodes(_program(Namespace)):
        expect(node.metadata == {},
               "after the block, anomaly detection is off again and a node made then keeps "
               "nothing", f"{node.name()}.metadata == {{}}", node.metadata)


def _with(ns, check_nan, action):
    """``action()`` inside the learner's ``detect_anomaly(check_nan=...)``, its warning
    silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ns["detect_anomaly"](check_nan=check_nan):
            return action()


# Task 3 ---------------------------------------------------------------------------------

def _reports(warned):
    return [(c, m) for c, m in warned if "Error detected in" in m]


def _check_report(warned, printed, expected, where):
    """``warned`` holds exactly one report, ``expected``, a UserWarning."""
    reports = _reports(warned)
    name = expected.split(".")[0].split()[-1]
    if not reports and "Error detected in" in printed:
        fail("report with warnings.warn(..., UserWarning), as PyTorch does: a printed message is "
             "no warning", f"UserWarning: {expected.splitlines()[0]}",
             f"printed: {printed.strip().splitlines()[0]}")
    expect(reports, "while anomaly detection is on, a node whose backward raises is reported "
           "first, then its error goes on: a UserWarning 'Error detected in "
           f"{name}. Traceback of forward call that caused the error:' and the stack the node "
           "kept", f"{where}: {expected.splitlines()[0]}", "no report")
    expect(len(reports) == 1, "report a failure once: the node that raised, nothing more",
           "one report", [m.splitlines()[0] for _, m in reports])
    category, message = reports[0]
    if expected.startswith(NO_STACK.format(name)[:40]) and message.startswith(
            WITH_STACK.format(name, "")):
        fail("a node made while anomaly detection was off kept no stack: PyTorch then says "
             f"'{NO_STACK.format(name)}'", expected, message)
    if message != expected and message.replace("\n\n", "\n") == expected:
        fail("each string of the stack already ends with its newline (as traceback.format_stack "
             "gives them): join them with ''", expected, message)
    expect(message == expected, "the report is PyTorch's: 'Error detected in <the node's name>. "
           "Traceback of forward call that caused the error:\\n' and the node's stack, its strings "
           "joined with ''", expected, message)
    expect(issubclass(category, UserWarning), "the report is a UserWarning, as PyTorch's",
           "UserWarning", category.__name__)


def _masked_sqrt(M):
    """sqrt where a mask keeps it: 0 * inf = nan at x = 0, in PowBackward0's gradient."""
    x = M.tensor([0.0, 4.0], requires_grad=True)
    (x ** 0.5 * M.tensor([0.0, 1.0])).sum().backward()
    return x


def _nan_error(ns, program, expected, where):
    """``program`` run in the learner's block must fail with ``expected``, reported."""
    stacks = {}

    def run():
        with ns["detect_anomaly"]():
            program(stacks)
    error, warned, printed = _run(run)
    if error is None:
        fail("with check_nan (the default), a node whose gradients hold nan raises "
             f"RuntimeError(\"{NAN.format('<the node>', '<i>')}\"), i the output's position",
             f"{where}: RuntimeError: {expected}", "no error")
    if isinstance(error, RuntimeError) and str(error) != expected and str(error).startswith(
            expected.split(" in its")[0]):
        fail("i is the output's position among the node's outputs (its gradients, one per "
             "next_functions entry), counted from 0: PyTorch writes '0th', '1th', ...",
             expected, str(error))
    expect(isinstance(error, RuntimeError) and str(error) == expected,
           "the nan error is PyTorch's: RuntimeError(\"Function '<the node's name>' returned nan "
           "values in its <i>th output.\")", f"RuntimeError: {expected}", _said(error))
    name = expected.split("'")[1]
    if not _reports(warned):
        fail("the nan error is a failure of the node like any other: raise it inside the try, so "
             "that it is reported first (the warning with the node's stack, then the error)",
             f"UserWarning: {WITH_STACK.format(name, '').strip()}", "no report")
    _check_report(warned, printed, WITH_STACK.format(name, "".join(stacks["node"])), where)


def _passes(ns, program, expected_grad, hint, where, check_nan=True, on=True):
    """``program`` must run through, with nbgrad's gradient and no report."""
    holder = []

    def run():
        if on:
            with ns["detect_anomaly"](check_nan=check_nan):
                holder.append(program())
        else:
            holder.append(program())
    error, warned, _ = _run(run)
    if error is not None and not isinstance(error, RuntimeError) and "isnan" in str(error):
        hint = ("a gradient that is None (an input that gets none) is not checked: np.isnan(None) "
                "raises")
    elif isinstance(error, TypeError) and "NoneType" in str(error) and not _reports(warned):
        hint = RETURNS
    elif isinstance(error, NameError):
        hint = ("run the node with chapter 04's __call__, `grads = _call_without_anomaly(self, "
                "grad)`, and return what it gives")
    expect(error is None, hint, f"{where}: no error", _said(error))
    expect(not _reports(warned), hint, f"{where}: no report",
           [m.splitlines()[0] for _, m in _reports(warned)])
    close(holder[0].grad.array, expected_grad, RETURNS)


RETURNS = ("__call__ returns the node's gradients as chapter 04's __call__ gives them (a tuple, "
           "one per next_functions entry): the engine passes them on")


def engine_reports(ns):
    """While anomaly detection is on, a node whose run fails (its backward, its saved tensors,
    its hooks, or, with check_nan, a nan among the gradients it passes on) is reported with
    its forward stack, then its error goes on unchanged; off, nothing changes."""
    _reset(ns)
    tensor, Function = ns["tensor"], ns["Function"]
    M = type("Namespace", (), {"tensor": staticmethod(tensor)})

    def in_place():
        x = tensor([1.0, -2.0, 3.0], requires_grad=True)
        h = x.exp()         # ExpBackward0 saves its output h ...
        h *= 2              # ... which this line changes
        return h

    # the gradients still flow, on and off
    x0 = np.array([0.5, -1.0, 2.0])

    def plain():
        x = tensor(x0, requires_grad=True)
        (x.exp() * x).sum().backward()
        return x
    xn = ng.tensor(x0, requires_grad=True)
    (xn.exp() * xn).sum().backward()
    for on in (False, True):
        _passes(ns, plain, xn.grad.numpy(), "a node that runs without error is not reported, and "
                "its gradients go on", f"a backward that works, anomaly detection {'on' if on else 'off'}",
                on=on)

    # the error the node raises without anomaly detection
    plain_error, _, _ = _run(lambda: in_place().sum().backward())
    expect(isinstance(plain_error, RuntimeError) and "modified by an inplace" in str(plain_error),
           "let the node's error go on unchanged, the very exception (a bare `raise` at the end of "
           "the except block): here, with anomaly detection off, chapter 05's error was lost",
           "RuntimeError: one of the variables needed for gradient computation has been modified "
           "by an inplace operation: ...", _said(plain_error))

    # 1. made and run inside the block: reported with ExpBackward0's stack, then the same error
    kept = {}

    def inside():
        with ns["detect_anomaly"]():
            h = in_place()
            kept["stack"] = h.grad_fn.next_functions[0][0].metadata.get("traceback_")
            h.sum().backward()
    error, warned, printed = _run(inside)
    expect(kept.get("stack") is not None, "(Task 2: a node made inside the block keeps its stack)",
           "ExpBackward0.metadata['traceback_']", "none")
    _check_report(warned, printed, WITH_STACK.format("ExpBackward0", "".join(kept["stack"])),
                  "h *= 2 changed what ExpBackward0 saved")
    theirs = ng.tensor([1.0, -2.0, 3.0], requires_grad=True).exp()
    theirs *= 2
    nbgrad_error, nbgrad_warned, _ = _run(lambda: _ng_block(lambda: theirs.sum().backward()))
    expect([m.splitlines()[0] for _, m in _reports(nbgrad_warned)]
           == [WITH_STACK.format("ExpBackward0", "").strip()], "(the check itself is wrong)",
           "nbgrad's report", nbgrad_warned)
    same = ("let the node's error go on unchanged, the very exception (a bare `raise` in the "
            "except block): PyTorch adds the report as a warning, not to the error")
    expect(type(error) is type(plain_error) and str(error) == str(plain_error), same,
           _said(plain_error), _said(error))

    # 2. a hook's own error: the same exception object, reported with the hooked node
    problem = ValueError("the hook failed")

    def hooked():
        with ns["detect_anomaly"]():
            x = tensor([1.0, 2.0], requires_grad=True)
            y = x * 2.0
            kept["stack"] = y.grad_fn.metadata.get("traceback_")
            y.register_hook(lambda grad: _raise(problem))
            y.sum().backward()
    error, warned, printed = _run(hooked)
    _check_report(warned, printed, WITH_STACK.format("MulBackward0", "".join(kept["stack"] or [])),
                  "a hook on y = x * 2.0 raised")
    expect(error is problem, same, f"the hook's own {_said(problem)}", _said(error))

    # 3. made inside, run after the block: not reported (the switch is read when the node fails)
    def run_after():
        with ns["detect_anomaly"]():
            h = in_place()
        h.sum().backward()
    error, warned, _ = _run(run_after)
    expect(not _reports(warned),
           "report only while anomaly detection is on when the node fails (AnomalyMode.enabled, "
           "read then): a node made in the block and run after it is not reported, as in PyTorch",
           "no report", [m.splitlines()[0] for _, m in _reports(warned)])
    expect(type(error) is type(plain_error) and str(error) == str(plain_error), same,
           _said(plain_error), _said(error))

    # 4. made before the block, run inside: no stack to show
    def made_before():
        h = in_place()
        with ns["detect_anomaly"]():
            h.sum().backward()
    error, warned, printed = _run(made_before)
    if isinstance(error, KeyError):
        fail("a node made while anomaly detection was off kept no stack: PyTorch then says "
             f"'{NO_STACK.format('ExpBackward0')}'", "the report, then chapter 05's error",
             _said(error))
    _check_report(warned, printed, NO_STACK.format("ExpBackward0"), "ExpBackward0 made before the block")
    expect(type(error) is type(plain_error) and str(error) == str(plain_error), same,
           _said(plain_error), _said(error))

    # 5. nan: sqrt at 0, where a mask keeps it: 0 * inf in PowBackward0's 0th output
    def masked(stacks):
        x = tensor([0.0, 4.0], requires_grad=True)
        y = x ** 0.5
        stacks["node"] = y.grad_fn.metadata.get("traceback_") or []
        (y * tensor([0.0, 1.0])).sum().backward()
    expected = _nbgrad_nan(_masked_sqrt)
    expect(expected == NAN.format("PowBackward0", 0), "(the check itself is wrong)",
           NAN.format("PowBackward0", 0), expected)
    _nan_error(ns, masked, expected, "sqrt(x) * [0, 1] at x = [0, 4]")

    # 6. nan in the second output: a * b with nan in a gives b's gradient nan
    def second(stacks):
        a = tensor([1.0, float("nan")], requires_grad=True)
        b = tensor([1.0, 2.0], requires_grad=True)
        y = a * b
        stacks["node"] = y.grad_fn.metadata.get("traceback_") or []
        y.sum().backward()

    def second_ng(T):
        a = T.tensor([1.0, float("nan")], requires_grad=True)
        (a * T.tensor([1.0, 2.0], requires_grad=True)).sum().backward()
    expected = _nbgrad_nan(second_ng)
    expect(expected == NAN.format("MulBackward0", 1), "(the check itself is wrong)",
           NAN.format("MulBackward0", 1), expected)
    _nan_error(ns, second, expected, "a * b, a = [1, nan]: b's gradient is nan")

    # 7. what is not an anomaly: nan going nowhere, inf, a None gradient; check_nan off; off
    def nowhere(T):
        w = T.tensor([1.0, float("nan")], requires_grad=True)
        (w * T.tensor([1.0, 2.0])).sum().backward()   # the constant's gradient, w: not needed
        return w
    _passes(ns, lambda: nowhere(M), _ng_grad(nowhere),
            "only the gradients that go somewhere are checked: an output whose next_functions "
            "entry is (None, 0) (an input that needs no gradient; PyTorch does not even compute "
            "it) is not", "w * [1, 2], w = [1, nan]: the nan is the constant's gradient")

    def root(T):
        x = T.tensor([0.0, 4.0], requires_grad=True)
        (x ** 0.5).sum().backward()                  # d sqrt/dx at 0: inf, not nan
        return x
    _passes(ns, lambda: root(M), _ng_grad(root),
            "only nan is an anomaly: an infinite gradient (the square root's at 0) passes, as in "
            "PyTorch", "sqrt(x) at x = [0, 4]: the gradient [inf, 0.25]")

    class FirstOnly(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b.detach()

        @staticmethod
        def backward(ctx, grad):
            return grad, None                        # b gets no gradient: None

    def none_gradient():
        a = tensor([1.0, 2.0], requires_grad=True)
        FirstOnly.apply(a, tensor([3.0, 4.0], requires_grad=True)).sum().backward()
        return a
    _passes(ns, none_gradient, np.ones(2),
            "a gradient that is None (an input that gets none) is not checked: np.isnan(None) "
            "raises", "a Function whose backward returns (grad, None)")

    _passes(ns, lambda: _masked_sqrt(M), _ng_grad(_masked_sqrt),
            "with check_nan=False (AnomalyMode.check_nan) nan gradients pass: only the report of "
            "errors stays on", "sqrt(x) * [0, 1] under detect_anomaly(check_nan=False)",
            check_nan=False)
    _passes(ns, lambda: _masked_sqrt(M), _ng_grad(_masked_sqrt),
            "while anomaly detection is off, nothing is checked: test AnomalyMode.enabled (and "
            "check_nan) before looking for nan", "sqrt(x) * [0, 1], anomaly detection off", on=False)


def _raise(error):
    raise error


def _ng_block(action):
    with ng.autograd.detect_anomaly():
        action()


def _nbgrad_nan(program):
    """nbgrad's nan message for ``program(ng)`` under its detect_anomaly."""
    error, _, _ = _run(lambda: _ng_block(lambda: program(ng)))
    return str(error)


def _ng_grad(program):
    """The gradient ``program(ng)`` leaves in its leaf, nan and inf as they come."""
    with np.errstate(all="ignore"):
        return program(ng).grad.numpy()


# The line it finds ------------------------------------------------------------------------

def finds_the_line(caught, line):
    """What the learner's package reported, ``caught`` (warnings), names ExpBackward0 and a
    forward stack that ends at ``line``."""
    reports = [str(w.message) for w in caught if "Error detected in" in str(w.message)]
    expect(len(reports) == 1, "one report: the node whose saved output was changed",
           "one 'Error detected in ExpBackward0' warning", [r.splitlines()[0] for r in reports])
    first = reports[0].splitlines()[0]
    expect(first == WITH_STACK.format("ExpBackward0", "").strip(),
           "ExpBackward0 failed (its saved output was changed): the report names it, with its stack",
           WITH_STACK.format("ExpBackward0", "").strip(), first)
    found = _last_frame([reports[0]])
    expect(found is not None and found[1].split("#")[0].strip() == line,
           "the forward stack ends at the line that made ExpBackward0", line,
           found[1] if found else reports[0])


CHECKS = task_checks(globals(), [anomaly_switch, node_keeps_its_stack, engine_reports])
