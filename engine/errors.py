"""One exception base for the engine layer, and one way to cancel; messages are written for
the person using the app.

Long work (an import, a build, an evaluation, an LLM call) is stopped the same way
everywhere: the caller holds a `CancelToken`, the work calls `raise_if_cancelled()` between
steps, and what it raises is a `Cancelled`. Packages subclass `Cancelled` for their own
words ("Import cancelled; nothing was changed."); callers test `isinstance(e, Cancelled)`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class RemoteServiceError(EngineError):
    """Base of what the HTTP clients raise: the chat client (`engine.llm.errors.LLMError`)
    and the embeddings client (`engine.embeddings.base.EmbeddingError`). `status` is the HTTP
    status when there was one; `retry_after` what the server asked to wait, if it said."""

    status: int | None = None
    retry_after: float | None = None


class ImportFormatError(EngineError):
    """An export could not be read. Says which file and where, in plain words."""

    def __init__(self, source: str, problem: str, where: str | None = None) -> None:
        self.source = source
        self.problem = problem
        self.where = where
        location = f" ({where})" if where else ""
        super().__init__(f"Could not import {source}{location}: {problem}")


class UnknownFormatError(ImportFormatError):
    """Nothing in the given path looks like a supported chat export."""


class Cancelled(EngineError):
    """The user stopped long work. Not a failure: say so, keep what the work promises to keep."""


class ImportCancelled(Cancelled):
    """The user cancelled an import; the store was left as it was."""

    def __init__(self) -> None:
        super().__init__("Import cancelled; nothing was changed.")


class StoreError(EngineError):
    """The local database cannot be opened or is from a newer Flashback."""


class CancelToken:
    """Set from any thread (the GUI's Cancel, a closing window); the work checks it between
    batches and raises `error()` (an import rolls back; a build keeps committed batches)."""

    def __init__(self, error: Callable[[], Cancelled] = ImportCancelled) -> None:
        self._event = threading.Event()
        self._error = error

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise self._error()


def is_cancel(error: BaseException) -> bool:
    """True for the user's own cancel: a `Cancelled` (every package's cancel derives from it),
    or asyncio's, for a coroutine whose task was cancelled."""
    return isinstance(error, Cancelled | asyncio.CancelledError)
