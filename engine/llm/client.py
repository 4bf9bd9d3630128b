"""`ChatClient`: OpenAI-compatible /chat/completions over one `httpx.AsyncClient`.

One call = one `complete()`: its `timeout` covers every attempt and every wait, retries
are the shared loop's (`engine.http_retry`, the embeddings client's too: 408/409/429/5xx
and connection failures, exponential backoff with jitter, a Retry-After waited up to the
policy's cap; one longer than the cap or than the call has left fails at once), rejected
optional features are dropped and remembered (`request.py`, `capabilities.py`), and every
failure surfaces as one of the typed errors in `errors.py` with the API key scrubbed out.
Cancelling the awaiting task cancels the HTTP request at once (httpx closes the socket).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import ssl
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import httpx

from engine.http_retry import GiveUp, RetryableFailure, RetryPolicy, call_with_retries, parse_retry_after, should_retry
from engine.llm.capabilities import CapabilityMemory, EndpointCapabilities, endpoint_key
from engine.llm.errors import (
    LLMAuthError,
    LLMBadRequest,
    LLMCancelled,
    LLMConnectionError,
    LLMError,
    LLMRateLimited,
    LLMResponseError,
    LLMServerError,
    LLMTimeout,
)
from engine.llm.presets import Endpoint
from engine.llm.request import RequestPlan
from engine.llm.stream import OnDelta, is_event_stream, read_stream
from engine.llm.types import ChatResult, MalformedCompletion, parse_choice, parse_usage
from engine.messages import Message, msg
from engine.scrub import scrub_text

log = logging.getLogger(__name__)

# Two retries: a chat turn has its own deadline, and a third wait would rarely fit in it.
CHAT_RETRY = RetryPolicy(max_retries=2)
ErrorFactory = Callable[[Message | str], LLMError]  # the final error given a suffix (" after 3 attempts", or "")



@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context (its CA bundle, SSL_CERT_FILE honoured), made once per process:
    making one reads the CA bundle, ~50 ms, and the window makes a client for each Ask on its GUI
    thread (issue 31). A configured context is safe to share between clients and threads."""
    return httpx.create_ssl_context()

