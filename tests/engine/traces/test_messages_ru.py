"""Issue 22: the run history's errors are codes the window says in Russian."""

from __future__ import annotations

import sqlite3

import pytest

from engine.traces import TracesError, get_run, list_runs
from engine.traces.runs import delete_runs
from tests.engine.russian_text import assert_russian


def test_a_store_without_run_history_is_said_in_russian(tmp_path):
    connection = sqlite3.connect(tmp_path / "old.sqlite", isolation_level=None)
    for read in (lambda: list_runs(connection), lambda: get_run(connection, 7)):
        with pytest.raises(TracesError) as caught:
            read()
        assert_russian(caught.value.render("ru"))
    with pytest.raises(TracesError) as caught:
        list_runs(connection)
    assert str(caught.value) == ("Could not read the run history: this store predates run history; open it with "
                                 "Flashback once to upgrade it.")
    assert caught.value.render("ru").startswith("Не удалось прочитать историю запусков: ")


def test_a_locked_store_is_said_in_russian(tmp_path):
    path = tmp_path / "store.sqlite"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("CREATE TABLE rerank_run (id INTEGER PRIMARY KEY, created_at REAL)")
    writer.execute("BEGIN EXCLUSIVE")
    try:
        reader = sqlite3.connect(path, isolation_level=None, timeout=0.05)
        with pytest.raises(TracesError) as caught:
            delete_runs(reader)
    finally:
        writer.execute("ROLLBACK")
    assert str(caught.value) == "Could not delete old runs: database is locked"
    assert caught.value.render("ru") == \
        "Не удалось удалить старые запуски: хранилище занято: в него пишет другой процесс"
