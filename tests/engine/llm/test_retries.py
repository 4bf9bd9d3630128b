"""Retries, waits, timeouts and cancellation, timed against a real local HTTP server."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from engine.http_retry import RetryPolicy, parse_retry_after, should_retry
from engine.llm import ChatClient, Deadline, LLMCancelled, LLMRateLimited, LLMServerError, LLMTimeout
from tests.engine.llm.conftest import CHAT, USER, make_client
from tests.fake_openai import FakeResponse, chat_reply


def complete(client: ChatClient, **kwargs):
    async def go():
        async with client:
            return await client.complete(USER, **kwargs)
    return asyncio.run(go())


def test_429_with_retry_after_waits_then_succeeds(server):
    server.script(CHAT, FakeResponse(status=429, json={"error": {"message": "slow down"}},
                                     headers={"Retry-After": "0.3"}),
                  FakeResponse(json=chat_reply("ok")))
    started = time.monotonic()
    result = complete(make_client(server))
    elapsed = time.monotonic() - started
    assert result.content == "ok" and result.attempts == 2
    # Order, not speed: it waited at least the server's 0.3 s (not the 0.01 s backoff), and
    # far less than a second Retry-After or a timeout would have made it wait.
    assert 0.3 <= elapsed < 10


def test_503_twice_then_success(server):
    server.script(CHAT, FakeResponse(status=503), FakeResponse(status=503), FakeResponse(json=chat_reply("ok")))
    result = complete(make_client(server))
    assert result.attempts == 3 and len(server.requests_to(CHAT)) == 3


def test_503_beyond_max_retries_is_server_error(server):
    server.script(CHAT, *[FakeResponse(status=503, json={"error": {"message": "overloaded"}})] * 3)
    with pytest.raises(LLMServerError, match="after 3 attempts") as caught:
        complete(make_client(server, max_retries=2))
    assert caught.value.status == 503 and len(server.requests_to(CHAT)) == 3
    # issue 22: a code with its parameters, said in Russian with the attempts' plural
    assert caught.value.message.code == "llm.server_error"
    assert "после 3 попыток" in caught.value.render("ru") and "after" not in caught.value.render("ru")


def test_429_that_persists_is_rate_limited(server):
    server.script(CHAT, *[FakeResponse(status=429)] * 2)
    with pytest.raises(LLMRateLimited):
        complete(make_client(server, max_retries=1))


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(server, status):
    server.script(CHAT, FakeResponse(status=status, json={"error": {"message": "no"}}))
    with pytest.raises(Exception):  # noqa: B017 (the type is covered elsewhere; here only the count)
        complete(make_client(server))
    assert len(server.requests_to(CHAT)) == 1


def test_retry_after_longer_than_the_budget_fails_at_once(server):
    server.script(CHAT, FakeResponse(status=429, headers={"Retry-After": "600"}))
    started = time.monotonic()
    with pytest.raises(LLMRateLimited, match="longer than") as caught:
        complete(make_client(server), timeout=30)
    assert time.monotonic() - started < 30  # gave up inside the budget instead of waiting 600 s
    assert caught.value.retry_after == 600


def test_dropped_connection_is_retried(server):
    server.script(CHAT, FakeResponse(drop=True), FakeResponse(json=chat_reply("ok")))
    result = complete(make_client(server))
    assert result.content == "ok" and result.attempts == 2


def test_timeout_covers_the_whole_call_and_fires_fast(server):
    server.script(CHAT, FakeResponse(delay=60, json=chat_reply("late")))
    started = time.monotonic()
    with pytest.raises(LLMTimeout, match="0.3 s") as caught:
        complete(make_client(server), timeout=0.3)
    assert time.monotonic() - started < 30  # our 0.3 s budget ended it, not the server's 60 s
    assert caught.value.timeout_s == 0.3


def test_timeout_includes_retry_waits(server):
    server.script(CHAT, FakeResponse(status=503, headers={"Retry-After": "0.2"}),
                  FakeResponse(delay=60, json=chat_reply("late")))
    started = time.monotonic()
    with pytest.raises(LLMTimeout):
        complete(make_client(server), timeout=0.5)
    assert time.monotonic() - started < 30  # the wait and the retry share the 0.5 s budget


def test_zero_budget_sends_nothing(server):
    with pytest.raises(LLMTimeout):
        complete(make_client(server), timeout=0)
    assert server.requests == []


def test_cancelling_the_task_stops_the_request_promptly(server):
    server.script(CHAT, FakeResponse(delay=60, json=chat_reply("late")))

    async def go():
        async with make_client(server) as client:
            task = asyncio.create_task(client.complete(USER))
            while not server.requests:  # the request reached the server
                await asyncio.sleep(0.01)
            started = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return time.monotonic() - started

    assert asyncio.run(go()) < 30  # not the server's 60 s


def test_closed_client_raises_cancelled(server):
    async def go():
        client = make_client(server)
        await client.aclose()
        await client.complete(USER)

    with pytest.raises(LLMCancelled):
        asyncio.run(go())


def test_parse_retry_after_forms():
    now = datetime(2026, 1, 4, 12, 0, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=7), usegmt=True)
    assert parse_retry_after({"Retry-After": "2"}) == 2
    assert parse_retry_after({"retry-after": "0.5"}) == 0.5
    assert parse_retry_after({"retry-after-ms": "250", "Retry-After": "9"}) == 0.25
    assert parse_retry_after({"Retry-After": date}, now=now.timestamp()) == pytest.approx(7)
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after({"Retry-After": "-3"}) is None  # nonsense: our own backoff applies


def test_backoff_grows_is_capped_and_jittered():
    policy = RetryPolicy(initial_backoff=0.5, max_backoff=8)
    assert policy.backoff(1, rng=lambda: 0) == 0.5
    assert policy.backoff(3, rng=lambda: 0) == 2.0
    assert policy.backoff(10, rng=lambda: 0) == 8
    assert policy.backoff(3, rng=lambda: 1) == 1.5


def test_should_retry_set():
    assert [s for s in (400, 401, 404, 408, 409, 422, 429, 500, 502, 503) if should_retry(s)] == [
        408, 409, 429, 500, 502, 503]


def test_deadline_turn_timeout_never_exceeds_what_is_left():
    now = [100.0]
    deadline = Deadline(60, clock=lambda: now[0])
    assert deadline.turn_timeout(30) == 30
    now[0] += 45
    assert deadline.remaining() == 15 and deadline.turn_timeout(30) == 15
    now[0] += 20
    assert deadline.turn_timeout(30) == 0 and deadline.expired
