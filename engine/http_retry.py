"""The one retry policy of the HTTP clients (chat and embeddings), after openai-python's
`_base_client.py`: which statuses are retried, how long to wait, and a server's Retry-After.

Only 408/409/429/5xx and connection failures are retried: anything else is the request's
fault and would fail again. Waits grow exponentially from `initial_backoff`, capped at
`max_backoff`, shortened by up to `jitter` at random (parallel requests do not retry in
lockstep), unless the server says how long: OpenAI's `retry-after-ms`, then `retry-after`
as seconds (fractions allowed) or an HTTP date, header names in any case. A wait longer
than `max_retry_after` is not sensible in an app: the error is raised instead.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime

RETRYABLE_STATUSES = frozenset({408, 409, 429})


def should_retry(status: int) -> bool:
    return status in RETRYABLE_STATUSES or status >= 500


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3           # attempts after the first
    initial_backoff: float = 0.5   # seconds before the first retry
    max_backoff: float = 8.0       # cap of the exponential wait
    max_retry_after: float = 60.0  # a longer Retry-After is not waited for: the error is raised instead
    jitter: float = 0.25           # up to this share of the wait is removed at random

    def backoff(self, retry_number: int, rng: Callable[[], float] = random.random) -> float:
        """Wait before retry number `retry_number` (1-based): initial·2^(n-1), capped, minus up to `jitter`."""
        return min(self.max_backoff, self.initial_backoff * 2.0 ** (retry_number - 1)) * (1.0 - self.jitter * rng())


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
