"""One client for every rerank server's `/rerank`: bounded batches, one time budget, the
shared retry loop (engine/http_retry.py), and answers checked passage by passage.

    client = RerankClient(RerankEndpoint("tei", "http://127.0.0.1:8080"), batch=16, timeout=30)
    run = await client.score("hotel in Lisbon", passages)   # run.scores[i] belongs to passages[i]

Passages go in batches of `batch` (the seed's 8-16: a CPU server's memory and latency stay
bounded, and TEI refuses more than its --max-client-batch-size). Batches run one after
another on a local server (it computes them on the same cores anyway) and up to four at a
time on a cloud API. `timeout` bounds the whole call, retries and waits included. A batch's
scores come back in any order and are matched by `index`; a passage left without exactly
one finite score fails the call (the reranker then falls back), as does any other failure.
"""

from __future__ import annotations

import asyncio
import math
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from engine.http_retry import GiveUp, RetryableFailure, RetryPolicy, call_with_retries, parse_retry_after, should_retry
from engine.messages import Message, msg
from engine.rerank.cross_encoder.errors import (
    CrossEncoderError,
    RerankEndpointError,
    RerankResponseError,
    RerankScoresError,
    RerankTimeout,
)
from engine.rerank.cross_encoder.presets import RerankEndpoint
from engine.scrub import scrub_text

CLOUD_CONCURRENCY = 4
_DETAIL_CHARS = 200
_TLS: ssl.SSLContext | None = None
_TLS_LOCK = threading.Lock()


def tls_context() -> ssl.SSLContext:
    """One TLS context per process, made on first use. httpx makes a new one (loading the CA
    bundle) for every client: 100-270 ms measured on a busy 2-core machine, more than the
    whole step's own work, and a client is made per run (each belongs to one event loop)."""
    global _TLS
    with _TLS_LOCK:
        if _TLS is None:
            _TLS = httpx.create_ssl_context()
        return _TLS


@dataclass
class ScoreRun:
    """The scores of one query's passages and what getting them took."""

    scores: list[float]  # per passage, in the order sent; probabilities in [0, 1]
    raw: list[float]  # as the server sent them
    normalized: str | None = None  # "sigmoid" when the server sent logits
    batches: int = 0
    requests: int = 0  # HTTP requests, retries included
    http_ms: float = 0.0  # time spent awaiting the server, summed over requests
    usage: dict[str, float] = field(default_factory=dict)  # total_tokens / search_units, where reported


