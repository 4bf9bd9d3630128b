"""The reranker's total time budget across turns (the retry policy itself: engine/http_retry.py)."""

from __future__ import annotations

import time
from collections.abc import Callable


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
