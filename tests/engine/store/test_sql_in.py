"""select_in / execute_in / in_chunks: any number of values, 500 per statement, none for none."""

from __future__ import annotations

import sqlite3

import pytest

from engine.store.sql import IN_CHUNK, execute_in, in_chunks, select_in


@pytest.fixture
def connection():
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, kind TEXT NOT NULL)")
    conn.executemany("INSERT INTO item VALUES (?, ?)", [(i, "a" if i % 2 else "b") for i in range(1, 1201)])
    yield conn
    conn.close()


@pytest.fixture
def statements(connection):
    """What SQLite is asked to run from here on, one entry per statement."""
    ran: list[str] = []
    connection.set_trace_callback(ran.append)
    yield ran
    connection.set_trace_callback(None)


def test_chunks_of_at_most_500_with_their_placeholders():
    assert list(in_chunks([])) == []
    exactly = list(in_chunks(list(range(IN_CHUNK))))
    assert len(exactly) == 1 and exactly[0][1] == ",".join("?" * 500)
    sizes = [(len(chunk), marks.count("?")) for chunk, marks in in_chunks(list(range(1001)))]
    assert sizes == [(500, 500), (500, 500), (1, 1)]


@pytest.mark.parametrize("count, runs", [(0, 0), (500, 1), (1001, 3)])
def test_select_in_returns_every_row_in_chunk_order(connection, statements, count, runs):
    ids = list(range(count, 0, -1))  # descending: rows come back chunk by chunk, not sorted overall
    rows = list(select_in(connection, "SELECT id FROM item WHERE kind = ? AND id IN ({ids}) ORDER BY id",
                          ids, ("a",)))
    expected = [i for start in range(0, count, 500) for i in sorted(ids[start:start + 500]) if i % 2]
    assert [r[0] for r in rows] == expected
    assert len(statements) == runs


def test_more_values_than_old_sqlite_allows_in_one_statement(connection):
    connection.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)  # SQLite before 3.32
    ids = list(range(1, 1201)) + [5000]
    with pytest.raises(sqlite3.OperationalError, match="too many SQL variables"):
        connection.execute(f"SELECT id FROM item WHERE id IN ({','.join('?' * len(ids))})", ids)
    assert len(list(select_in(connection, "SELECT id FROM item WHERE id IN ({ids})", ids))) == 1200


@pytest.mark.parametrize("count, runs", [(0, 0), (500, 1), (1001, 3)])
def test_execute_in_runs_every_chunk(connection, statements, count, runs):
    execute_in(connection, "DELETE FROM item WHERE kind = ? AND id IN ({ids})", list(range(1, count + 1)), ["b"])
    assert len(statements) == runs
    connection.set_trace_callback(None)
    left = connection.execute("SELECT count(*) FROM item WHERE kind = 'b'").fetchone()[0]
    assert left == 600 - count // 2


def test_braces_elsewhere_in_the_statement_are_left_alone(connection):
    rows = list(select_in(connection, "SELECT id, '{x}' FROM item WHERE id IN ({ids})", [3]))
    assert rows == [(3, "{x}")]
