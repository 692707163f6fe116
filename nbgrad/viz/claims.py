"""A chapter's claims, checked when it runs.

nbval proves that a chapter's outputs are reproducible, not that they are true: a cell that
displays ``(False, False)`` under text saying "the same gradients" passes it for ever. So a
cell that compares values to make the text's point calls ``claim``, which prints the point
when it holds and raises, with the point's wording, when it does not: a false claim fails
the build instead of being printed.

It compares what it is given as NumPy arrays, whatever library made them, so that a
chapter's PyTorch-runnable section makes the same claims, with the same output, on
nbgrad and on PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["ClaimFailed", "claim"]


class ClaimFailed(AssertionError):
    """A chapter's claim that the values contradict (raised by ``claim``)."""


def claim(actual: Any, expected: Any, statement: str, *, rtol: float = 0.0,
          atol: float = 0.0) -> None:
    """Check that ``actual`` is ``expected``; print ``statement`` if so, raise if not.

    Parameters
    ----------
    actual : Any
        What the program computed: a tensor (nbgrad's or PyTorch's), an array, a number, a
        bool, None, or any other value.
    expected : Any
        What the text says it is. ``None`` asks that ``actual`` be None; a bool, that
        ``actual`` be that bool (a Python or NumPy bool, not merely a truthy value); a
        string, that it be equal; anything else is compared as an array, shape and values
        (NaN equal to NaN), exactly unless ``rtol`` or ``atol`` is given.
    statement : str
        The point the cell makes, as the text words it ("w1.grad is 101 times the first
        gradient"): printed after a check mark when it holds, and the error's first line
        when it does not.
    rtol, atol : float
        Tolerances for numbers and arrays, as in ``numpy.allclose``: for float results
        whose last digits depend on the order of the arithmetic.

    Raises
    ------
    ClaimFailed
        When ``actual`` is not ``expected``: the statement, then what was expected and
        what came out.
    """
    if not _holds(actual, expected, rtol, atol):
        raise ClaimFailed(f"{statement}\n  expected: {_shown(expected)}\n  got:      "
                          f"{_shown(actual)}")
    print(f"✓ {statement}\n", end="")  # one write: a notebook keeps it as one output


def _holds(actual: Any, expected: Any, rtol: float, atol: float) -> bool:
    if expected is None or actual is None:
        return actual is expected
    if isinstance(expected, bool):
        return isinstance(actual, (bool, np.bool_)) and bool(actual) is expected
    if isinstance(expected, str):
        return isinstance(actual, str) and actual == expected
    got, want = _array(actual), _array(expected)
    if got.shape != want.shape:
        return False
    if not (np.issubdtype(got.dtype, np.number) and np.issubdtype(want.dtype, np.number)):
        return bool(np.array_equal(got, want))
    return bool(np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True))


def _array(value: Any) -> np.ndarray:
    """``value`` as a NumPy array: a tensor of either library through its own ``numpy()``."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        value = value.detach()
        if hasattr(value, "cpu"):
            value = value.cpu()
        return np.asarray(value.numpy())
    return np.asarray(value)


def _shown(value: Any) -> str:
    if value is None or isinstance(value, (bool, np.bool_, str)):
        return repr(value)
    text = np.array2string(_array(value), precision=6, separator=", ")
    return text.replace("\n", "\n" + " " * 12)  # under the first line, after "  expected: "
