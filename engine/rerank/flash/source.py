"""Where `get_topics_content` reads topics from: any callable, or the real SQLite store.

The reranker never touches SQL itself, so tests and the benchmark can hand it the store
(`store_topic_source`) and other callers anything that returns `TopicContent`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from engine.store.sql import select_in
from engine.topics.content import format_log, topic_messages


@dataclass(frozen=True)
class TopicContent:
    """One topic as the tool returns it; `log` is `format_log` lines."""

    id: int
    date: str  # ISO date of the first message ("" when unknown)
    messages: int
    chars: int
    summary: str
    log: str


TopicSource = Callable[[list[int]], list[TopicContent]]  # unknown ids are simply absent


def store_topic_source(connection_factory: Callable[[], sqlite3.Connection]) -> TopicSource:
    """A TopicSource over the store. Each call opens a connection with `connection_factory`
    and closes it afterwards, so the source can be called from any thread (the GUI's loop,
    a worker) without sharing a connection."""

    def load(ids: list[int]) -> list[TopicContent]:
        wanted = list(dict.fromkeys(int(i) for i in ids))
        if not wanted:
            return []
        connection = connection_factory()
        try:
            meta: dict[int, tuple] = {row[0]: row for row in select_in(
                connection, "SELECT id, first_at, message_count, size_chars, summary FROM topic WHERE id IN ({ids})",
                wanted)}
            found = []
            for topic_id in wanted:  # request order: the model lists the most promising first
                row = meta.get(topic_id)
                if row is None:
                    continue
                _, first_at, count, size_chars, summary = row
                messages = topic_messages(connection, topic_id)
                chars = size_chars or sum(len(m.text) for m in messages)
                date = datetime.fromtimestamp(first_at, UTC).date().isoformat() if first_at is not None else ""
                found.append(TopicContent(topic_id, date, len(messages) or count or 0, chars, summary or "",
                                          format_log(messages)))
            return found
        finally:
            connection.close()

    return load
