"""Schema 3 (rerank_run): a v2 store made by this code migrates in place and keeps its data."""

from __future__ import annotations

import sqlite3

from engine.rerank.base import RerankResult, Selection
from engine.store.database import SCHEMA_VERSION, connect, db_path, fold_for_search, open_engine
from engine.topics import build_topics
from engine.traces import list_runs, save_run
from tests.engine.topics.conftest import BASE, Store, conversation

RUN_COLUMNS = ["id", "created_at", "query", "reranker", "model", "candidates_count", "selected_count",
               "tool_calls_count", "fallback", "duration_ms", "prompt_tokens", "completion_tokens", "cost",
               "settings", "candidates", "selected", "tool_calls", "timings_ms", "report", "trace"]


def _snapshot(connection: sqlite3.Connection) -> dict[str, list[tuple]]:
    return {table: connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            for table in ("chat", "person", "message", "topic", "source")}


def _as_v2(path) -> None:
    """Undo schema 3 on a store written by the current code: what a v2 store looks like."""
    connection = sqlite3.connect(path)
    connection.execute("DROP TABLE rerank_run")  # drops its index too
    connection.execute("PRAGMA user_version = 2")
    connection.commit()
    connection.close()


def test_v2_store_gains_rerank_run_and_keeps_everything(tmp_path):
    store = Store(tmp_path)
    store.add(conversation("Команда", BASE, [("Анна", "Привет, где отчёт?"), ("Борис", "Пришлю вечером.")]))
    build_topics(store.connection)
    before = _snapshot(store.connection)
    store.connection.close()
    _as_v2(db_path(store.data))

    open_engine(store.data).dispose()
    connection = connect(db_path(store.data))
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 3
    assert [row[1] for row in connection.execute("PRAGMA table_info(rerank_run)")] == RUN_COLUMNS
    indexes = {row[1] for row in connection.execute("PRAGMA index_list(rerank_run)")}
    assert "ix_rerank_run_created_at" in indexes
    assert _snapshot(connection) == before
    hits = connection.execute("SELECT rowid FROM message_fts WHERE message_fts MATCH ?",
                              (fold_for_search("отчёт"),)).fetchall()
    assert len(hits) == 1  # the full-text index came through too

    result = RerankResult("threshold", [Selection("topic", 1, "score 0.9")])
    run_id = save_run(connection, query="отчёт", reranker="threshold", settings={}, candidates=[], result=result,
                      timings_ms={"total": 3.0})
    assert [r.id for r in list_runs(connection)] == [run_id]
    connection.close()

    open_engine(store.data).dispose()  # opening again is a no-op that keeps the run
    connection = connect(db_path(store.data))
    assert [r.query for r in list_runs(connection)] == ["отчёт"]
    connection.close()


def test_fresh_store_has_the_table_once(tmp_path):
    open_engine(tmp_path).dispose()
    connection = connect(db_path(tmp_path))
    names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE name LIKE '%rerank_run%'")]
    assert sorted(names) == ["ix_rerank_run_created_at", "rerank_run"]
    connection.close()
