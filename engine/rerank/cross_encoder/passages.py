"""What the cross-encoder reads of each topic: its date and summary, then its conversation
from the start, cut to about `passage_tokens` tokens (seed 002 §7: ~256).

A cross-encoder's cost grows with every token of every pair, and rerank models read 512
tokens at most (bge-reranker-v2-m3 more, slower), so the passage is what fits the budget
first: the summary names the topic, the opening lines say who talked about what. Token
counts are engine/text/tokens.py's estimate, the same everywhere and without a tokenizer.

The store is read with one small query per topic (the first `LOG_LINES` messages through
`ix_message_topic_id`), never a whole long topic, on a connection kept per thread: opening
one costs more than the 40 reads (1.6-6 ms measured on a busy machine).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence

from engine.retrieval.candidate import Candidate
from engine.text.tokens import cut_to_tokens

LogSource = Callable[[list[int]], dict[int, str]]  # topic id → the opening of its log; unknown ids absent
LOG_LINES = 32  # more lines than 256 tokens hold in a real chat; a cap on what one topic costs to read
MESSAGE_CHARS = 16_000  # of one message: a 25,000-character paste is cut in SQL, not copied whole


def passage_text(candidate: Candidate, log: str, limit: int) -> str:
    head = f"{candidate.date}: {candidate.summary}" if candidate.date else candidate.summary
    return cut_to_tokens(f"{head}\n{log}" if log else head, limit)


def passages_for(topics: Sequence[Candidate], logs: LogSource | None, limit: int) -> list[str]:
    """One passage per topic, in the order given."""
    found = logs([c.id for c in topics]) if logs is not None and topics else {}
    return [passage_text(c, found.get(c.id, ""), limit) for c in topics]


def store_log_source(connection_factory: Callable[[], sqlite3.Connection], lines: int = LOG_LINES) -> LogSource:
    """Logs from the store, any thread may call it: each thread reads on its own connection,
    opened on its first call and kept (autocommit: no transaction stays open between reads)."""
    local = threading.local()

    def load(ids: list[int]) -> dict[int, str]:
        connection = getattr(local, "connection", None)
        if connection is None:
            connection = local.connection = connection_factory()
        try:
            logs = {}
            for topic_id in dict.fromkeys(ids):
                rows = connection.execute(
                    "SELECT coalesce(nullif(author, ''), CASE role WHEN 'user' THEN 'User' WHEN 'assistant' "
                    "THEN 'Assistant' ELSE 'Unknown' END), substr(text, 1, ?) FROM message WHERE topic_id = ? "
                    "ORDER BY sent_at, id LIMIT ?", (MESSAGE_CHARS, topic_id, lines)).fetchall()
                if rows:
                    logs[topic_id] = "\n".join(f"{author}: {text}" for author, text in rows)
            return logs
        except sqlite3.Error:
            local.connection = None  # a broken connection is not kept; the next call opens another
            connection.close()
            raise

    return load
