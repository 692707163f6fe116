"""What the chapters use besides the library: the autograd graph viewer, package source
shown live, claims checked when a chapter runs, and the interactive gradient widgets (their
callbacks live here so they can be tested)."""

from __future__ import annotations

from .claims import ClaimFailed, claim
from .graph import GraphView, draw
from .source import Source, show_source

__all__ = ["ClaimFailed", "GraphView", "Source", "claim", "draw", "show_source"]
