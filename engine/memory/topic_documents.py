"""Topic texts to embed, read from the store in batches (one query per 500 topics, not one per topic)."""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from engine.memory.documents import topic_documents
from engine.topics.content import format_log
from engine.topics.sessions import COLUMNS, MessageRow


def topics_without_items(connection: sqlite3.Connection, model_id: str) -> list[int]:
    rows = connection.execute(
        "SELECT t.id FROM topic t WHERE NOT EXISTS (SELECT 1 FROM vector_item v "
        "WHERE v.model_id = ? AND v.kind = 'topic' AND v.entity_id = t.id) ORDER BY t.id", (model_id,))
    return [r[0] for r in rows]


def topic_documents_for(connection: sqlite3.Connection, topic_ids: list[int],
                        chunk_chars: int) -> dict[int, list[str]]:
    """topic id → its embedded texts (one per window of the log), for topics that exist."""
    summaries: dict[int, str] = {}
    lines: dict[int, list[str]] = defaultdict(list)
    for start in range(0, len(topic_ids), 500):
        chunk = topic_ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        summaries.update(connection.execute(f"SELECT id, summary FROM topic WHERE id IN ({marks})", chunk).fetchall())
        rows = connection.execute(f"SELECT topic_id, {COLUMNS} FROM message WHERE topic_id IN ({marks}) "
                                  "ORDER BY topic_id, sent_at, id", chunk)
        for topic_id, *columns in rows:
            lines[topic_id].append(format_log([MessageRow(*columns)]))
    return {t: topic_documents(summaries[t], lines.get(t, []), chunk_chars) for t in topic_ids if t in summaries}
