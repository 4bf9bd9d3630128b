"""Topic texts to embed, read from the store in batches (one query per 500 topics, not one per topic)."""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from engine.memory.documents import PassageShape, date_words, topic_documents
from engine.store.sql import in_chunks
from engine.topics.content import format_log
from engine.topics.sessions import COLUMNS, MessageRow
from engine.topics.summary import author_label


def topics_without_items(connection: sqlite3.Connection, model_id: str) -> list[int]:
    rows = connection.execute(
        "SELECT t.id FROM topic t WHERE NOT EXISTS (SELECT 1 FROM vector_item v "
        "WHERE v.model_id = ? AND v.kind = 'topic' AND v.entity_id = t.id) ORDER BY t.id", (model_id,))
    return [r[0] for r in rows]


def topic_documents_for(connection: sqlite3.Connection, topic_ids: list[int],
                        chunk_chars: int | PassageShape) -> dict[int, list[str]]:
    """topic id → its embedded texts, for topics that exist: windows of `chunk_chars` of the
    timestamped log, each under the summary (the lexical built-in embedder and API models),
    or a sentence model's short passages when given a `PassageShape`."""
    summaries: dict[int, str] = {}
    lines: dict[int, list[str]] = defaultdict(list)
    passages = isinstance(chunk_chars, PassageShape)
    for chunk, marks in in_chunks(topic_ids):
        summaries.update(connection.execute(f"SELECT id, summary FROM topic WHERE id IN ({marks})", chunk).fetchall())
        rows = connection.execute(f"SELECT topic_id, {COLUMNS} FROM message WHERE topic_id IN ({marks}) "
                                  "ORDER BY topic_id, sent_at, id", chunk)
        for topic_id, *columns in rows:
            row = MessageRow(*columns)
            # A sentence model gains nothing from timestamps but pays a pass over their tokens.
            lines[topic_id].append(f"{author_label(row)}: {row.text}" if passages else format_log([row]))
    if isinstance(chunk_chars, PassageShape):
        return {t: chunk_chars.documents(summaries[t], lines.get(t, [])) for t in topic_ids if t in summaries}
    return {t: topic_documents(summaries[t], lines.get(t, []), chunk_chars) for t in topic_ids if t in summaries}


def topic_search_texts(connection: sqlite3.Connection, topic_ids: list[int]) -> dict[int, tuple[str, str]]:
    """topic id → (log, heading): what BM25 indexes. The log is the days in words (`date_words`)
    and one "Author: text" line per message. No per-line timestamps: forty copies of
    "2023 05 08 13" would only lengthen the topic and match numbers in questions by accident.
    The heading is the chat's title and the topic's summary: a ChatGPT conversation's title
    ("Weeknight pasta") names its subject, and a group's title often does too."""
    out: dict[int, tuple[str, str]] = {}
    for chunk, marks in in_chunks(topic_ids):
        summaries = {topic_id: f"{title}\n{summary}" for topic_id, title, summary in connection.execute(
            f"SELECT t.id, COALESCE(c.title, ''), t.summary FROM topic t LEFT JOIN chat c ON c.id = t.chat_id "
            f"WHERE t.id IN ({marks})", chunk)}
        lines: dict[int, list[str]] = defaultdict(list)
        times: dict[int, list[float]] = defaultdict(list)
        rows = connection.execute(f"SELECT topic_id, {COLUMNS} FROM message WHERE topic_id IN ({marks}) "
                                  "ORDER BY topic_id, sent_at, id", chunk)
        for topic_id, *columns in rows:
            row = MessageRow(*columns)
            lines[topic_id].append(f"{author_label(row)}: {row.text}")
            times[topic_id].append(row.sent_at)
        for topic_id in chunk:
            if topic_id in summaries:
                out[topic_id] = ("\n".join([date_words(times[topic_id]), *lines[topic_id]]), summaries[topic_id])
    return out
