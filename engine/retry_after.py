"""Reading a server's Retry-After, shared by the chat and the embeddings clients.

Forms, as openai-python reads them: OpenAI's `retry-after-ms`, then `retry-after` as
seconds (fractions allowed) or as an HTTP date. Header names are matched in any case.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC
from email.utils import parsedate_to_datetime


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