class ChatClient:
    def __init__(self, endpoint: Endpoint, *, retry: RetryPolicy = CHAT_RETRY, timeout: float = 120.0,
                 connect_timeout: float = 10.0, capabilities: CapabilityMemory | None = None,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.endpoint = endpoint
        self.preset = endpoint.spec
        self.retry = retry
        self.default_timeout = timeout  # per call when `complete(timeout=None)`
        self.capabilities = capabilities if capabilities is not None else CapabilityMemory()
        headers = {"Accept": "application/json", "User-Agent": "Flashback", **endpoint.extra_headers}
        if endpoint.api_key:  # keyless local servers get no Authorization header at all
            headers["Authorization"] = f"Bearer {endpoint.api_key}"
        # Only connecting has its own limit; reading is bounded by the call's asyncio
        # deadline, which also covers retries and waits.
        self._http = httpx.AsyncClient(base_url=endpoint.url, headers=headers, transport=transport,
                                       timeout=httpx.Timeout(None, connect=connect_timeout), verify=tls_context())
        self._closed = False

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._closed = True
        await self._http.aclose()

    async def complete(self, messages: list[dict], *, model: str | None = None, tools: list[dict] | None = None,
                       tool_choice: str | dict | None = None, response_format: dict | None = None,
                       reasoning_effort: str | None = None, timeout: float | None = None,
                       max_tokens: int | None = None, extra_body: Mapping[str, Any] | None = None,
                       on_delta: OnDelta | None = None) -> ChatResult:
        """One chat completion. `timeout` (seconds) bounds the whole call, retries included.

        `on_delta`: the reply is streamed (`"stream": true`) and `on_delta` is told what it
        says so far each time it grows (a retried attempt starts again from nothing); the
        result is the same `ChatResult` a non-streamed call returns. A server that refuses to
        stream is asked again without it (see request.py).

        `max_tokens` bounds the reply, sent under the preset's name for it: a server keeps
        generating after the client gave up, so an unbounded reply from a small local model
        occupies it for minutes. `extra_body` adds provider fields (temperature, plugins).
        """
        label, server = self.preset.label, self.preset.label_message()
        if self._closed:
            raise LLMCancelled(msg("llm.closed_before_sending", server=server))
        if self.preset.needs_key and not self.endpoint.api_key:
            raise LLMAuthError(msg("llm.needs_key", server=server))
        model = model or self.endpoint.default_model
        if not model:
            raise LLMBadRequest(msg("llm.no_model", server=server))
        budget = self.default_timeout if timeout is None else timeout
        key = endpoint_key(self.endpoint.url, model)
        plan = RequestPlan(preset=self.preset, caps=self.capabilities.get(key), model=model, messages=messages,
                           tools=tools, tool_choice=tool_choice, response_format=response_format,
                           reasoning_effort=reasoning_effort, extra_body=extra_body, max_tokens=max_tokens,
                           stream=on_delta is not None)
        loop = asyncio.get_running_loop()
        started = loop.time()
        state = _CallState()
        try:
            if budget <= 0:
                raise TimeoutError
            async with asyncio.timeout_at(started + budget):
                data = await call_with_retries(lambda: self._send(plan, state, on_delta), self.retry,
                                               deadline=started + budget, name=label)
        except TimeoutError:
            said = msg("llm.timeout_attempts", server=server, seconds=budget, model=model, attempts=state.attempts) \
                if state.attempts else msg("llm.timeout", server=server, seconds=budget, model=model)
            raise LLMTimeout(said, timeout_s=budget) from None
        if plan.learned:
            self.capabilities.learn(key, **plan.learned)
        try:
            content, tool_calls, finish_reason, reasoning = parse_choice(data)
        except MalformedCompletion as exc:
            raise LLMResponseError(msg("llm.unusable_reply", server=server, problem=exc.message)) from None
        answered_by = data.get("model")
        return ChatResult(content=content, tool_calls=tool_calls, usage=parse_usage(data.get("usage")),
                          finish_reason=finish_reason, reasoning=reasoning,
                          model=answered_by if isinstance(answered_by, str) else None,
                          raw_request=state.body, raw_response=data,
                          duration_ms=(loop.time() - started) * 1000, attempts=state.attempts,
                          degraded=plan.degraded(), rejected=list(plan.rejections))

    def capabilities_for(self, model: str | None = None) -> EndpointCapabilities:
        """What this endpoint (base URL + model) has been seen to accept, a copy."""
        return self.capabilities.get(endpoint_key(self.endpoint.url, model or self.endpoint.default_model))

    def learn_protocol(self, protocol: str, evidence: Message | str, model: str | None = None) -> None:
        """Remember which Flash protocol this endpoint needs, and why (see capabilities.py)."""
        self.capabilities.learn_protocol(endpoint_key(self.endpoint.url, model or self.endpoint.default_model),
                                         protocol, evidence)

    async def _send(self, plan: RequestPlan, state: _CallState, on_delta: OnDelta | None = None) -> dict[str, Any]:
        """One attempt of the retry loop: sends, and sends again at once without an optional
        feature the server rejected (that is no retry). Raises `RetryableFailure` for what is
        worth trying again later, a typed `LLMError` for the rest."""
        label, server = self.preset.label, self.preset.label_message()
        while True:
            state.body = plan.body()
            state.attempts += 1
            try:
                response, streamed = await self._post(state.body, on_delta if plan.stream else None)
            except httpx.UnsupportedProtocol:  # a typo in the settings: retrying cannot help
                raise LLMBadRequest(msg("llm.bad_scheme", server=server, url=self.endpoint.url)) from None
            except httpx.TransportError as exc:
                if self._closed:
                    raise LLMCancelled(msg("llm.closed_while_running", server=server)) from None
                raise RetryableFailure(self._final(state, self._connection_error(exc)),
                                       reason=type(exc).__name__) from None
            status = response.status_code
            if 200 <= status < 300:
                data = streamed if streamed is not None else self._json_body(response)
                error = data.get("error")
                if not error:
                    return data
                self._embedded_error(error, state)
            message = self._server_message(response)
            # A 5xx that names a request field is the request's fault, as a 400 is
            # (llama-cpp-python validates with pydantic and answers 500): degrade, don't retry.
            if status in (400, 404, 422) or status >= 500:
                dropped = plan.degrade(status, message)
                if dropped:
                    log.info("%s rejected %s (%s); retrying without it", label, dropped, status)
                    continue
            if status >= 500 and _is_validation_error(message):
                raise LLMBadRequest(msg("llm.unreadable_request", server=server, status=status, detail=message[:200],
                                        model=plan.model), status=status, server_message=message)
            if should_retry(status):
                retry_after = parse_retry_after(response.headers)
                raise RetryableFailure(self._final(state, self._retryable_error(status, message, retry_after),
                                                   retry_after), retry_after, reason=str(status))
            raise self._final_error(status, message, plan.model)

    async def _post(self, body: dict[str, Any], on_delta: OnDelta | None) -> tuple[httpx.Response,
                                                                                 dict[str, Any] | None]:
        """The response, and the streamed reply read back into one body when it came as events
        (a server may ignore `stream` and answer with plain JSON, read as usual)."""
        if on_delta is None:
            return await self._http.post("/chat/completions", json=body), None
        async with self._http.stream("POST", "/chat/completions", json=body) as response:
            if 200 <= response.status_code < 300 and is_event_stream(response):
                return response, await read_stream(response, on_delta)
            await response.aread()
            return response, None

    def _final(self, state: _CallState, make_error: ErrorFactory,
               retry_after: float | None = None) -> Callable[[GiveUp], LLMError]:
        """The error to raise when the retry loop gives up, its message saying why."""
        def build(give_up: GiveUp) -> LLMError:
            if give_up.reason == "retries":
                suffix = msg("llm.gave_up.attempts", attempts=state.attempts)
            elif give_up.reason == "retry_after":
                suffix = msg("llm.gave_up.retry_after", wait=_seconds(give_up.wait), limit=_seconds(give_up.limit))
            else:
                suffix = msg("llm.gave_up.no_time", wait=give_up.wait, limit=give_up.limit)
            error = make_error(suffix)
            if retry_after is not None:  # declared on RemoteServiceError: also a 503's, not only a 429's
                error.retry_after = retry_after
            return error
        return build

    def _embedded_error(self, error: Any, state: _CallState) -> NoReturn:
        """OpenRouter reports failures after generation started as a 200 with an error body:
        always raises, `RetryableFailure` when its code is one worth retrying."""
        server = self.preset.label_message()
        code = error.get("code") if isinstance(error, dict) else None
        detail = self._redact(_error_text(error))[:300]

        def make(suffix: Message | str) -> LLMError:
            said = msg("llm.embedded_error", server=server, suffix=suffix, detail=detail, error_code=code)
            return LLMResponseError(said, error_code=code, server_message=detail)
        if isinstance(code, int) and should_retry(code):
            raise RetryableFailure(self._final(state, make), reason=f"{code} in a 200")
        raise make("")

    def _connection_error(self, exc: httpx.TransportError) -> ErrorFactory:
        server, url = self.preset.label_message(), self.endpoint.url
        reason = self._redact(str(exc) or type(exc).__name__)
        return lambda suffix: LLMConnectionError(msg("llm.unreachable", server=server, url=url, suffix=suffix,
                                                     reason=reason))

    def _retryable_error(self, status: int, message: str, retry_after: float | None) -> ErrorFactory:
        server = self.preset.label_message()
        if status == 429:
            advice = msg("llm.advice.try_again_in", wait=_seconds(retry_after)) if retry_after \
                else msg("llm.advice.wait_a_minute")
            return lambda suffix: LLMRateLimited(
                msg("llm.rate_limited", server=server, suffix=suffix, detail=message, advice=advice),
                status=status, server_message=message, retry_after=retry_after)
        return lambda suffix: LLMServerError(
            msg("llm.server_error", server=server, status=status, suffix=suffix, detail=message),
            status=status, server_message=message)

    def _final_error(self, status: int, message: str, model: str) -> LLMError:
        server, url = self.preset.label_message(), self.endpoint.url
        if status == 401:
            code = "llm.key_rejected" if self.endpoint.api_key else "llm.key_rejected_none_set"
            return LLMAuthError(msg(code, server=server, detail=message), status=status, server_message=message)
        if status == 402:
            return LLMAuthError(msg("llm.no_credits", server=server, detail=message),
                                status=status, server_message=message)
        if status == 403:
            return LLMAuthError(msg("llm.forbidden", server=server, detail=message, model=model),
                                status=status, server_message=message)
        if status == 404:
            return LLMBadRequest(msg("llm.not_found", server=server, model=model, url=url, detail=message),
                                 status=status, server_message=message)
        return LLMBadRequest(msg("llm.rejected", server=server, status=status, detail=message, model=model),
                             status=status, server_message=message)

    def _json_body(self, response: httpx.Response) -> dict[str, Any]:
        try:
            data = response.json()
        except ValueError:
            snippet = self._redact(response.text[:120])
            raise LLMResponseError(msg("llm.not_json", server=self.preset.label_message(), status=response.status_code,
                                       snippet=repr(snippet)), status=response.status_code) from None
        if not isinstance(data, dict):
            raise LLMResponseError(msg("llm.not_an_object", server=self.preset.label_message()))
        return data

    def _server_message(self, response: httpx.Response) -> str:
        try:
            data = response.json()
        except ValueError:
            text = response.text
        else:
            text = _error_text(data.get("error", data) if isinstance(data, dict) else data)
        text = " ".join(text.split()) or response.reason_phrase or "no details"
        return self._redact(text)[:500]

    def _redact(self, text: str) -> str:
        return scrub_text(text, [self.endpoint.api_key])


class _CallState:
    __slots__ = ("attempts", "body")

    def __init__(self) -> None:
        self.attempts = 0  # requests sent, resends without a rejected feature included
        self.body: dict[str, Any] = {}


def _seconds(value: float) -> Message:
    """A wait for a message: "5 s", "0.3 s", "10 min"."""
    if value >= 120:
        return msg("llm.minutes", value=value / 60)
    return msg("llm.seconds", value=round(value, 1))


_VALIDATION_MARKERS = ("validation error", "input should be", "field required", "extra inputs are not permitted")


def _is_validation_error(message: str) -> bool:
    """A server error that is really a rejected request (pydantic's wording): retrying cannot help."""
    text = message.lower()
    return any(marker in text for marker in _VALIDATION_MARKERS)


def _error_text(error: Any) -> str:
    """The human part of an error body: OpenAI/OpenRouter `{"message", "metadata": {"raw"}}`,
    Ollama/LM Studio `"error": "text"`, FastAPI `{"detail": ...}`."""
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        parts = [str(error[k]) for k in ("message", "detail") if error.get(k)]
        metadata = error.get("metadata")
        # OpenRouter puts the upstream provider's own message (which names the rejected
        # parameter) in metadata.raw; degrading needs to see it.
        if isinstance(metadata, dict) and metadata.get("raw"):
            raw = metadata["raw"]
            parts.append(raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False))
        if parts:
            return " ".join(parts)
    return json.dumps(error, ensure_ascii=False) if error is not None else ""
