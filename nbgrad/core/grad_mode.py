"""Whether operations record a graph: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

The switch is per thread, as in PyTorch. Each of the three works as a context manager
and as a decorator.
"""

import functools
import threading


class GradMode(threading.local):
    """The switch, one per thread: ``grad_mode.enabled``. nbgrad reads it this one way (an
    attribute: it is read on every operation); ``is_grad_enabled()`` is PyTorch's API."""

    enabled = True


grad_mode = GradMode()


def is_grad_enabled():
    """Whether operations are recorded now (in this thread)."""
    return grad_mode.enabled


class _GradModeContext:
    """Sets grad mode on entry, restores the previous mode on exit; decorates functions."""

    mode = None

    def __enter__(self):
        self._previous = grad_mode.enabled
        grad_mode.enabled = self.mode

    def __exit__(self, *exc):
        grad_mode.enabled = self._previous
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return func(*args, **kwargs)

        return wrapper

    def _args(self):
        return ()


class no_grad(_GradModeContext):
    """Operations inside record no graph: their results do not require grad."""

    mode = False


class enable_grad(_GradModeContext):
    """Turns recording back on inside a ``no_grad`` region."""

    mode = True


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(False)`` is ``no_grad()``; used as a plain call it sets the mode."""

    def __init__(self, mode):
        self._previous = grad_mode.enabled
        self.mode = bool(mode)
        grad_mode.enabled = self.mode

    def _args(self):
        return (self.mode,)

    def __call__(self, func):
        # As a decorator it must not leave the mode switched at decoration time.
        grad_mode.enabled = self._previous
        return super().__call__(func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        grad_mode.enabled = self._previous
        return False
