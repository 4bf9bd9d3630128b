"""Schema 5: the user's relevance labels, kept at the message level.

A labelled query is the text the user searched with its filters (chat, days) and when it
was first labelled. A label is a verdict on one message for that query: relevant
(evidence) or judged not relevant. Topics are never stored: a rebuild that cuts topics
differently keeps every message (and its id), so the labels still say the same thing;
`engine.evaluation.labels` maps them to the topics of whichever build is current.

No imports from the rest of the engine: `engine.store.database` imports this module while
it is itself being imported.
"""

from __future__ import annotations

import sqlite3

LABEL_DDL = (
    "CREATE TABLE IF NOT EXISTS label_query ("
    " id INTEGER PRIMARY KEY,"
    " query TEXT NOT NULL,"
    " filters TEXT NOT NULL DEFAULT '{}',"  # JSON {"chat_ids": [...], "since": "YYYY-MM-DD"|null, "until": …}
    " category TEXT NOT NULL DEFAULT 'all',"
    " external_id TEXT,"  # the qrels id it was imported with, kept for the next export
    " created_at REAL NOT NULL,"
    " updated_at REAL NOT NULL,"
    " UNIQUE (query, filters))",
    "CREATE TABLE IF NOT EXISTS label_message ("
    " query_id INTEGER NOT NULL REFERENCES label_query(id) ON DELETE CASCADE,"
    " message_id INTEGER NOT NULL REFERENCES message(id) ON DELETE CASCADE,"
    " relevant INTEGER NOT NULL,"  # 1: evidence for the query; 0: judged not relevant
    " labelled_at REAL NOT NULL,"
    " PRIMARY KEY (query_id, message_id)) WITHOUT ROWID",
    # Message deletions cascade through this; without it each would scan the table.
    "CREATE INDEX IF NOT EXISTS ix_label_message_message ON label_message (message_id)",
)


def labels_v5(connection: sqlite3.Connection, engine: object = None) -> None:
    """Migration to schema 5 (fresh stores run it too, after v1's create_all)."""
    del engine  # raw DDL: the label tables are not SQLModel models
    for statement in LABEL_DDL:
        connection.execute(statement)
