"""write_transaction: commit, roll back on any error, and never hide the error that caused it."""

from __future__ import annotations

import sqlite3
import time

import pytest

from engine.store.transaction import write_transaction


@pytest.fixture
def connection(tmp_path):
    conn = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None)
    conn.execute("CREATE TABLE t (x INTEGER)")
    yield conn
    conn.close()


def count(conn) -> int:
    return conn.execute("SELECT count(*) FROM t").fetchone()[0]


def test_commits_on_success_and_rolls_back_on_any_error(connection):
    with write_transaction(connection):
        connection.execute("INSERT INTO t VALUES (1)")
    assert count(connection) == 1 and not connection.in_transaction
    with pytest.raises(KeyboardInterrupt), write_transaction(connection):  # a cancel is BaseException too
        connection.execute("INSERT INTO t VALUES (2)")
        raise KeyboardInterrupt
    assert count(connection) == 1 and not connection.in_transaction


def test_the_original_error_survives_a_rollback_sqlite_already_did(connection):
    with pytest.raises(ValueError, match="the cause"), write_transaction(connection):
        connection.execute("INSERT INTO t VALUES (3)")
        connection.execute("ROLLBACK")  # as SQLite does itself on a full disk
        raise ValueError("the cause")
    assert count(connection) == 0


def test_a_second_writer_waits_instead_of_failing_midway(tmp_path, connection):
    other = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None, timeout=0.05)
    try:
        with write_transaction(connection):
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")  # refused at BEGIN, before it did any work
    finally:
        other.close()


def test_observers_hear_how_long_each_transaction_held_the_lock(connection):
    from engine.store.transaction import observe_holds

    holds: list[float] = []
    with observe_holds(holds.append):
        with write_transaction(connection):
            connection.execute("INSERT INTO t VALUES (4)")
            time.sleep(0.05)
        with pytest.raises(ValueError), write_transaction(connection):
            raise ValueError("rolled back: held all the same")
    with write_transaction(connection):  # after the block: no longer heard
        connection.execute("INSERT INTO t VALUES (5)")
    assert len(holds) == 2 and holds[0] >= 0.05 and 0 <= holds[1] < holds[0]
