"""Progress reports thinned in one place: a new stage always gets through, more of the same
stage at most once per interval.

A flood of progress (a report per batch of a fast import) would keep a receiver busy for
nothing: the window repainting a bar nobody can read that fast, or the import child writing
JSON lines its parent relays. Both use this.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

PROGRESS_INTERVAL_S = 0.05


class ProgressThrottle:
    """`throttle(value)` is True when `value` should be reported: its key (its stage) differs
    from the last reported one, or `interval` has passed since. Thread-safe enough for one
    reporting thread, which is how both users call it."""

    def __init__(self, interval: float = PROGRESS_INTERVAL_S, key: Callable[[Any], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._interval, self._key, self._clock = interval, key, clock
        self._last, self._last_key = float("-inf"), object()

    def __call__(self, value: Any) -> bool:
        now, key = self._clock(), self._key(value) if self._key else None
        if key != self._last_key or now - self._last >= self._interval:
            self._last, self._last_key = now, key
            return True
        return False
