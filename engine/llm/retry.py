"""When to retry and how long to wait, in the manner of openai-python's `_base_client.py`.

Only 408/409/429/5xx and connection failures are retried: anything else is the request's
fault and would fail again. Waits grow exponentially with jitter (so parallel reranker
calls do not retry in lockstep) unless the server says how long via Retry-After.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

RETRYABLE_STATUSES = frozenset({408, 409, 429})


def should_retry(status: int) -> bool:
    return status in RETRYABLE_STATUSES or status >= 500


def backoff_delay(retry_number: int, *, base: float, cap: float, rng: Callable[[], float] = random.random) -> float:
    """Wait before retry number `retry_number` (1-based): base·2^(n-1), capped, minus up to 25 %."""
    delay = min(base * (2 ** (retry_number - 1)), cap)
    return delay * (1 - 0.25 * rng())


class Deadline:
    """The reranker's total budget across turns.

        deadline = Deadline(60)
        result = await client.complete(..., timeout=deadline.turn_timeout(30))

    `turn_timeout` never exceeds what is left, so the last turn cannot overrun the total.
    """

    def __init__(self, total_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.total_s = total_s
        self._clock = clock
        self._end = clock() + total_s

    def remaining(self) -> float:
        return max(0.0, self._end - self._clock())

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0

    def turn_timeout(self, per_turn: float) -> float:
        return min(per_turn, self.remaining())
