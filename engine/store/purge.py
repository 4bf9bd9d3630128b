"""The purge a forget owes: its text out of every file of the store, even if the process dies.

A deleted row's words stay on disk in three places after its transaction commits: the
full-text indexes' old segments (FTS5 drops a deleted document's terms only when its
segments merge; the delete itself writes the terms again, as tombstones), the write-ahead
log's older frames, and the main file's pages until a checkpoint overwrites them. So a
forget records `owed_purge` in the same transaction as its delete, and the table goes only
once the full-text tables are merged (`optimize`) and the log is checkpointed and truncated;
`PRAGMA secure_delete` zeroes whatever the delete and the merge free. The store is vacuumed
after that, for its size (a vacuum the disk has no room for leaves no text behind).

Killed before that, the next process that opens the store finishes it before anything else
(`open_store` calls `finish_owed_purge`), and `flashback check` reports and finishes one that
is still owed. A reader holding an old snapshot keeps the log from being truncated: the
purge is then `READER`, the table stays, and the next opener after that reader finishes.
"""

from __future__ import annotations

import sqlite3
import time
from enum import Enum
from pathlib import Path

from engine.store.lock import StoreWriteLock, WriterBusy, read_only_store
from engine.store.transaction import write_transaction

OWED_TABLE = "owed_purge"
_OWED_DDL = f"CREATE TABLE IF NOT EXISTS {OWED_TABLE} (id INTEGER PRIMARY KEY, since REAL NOT NULL)"
FTS_TABLES = ("message_fts", "topic_fts")
_OPEN_READER_WAIT_MS = 1000  # an opener waits this long for a reader; a forget waits the store's busy timeout


class PurgeState(Enum):
    DONE = "done"  # nothing of the deleted text is left in the store's files
    READER = "reader"  # another process reads an older snapshot: the log could not be emptied yet


def owe_purge(connection: sqlite3.Connection) -> None:
    """Record a purge as owed; call inside the write transaction that deletes."""
    connection.execute(_OWED_DDL)
    connection.execute(f"INSERT INTO {OWED_TABLE} (since) VALUES (?)", (time.time(),))


def purge_owed(connection: sqlite3.Connection) -> bool:
    """Whether a forget's purge is still owed (a store no forget ever touched has no table)."""
    if connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                          (OWED_TABLE,)).fetchone() is None:
        return False
    return connection.execute(f"SELECT 1 FROM {OWED_TABLE} LIMIT 1").fetchone() is not None


def purge(connection: sqlite3.Connection) -> tuple[PurgeState, bool]:
    """Merge the full-text indexes and empty the log: from then on no file holds the deleted text
    (secure_delete zeroed every freed page and cell, the checkpoint copied those pages over the
    old ones), so what is owed is cleared; then vacuum, for the size. Returns the state and
    whether the store was vacuumed (False: the disk had no room). The caller holds the write lock."""
    connection.execute("PRAGMA secure_delete=ON")
    for table in FTS_TABLES:
        with write_transaction(connection):
            connection.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
    if not _log_emptied(connection):
        return PurgeState.READER, False
    if purge_owed(connection):
        with write_transaction(connection):  # the table goes too: the store is left as it was before any forget
            connection.execute(f"DROP TABLE {OWED_TABLE}")
    try:
        connection.execute("VACUUM")
    except sqlite3.OperationalError as exc:
        if "full" not in str(exc).lower():
            raise
        return PurgeState.DONE, False
    _log_emptied(connection)  # the copy holds no deleted text: a reader arriving meanwhile only delays the size
    return PurgeState.DONE, True


def _log_emptied(connection: sqlite3.Connection) -> bool:
    """Copy the log into the store and truncate it; False when a reader of an older snapshot
    kept it (SQLite waits for readers for the connection's busy timeout first)."""
    busy, _log, _copied = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return busy == 0


def finish_owed_purge(data_dir: Path, connection: sqlite3.Connection) -> PurgeState | None:
    """At open: finish a purge a killed forget left owed. None when none is owed, or it cannot be
    finished now (a read-only store, another writer at work: the next opener or `check` does);
    otherwise the state reached."""
    if not purge_owed(connection) or read_only_store(data_dir) is not None:
        return None
    try:
        with StoreWriteLock(data_dir, "forget", wait=False):
            if not purge_owed(connection):  # another opener finished it meanwhile
                return None
            connection.execute(f"PRAGMA busy_timeout={_OPEN_READER_WAIT_MS}")
            return purge(connection)[0]
    except WriterBusy:
        return None
    except sqlite3.OperationalError:  # a full disk, a locked store: still owed, and `check` says why
        return None


def store_bytes(data_dir: Path, file_name: str) -> int:
    """The store's size on disk: its file and its write-ahead log."""
    path = Path(data_dir) / file_name
    return sum(item.stat().st_size for item in (path, path.with_name(path.name + "-wal")) if item.exists())
