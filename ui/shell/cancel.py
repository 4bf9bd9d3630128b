"""Which exceptions mean "the user cancelled" (Qt-free: the pipeline child uses it too)."""

from __future__ import annotations

import asyncio

from engine.errors import Cancelled


def is_cancel(error: BaseException) -> bool:
    """True for the user's own cancel: the engine's `Cancelled` (every package's cancel
    derives from it) and asyncio's, for a coroutine whose task was cancelled."""
    return isinstance(error, Cancelled | asyncio.CancelledError)
