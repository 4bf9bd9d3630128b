"""Counts of what the store holds, for `flashback stats` and the window's status line."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from engine.store.database import connect, db_path, open_store
from engine.store.faults import plain_faults

_TABLES = ("source", "chat", "person", "message", "artifact", "topic")


@dataclass(frozen=True)
class StoreStats:
    sources: int
    chats: int
    people: int
    messages: int
    artifacts: int
    topics: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def store_stats(data_dir: Path) -> StoreStats:
    open_store(data_dir)  # creates/migrates an empty store on first use
    with plain_faults(data_dir, ""):  # a damaged page: the one sentence with what to do, not a bare sqlite3 error
        connection = connect(db_path(data_dir))
        try:
            counts = [connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in _TABLES]
        finally:
            connection.close()
    return StoreStats(*counts)
