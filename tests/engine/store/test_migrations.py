"""Migrations run in one transaction and may run again (issue 22).

A store whose `user_version` was reset used to reopen as "damaged … table message_fts
already exists"; a step that failed left the steps before it committed and half of itself
applied. Both are driven here through `open_engine` on real stores, with no patching: the
failure is a real one (an object in the store that a migration cannot index).
"""

from __future__ import annotations

import sqlite3

import pytest

from engine.embeddings.base import EmbeddingConfig, make_embedder
from engine.errors import StoreError
from engine.memory.build import build_memory
from engine.store.database import SCHEMA_VERSION, connect, db_path, fold_for_search, open_engine
from tests.engine.topics.conftest import BASE, Store, conversation

TABLES = ("chat", "person", "message", "topic", "source", "vector_item", "embedding_cache", "vector_generation")


def _snapshot(connection: sqlite3.Connection) -> dict[str, list[tuple]]:
    return {table: connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall() for table in TABLES}


def _schema(connection: sqlite3.Connection) -> list[tuple]:
    return connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()


def _version(path) -> int:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("PRAGMA user_version").fetchone()[0]
    finally:
        connection.close()


@pytest.fixture
def built(tmp_path):
    """A store with messages, topics and vectors (the built-in embedder), its connection closed."""
    store = Store(tmp_path)
    store.add(conversation("Команда", BASE, [("Анна", "Привет, где отчёт по проекту?"),
                                             ("Борис", "Пришлю вечером, с графиками."),
                                             ("Анна", "Спасибо, жду отчёт.")]))
    build_memory(store.data, store.connection, make_embedder(EmbeddingConfig()))
    store.connection.close()
    return store


def test_a_store_whose_version_was_reset_reopens_with_its_data(built):
    path = db_path(built.data)
    connection = connect(path)
    before, schema = _snapshot(connection), _schema(connection)
    assert before["vector_item"] and before["vector_generation"]  # the build left vectors to keep
    connection.execute("PRAGMA user_version=0")
    connection.close()

    open_engine(built.data).dispose()  # was StoreError "damaged … table message_fts already exists"

    connection = connect(path)
    try:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert _snapshot(connection) == before and _schema(connection) == schema
        hits = connection.execute("SELECT rowid FROM message_fts WHERE message_fts MATCH ?",
                                  (fold_for_search("отчёт"),)).fetchall()
        assert len(hits) == 2  # the full-text index is the one it had
    finally:
        connection.close()


def test_a_migration_that_fails_half_way_leaves_the_store_at_its_old_version(built):
    """A v3 store (no vector_generation, no label tables) where schema 5 cannot be made: a
    view named label_message makes `CREATE TABLE IF NOT EXISTS label_message` a no-op and the
    index on it fail. Schema 4 had succeeded and schema 5 had made label_query by then: all
    of it is undone, the store is v3 as it was."""
    path = db_path(built.data)
    connection = connect(path)
    for statement in ("DROP TRIGGER vector_item_added", "DROP TRIGGER vector_item_removed",
                      "DROP TRIGGER vector_item_moved", "DROP TABLE vector_generation",
                      "DROP TABLE label_message", "DROP TABLE label_query",
                      "CREATE VIEW label_message AS SELECT 1 AS message_id", "PRAGMA user_version=3"):
        connection.execute(statement)
    data = _snapshot_without_generation(connection)
    schema = _schema(connection)
    connection.close()

    with pytest.raises(StoreError):
        open_engine(built.data)

    connection = connect(path)
    try:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == 3
        assert _schema(connection) == schema  # no vector_generation, no triggers, no label_query
        assert _snapshot_without_generation(connection) == data
    finally:
        connection.close()

    # Once what blocked it is gone, the same open migrates the store the whole way.
    connection = connect(path)
    connection.execute("DROP VIEW label_message")
    connection.close()
    open_engine(built.data).dispose()
    assert _version(path) == SCHEMA_VERSION
    connection = connect(path)
    try:
        generations = connection.execute("SELECT kind, items FROM vector_generation ORDER BY kind").fetchall()
        counts = connection.execute("SELECT kind, count(*) FROM vector_item GROUP BY kind ORDER BY kind").fetchall()
        assert generations == counts
    finally:
        connection.close()


def _snapshot_without_generation(connection: sqlite3.Connection) -> dict[str, list[tuple]]:
    return {table: connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in TABLES if table != "vector_generation"}
