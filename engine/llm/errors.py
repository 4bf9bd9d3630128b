"""Typed errors of the LLM client. Messages say what happened and what to do; never the key.

The reranker maps these to its fallback reasons (`llm_error`, `timeout`, ...); a face renders
`error.message` (codes `llm.*`, `engine.messages`) in the person's language, so every message
names the server and the next step for the user; `str(error)` is its English text.
"""

from __future__ import annotations

from engine.errors import Cancelled, RemoteServiceError
from engine.messages import Message


class LLMError(RemoteServiceError):
    """Base of every error the LLM client raises on purpose.

    `status` is the HTTP status when there was one; `server_message` is what the server
    said (already stripped of the API key), for logs and traces.
    """

    def __init__(self, message: Message | str, *, status: int | None = None,
                 server_message: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.server_message = server_message


class LLMAuthError(LLMError):
    """401/403 (key missing, wrong or not allowed) and 402 (no credits): retrying cannot help."""


class LLMRateLimited(LLMError):
    """429 that did not clear within the retries and the call's time budget."""

    def __init__(self, message: Message | str, *, retry_after: float | None = None, status: int | None = None,
                 server_message: str | None = None) -> None:
        super().__init__(message, status=status, server_message=server_message)
        self.retry_after = retry_after


class LLMServerError(LLMError):
    """5xx (or 408/409) that did not clear within the retries."""


class LLMConnectionError(LLMServerError):
    """The server could not be reached at all (refused, reset, DNS): usually not running."""


class LLMTimeout(LLMError):
    """The call (all attempts together) did not finish within its timeout."""

    def __init__(self, message: Message | str, *, timeout_s: float | None = None) -> None:
        super().__init__(message)
        self.timeout_s = timeout_s


class LLMBadRequest(LLMError):
    """400/404/422 and other 4xx that dropping optional features did not fix."""


class LLMResponseError(LLMError):
    """A 2xx whose body is unusable: not JSON, no choices, or an error object (OpenRouter)."""

    def __init__(self, message: Message | str, *, error_code: object = None, status: int | None = None,
                 server_message: str | None = None) -> None:
        super().__init__(message, status=status, server_message=server_message)
        # The server's own code from its error object (OpenRouter's 400, 502, ...), not the
        # message's code: `code` is every engine error's message code (EngineError.code).
        self.error_code = error_code


class LLMCancelled(LLMError, Cancelled):
    """The client was closed (`aclose`) before or while the call ran.

    Cancelling the asyncio task that awaits `complete` raises `asyncio.CancelledError` as
    usual (never swallowed); this error is only for a client that was shut down.
    """
