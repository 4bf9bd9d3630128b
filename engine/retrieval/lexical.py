"""BM25 over whole topics (`topic_fts`, kept by the build), for hybrid retrieval.

Very common words are left out of the query: they cost time (FTS5 scores every topic
holding them) and carry no signal; if only common words remain, they are used.
"""

from __future__ import annotations

import re
import sqlite3

from engine.store.database import fold_for_search

_WORD = re.compile(r"\w+", re.UNICODE)
COMMON_WORD_SHARE = 0.25  # a word in more than this share of topics is not searched for


def query_terms(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for word in _WORD.findall(fold_for_search(text).lower()):
        if len(word) > 1 or word.isdigit():
            seen.setdefault(word, None)
    return list(seen)


def _document_frequencies(connection: sqlite3.Connection, terms: list[str]) -> dict[str, int]:
    connection.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.topic_vocab USING fts5vocab(main, topic_fts, 'row')")
    marks = ",".join("?" * len(terms))
    return dict(connection.execute(f"SELECT term, doc FROM temp.topic_vocab WHERE term IN ({marks})", terms))


def topic_bm25(connection: sqlite3.Connection, query: str, limit: int = 50,
               chat_ids: list[int] | None = None) -> list[tuple[int, float]]:
    """(topic id, BM25 score; higher is better) best first; [] when no query word is in any topic."""
    terms = query_terms(query)
    if not terms:
        return []
    frequencies = _document_frequencies(connection, terms)
    total = max(1, connection.execute("SELECT count(*) FROM topic").fetchone()[0])
    present = [t for t in terms if frequencies.get(t, 0) > 0]
    rare = [t for t in present if frequencies[t] <= COMMON_WORD_SHARE * total] or present
    if not rare:
        return []
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in rare)
    sql = "SELECT f.rowid, -bm25(topic_fts) FROM topic_fts f"
    params: list[object] = [match]
    where = " WHERE topic_fts MATCH ?"
    if chat_ids:
        sql += " JOIN topic t ON t.id = f.rowid"
        where += f" AND t.chat_id IN ({','.join('?' * len(chat_ids))})"
        params.extend(chat_ids)
    params.append(limit)
    return connection.execute(sql + where + " ORDER BY bm25(topic_fts) LIMIT ?", params).fetchall()
