"""BM25 over the store's FTS5 message index, lifted to topics.

FTS5 ranks messages; a topic scores the sum of its best few messages, so one that
mentions the query's words several times outranks one that mentions them once, without
letting a long topic win by sheer length. Very common words are left out of the query:
they cost time (FTS5 must score every message holding them) and carry no signal.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict

from engine.store.database import fold_for_search

_WORD = re.compile(r"\w+", re.UNICODE)
MESSAGES_SCANNED = 2000  # best-matching messages read per query
BEST_MESSAGES_PER_TOPIC = 3
COMMON_WORD_SHARE = 0.10  # a word in more than this share of messages is not searched for


def query_terms(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for word in _WORD.findall(fold_for_search(text).lower()):
        if len(word) > 1 or word.isdigit():
            seen.setdefault(word, None)
    return list(seen)


def _document_frequencies(connection: sqlite3.Connection, terms: list[str]) -> dict[str, int]:
    connection.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.message_vocab USING fts5vocab(main, message_fts, 'row')")
    marks = ",".join("?" * len(terms))
    rows = connection.execute(f"SELECT term, doc FROM temp.message_vocab WHERE term IN ({marks})", terms)
    return dict(rows.fetchall())


def _total_indexed(connection: sqlite3.Connection) -> int:
    return connection.execute("SELECT count(*) FROM message WHERE is_service = 0").fetchone()[0]


def topic_bm25(connection: sqlite3.Connection, query: str, limit: int = 50,
               chat_ids: list[int] | None = None) -> list[tuple[int, float]]:
    """(topic id, score) best first; [] when no word of the query is in any message."""
    terms = query_terms(query)
    if not terms:
        return []
    frequencies = _document_frequencies(connection, terms)
    total = max(1, _total_indexed(connection))
    # Terms in no message are dropped (nothing to match); common ones too, unless nothing else is left.
    present = [t for t in terms if frequencies.get(t, 0) > 0]
    rare = [t for t in present if frequencies[t] <= COMMON_WORD_SHARE * total] or present
    if not rare:
        return []
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in rare)
    sql = ("SELECT m.topic_id, -bm25(message_fts) FROM message_fts JOIN message m ON m.id = message_fts.rowid "
           "WHERE message_fts MATCH ? AND m.topic_id IS NOT NULL")
    params: list[object] = [match]
    if chat_ids:
        sql += f" AND m.chat_id IN ({','.join('?' * len(chat_ids))})"
        params.extend(chat_ids)
    sql += " ORDER BY rank LIMIT ?"
    params.append(MESSAGES_SCANNED)
    per_topic: dict[int, list[float]] = defaultdict(list)
    for topic_id, score in connection.execute(sql, params):
        if len(per_topic[topic_id]) < BEST_MESSAGES_PER_TOPIC:
            per_topic[topic_id].append(score)
    ranked = sorted(((t, sum(s)) for t, s in per_topic.items()), key=lambda item: -item[1])
    return ranked[:limit]
