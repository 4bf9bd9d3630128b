"""One writer at a time per data folder, across processes: the window, the CLI, a server.

SQLite serialises writes itself, but only for as long as its busy timeout: an import holds
its transaction for minutes, so a second writer used to die with "database is locked"
(issue 12). Writers (import, build, a repair, a schema creation) take this lock first and
wait for one another, with progress; readers never take it (WAL lets them read while a
writer works) and may ask who holds it (`current_holder`) to say so.

The lock is an OS advisory lock on `<data>/flashback.sqlite3-writelock`: `flock` on POSIX, `msvcrt.locking`
on Windows. The OS releases it when the holder dies (kill -9 included), so there is no
stale lock to clean up. The file's text says who holds it (pid, operation, origin, since):
read only when the lock is found taken, so a dead holder's old words are never shown.
Written by hand rather than with `filelock`: that library truncates the file on every
attempt, so the holder's note would need a second file and its own races.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from engine.errors import StoreError
from engine.messages import Message

# Named after the store so `app.privacy` counts it as Flashback's own file (a data folder
# holding anything else is taken for a shared one and keeps its mode).
STORE_FILE = "flashback.sqlite3"  # engine.store.database.DB_FILE_NAME (which imports this module)
LOCK_FILE = STORE_FILE + "-writelock"
_POLL_S = 0.2
_NOTIFY_EVERY_S = 1.0  # a waiting writer's progress callback repeats at this pace
_QUICK_TRIES, _QUICK_PAUSE_S = 3, 0.01  # wait=False: a few tries before "busy"
_WINDOWS_OFFSET = 1 << 30  # msvcrt locks a byte range: one far past the note, which stays readable

_held = threading.local()  # lock path → depth, for the thread that holds it (nested writers)


@dataclass(frozen=True)
class LockHolder:
    """Who writes the store now."""

    pid: int
    operation: str  # import | build | check | schema
    origin: str  # window | command | "" (unknown)
    since: float  # epoch seconds

    def describe(self) -> str:
        """"the import in another Flashback window (pid 4242, since 14:02)"."""
        if self.pid == os.getpid():
            who = f"the {self.operation} in this process"
        elif self.origin == "window":
            who = f"the {self.operation} in another Flashback window"
        elif self.origin == "command":
            who = f"`flashback {self.operation}` in another terminal"
        else:
            who = f"the {self.operation} in another Flashback process"
        if not self.pid:
            return who
        when = datetime.fromtimestamp(self.since).strftime("%H:%M:%S") if self.since else "?"
        return f"{who} (pid {self.pid}, since {when})"

    def message(self) -> Message:
        """`describe()` as a message code, for a face to say in the person's language."""
        operation = Message(f"store.operation.{self.operation}" if self.operation in _OPERATIONS
                            else "store.operation.write")
        if self.pid == os.getpid():
            where = "this_process"
        else:
            where = {"window": "window", "command": "command"}.get(self.origin, "process")
        who = Message(f"store.writer.{where}", {"operation": operation, "command": self.operation})
        if not self.pid:
            return who
        when = datetime.fromtimestamp(self.since).strftime("%H:%M:%S") if self.since else "?"
        return Message("store.writer.since", {"who": who, "pid": self.pid, "since": when})


_OPERATIONS = ("import", "build", "check", "schema", "forget", "labels")


UNKNOWN_HOLDER = LockHolder(0, "write", "", 0.0)
WaitCallback = Callable[[LockHolder], None]


class StoreReadOnly(StoreError):
    """The data folder, or the store file in it, cannot be written to."""

    code = "store.read_only"

    def __init__(self, data_dir: Path, error: OSError | None = None, *, store_file: Path | None = None) -> None:
        """`error`: the system's refusal, said after the folder (as a code where it has one).
        `store_file`: the folder is writable but the store file in it is not (issue 23: the
        sentence named the folder, which was not true)."""
        self.store_file = store_file
        detail = os_words(error) if error is not None and error.strerror else None
        if store_file is not None:
            super().__init__(Message("store.read_only_file", {"file": str(store_file)}))
        elif detail is not None:
            super().__init__(Message("store.read_only_detail", {"folder": str(data_dir), "detail": detail}))
        else:
            super().__init__(folder=str(data_dir))


def read_only_store(data_dir: Path) -> StoreReadOnly | None:
    """Why the store of `data_dir` cannot be written (its folder, or its file), or None when
    it can, or when there is no store yet. `os.access` answers for this process's user: a
    read-only mount, the folder's or the file's permission bits (issue 23)."""
    folder = Path(data_dir)
    store_file = folder / STORE_FILE
    if not store_file.exists():
        return None
    if not os.access(folder, os.W_OK):
        return StoreReadOnly(folder)
    if not os.access(store_file, os.W_OK):
        return StoreReadOnly(folder, store_file=store_file)
    return None


_OS_WORDS = {errno.EROFS: "store.os.read_only_fs", errno.EACCES: "store.os.access_denied",
             errno.EPERM: "store.os.not_permitted"}


