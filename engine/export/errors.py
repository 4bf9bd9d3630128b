"""Errors of the context layer: one base, messages written for the person using the app."""

from __future__ import annotations

from engine.errors import EngineError


class ContextError(EngineError):
    """A context pack could not be assembled (bad budget, unreadable store)."""
