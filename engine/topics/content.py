"""A topic's messages and the texts made from them: the log the reranker reads and the
text that is embedded (seed 004: "Topic Summary: …\\n\\nConversation Log:\\n…")."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime

from engine.messages import msg
from engine.topics.errors import TopicsError
from engine.topics.message_row import COLUMNS, MessageRow
from engine.topics.summary import author_label


def topic_messages(connection: sqlite3.Connection, topic_id: int) -> list[MessageRow]:
    """The topic's messages in conversation order (membership is message.topic_id, not the
    start/end range: a merged or general topic need not be contiguous)."""
    rows = connection.execute(
        f"SELECT {COLUMNS} FROM message WHERE topic_id = ? ORDER BY sent_at, id", (topic_id,)).fetchall()
    return list(map(MessageRow._make, rows))


def format_log(rows: Iterable[MessageRow]) -> str:
    """One "[Author (YYYY-MM-DD HH:MM:SS)]: text" line per message, times in UTC."""
    return "\n".join(
        f"[{author_label(row)} ({datetime.fromtimestamp(row.sent_at, UTC):%Y-%m-%d %H:%M:%S})]: {row.text}"
        for row in rows
    )


def embedding_text(summary: str, rows: Iterable[MessageRow]) -> str:
    return f"Topic Summary: {summary}\n\nConversation Log:\n{format_log(rows)}"


def topic_text(connection: sqlite3.Connection, topic_id: int) -> str:
    """The text to embed for a stored topic."""
    found = connection.execute("SELECT summary FROM topic WHERE id = ?", (topic_id,)).fetchone()
    if found is None:
        raise TopicsError(msg("topics.topic_missing", topic_id=topic_id))
    return embedding_text(found[0], topic_messages(connection, topic_id))
