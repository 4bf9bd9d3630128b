"""Errors of the traces layer: one base, messages written for the person using the app."""

from __future__ import annotations

from engine.errors import EngineError


class TracesError(EngineError):
    """A rerank run could not be recorded or read (store damaged, too old, or locked)."""
