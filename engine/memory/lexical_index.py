"""Keeping `topic_fts` (BM25 over each topic's whole text) in step with the topics."""

from __future__ import annotations

import sqlite3

from engine.memory.topic_documents import topic_documents_for
from engine.store.database import fold_for_search

WHOLE_TOPIC = 10**9  # one window: the whole log


def sync_topic_fts(connection: sqlite3.Connection, changed: list[int] = ()) -> int:
    """Drop rows of deleted topics and of `changed` ones, index every topic without a row; returns rows added."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute("DELETE FROM topic_fts WHERE rowid NOT IN (SELECT id FROM topic)")
        for start in range(0, len(changed), 500):
            chunk = list(changed[start:start + 500])
            connection.execute(f"DELETE FROM topic_fts WHERE rowid IN ({','.join('?' * len(chunk))})", chunk)
        missing = [r[0] for r in connection.execute(
            "SELECT id FROM topic WHERE id NOT IN (SELECT rowid FROM topic_fts) ORDER BY id")]
        for start in range(0, len(missing), 1000):
            documents = topic_documents_for(connection, missing[start:start + 1000], WHOLE_TOPIC)
            connection.executemany("INSERT INTO topic_fts (rowid, body) VALUES (?, ?)",
                                   [(t, fold_for_search("\n".join(d))) for t, d in documents.items()])
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return len(missing)
