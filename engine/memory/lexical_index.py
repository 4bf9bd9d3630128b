"""Keeping `topic_fts` (BM25 over each topic's whole text) in step with the topics.

A row holds the topic's stemmed terms (`engine.text.stemming`) in two columns: the
log (the days in words, "Author: text" lines) and the heading, the chat's title and the
topic's summary (`topic_search_texts`), so that search can weigh the heading apart (the
summary repeats words of the log when extractive; a title names a whole conversation).
Queries are stemmed the same way, so "painted" finds "painting" and "машину" finds
"машины". FTS5 cannot call a Python stemmer, hence terms are stored already stemmed,
separated by spaces, and unicode61 only splits them.

The table's definition doubles as the version of what it stores: a store whose `topic_fts`
was made otherwise (schema 2 created it over raw text, column `body`) has it dropped and
recreated here, and every topic is indexed again by the same call. Change `TOPIC_FTS_DDL`
(the column name) whenever what a row holds changes, and old stores re-index themselves.
"""

from __future__ import annotations

import sqlite3

from engine.memory.topic_documents import topic_search_texts
from engine.store.sql import execute_in, select_in
from engine.store.transaction import write_transaction
from engine.text.stemming import stem_text

# `heading_terms` was `summary_terms` before chat titles were indexed: the rename re-indexes old stores.
TOPIC_FTS_DDL = ("CREATE VIRTUAL TABLE topic_fts USING fts5(log_terms, heading_terms, "
                 "tokenize=\"unicode61 remove_diacritics 2\")")
BATCH_TOPICS = 1000


def topic_fts_is_current(connection: sqlite3.Connection) -> bool:
    row = connection.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'topic_fts'").fetchone()
    return row is not None and row[0] == TOPIC_FTS_DDL


def _ensure_table(connection: sqlite3.Connection) -> bool:
    """Recreate `topic_fts` when missing or of another definition (inside the caller's transaction)."""
    if topic_fts_is_current(connection):
        return False
    connection.execute("DROP TABLE IF EXISTS topic_fts")
    connection.execute(TOPIC_FTS_DDL)
    return True


def sync_topic_fts(connection: sqlite3.Connection, changed: list[int] = ()) -> int:
    """Drop rows of deleted topics and of `changed` ones, index every topic without a row; returns rows added.

    Topics' texts are read and stemmed with no transaction open (seconds on a big store:
    issue 22), then written `BATCH_TOPICS` per transaction, each topic's old row and its new
    one swapped in the same one. The caller holds the store's write lock (`StoreWriteLock`),
    so no other process changes the topics meanwhile."""
    with write_transaction(connection):
        _ensure_table(connection)
        connection.execute("DELETE FROM topic_fts WHERE rowid NOT IN (SELECT id FROM topic)")
    without_row = {r[0] for r in connection.execute(
        "SELECT id FROM topic WHERE id NOT IN (SELECT rowid FROM topic_fts)")}
    existing = {r[0] for r in select_in(connection, "SELECT id FROM topic WHERE id IN ({ids})", list(set(changed)))}
    targets = sorted(without_row | existing)
    for start in range(0, len(targets), BATCH_TOPICS):
        batch = targets[start:start + BATCH_TOPICS]
        texts = topic_search_texts(connection, batch)
        rows = [(t, stem_text(log), stem_text(summary)) for t, (log, summary) in texts.items()]
        with write_transaction(connection):
            execute_in(connection, "DELETE FROM topic_fts WHERE rowid IN ({ids})", batch)
            connection.executemany("INSERT INTO topic_fts (rowid, log_terms, heading_terms) VALUES (?, ?, ?)", rows)
    return len(targets)