class RerankClient:
    def __init__(self, endpoint: RerankEndpoint, *, batch: int = 16, timeout: float = 30.0,
                 concurrency: int | None = None, retry: RetryPolicy | None = None,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.endpoint = endpoint
        self.batch = max(1, int(batch))
        self.timeout = float(timeout)
        self.concurrency = concurrency or (1 if endpoint.is_local else CLOUD_CONCURRENCY)
        self.retry = retry or RetryPolicy()
        self._transport = transport

    async def score(self, query: str, passages: list[str],
                    check_cancel: Callable[[], None] | None = None) -> ScoreRun:
        """Every passage's score; raises a `CrossEncoderError` subclass on any failure."""
        run = ScoreRun([], [0.0] * len(passages))
        if not passages:
            return run
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        starts = list(range(0, len(passages), self.batch))
        run.batches = len(starts)
        pending = iter(starts)
        limits = httpx.Limits(max_connections=self.concurrency)
        async with httpx.AsyncClient(headers=self.endpoint.headers(), limits=limits, verify=tls_context(),
                                     transport=self._transport) as http:

            async def worker() -> None:
                for start in pending:  # shared iterator: each batch is taken by one worker
                    chunk = passages[start:start + self.batch]
                    scores = await self._batch(http, query, chunk, run, deadline, check_cancel)
                    run.raw[start:start + len(chunk)] = scores

            try:
                async with asyncio.timeout_at(deadline):
                    async with asyncio.TaskGroup() as group:
                        for _ in range(min(self.concurrency, len(starts))):
                            group.create_task(worker())
            except TimeoutError:
                raise RerankTimeout(msg("rerank.cross_encoder.error.timeout", label=self.endpoint.label,
                                        seconds=self.timeout)) from None
            except BaseExceptionGroup as failures:
                raise _first(failures) from None
        run.scores, run.normalized = normalise(run.raw, self.endpoint.spec.scores)
        return run

    async def _batch(self, http: httpx.AsyncClient, query: str, chunk: list[str], run: ScoreRun, deadline: float,
                     check_cancel: Callable[[], None] | None) -> list[float]:
        endpoint = self.endpoint
        body = endpoint.request_body(query, chunk)
        loop = asyncio.get_running_loop()

        async def attempt() -> list[float]:
            run.requests += 1
            started = time.perf_counter()
            try:
                response = await http.post(endpoint.url, json=body, timeout=max(deadline - loop.time(), 0.001))
            except httpx.TimeoutException:
                raise RerankTimeout(msg("rerank.cross_encoder.error.timeout", label=endpoint.label,
                                        seconds=self.timeout)) from None
            except httpx.TransportError as exc:  # refused, reset, DNS: worth another try
                error = RerankEndpointError(msg("rerank.cross_encoder.error.unreachable", label=endpoint.label,
                                                url=endpoint.url, detail=type(exc).__name__))
                raise RetryableFailure(lambda _give_up: error, reason=type(exc).__name__) from None
            finally:
                run.http_ms += (time.perf_counter() - started) * 1000
            return self._read(response, len(chunk), run)

        return await call_with_retries(attempt, self.retry, deadline=deadline, check_cancel=check_cancel,
                                       name=f"rerank request to {endpoint.spec.label}")

    def _read(self, response: httpx.Response, expected: int, run: ScoreRun) -> list[float]:
        endpoint, status = self.endpoint, response.status_code
        if status in (401, 403):
            raise RerankEndpointError(msg("rerank.cross_encoder.error.auth", label=endpoint.label, status=status,
                                          provider=endpoint.spec.key_name), status=status)
        if status == 404:
            raise RerankEndpointError(msg("rerank.cross_encoder.error.not_found", label=endpoint.label,
                                          url=endpoint.url), status=404)
        if not 200 <= status < 300:
            detail = self._detail(response)
            wait = parse_retry_after(response.headers)

            def failed(give_up: GiveUp | None = None) -> RerankEndpointError:
                return RerankEndpointError(msg("rerank.cross_encoder.error.status", label=endpoint.label,
                                               status=status, detail=detail), status=status, retry_after=wait)
            if should_retry(status):
                raise RetryableFailure(failed, wait, reason=str(status))
            raise failed()
        try:
            payload = response.json()
        except ValueError:
            raise RerankResponseError(msg("rerank.cross_encoder.error.not_json", label=endpoint.label)) from None
        scores = parse_scores(payload, expected, endpoint.label)
        _add_usage(run.usage, payload)
        return scores

    def _detail(self, response: httpx.Response) -> str:
        """What the server said about a refusal, key-free and short."""
        try:
            payload: Any = response.json()
        except ValueError:
            payload = response.text
        if isinstance(payload, dict):
            error = payload.get("error")
            payload = (error.get("message") if isinstance(error, dict) else error) or payload.get("message") \
                or payload.get("detail") or payload
        text = scrub_text(str(payload).strip(), [self.endpoint.api_key]) or response.reason_phrase
        return text[:_DETAIL_CHARS] + ("…" if len(text) > _DETAIL_CHARS else "")


def parse_scores(payload: Any, expected: int, label: Message | str) -> list[float]:
    """One score per passage sent, by `index`, from any server's answer shape."""
    entries = payload
    if isinstance(payload, dict):
        entries = payload.get("results", payload.get("data"))
    if not isinstance(entries, list):
        raise RerankResponseError(msg("rerank.cross_encoder.error.shape", label=label))
    scores: list[float | None] = [None] * expected
    for entry in entries:
        index = entry.get("index") if isinstance(entry, dict) else None
        score = entry.get("relevance_score", entry.get("score")) if isinstance(entry, dict) else None
        valid = isinstance(index, int) and not isinstance(index, bool) and 0 <= index < expected \
            and isinstance(score, int | float) and not isinstance(score, bool) and math.isfinite(score)
        if not valid or scores[index] is not None:  # type: ignore[index]
            raise RerankScoresError(msg("rerank.cross_encoder.error.bad_entry", label=label,
                                        entry=str(entry)[:120], sent=expected))
        scores[index] = float(score)  # type: ignore[index,arg-type]
    missing = [i for i, s in enumerate(scores) if s is None]
    if missing:
        raise RerankScoresError(msg("rerank.cross_encoder.error.missing", label=label, got=expected - len(missing),
                                    sent=expected, missing=", ".join(map(str, missing[:10]))))
    return scores  # type: ignore[return-value]


def normalise(raw: list[float], kind: str) -> tuple[list[float], str | None]:
    """Probabilities as they are; logits (any score outside [0, 1] under "auto") through a
    sigmoid, all of the query's together so their order and spacing stay comparable."""
    if kind == "auto" and any(s < 0.0 or s > 1.0 for s in raw):
        return [_sigmoid(s) for s in raw], "sigmoid"
    return list(raw), None


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _add_usage(usage: dict[str, float], payload: Any) -> None:
    if not isinstance(payload, dict):
        return
    reported = payload.get("usage")
    if isinstance(reported, dict) and isinstance(reported.get("total_tokens"), int | float):
        usage["total_tokens"] = usage.get("total_tokens", 0) + reported["total_tokens"]
    billed = (payload.get("meta") or {}).get("billed_units") if isinstance(payload.get("meta"), dict) else None
    if isinstance(billed, dict) and isinstance(billed.get("search_units"), int | float):
        usage["search_units"] = usage.get("search_units", 0) + billed["search_units"]


def _first(failures: BaseExceptionGroup) -> BaseException:
    """The one error a batch group raises: a cancel or a bug before any rerank error (those
    must never hide behind a fallback), else the first rerank error."""
    flat: list[BaseException] = []
    stack: list[BaseException] = [failures]
    while stack:
        error = stack.pop(0)
        if isinstance(error, BaseExceptionGroup):
            stack[:0] = list(error.exceptions)
        else:
            flat.append(error)
    others = [error for error in flat if not isinstance(error, CrossEncoderError)]
    return (others or flat)[0]
