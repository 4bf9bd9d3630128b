"""The one retry policy and the one retry loop of the HTTP clients (chat and embeddings),
after openai-python's `_base_client.py` (issue 22: each client had its own loop and read a
long Retry-After its own way).

Only 408/409/429/5xx and connection failures are retried: anything else is the request's
fault and would fail again. Waits grow exponentially from `initial_backoff`, capped at
`max_backoff`, shortened by up to `jitter` at random (parallel requests do not retry in
lockstep), unless the server says how long: OpenAI's `retry-after-ms`, then `retry-after`
as seconds (fractions allowed) or an HTTP date, header names in any case.

A server's Retry-After is waited exactly, up to `max_retry_after`. When it asks for longer,
or for longer than the caller's deadline leaves, the loop gives up at once with the error
the attempt prepared (which carries `retry_after`, so the person is told when to try
again): waiting the cap and asking early would only earn another 429 and keep a search or
a build frozen for nothing. openai-python falls back to its own backoff there; an app
that someone is watching is better served by a prompt, honest answer.

    async def attempt():
        response = await http.post(...)
        if should_retry(response.status_code):
            raise RetryableFailure(lambda give_up: SomeError(...), parse_retry_after(response.headers),
                                   reason=str(response.status_code))
        return response
    result = await call_with_retries(attempt, policy, deadline=loop.time() + 30)
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Literal, TypeVar

log = logging.getLogger(__name__)

RETRYABLE_STATUSES = frozenset({408, 409, 429})
CANCEL_POLL_S = 0.05  # how often a wait looks at the caller's cancel token
T = TypeVar("T")


def should_retry(status: int) -> bool:
    return status in RETRYABLE_STATUSES or status >= 500


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3           # attempts after the first
    initial_backoff: float = 0.5   # seconds before the first retry
    max_backoff: float = 8.0       # cap of the exponential wait
    max_retry_after: float = 60.0  # a longer Retry-After is not waited for: the error is raised at once
    jitter: float = 0.25           # up to this share of the wait is removed at random

    def backoff(self, retry_number: int, rng: Callable[[], float] = random.random) -> float:
        """Wait before retry number `retry_number` (1-based): initial·2^(n-1), capped, minus up to `jitter`."""
        return min(self.max_backoff, self.initial_backoff * 2.0 ** (retry_number - 1)) * (1.0 - self.jitter * rng())

    def next_wait(self, *, retries_done: int, retry_after: float | None, time_left: float | None) -> float | GiveUp:
        """Seconds to wait before the next attempt, or why there is none.

        `time_left` is what remains of the caller's deadline (None: no deadline). A wait that
        would reach the deadline is not started: the call could only end in a timeout then,
        which hides the real cause."""
        if retries_done >= self.max_retries:
            return GiveUp("retries")
        if retry_after is not None and retry_after > self.max_retry_after:
            return GiveUp("retry_after", wait=retry_after, limit=self.max_retry_after)
        wait = retry_after if retry_after is not None else self.backoff(retries_done + 1)
        if time_left is not None and wait >= time_left:
            return GiveUp("deadline", wait=wait, limit=max(time_left, 0.0))
        return wait


@dataclass(frozen=True)
class GiveUp:
    """Why the retry loop stopped; the attempt's error factory words its message from it.

    reason "retries": the attempts ran out; "retry_after": the server asked to wait `wait` s,
    more than the policy's `limit`; "deadline": the wait (`wait`) would not fit in the `limit`
    seconds left of the caller's deadline."""

    reason: Literal["retries", "retry_after", "deadline"]
    wait: float = 0.0
    limit: float = 0.0
    attempts: int = 0  # attempts the loop made (filled in by `call_with_retries`)


class RetryableFailure(Exception):
    """Raised by one attempt that failed in a way worth trying again (a connection error, or
    408/409/429/5xx, also inside a 200 body). `error(give_up)` builds what the caller sees if
    no retry follows; `retry_after` is the server's wait, if it said; `reason` is a short,
    key-free word for the log ("429", "ConnectError")."""

    def __init__(self, error: Callable[[GiveUp], Exception], retry_after: float | None = None, *,
                 reason: str = "") -> None:
        super().__init__(reason)
        self.error = error
        self.retry_after = retry_after
        self.reason = reason


async def call_with_retries(attempt: Callable[[], Awaitable[T]], policy: RetryPolicy, *, deadline: float | None = None,
                            check_cancel: Callable[[], None] | None = None, name: str = "request") -> T:
    """Run `attempt` until it returns, raises anything but `RetryableFailure`, or the policy
    gives up (then the failure's own error is raised, with the loop's `GiveUp`).

    `deadline` is the caller's end in the running loop's clock (`loop.time()`); the caller
    still bounds the attempts themselves (e.g. `asyncio.timeout_at`). `check_cancel` raises
    when the caller cancelled (a `CancelToken`'s `raise_if_cancelled`): it is looked at
    before every attempt and throughout every wait. Cancelling the awaiting task works too.
    `name` says in the log whose request it was (never a key or a URL with one)."""
    loop = asyncio.get_running_loop()
    attempts = 0
    while True:
        if check_cancel is not None:
            check_cancel()
        attempts += 1
        try:
            return await attempt()
        except RetryableFailure as failure:
            time_left = None if deadline is None else deadline - loop.time()
            step = policy.next_wait(retries_done=attempts - 1, retry_after=failure.retry_after, time_left=time_left)
            if isinstance(step, GiveUp):
                error = failure.error(GiveUp(step.reason, step.wait, step.limit, attempts))
                raise error from None
            log.info("%s: attempt %d failed (%s); retry %d in %.2f s", name, attempts, failure.reason or "error",
                     attempts, step)
        await _wait(step, check_cancel)


async def _wait(seconds: float, check_cancel: Callable[[], None] | None) -> None:
    """Sleep `seconds`; with a cancel check, in short steps so a Cancel is seen within
    CANCEL_POLL_S (a token is set from another thread and cannot wake the loop itself)."""
    if check_cancel is None:
        await asyncio.sleep(seconds)
        return
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0:
        check_cancel()
        await asyncio.sleep(min(left, CANCEL_POLL_S))
    check_cancel()


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds the server asked to wait; 0 for a date already past; None when it did not say
    or said nonsense (a negative number, an unreadable date): the caller's backoff applies."""
    lowered = {name.lower(): value for name, value in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000.0
            return value if value >= 0 else None
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        try:
            when = parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # "-0000": RFC 5322's UTC with no known offset
            when = when.replace(tzinfo=UTC)
        return max(when.timestamp() - (time.time() if now is None else now), 0.0)
    return value if value >= 0 else None
