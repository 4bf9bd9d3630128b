"""`… IN (?, ?, …)` over a list of any length: one statement per 500 values.

SQLite limits the host parameters of one statement (999 on builds before 3.32), so a list
of ids is sent in chunks. Write the statement once with `{ids}` where the placeholders go,
the other parameters first:

    for item_id, vector in select_in(connection,
            "SELECT id, vector FROM item WHERE model_id = ? AND id IN ({ids})", ids, (model,)):
        ...

An empty list runs no statement at all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

IN_CHUNK = 500  # values per statement: well under the 999 host parameters of old SQLite builds
IDS = "{ids}"  # where the placeholders go in a statement (replaced, not str.format: SQL may hold braces)

T = TypeVar("T")


def in_chunks(values: Sequence[T], size: int = IN_CHUNK) -> Iterator[tuple[Sequence[T], str]]:
    """Each run of at most `size` values with its placeholders ("?,?,?"), for a caller that
    runs several statements per chunk or works chunk by chunk."""
    for start in range(0, len(values), size):
        chunk = values[start:start + size]
        yield chunk, ",".join("?" * len(chunk))


def select_in(connection: sqlite3.Connection, sql: str, values: Sequence[Any],
              params: Iterable[Any] = ()) -> Iterator[tuple]:
    """The rows of `sql` for every chunk of `values`, in chunk order; `params` bind before them."""
    before = list(params)
    for chunk, marks in in_chunks(values):
        yield from connection.execute(sql.replace(IDS, marks), [*before, *chunk])


def execute_in(connection: sqlite3.Connection, sql: str, values: Sequence[Any], params: Iterable[Any] = ()) -> None:
    """Run a statement that returns nothing (DELETE, UPDATE) for every chunk of `values`."""
    before = list(params)
    for chunk, marks in in_chunks(values):
        connection.execute(sql.replace(IDS, marks), [*before, *chunk])