def os_words(error: OSError) -> Message:
    """The system's reason for refusing a file operation, in the person's language where it is
    one of the refusals a read-only folder gives; the system's own words otherwise."""
    code = _OS_WORDS.get(error.errno or 0)
    return Message(code) if code else Message("error.text", {"text": error.strerror or str(error)})


class WriterBusy(StoreError):
    """Another process writes the store and the caller chose not to wait."""

    code = "store.writer_busy"

    def __init__(self, holder: LockHolder) -> None:
        self.holder = holder
        super().__init__(writer=holder.message())


def lock_path(data_dir: Path) -> Path:
    return Path(data_dir) / LOCK_FILE


class StoreWriteLock:
    """`with StoreWriteLock(data_dir, "import", on_wait=…):` waits for any other writer.

    `on_wait(holder)` is called when the lock is found taken and then about once a second
    while waiting; `cancel()` (a CancelToken's `raise_if_cancelled`) is checked between polls,
    so a waiting import can be cancelled. Re-entrant within one thread. With `wait=False` a
    taken lock raises `WriterBusy` at once (a search that would repair an index, for one).
    """

    def __init__(self, data_dir: Path, operation: str, origin: str = "", on_wait: WaitCallback | None = None,
                 cancel: Callable[[], None] | None = None, *, wait: bool = True) -> None:
        self.path = lock_path(data_dir)
        self.operation = operation
        self.origin = origin
        self._on_wait = on_wait
        self._cancel = cancel or (lambda: None)
        self._fd: int | None = None
        self._wait = wait
        self.waited = False  # another writer held it when we came

    def __enter__(self) -> StoreWriteLock:
        depths = _depths()
        key = str(self.path)
        if depths.get(key):
            depths[key] += 1
            return self
        fd = _open(self.path)
        try:
            self._wait_for(fd)
        except BaseException:
            os.close(fd)
            raise
        _write_note(fd, LockHolder(os.getpid(), self.operation, self.origin, time.time()))
        self._fd = fd
        depths[key] = 1
        return self

    def _wait_for(self, fd: int) -> None:
        last_note = 0.0
        tries = 0
        while not _try_lock(fd):
            tries += 1
            if not self._wait:
                if tries < _QUICK_TRIES:  # `current_holder` (a window's poll) holds it for microseconds
                    time.sleep(_QUICK_PAUSE_S)
                    continue
                raise WriterBusy(read_holder(self.path) or UNKNOWN_HOLDER)
            self.waited = True
            now = time.monotonic()
            if self._on_wait is not None and now - last_note >= _NOTIFY_EVERY_S:
                last_note = now
                self._on_wait(read_holder(self.path) or UNKNOWN_HOLDER)
            self._cancel()
            time.sleep(_POLL_S)

    def __exit__(self, *exc) -> None:
        depths = _depths()
        key = str(self.path)
        depths[key] -= 1
        if depths[key] or self._fd is None:
            return
        del depths[key]
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)  # the note goes with the lock: nobody holds it now
        except OSError:
            pass
        _unlock(fd)
        os.close(fd)


def current_holder(data_dir: Path) -> LockHolder | None:
    """Who holds the write lock of `data_dir` now, or None when nobody does. Takes nothing."""
    path = lock_path(data_dir)
    if _depths().get(str(path)):
        return read_holder(path) or UNKNOWN_HOLDER
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return None  # no lock file (nobody ever wrote here) or a read-only folder: no writer
    try:
        if _try_lock(fd):
            _unlock(fd)
            return None
        return read_holder(path) or UNKNOWN_HOLDER
    finally:
        os.close(fd)


def read_holder(path: Path) -> LockHolder | None:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8") or "null")
        return LockHolder(int(raw["pid"]), str(raw["operation"]), str(raw.get("origin", "")), float(raw["since"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None  # empty (between two holders) or being written


def _depths() -> dict[str, int]:
    if not hasattr(_held, "depths"):
        _held.depths = {}
    return _held.depths


def _write_note(fd: int, note: LockHolder) -> None:
    """Say who holds the lock, best effort: on a full disk the note may not fit, and the lock
    (which needs no space) must not fail for that; waiters then read "another process"."""
    try:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, json.dumps(asdict(note)).encode())
    except OSError:
        pass


def _open(path: Path) -> int:
    """The lock file, created on first use. A folder that cannot be written to, or a store
    file that cannot, is told as read-only before any work starts; any other error (a full
    disk: no room for the file) is left to the caller's `engine.store.faults.plain_faults`."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise StoreReadOnly(path.parent, exc) from exc
        raise
    refused = read_only_store(path.parent)  # a writable folder holding a read-only store file
    if refused is not None:
        os.close(fd)
        raise refused
    return fd


# One pair per platform, keyed on sys.platform (the form mypy reads): fcntl exists everywhere but Windows.
if sys.platform == "win32":  # pragma: no cover - Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, _WINDOWS_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, _WINDOWS_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except (BlockingIOError, PermissionError):
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
