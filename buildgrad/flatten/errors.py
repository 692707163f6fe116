"""The error flatten stops with: a module of its own, so that every step can raise it."""


class FlattenError(Exception):
    """A chapter uses a pattern that flatten does not turn into plain classes."""
