"""Which exceptions mean "the user cancelled" (Qt-free: the pipeline child uses it too)."""

from __future__ import annotations

import asyncio

from engine.errors import EngineError, ImportCancelled
from engine.llm.errors import LLMCancelled
from engine.topics.errors import TopicBuildCancelled

CANCEL_TYPES: tuple[type[BaseException], ...] = (
    ImportCancelled, TopicBuildCancelled, LLMCancelled, asyncio.CancelledError)


def is_cancel(error: BaseException) -> bool:
    """True for the user's own cancel: the known cancel types, and any engine error that
    names itself one (a later engine package may add its own `…Cancelled`)."""
    if isinstance(error, CANCEL_TYPES):
        return True
    return isinstance(error, EngineError) and type(error).__name__.endswith("Cancelled")
