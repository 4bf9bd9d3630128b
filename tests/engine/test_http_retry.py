"""One retry loop for both HTTP clients (issue 22): the chat client and the embeddings client
answer the same server behaviour the same way, against a real scripted server on 127.0.0.1.

Each test runs once per client through `Call`, which hides only how a client is called;
what is retried, how long it waits and what it raises must not differ.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from engine.embeddings import (
    EmbeddingError,
    EmbeddingRateLimited,
    EmbeddingServerError,
    OpenAICompatibleEmbedder,
)
from engine.errors import CancelToken, ImportCancelled, RemoteServiceError
from engine.http_retry import RetryPolicy
from engine.llm import ChatClient, Endpoint, LLMConnectionError, LLMError, LLMRateLimited, LLMServerError
from tests.fake_openai import FakeOpenAI, FakeResponse, chat_reply

FAST = RetryPolicy(max_retries=2, initial_backoff=0.01, max_backoff=0.02)
USER = [{"role": "user", "content": "hello"}]


@dataclass
class Call:
    """One client, called once: `run(base_url, policy)` returns on success, raises its typed error."""

    name: str
    path: str
    ok: FakeResponse
    family: type[RemoteServiceError]
    rate_limited: type[RemoteServiceError]
    server_error: type[RemoteServiceError]
    run: Callable[..., object]


def chat(base_url: str, policy: RetryPolicy, *, timeout: float = 30.0, cancel: CancelToken | None = None) -> object:
    async def go():
        async with ChatClient(Endpoint(base_url=base_url, model="m"), retry=policy) as client:
            task = asyncio.ensure_future(client.complete(USER, timeout=timeout))
            if cancel is not None:  # the chat's cancel is the asyncio task's (the reranker's way)
                while not task.done():
                    if cancel.cancelled:
                        task.cancel()
                        raise ImportCancelled from None
                    await asyncio.sleep(0.01)
            return await task
    return asyncio.run(go())


def embed(base_url: str, policy: RetryPolicy, *, timeout: float = 30.0, cancel: CancelToken | None = None) -> object:
    embedder = OpenAICompatibleEmbedder(base_url=base_url, model="m", provider="openai", api_key="k", retry=policy,
                                        timeout=timeout, local=False)
    return embedder.embed(["a"], cancel=cancel)


CALLS = [
    Call("chat", "/v1/chat/completions", FakeResponse(json=chat_reply("ok")), LLMError, LLMRateLimited,
         LLMServerError, chat),
    Call("embeddings", "/v1/embeddings", None, EmbeddingError, EmbeddingRateLimited,  # type: ignore[arg-type]
         EmbeddingServerError, embed),
]


@pytest.fixture(params=CALLS, ids=[c.name for c in CALLS])
def call(request) -> Call:
    return request.param


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def script(server: FakeOpenAI, call: Call, *responses: FakeResponse) -> None:
    """Queue `responses`, then a success (the fake answers unscripted embeddings itself)."""
    server.script(call.path, *responses, *([call.ok] if call.ok is not None else []))


def test_a_short_retry_after_is_waited_then_the_call_succeeds(server, call):
    script(server, call, FakeResponse(status=429, headers={"Retry-After": "0.3"}))
    started = time.monotonic()
    call.run(server.base_url, FAST)
    # Order, not speed: at least the server's 0.3 s (not FAST's 0.01 s backoff).
    assert time.monotonic() - started >= 0.3
    assert len(server.requests_to(call.path)) == 2


def test_a_retry_after_longer_than_the_cap_fails_at_once_the_same_for_both(server, call):
    """Before issue 22 the chat client waited the cap (here 1 s) and asked again, while the
    embeddings client gave up: now both give up at once and say how long the server asked for."""
    script(server, call, FakeResponse(status=429, headers={"Retry-After": "5"}))
    policy = RetryPolicy(max_retries=2, initial_backoff=0.01, max_retry_after=1.0)
    started = time.monotonic()
    with pytest.raises(call.rate_limited) as caught:
        call.run(server.base_url, policy)
    assert time.monotonic() - started < 5  # did not wait out the 5 s
    assert len(server.requests_to(call.path)) == 1  # and did not ask again before the server's time
    assert isinstance(caught.value, call.family) and caught.value.retry_after == 5
    assert "wait 5 s" in str(caught.value)  # the person is told when to try again


def test_a_retry_after_on_a_5xx_longer_than_the_cap_also_fails_at_once(server, call):
    script(server, call, FakeResponse(status=503, headers={"Retry-After": "5"}))
    policy = RetryPolicy(max_retries=2, initial_backoff=0.01, max_retry_after=1.0)
    with pytest.raises(call.server_error) as caught:
        call.run(server.base_url, policy)
    assert len(server.requests_to(call.path)) == 1
    assert caught.value.status == 503 and caught.value.retry_after == 5


def test_5xx_is_retried_with_backoff_then_succeeds(server, call):
    script(server, call, FakeResponse(status=503), FakeResponse(status=502))
    call.run(server.base_url, FAST)
    assert len(server.requests_to(call.path)) == 3


def test_5xx_beyond_the_retries_is_a_server_error(server, call):
    server.handle(call.path, lambda request: FakeResponse(status=500, json={"error": {"message": "down"}}))
    with pytest.raises(call.server_error) as caught:
        call.run(server.base_url, FAST)
    assert caught.value.status == 500 and len(server.requests_to(call.path)) == 1 + FAST.max_retries


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_4xx_is_not_retried(server, call, status):
    server.handle(call.path, lambda request: FakeResponse(status=status, json={"error": {"message": "no"}}))
    with pytest.raises(call.family):
        call.run(server.base_url, FAST)
    assert len(server.requests_to(call.path)) == 1


def test_connection_refused_is_retried_then_reported(call, caplog):
    caplog.set_level(logging.INFO, logger="engine.http_retry")
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(call.server_error) as caught:
        call.run(f"http://127.0.0.1:{port}/v1", FAST)
    assert caught.value.status is None
    if call.name == "chat":
        assert isinstance(caught.value, LLMConnectionError)
    assert [r.getMessage().count("retry") for r in caplog.records] == [1] * FAST.max_retries


def test_cancel_during_a_retry_after_wait_stops_at_once(server, call):
    """The caller's cancel reaches the wait: a build's Cancel no longer sits out a server's
    Retry-After (and then a whole batch) before it is seen."""
    script(server, call, FakeResponse(status=429, headers={"Retry-After": "3"}))
    token = CancelToken()
    threading.Timer(0.3, token.cancel).start()
    started = time.monotonic()
    with pytest.raises(ImportCancelled):
        call.run(server.base_url, RetryPolicy(max_retries=2, initial_backoff=0.01), cancel=token)
    assert time.monotonic() - started < 3  # not the server's 3 s
    assert len(server.requests_to(call.path)) == 1


def test_the_chat_call_s_deadline_bounds_a_retry_after_within_the_cap(server):
    """A wait the policy allows but the call's remaining time does not: fail now, with the
    real cause and the server's time, instead of a timeout after sleeping."""
    server.script("/v1/chat/completions", FakeResponse(status=429, headers={"Retry-After": "5"}))
    started = time.monotonic()
    with pytest.raises(LLMRateLimited, match="left for this call") as caught:
        chat(server.base_url, RetryPolicy(max_retry_after=60), timeout=2)
    assert time.monotonic() - started < 2 and caught.value.retry_after == 5


def test_the_decision_per_failure():
    policy = RetryPolicy(max_retries=2, initial_backoff=0.5, max_backoff=8, max_retry_after=60, jitter=0)
    assert policy.next_wait(retries_done=0, retry_after=None, time_left=None) == 0.5
    assert policy.next_wait(retries_done=1, retry_after=None, time_left=None) == 1.0
    assert policy.next_wait(retries_done=0, retry_after=30, time_left=None) == 30  # the server's time, exactly
    assert policy.next_wait(retries_done=2, retry_after=None, time_left=None).reason == "retries"
    too_long = policy.next_wait(retries_done=0, retry_after=61, time_left=None)
    assert (too_long.reason, too_long.wait, too_long.limit) == ("retry_after", 61, 60)
    past = policy.next_wait(retries_done=0, retry_after=10, time_left=4)
    assert (past.reason, past.wait, past.limit) == ("deadline", 10, 4)
