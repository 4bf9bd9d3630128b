"""One exception base for the engine layer, and one way to cancel; messages are written for
the person using the app.

Long work (an import, a build, an evaluation, an LLM call) is stopped the same way
everywhere: the caller holds a `CancelToken`, the work calls `raise_if_cancelled()` between
steps, and what it raises is a `Cancelled`. Packages subclass `Cancelled` for their own
words ("Import cancelled; nothing was changed."); callers test `isinstance(e, Cancelled)`.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, ClassVar

from engine.messages import Message, render


class EngineError(Exception):
    """Base of every error the engine raises on purpose.

    It carries a `Message` (a code and its parameters, `engine.messages`) that each face renders
    in the person's language; `str(error)` is its English text (logs, tests). A subclass names
    its code (`code = "store.read_only"`) and is raised with the code's parameters as keywords:
    `StoreReadOnly(folder=path)`. A plain string is still accepted (tests, text from outside the
    engine), but engine/ writes none: `tests/engine/test_messages.py` fails on a sentence given to
    an engine error in place of a code; text that must stay text is a code's parameter."""

    code: ClassVar[str] = "error.text"

    def __init__(self, message: Message | str | None = None, /, **params: Any) -> None:
        if isinstance(message, Message):
            self.message = message
        elif message is None:
            self.message = Message(self.code, params)
        else:
            self.message = Message("error.text", {"text": message, **params})
        super().__init__(render(self.message))

    def render(self, language: str = "en") -> str:
        return render(self.message, language)


class RemoteServiceError(EngineError):
    """Base of what the HTTP clients raise: the chat client (`engine.llm.errors.LLMError`)
    and the embeddings client (`engine.embeddings.base.EmbeddingError`). `status` is the HTTP
    status when there was one; `retry_after` what the server asked to wait, if it said."""

    status: int | None = None
    retry_after: float | None = None


class ImportFormatError(EngineError):
    """An export could not be read. Says which file and where, in plain words: `problem` and
    `where` are codes (`import.problem.*`, `import.where.*`) the faces say in their language."""

    code = "import.cannot_read"

    def __init__(self, source: str, problem: str | Message, where: str | Message | None = None) -> None:
        self.source = source
        self.problem = str(problem)  # English, for logs and tests; the message keeps the codes
        self.where = str(where) if where is not None else None
        if where:
            super().__init__(Message("import.cannot_read_at", {"source": source, "problem": problem, "where": where}))
        else:
            super().__init__(Message(self.code, {"source": source, "problem": problem}))


class UnknownFormatError(ImportFormatError):
    """Nothing in the given path looks like a supported chat export."""


class Cancelled(EngineError):
    """The user stopped long work. Not a failure: say so, keep what the work promises to keep."""


class ImportCancelled(Cancelled):
    """The user cancelled an import; the store was left as it was."""

    code = "import.cancelled"

    def __init__(self) -> None:
        super().__init__()


class BuildCancelled(Cancelled):
    """The user cancelled a build. Unlike an import, it is not undone: each stage commits in
    batches, so the topics and vectors made before the cancel stay, and the next build goes on
    from there."""

    code = "build.cancelled"

    def __init__(self) -> None:
        super().__init__()


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

    def raising(self, error: Callable[[], Cancelled]) -> CancelToken:
        """The same cancel (setting either sets both) raising `error()` instead: one Cancel button
        stops an import and the build after it, and each says what it kept."""
        token = CancelToken(error)
        token._event = self._event
        return token


def is_cancel(error: BaseException) -> bool:
    """True for the user's own cancel: a `Cancelled` (every package's cancel derives from it),
    or asyncio's, for a coroutine whose task was cancelled."""
    # asyncio is looked up, not imported: a process that never loaded it has no task to cancel,
    # and importing it costs a cold `flashback search` ~30 ms.
    asyncio = sys.modules.get("asyncio")
    return isinstance(error, Cancelled) or (asyncio is not None and isinstance(error, asyncio.CancelledError))
