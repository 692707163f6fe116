"""Pictures for the chapters: the autograd graph viewer, package source shown live, and
the interactive gradient widgets (their callbacks live here so they can be tested)."""

from __future__ import annotations

from .graph import GraphView, draw
from .source import Source, show_source

__all__ = ["GraphView", "Source", "draw", "show_source"]
