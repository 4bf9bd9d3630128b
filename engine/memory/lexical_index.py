"""Keeping `topic_fts` (BM25 over each topic's whole text) in step with the topics.

A row holds the topic's stemmed terms (`engine.text.stemming`) in two columns: the
log (the days in words, "Author: text" lines) and the heading, the chat's title and the
topic's summary (`topic_search_texts`), so that search can weigh the heading apart (the
summary repeats words of the log when extractive; a title names a whole conversation).
Queries are stemmed the same way, so "painted" finds "painting" and "машину" finds
"машины". FTS5 cannot call a Python stemmer, hence terms are stored already stemmed,
separated by spaces, and unicode61 only splits them.

The table is contentless (issue 26): FTS5 kept a copy of every row's terms beside its index,
237 MB of a 1M-message store, read by nothing (search reads the index; BM25 needs only the
token counts FTS5 keeps anyway). Taking a row out of a contentless table means handing FTS5
the very terms it was given, so those are kept in `topic_terms`, zlib-packed (2.5× smaller);
`delete_topic_rows` is the one way rows leave.

The table's definition doubles as the version of what it stores: a store whose `topic_fts`
was made otherwise (schema 2 created it over raw text, column `body`; a store built before
issue 26 kept the terms in the table) has it dropped and recreated by the next build, and
every topic is indexed again by the same call. Until then search reads the old one
(`topic_fts_is_stemmed`). Change `TOPIC_FTS_DDL` (the column name) whenever what a row
holds changes, and old stores re-index themselves.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Callable, Sequence

from engine.memory.topic_documents import topic_search_texts
from engine.store.sql import execute_in, select_in
from engine.store.transaction import write_transaction
from engine.text.stemming import stem_text

# `heading_terms` was `summary_terms` before chat titles were indexed: the rename re-indexes old stores.
TOPIC_FTS_DDL = ("CREATE VIRTUAL TABLE topic_fts USING fts5(log_terms, heading_terms, content='', "
                 "tokenize=\"unicode61 remove_diacritics 2\")")
# The same terms with FTS5 keeping a copy of them (before issue 26): searched alike until rebuilt.
_COPYING_DDL = ("CREATE VIRTUAL TABLE topic_fts USING fts5(log_terms, heading_terms, "
                "tokenize=\"unicode61 remove_diacritics 2\")")
TERMS_DDL = "CREATE TABLE topic_terms (topic_id INTEGER PRIMARY KEY, packed BLOB NOT NULL)"
BATCH_TOPICS = 1000
_PACK_LEVEL = 1  # zlib's fastest: 2.44× against 2.53× at level 6, on the 1M-message store's terms


def _definition(connection: sqlite3.Connection, name: str) -> str | None:
    row = connection.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
    return row[0] if row is not None else None


def topic_fts_is_current(connection: sqlite3.Connection) -> bool:
    """`topic_fts` is the one this build keeps, with the terms its rows were given."""
    return _definition(connection, "topic_fts") == TOPIC_FTS_DDL and _definition(connection, "topic_terms") == TERMS_DDL


def topic_fts_is_stemmed(connection: sqlite3.Connection) -> bool:
    """`topic_fts` holds stemmed terms in (log, heading) columns, as search expects: the current
    table, or the one before issue 26, which only stored them twice."""
    return _definition(connection, "topic_fts") in (TOPIC_FTS_DDL, _COPYING_DDL)


def _ensure_table(connection: sqlite3.Connection) -> bool:
    """Recreate `topic_fts` and `topic_terms` when missing or of another definition (in the caller's transaction)."""
    if topic_fts_is_current(connection):
        return False
    connection.execute("DROP TABLE IF EXISTS topic_fts")
    connection.execute("DROP TABLE IF EXISTS topic_terms")
    connection.execute(TOPIC_FTS_DDL)
    connection.execute(TERMS_DDL)
    return True


def _pack(log_terms: str, heading_terms: str) -> bytes:
    return zlib.compress(f"{log_terms}\0{heading_terms}".encode(), _PACK_LEVEL)


def _unpack(packed: bytes) -> tuple[str, str]:
    log_terms, _, heading_terms = zlib.decompress(packed).decode().partition("\0")
    return log_terms, heading_terms


def delete_topic_rows(connection: sqlite3.Connection, topic_ids: list[int]) -> int:
    """Take the topics' rows out of `topic_fts` (inside the caller's transaction); returns how many had one."""
    if not topic_ids:
        return 0
    if not topic_fts_is_current(connection):
        definition = _definition(connection, "topic_fts")
        if definition is not None and definition != TOPIC_FTS_DDL:  # an older table keeps its terms itself
            execute_in(connection, "DELETE FROM topic_fts WHERE rowid IN ({ids})", topic_ids)
        return 0  # (contentless without its terms: the next build makes both again)
    rows = list(select_in(connection, "SELECT topic_id, packed FROM topic_terms WHERE topic_id IN ({ids})", topic_ids))
    connection.executemany(
        "INSERT INTO topic_fts (topic_fts, rowid, log_terms, heading_terms) VALUES ('delete', ?, ?, ?)",
        [(topic_id, *_unpack(packed)) for topic_id, packed in rows])
    execute_in(connection, "DELETE FROM topic_terms WHERE topic_id IN ({ids})", [r[0] for r in rows])
    return len(rows)


def clear_topic_fts(connection: sqlite3.Connection) -> None:
    """Every row out (a benchmark re-indexing its own way); the next `sync_topic_fts` indexes all again."""
    with write_transaction(connection):
        if topic_fts_is_current(connection):
            connection.execute("INSERT INTO topic_fts (topic_fts) VALUES ('delete-all')")
            connection.execute("DELETE FROM topic_terms")
        else:
            connection.execute("DROP TABLE IF EXISTS topic_fts")


def sync_topic_fts(connection: sqlite3.Connection, changed: Sequence[int] = (),
                   on_progress: Callable[[int, int], None] | None = None) -> int:
    """Drop rows of deleted topics and of `changed` ones, index every topic without a row; returns rows added.

    Topics' texts are read and stemmed with no transaction open (seconds on a big store:
    issue 22), then written `BATCH_TOPICS` per transaction, each topic's old row and its new
    one swapped in the same one. The caller holds the store's write lock (`StoreWriteLock`),
    so no other process changes the topics meanwhile."""
    with write_transaction(connection):
        _ensure_table(connection)
        gone = [r[0] for r in connection.execute(
            "SELECT topic_id FROM topic_terms WHERE topic_id NOT IN (SELECT id FROM topic)")]
        delete_topic_rows(connection, gone)
    without_row = {r[0] for r in connection.execute(
        "SELECT id FROM topic WHERE id NOT IN (SELECT topic_id FROM topic_terms)")}
    existing = {r[0] for r in select_in(connection, "SELECT id FROM topic WHERE id IN ({ids})", list(set(changed)))}
    targets = sorted(without_row | existing)
    for start in range(0, len(targets), BATCH_TOPICS):
        batch = targets[start:start + BATCH_TOPICS]
        texts = topic_search_texts(connection, batch)
        rows = [(t, stem_text(log), stem_text(summary)) for t, (log, summary) in texts.items()]
        packed = [(t, _pack(log, heading)) for t, log, heading in rows]
        with write_transaction(connection):
            delete_topic_rows(connection, batch)
            connection.executemany("INSERT INTO topic_fts (rowid, log_terms, heading_terms) VALUES (?, ?, ?)", rows)
            connection.executemany("INSERT INTO topic_terms (topic_id, packed) VALUES (?, ?)", packed)
        if on_progress:  # re-indexing a store built before issue 26: 30 s at 1M messages
            on_progress(start + len(batch), len(targets))
    return len(targets)
