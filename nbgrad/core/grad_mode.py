"""Whether operations record a graph: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
and ``inference_mode``.

The switch is per thread, as in PyTorch. Each works as a context manager and as a
decorator.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any, Self


class GradMode(threading.local):
    """The switch, one per thread: ``grad_mode.enabled``. nbgrad reads it this one way (an
    attribute: it is read on every operation); ``is_grad_enabled()`` is PyTorch's API."""

    enabled = True
    inference = False  # inside inference_mode: results are inference tensors


grad_mode = GradMode()


def is_grad_enabled() -> bool:
    """Whether operations are recorded now (in this thread).

    Returns
    -------
    bool
    """
    return grad_mode.enabled


class _GradModeContext:
    """Sets grad mode on entry, restores the previous mode on exit; decorates functions."""

    mode: bool | None = None

    def __enter__(self):
        self._previous = grad_mode.enabled
        grad_mode.enabled = self.mode

    def __exit__(self, *exc):
        grad_mode.enabled = self._previous
        return False

    def __call__(self, func):
        """As a decorator: the mode holds inside every call of ``func``. Inside a generator
        it holds while the generator's own code runs, between its yields, and not in the
        code that iterates over it (PyTorch's torch/utils/_contextlib.py)."""
        if inspect.isclass(func):
            warnings.warn(CLASS_DECORATION_WARNING, FutureWarning, stacklevel=2)
            func = _constructor_of(func)
        if inspect.isgeneratorfunction(func):
            return _generator_in_mode(self.clone, func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self) -> Self:
        """A fresh context of the same mode: each call of a decorated function enters its own.

        Returns
        -------
        context manager
            One of this class, in this mode.
        """
        return self.__class__()


CLASS_DECORATION_WARNING = (
    "Decorating classes is deprecated and will be disabled in future versions. You should "
    "only decorate functions or methods. To preserve the current behavior of class "
    "decoration, you can directly decorate the `__init__` method and nothing else."
)


def _constructor_of(cls):
    """A decorated class becomes a function that constructs it (in the mode), as in PyTorch."""
    return lambda *args, **kwargs: cls(*args, **kwargs)


def _generator_in_mode(make_context, func):
    """``func``'s generators, with every step of their code run inside ``make_context()``."""

    @functools.wraps(func)
    def generator(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with make_context():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        gen.close()
                    raise
                except BaseException:  # thrown into us: thrown into func's generator
                    with make_context():
                        response = gen.throw(*sys.exc_info())
                else:
                    with make_context():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value

    return generator


class _NoArgumentContext(_GradModeContext):
    """A context that also decorates without parentheses: ``@no_grad`` as ``@no_grad()``."""

    def __new__(cls, func: Callable[..., Any] | None = None) -> Any:
        if func is None:
            return super().__new__(cls)
        return cls()(func)


class no_grad(_NoArgumentContext):
    """Context manager in which operations record no graph: their results do not require grad.

    Factory functions given ``requires_grad=True`` still make leaves that require grad, as in
    PyTorch. Per thread. Also a decorator, with or without parentheses (``@no_grad`` or
    ``@no_grad()``).

    Parameters
    ----------
    func : callable, optional
        The function decorated by ``@no_grad`` without parentheses; ``no_grad(func)`` then
        returns the decorated function, not a context manager.
    """

    mode = False


class enable_grad(_NoArgumentContext):
    """Context manager that turns recording back on inside a ``no_grad`` region.

    Per thread. Also a decorator, with or without parentheses.

    Parameters
    ----------
    func : callable, optional
        The function decorated by ``@enable_grad`` without parentheses; ``enable_grad(func)``
        then returns the decorated function, not a context manager.
    """

    mode = True


class set_grad_enabled(_GradModeContext):
    """Set recording on or off: ``set_grad_enabled(False)`` is ``no_grad()``.

    The mode changes when the object is made, so a plain call sets it for good (in this
    thread); used as a context manager it restores the previous mode on exit, and as a
    decorator it leaves the mode alone until the decorated function runs.

    Parameters
    ----------
    mode : bool
        Record (True) or not (False). Anything but a bool raises ``TypeError``, as in PyTorch.
    """

    mode: bool

    def __init__(self, mode: bool):
        if type(mode) is not bool:
            raise TypeError(
                f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                f"{_type_name(mode)}"
            )
        self._previous = grad_mode.enabled
        self.mode = mode
        grad_mode.enabled = mode

    def clone(self) -> Self:
        return self.__class__(self.mode)

    def __call__(self, func):
        # As a decorator it must not leave the mode switched at decoration time.
        grad_mode.enabled = self._previous
        return super().__call__(func)

    def __enter__(self):
        grad_mode.enabled = self.mode

    def __exit__(self, *exc):
        grad_mode.enabled = self._previous
        return False

    def __repr__(self):
        return f"{type(self).__module__}.{type(self).__qualname__}(mode={self.mode})"


def _type_name(value):
    """A type's name as PyTorch's argument checks print it: ``str``, ``numpy.bool``."""
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


class inference_mode(_GradModeContext):
    """Like ``no_grad``, and the tensors made inside are *inference tensors*, as in PyTorch.

    An inference tensor has no version counter and can never join a graph: outside
    inference mode, saving one for backward, changing one in place or setting
    ``requires_grad=True`` on one raises PyTorch's errors (``Tensor.is_inference()`` tells
    them apart; ``clone()`` gives a normal tensor). A view of a normal tensor made inside
    is a normal tensor. ``inference_mode(False)`` turns grad mode on, as PyTorch's does.
    Decorates functions with or without parentheses.

    Parameters
    ----------
    mode : bool
        Whether to enable inference mode (default True).

    Notes
    -----
    nbgrad marks the tensors made inside by swapping ``Tensor._make`` for one whose new
    tensors share the inference counter (``inference_listeners``), so tensor creation pays
    nothing for it. The swap is for the whole process: tensors that another thread makes
    meanwhile are inference tensors too. ``enable_grad()`` inside inference mode records
    again (in PyTorch results still need no grad there).
    """

    mode: bool

    def __new__(cls, mode=True):
        if callable(mode):  # @inference_mode without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True):
        if callable(mode):
            return
        self.mode = mode

    def clone(self) -> Self:
        return self.__class__(self.mode)

    def __enter__(self):
        self._previous = (grad_mode.enabled, grad_mode.inference)
        _set_inference(not self.mode, self.mode)

    def __exit__(self, *exc):
        _set_inference(*self._previous)
        return False


def is_inference_mode_enabled() -> bool:
    """Whether inference mode is on (in this thread).

    Returns
    -------
    bool
    """
    return grad_mode.inference


# Each is called with whether inference mode is now on, when it changes: tensor.py
# registers how it then marks new tensors.
inference_listeners: list[Callable[[bool], None]] = []


def _set_inference(enabled, inference):
    grad_mode.enabled = enabled
    if inference is not grad_mode.inference:
        grad_mode.inference = inference
        for listener in inference_listeners:
            listener(inference)
