"""Faults of the disk and the store, told in one sentence each: what happened, what to do.

SQLite reports a full disk, a read-only folder or a damaged file as `sqlite3.Error`s whose
words mean little to a person, and a full disk used to surface as "cannot rollback - no
transaction is active" (SQLite had already rolled back; the ROLLBACK that followed failed
and hid the cause). `plain_faults` turns them, and the matching `OSError`s of index and
calibration files, into `StoreError` subclasses. Every writer commits or rolls back as a
whole, so the sentences can say that nothing half-written was kept.

Two disguises are seen through: the error a failed ROLLBACK raised is looked behind (its
`__context__` holds the real cause), and a "disk I/O error" is a full disk when SQLite could
not grow its shared-memory file (`SQLITE_IOERR_SHMSIZE`, what a full tmpfs gives on opening
the store) or when the data folder's disk has (almost) no space left.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.errors import EngineError, StoreError
from engine.messages import Message, msg
from engine.store.lock import StoreReadOnly, read_only_store

__all__ = ["StoreBusy", "StoreDamaged", "StoreDiskError", "StoreFull", "StoreReadOnly", "plain_faults",
           "read_only_store", "translate"]


_AGAIN = ("import", "build", "check", "search")  # what `plain_faults` callers name


def _again(what: str) -> Message:
    """"run the import again", or "try again" for work without a name."""
    return msg(f"store.again.{what}" if what in _AGAIN else "store.again.other", what=what)


class StoreFull(StoreError):
    code = "store.full"

    def __init__(self, data_dir: Path, what: str = "") -> None:
        super().__init__(folder=str(data_dir), again=_again(what))


class StoreDamaged(StoreError):
    code = "store.damaged"

    def __init__(self, data_dir: Path, detail: str) -> None:
        super().__init__(folder=str(data_dir), detail=_damage_words(detail))


# SQLite's fixed words for a damaged file, as codes (what else it says is shown as it is).
_DAMAGE_WORDS = {"database disk image is malformed": "store.damage.malformed",
                 "file is not a database": "store.damage.not_a_database"}


def _damage_words(detail: str) -> Message:
    code = _DAMAGE_WORDS.get(detail.strip().lower())
    return Message(code) if code else Message("error.text", {"text": detail})


class StoreBusy(StoreError):
    code = "store.busy"

    def __init__(self, data_dir: Path) -> None:
        super().__init__(folder=str(data_dir))


class StoreDiskError(StoreError):
    code = "store.disk_error"

    def __init__(self, data_dir: Path, what: str = "") -> None:
        super().__init__(folder=str(data_dir), again=_again(what))


_FULL = ("database or disk is full",)
_READ_ONLY = ("readonly database", "unable to open database file", "read-only file system")
_DAMAGED = ("malformed", "file is not a database", "database corrupt")


_SQLITE_IOERR = 10
_SQLITE_IOERR_SHMSIZE = 4874
_NEARLY_FULL_BYTES = 1 << 20  # an I/O error with less than this free is taken as a full disk
_CHAIN_LIMIT = 8


def translate(exc: BaseException, data_dir: Path, what: str) -> EngineError | None:
    """The plain error for `exc` or, when `exc` says nothing (a ROLLBACK after SQLite had
    already rolled back), for the error it was raised while handling; None when no error
    in the chain is a disk or store fault."""
    seen = 0
    link: BaseException | None = exc
    while link is not None and seen < _CHAIN_LIMIT:
        plain = _translate_one(link, Path(data_dir), what)
        if plain is not None:
            return plain
        link, seen = link.__cause__ or link.__context__, seen + 1
    return None


def _translate_one(exc: BaseException, data_dir: Path, what: str) -> EngineError | None:
    if isinstance(exc, OSError) and not isinstance(exc, sqlite3.Error):
        if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
            return StoreFull(data_dir, what)
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return StoreReadOnly(data_dir, exc)
        return None
    if not isinstance(exc, sqlite3.Error):
        return None
    text = str(exc).lower()
    if any(words in text for words in _FULL):
        return StoreFull(data_dir, what)
    if any(words in text for words in _READ_ONLY):
        return read_only_store(data_dir) or StoreReadOnly(data_dir)  # the store file, when it is the one
    if any(words in text for words in _DAMAGED):
        return StoreDamaged(data_dir, str(exc))
    if "database is locked" in text or "database is busy" in text:
        return StoreBusy(data_dir)
    if getattr(exc, "sqlite_errorcode", 0) & 0xFF == _SQLITE_IOERR or "disk i/o error" in text:
        if getattr(exc, "sqlite_errorcode", 0) == _SQLITE_IOERR_SHMSIZE or _nearly_full(data_dir):
            return StoreFull(data_dir, what)
        return StoreDiskError(data_dir, what)
    return None


def _nearly_full(data_dir: Path) -> bool:
    folder = data_dir
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # a store being created: its disk is the nearest existing parent's
    try:
        return shutil.disk_usage(folder).free < _NEARLY_FULL_BYTES
    except OSError:
        return False


@contextmanager
def plain_faults(data_dir: Path, what: str) -> Iterator[None]:
    """Re-raise disk and store faults inside the block as plain `StoreError`s."""
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        plain = translate(exc, Path(data_dir), what)
        if plain is None:
            raise
        raise plain from exc
