"""What the cross-encoder reads of each topic: its date and summary, then its conversation
from the start, cut to about `passage_tokens` tokens (seed 002 §7: ~256).

A cross-encoder's cost grows with every token of every pair, and rerank models read 512
tokens at most (bge-reranker-v2-m3 more, slower), so the passage is what fits the budget
first: the summary names the topic, the opening lines say who talked about what. Token
counts are engine/text/tokens.py's estimate, the same everywhere and without a tokenizer.

The store is read with one small query per topic (the first `LOG_LINES` messages through
`ix_message_topic_id`), never a whole long topic: 40 topics take a few milliseconds.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from engine.retrieval.candidate import Candidate
from engine.text.tokens import estimate_tokens

LogSource = Callable[[list[int]], dict[int, str]]  # topic id → the opening of its log; unknown ids absent
LOG_LINES = 48  # more than 256 tokens of any real chat; a cap on what one topic costs to read
MAX_CHARS_PER_TOKEN = 8  # no text estimates above this (6-letter words + a space ≈ 7): a safe pre-cut


def cut_to_tokens(text: str, limit: int) -> str:
    """`text`, shortened at a word boundary to at most `limit` estimated tokens."""
    if limit <= 0 or not text:
        return ""
    head = text[: limit * MAX_CHARS_PER_TOKEN]
    tokens = estimate_tokens(head)
    if tokens <= limit:
        return head
    end = len(head)
    while tokens > limit and end > 1:
        end = max(1, min(end - 1, int(end * limit / tokens * 0.98)))  # proportional, then a little under
        tokens = estimate_tokens(head[:end])
    space = max(head.rfind(" ", 0, end), head.rfind("\n", 0, end))
    if space > end * 0.8:  # a word boundary close by: do not cut a word in two
        end = space
    return head[:end].rstrip()


def passage_text(candidate: Candidate, log: str, limit: int) -> str:
    head = f"{candidate.date}: {candidate.summary}" if candidate.date else candidate.summary
    return cut_to_tokens(f"{head}\n{log}" if log else head, limit)


def passages_for(topics: Sequence[Candidate], logs: LogSource | None, limit: int) -> list[str]:
    """One passage per topic, in the order given."""
    found = logs([c.id for c in topics]) if logs is not None and topics else {}
    return [passage_text(c, found.get(c.id, ""), limit) for c in topics]


def store_log_source(connection_factory: Callable[[], sqlite3.Connection], lines: int = LOG_LINES) -> LogSource:
    """Logs from the store: a fresh connection per call (any thread may call it), closed after."""

    def load(ids: list[int]) -> dict[int, str]:
        connection = connection_factory()
        try:
            logs = {}
            for topic_id in dict.fromkeys(ids):
                rows = connection.execute(
                    "SELECT coalesce(nullif(author, ''), CASE role WHEN 'user' THEN 'User' WHEN 'assistant' "
                    "THEN 'Assistant' ELSE 'Unknown' END), text FROM message WHERE topic_id = ? "
                    "ORDER BY sent_at, id LIMIT ?",
                    (topic_id, lines)).fetchall()
                if rows:
                    logs[topic_id] = "\n".join(f"{author}: {text}" for author, text in rows)
            return logs
        finally:
            connection.close()

    return load
