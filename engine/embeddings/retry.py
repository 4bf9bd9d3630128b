"""When and how long to wait before retrying an HTTP request, and keeping the key out of text.

The policy follows openai-python (`_base_client.py`: `_calculate_retry_timeout`): exponential
backoff from `initial_backoff`, capped at `max_backoff`, shortened by up to `jitter` at
random so that parallel requests do not retry in lockstep; a server's `Retry-After`
(seconds, an HTTP date, or OpenAI's `retry-after-ms`) wins when it is sensible.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3           # attempts after the first
    initial_backoff: float = 0.5   # seconds before the first retry
    max_backoff: float = 8.0       # cap of the exponential wait
    max_retry_after: float = 60.0  # a longer Retry-After is not waited for: the error is raised instead
    jitter: float = 0.25           # up to this share of the wait is removed at random

    def backoff(self, attempt: int, rnd: float) -> float:
        """Wait before retry number `attempt + 1`; `rnd` is uniform in [0, 1)."""
        return min(self.max_backoff, self.initial_backoff * 2.0**attempt) * (1.0 - self.jitter * rnd)


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the server asked to wait, or None when it did not say (or said nonsense)."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000.0
            return value if value >= 0 else None
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        try:
            when = parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        value = when.timestamp() - (time.time() if now is None else now)
        return max(value, 0.0)
    return value if value >= 0 else None


def redact(text: str, secret: str | None) -> str:
    """`text` with every occurrence of `secret` replaced (servers sometimes echo the key they rejected)."""
    if secret and len(secret) >= 4:
        return text.replace(secret, "[key hidden]")
    return text
