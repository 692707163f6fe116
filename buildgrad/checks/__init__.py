"""The exercises' checks: they test the learner's package, with nbgrad and finite
differences as the referee.

``buildgrad.checks.cNN`` (``checks.cNN`` for short) holds chapter NN's checks, one function
per task, each taking the namespace the learner's package lives in (an exercise passes
``globals()``; the tests pass a chapter module's ``vars()``). ``CHECKS`` lists them in order. A failing check raises
``CheckFailed`` whose message starts with the hint (the usual mistake, named), then what
was expected and what came out.
"""

import functools
import importlib

import numpy as np


class CheckFailed(AssertionError):
    pass


def fail(hint, expected, got):
    raise CheckFailed(f"{hint}\n  expected: {expected}\n  got:      {got}")


def expect(condition, hint, expected, got):
    if not condition:
        fail(hint, expected, got)


def close(got, expected, hint, rtol=1e-6, atol=1e-8):
    got, expected = np.asarray(got), np.asarray(expected)
    same = np.allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    if got.shape != expected.shape or not same:
        fail(hint, np.array2string(expected, precision=6), np.array2string(got, precision=6))


def raises(action, error, phrase, hint):
    """``action()`` must raise ``error`` whose message contains ``phrase``."""
    try:
        action()
    except error as raised:
        expect(phrase in str(raised), hint, f"{error.__name__} saying '{phrase}'",
               f"{type(raised).__name__}: {raised}")
        return
    except Exception as raised:  # the wrong kind of error
        fail(hint, f"{error.__name__} saying '{phrase}'", f"{type(raised).__name__}: {raised}")
    fail(hint, f"{error.__name__} saying '{phrase}'", "no error")


def nbgrad_message(action):
    """The message of the RuntimeError nbgrad raises for ``action``."""
    try:
        action()
    except RuntimeError as raised:
        return str(raised)
    raise AssertionError("nbgrad raised nothing: the check itself is wrong")


def nbgrad_says(action):
    """The first line of that message (nbgrad adds a hint line)."""
    return nbgrad_message(action).splitlines()[0]


class Namespace:
    """The learner's namespace with attribute access, so that one program runs on it and
    on nbgrad alike (``M.tensor(...)``)."""

    def __init__(self, ns):
        self.__dict__["_ns"] = ns

    def __getattr__(self, name):
        try:
            return self._ns[name]
        except KeyError:
            raise AttributeError(name) from None


def finite_difference(f, x, eps=1e-6):
    """d f / d x[i] for every element of the float64 array ``x`` (``f`` returns a float)."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


NOT_WRITTEN = (
    "Not written yet: a piece this check uses still raises NotImplementedError. Replace the "
    "`raise NotImplementedError()` in this task's cell (or an earlier task's) with your code, "
    "run that cell, then this one again.")


def task_checks(namespace, checks):
    """A chapter's checks, in order, each saying so plainly when it meets a stub."""
    guarded = []
    for check in checks:
        @functools.wraps(check)
        def run_check(ns, check=check):
            try:
                return check(ns)
            except NotImplementedError:
                raise CheckFailed(NOT_WRITTEN) from None
        namespace[check.__name__] = run_check
        guarded.append(run_check)
    return guarded


def chapter(number):
    return importlib.import_module(f"buildgrad.checks.c{number:02d}")


def __getattr__(name):
    """``checks.c05`` after a plain ``from buildgrad import checks``."""
    if len(name) == 3 and name[0] == "c" and name[1:].isdigit():
        return chapter(int(name[1:]))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run(number, namespace):
    """Every check of chapter ``number``."""
    for check in chapter(number).CHECKS:
        check(namespace)


def earlier(number, namespace):
    """Every check of the chapters before ``number``: a later change must not break them."""
    for previous in range(number):
        run(previous, namespace)
    print(f"Chapters 00 to {number - 1:02d}: every check still passes on your package.")
