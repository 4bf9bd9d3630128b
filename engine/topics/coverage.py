"""Coverage validation (seed 004): whatever the splitter returns, every message of the
chunk ends up in exactly one topic.

The splitter names topics by message-id ranges over the chunk it was shown. A range means
"the messages from start to end *as listed*", i.e. positions in the chunk's (sent_at, id)
order: ids usually rise with time, but an older export imported after a newer one gives
later ids to earlier messages, and a pure id range would then tear topics apart. Ranges
are clamped to the chunk (ids not in it snap inward to the nearest listed message; a
range with no listed message in it is dropped), overlaps are resolved earlier-wins, empty
summaries are rejected, and whatever is left uncovered goes to one "General conversation"
topic (the document's fallback; the reference code failed the whole chunk instead).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine.messages import msg
from engine.topics.errors import TopicsError

GENERAL_LABEL = {"en": "General conversation", "ru": "Общий разговор"}


class ProposedTopic(NamedTuple):
    """One topic as the splitter gave it (ids as numbers; parsing is the agent's job)."""

    summary: str
    start_msg_id: int
    end_msg_id: int


@dataclass(frozen=True, slots=True)
class CoveredTopic:
    summary: str
    positions: tuple[int, ...]  # indices into the chunk, ascending; contiguous unless is_general
    is_general: bool = False


@dataclass(frozen=True, slots=True)
class Coverage:
    topics: list[CoveredTopic]
    stragglers: int  # messages no accepted topic covered (they are in the general topic)
    dropped: int  # proposals rejected: empty summary, outside the chunk, or wholly overlapped

    @property
    def accepted(self) -> int:
        return sum(not topic.is_general for topic in self.topics)


def validate_coverage(message_ids: Sequence[int], proposed: Iterable[ProposedTopic], language: str = "en") -> Coverage:
    """Turn the splitter's proposals into a partition of the chunk `message_ids` (in order)."""
    position_of = {message_id: index for index, message_id in enumerate(message_ids)}
    if len(position_of) != len(message_ids):
        raise TopicsError(msg("topics.ids_not_distinct"))  # a caller bug, not model output
    ordered_ids = sorted(position_of)
    spans: list[tuple[int, int, int, str]] = []
    dropped = 0
    for order, topic in enumerate(proposed):
        summary = " ".join(str(topic.summary or "").split())
        span = _clamp(ordered_ids, position_of, topic.start_msg_id, topic.end_msg_id)
        if not summary or span is None:
            dropped += 1
            continue
        spans.append((span[0], span[1], order, summary))

    # Earlier wins: by start position, then by the order the splitter listed them.
    spans.sort()
    topics: list[CoveredTopic] = []
    covered = [False] * len(message_ids)
    next_free = 0
    for start, end, _order, summary in spans:
        start = max(start, next_free)
        if start > end:
            dropped += 1
            continue
        topics.append(CoveredTopic(summary, tuple(range(start, end + 1))))
        covered[start:end + 1] = [True] * (end + 1 - start)
        next_free = end + 1

    stragglers = tuple(index for index, done in enumerate(covered) if not done)
    if stragglers:
        topics.append(CoveredTopic(GENERAL_LABEL.get(language, GENERAL_LABEL["en"]), stragglers, is_general=True))
    topics.sort(key=lambda topic: topic.positions[0])
    return Coverage(topics, len(stragglers), dropped)


def _clamp(ordered_ids: list[int], position_of: dict[int, int], first: int, last: int) -> tuple[int, int] | None:
    """(start, end) positions of the listed messages with ids in [first, last], or None."""
    low, high = min(first, last), max(first, last)  # a reversed range is read as written backwards
    left = bisect_left(ordered_ids, low)
    right = bisect_right(ordered_ids, high) - 1
    if left > right:
        return None  # no message of this chunk has an id in the range
    start, end = position_of[ordered_ids[left]], position_of[ordered_ids[right]]
    return (start, end) if start <= end else (end, start)
