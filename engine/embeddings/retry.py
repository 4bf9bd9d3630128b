"""When and how long to wait before retrying an HTTP request, and keeping the key out of text.

The policy follows openai-python (`_base_client.py`: `_calculate_retry_timeout`): exponential
backoff from `initial_backoff`, capped at `max_backoff`, shortened by up to `jitter` at
random so that parallel requests do not retry in lockstep; a server's `Retry-After`
(seconds, an HTTP date, or OpenAI's `retry-after-ms`) wins when it is sensible.
"""

from __future__ import annotations

from dataclasses import dataclass


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


def redact(text: str, secret: str | None) -> str:
    """`text` with every occurrence of `secret` replaced (servers sometimes echo the key they rejected)."""
    if secret and len(secret) >= 4:
        return text.replace(secret, "[key hidden]")
    return text
