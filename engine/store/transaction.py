"""The one way the engine writes: a `BEGIN IMMEDIATE` transaction that commits or rolls back.

    with write_transaction(connection):
        connection.execute(...)

IMMEDIATE takes SQLite's write lock at the start, so a second writer waits (busy timeout)
before doing any work rather than failing at its first write. Any exception, a cancel
included, rolls back and propagates. When SQLite has already rolled back on its own (a
full disk, an interrupt), there is nothing to roll back, and the original error is what
the caller hears, not "cannot rollback - no transaction is active".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def write_transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield connection
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
