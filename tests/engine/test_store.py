"""The store file: pragmas, schema version, forward migrations, clear errors."""

from __future__ import annotations

import sqlite3

import pytest

from engine.errors import StoreError
from engine.memory.vectors import store_checksum
from engine.store import database
from engine.store.database import SCHEMA_VERSION, db_path, open_engine


def test_new_store_has_schema_version_wal_and_fts(tmp_path):
    open_engine(tmp_path).dispose()
    conn = sqlite3.connect(db_path(tmp_path))
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"source", "chat", "person", "message", "artifact", "topic", "message_fts"} <= tables


def test_foreign_keys_are_enforced(tmp_path):
    open_engine(tmp_path).dispose()
    conn = database.connect(db_path(tmp_path))
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO artifact (message_id, kind) VALUES (999, 'photo')")


def test_store_from_a_newer_flashback_is_refused(tmp_path):
    open_engine(tmp_path).dispose()
    conn = sqlite3.connect(db_path(tmp_path))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer Flashback") as caught:
        open_engine(tmp_path)
    assert "более новой версией Flashback" in caught.value.render("ru")  # issue 22: a code, said in Russian


def test_a_file_that_is_not_a_store_says_so_in_russian(tmp_path):
    db_path(tmp_path).write_bytes(b"this is not SQLite at all, just text " * 200)
    with pytest.raises(StoreError, match="damaged or not a Flashback store: file is not a database") as caught:
        open_engine(tmp_path)
    assert caught.value.render("ru").endswith("не является хранилищем Flashback: файл — не база данных")


def test_forward_migration_runs_once(tmp_path, monkeypatch):
    open_engine(tmp_path).dispose()
    calls = []

    def add_note_table(connection, engine):
        calls.append(1)
        connection.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")

    monkeypatch.setattr(database, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(database.MIGRATIONS, SCHEMA_VERSION + 1, add_note_table)
    open_engine(tmp_path).dispose()
    open_engine(tmp_path).dispose()
    conn = sqlite3.connect(db_path(tmp_path))
    assert calls == [1] and conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1


def test_damaged_database_is_a_store_error(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    db_path(tmp_path).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="damaged"):
        open_engine(tmp_path)


def test_v1_store_migrates_to_v2_keeping_rows(tmp_path):
    open_engine(tmp_path).dispose()
    conn = sqlite3.connect(db_path(tmp_path))
    conn.execute("INSERT INTO chat (key, title, kind, format, message_count) VALUES ('k', 'Chat', 'other', 'jsonl', 0)")
    conn.execute("INSERT INTO topic (chat_id, summary, start_msg_id, end_msg_id, size_chars, message_count,"
                 " facts_extracted, is_consolidated, consolidation_checked, created_at) VALUES (1,'s',1,2,3,2,0,0,0,0)")
    for column in ("first_at", "last_at", "content_hash"):  # undo v2: what a v1 store looks like
        conn.execute(f"ALTER TABLE topic DROP COLUMN {column}")
    conn.execute("DROP TABLE vector_item")
    conn.execute("DROP TABLE embedding_cache")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()

    open_engine(tmp_path).dispose()
    conn = sqlite3.connect(db_path(tmp_path))
    columns = {row[1] for row in conn.execute("PRAGMA table_info(topic)")}
    assert {"first_at", "last_at", "content_hash"} <= columns
    assert conn.execute("SELECT summary FROM topic").fetchall() == [("s",)]
    assert conn.execute("SELECT count(*) FROM vector_item").fetchone() == (0,)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def _add_item(conn, kind="topic", model="m", entity=1) -> int:
    sql = "INSERT INTO vector_item (kind, entity_id, chunk, model_id, text_hash) VALUES (?, ?, 0, ?, 'h')"
    return conn.execute(sql, (kind, entity, model)).lastrowid


def test_vector_checksum_follows_every_insert_and_delete_even_a_reused_id(tmp_path):
    open_engine(tmp_path).dispose()
    conn = sqlite3.connect(db_path(tmp_path), isolation_level=None)
    empty = store_checksum(conn, "m", "topic")
    _add_item(conn, kind="person")
    _add_item(conn, model="other")
    first, second = _add_item(conn), _add_item(conn)
    two = store_checksum(conn, "m", "topic")
    assert two != empty and two.endswith(":2")
    conn.execute("DELETE FROM vector_item WHERE id = ?", (second,))
    reused = _add_item(conn)
    assert reused == second  # SQLite hands the deleted top id out again: same count, same ids
    assert store_checksum(conn, "m", "topic") not in (two, empty)
    conn.execute("UPDATE vector_item SET kind = 'artifact' WHERE id = ?", (first,))
    assert store_checksum(conn, "m", "topic").endswith(":1")
    assert store_checksum(conn, "m", "artifact").endswith(":1")


def test_v3_store_gets_the_vector_generation_with_its_items_counted(tmp_path):
    open_engine(tmp_path).dispose()
    conn = sqlite3.connect(db_path(tmp_path), isolation_level=None)
    for statement in ("DROP TRIGGER vector_item_added", "DROP TRIGGER vector_item_removed",
                      "DROP TRIGGER vector_item_moved", "DROP TABLE vector_generation"):
        conn.execute(statement)  # what a v3 store looks like
    for _ in range(3):
        _add_item(conn)
    conn.execute("PRAGMA user_version = 3")
    conn.close()

    open_engine(tmp_path).dispose()
    conn = sqlite3.connect(db_path(tmp_path), isolation_level=None)
    before = store_checksum(conn, "m", "topic")
    assert before.endswith(":3")
    _add_item(conn)
    assert store_checksum(conn, "m", "topic") != before and store_checksum(conn, "m", "topic").endswith(":4")
