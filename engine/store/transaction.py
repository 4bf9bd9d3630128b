"""The one way the engine writes: a `BEGIN IMMEDIATE` transaction that commits or rolls back.

    with write_transaction(connection):
        connection.execute(...)

IMMEDIATE takes SQLite's write lock at the start, so a second writer waits (busy timeout)
before doing any work rather than failing at its first write. Any exception, a cancel
included, rolls back and propagates. When SQLite has already rolled back on its own (a
full disk, an interrupt), there is nothing to roll back, and the original error is what
the caller hears, not "cannot rollback - no transaction is active".

Every other process that writes the store (a search recording its run waits 1 s) waits for
as long as a transaction is open, so a transaction only writes: slow work (embedding,
stemming, an LLM) happens before it. `observe_holds` lets a benchmark see each hold
(bench/write_lock_hold.py).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

HoldObserver = Callable[[float], None]  # seconds one write transaction held the write lock
_observers: list[HoldObserver] = []


@contextmanager
def observe_holds(observer: HoldObserver) -> Iterator[None]:
    """Call `observer` after every write transaction in this process (any thread) ends, with
    how long it held SQLite's write lock, until the block ends. It runs on the writer's
    thread, inside the caller's frames (so it can tell who wrote)."""
    _observers.append(observer)
    try:
        yield
    finally:
        _observers.remove(observer)


@contextmanager
def write_transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    connection.execute("BEGIN IMMEDIATE")
    began = time.perf_counter()
    try:
        yield connection
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        _held(began)
        raise
    connection.execute("COMMIT")
    _held(began)


def _held(began: float) -> None:
    if _observers:
        held = time.perf_counter() - began
        for observer in list(_observers):
            observer(held)
