"""Parse a big export in a child process while this one writes SQLite.

An import is two halves of about equal CPU: parsing plus building rows (JSON decoding,
Python) and writing them (SQLite, FTS5). In one process they take turns; a writer thread does
not help because both halves need the GIL (measured slower: the threads convoy). So
for files of `WORKER_MIN_BYTES` and more, a child Python runs the importer and a
`RowBuilder` and streams finished row batches (`marshal`, length-prefixed) over its
stdout; the importing thread only writes them, inside its one transaction. Small files
stay in-process: a child costs ~0.15 s to start (measured break-even: ~12 MB).

The child is a fresh interpreter (`python -c`, like multiprocessing's spawn, the same on
Linux, macOS and Windows) that imports only the importers: no SQLAlchemy, no Qt, and not
the parent's `__main__` (multiprocessing's spawn re-runs that, which for the `flashback`
script means SQLAlchemy and +35 MB, and breaks scripts without a `__main__` guard).
It is started before the file's sha256 is computed so its start-up overlaps the hash.
Frozen builds (no Python to start) parse in-process.

Memory is bounded: the child holds at most `_AHEAD` finished batches (a sender thread
writes them, one `os.write` each); when the writer falls behind, the child blocks.

Lifetime: the parent kills the child on every way out of the import (success, error,
cancel) and waits for it. If the parent dies, the child's next write fails and it exits.

Parent → child, on stdin, once: marshal (path, display_name, format, source_id, ids,
known_chats, known_persons); closing stdin with nothing sent means "not needed".
Child → parent (marshal):
  ("batch", ops, messages, artifacts, messages_in_batch, bytes_done)
  ("done", ids, chats, bytes_done)
  ("error", error_class_name, source, problem, where)
  ("bug", source, format, detail, where, traceback): a parser bug (registry.ParserBug)
"""

from __future__ import annotations

import marshal
import os
import queue
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.errors import EngineError, ImportFormatError, UnknownFormatError
from engine.importers.inputs import ExportInput
from engine.importers.records import MessageRecord
from engine.importers.registry import ParserBug, guarded, importer_classes, parser_bug
from engine.importers.rows import IdState, RowBuilder

# Below this a file is parsed in-process (measured: the child pays off from ~12 MB).
WORKER_MIN_BYTES = 16 * 1024 * 1024
BATCH_MESSAGES = 5_000
FIRST_BATCH_MESSAGES = 1_000
_AHEAD = 3  # finished batches the child may hold while the writer is busy
_POLL_S = 0.1
_WAIT_S = 5.0
_HEADER = 8  # little-endian frame length
_ERRORS = {cls.__name__: cls for cls in (ImportFormatError, UnknownFormatError)}
_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the `engine` package
_BOOT = f"import sys; sys.path.insert(0, {_ROOT!r}); from engine.importers.parse_child import child_main; child_main()"


def wanted(size: int) -> bool:
    return size >= WORKER_MIN_BYTES and not getattr(sys, "frozen", False)


def start(export: ExportInput, format_name: str) -> ParseWorker | None:
    """A parse child for `export`, or None when no child process can be started here."""
    try:
        return ParseWorker(export, format_name)
    except OSError:
        return None


class WorkerUnavailable(Exception):
    """The child ended before sending anything (it could not run here): parse in-process."""


class ParseWorker:
    """The parent's handle on one parse child (one export file)."""

    def __init__(self, export: ExportInput, format_name: str) -> None:
        self._export = export
        self._format = format_name
        self.process = subprocess.Popen(
            [sys.executable, "-c", _BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
            creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0)
        )
        self._stdout = self.process.stdout
        try:
            _binary(self._stdout.fileno())
            _binary(self.process.stdin.fileno())
        except OSError:
            self.close()
            raise
        self.ids: tuple | None = None
        self.chats = 0
        self.frames = 0  # frames received from the child

    def run(self, setup: tuple, check: Callable[[], None]) -> Iterator[tuple[tuple, int, int]]:
        """Start parsing; yield (batch, messages in it, bytes done). `check` runs while waiting."""
        order = (str(self._export.path), self._export.display_name, self._format, *setup)
        try:
            _write_all(self.process.stdin.fileno(), marshal.dumps(order))
            self.process.stdin.close()
        except OSError:
            pass  # the child is gone: reported when its output ends
        while True:
            message = self._receive(check)
            kind = message[0]
            if kind == "batch":
                yield message[1:4], message[4], message[5]
            elif kind == "done":
                self.ids, self.chats = message[1], message[2]
                yield (), 0, message[3]
                return
            elif kind == "bug":
                _, source, format_name, detail, where, trace = message
                raise ParserBug(source, format_name, f"{detail}\n(in the reading process)\n{trace}", where)
            else:
                _, name, source, problem, where = message
                raise _ERRORS.get(name, ImportFormatError)(source, problem, where)

    def _receive(self, check: Callable[[], None]) -> tuple:
        # Read on this thread: a reader thread would need the GIL for every 64 KiB the pipe
        # delivers and, with this thread busy binding rows, wait ~5 ms for it each time.
        while not _readable(self._stdout.fileno(), _POLL_S):
            check()
        header = self._read_exactly(_HEADER)
        frame = self._read_exactly(int.from_bytes(header, "little")) if header is not None else None
        if frame is None:
            if not self.frames:
                raise WorkerUnavailable()
            try:
                code = self.process.wait(_WAIT_S)
            except subprocess.TimeoutExpired:
                code = None
            raise ImportFormatError(
                self._export.display_name, f"the reading process stopped unexpectedly (exit code {code})")
        self.frames += 1
        return marshal.loads(frame)

    def _read_exactly(self, size: int) -> bytearray | None:
        buffer = bytearray(size)
        view = memoryview(buffer)
        got = 0
        while got < size:
            count = self._stdout.readinto(view[got:])
            if not count:
                return None
            got += count
        return buffer

    def close(self) -> None:
        """Stop the child if it still runs and wait for it; safe to call twice."""
        process = self.process
        if process.poll() is None:
            process.kill()
        try:
            process.wait(_WAIT_S)
        except subprocess.TimeoutExpired:  # pragma: no cover - kill is not refused
            pass
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except OSError:
                pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


if os.name == "nt":  # pragma: no cover - Windows
    import _winapi
    import msvcrt
    import time

    def _binary(fd: int) -> None:
        msvcrt.setmode(fd, os.O_BINARY)

    def _readable(fd: int, timeout: float) -> bool:
        """Anonymous pipes cannot be select()ed on Windows: peek until data or the timeout."""
        handle = msvcrt.get_osfhandle(fd)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if _winapi.PeekNamedPipe(handle, 0)[0]:
                    return True
            except OSError:
                return True  # closed: the read reports the end
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
else:
    import select

    def _binary(fd: int) -> None:
        pass

    def _readable(fd: int, timeout: float) -> bool:
        return bool(select.select([fd], [], [], timeout)[0])


# -- the child ------------------------------------------------------------------------
def child_main() -> None:
    """Entry point of the child process (see `_BOOT`). Talks on fds 0 and 1 only."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's to handle
    _binary(0)
    _binary(1)
    sys.stdout = sys.stderr  # nothing may print into the frame stream
    chunks = []
    while chunk := os.read(0, 1 << 20):
        chunks.append(chunk)
    if not chunks:
        os._exit(0)  # the parent did not need us after all
    path, display_name, format_name, source_id, ids, known_chats, known_persons = marshal.loads(b"".join(chunks))

    sender = _Sender(1)
    try:
        _parse(sender.send, ExportInput(Path(path), display_name), format_name, source_id, ids, known_chats,
               known_persons)
    finally:
        sender.close()
    os._exit(0)  # skip interpreter teardown: nothing to flush, and it takes a while


class _Sender:
    """Writes frames on a thread, so parsing goes on while the writer is busy with earlier
    batches (up to `_AHEAD` of them wait here). One `os.write` per frame: the thread needs
    the GIL only between frames."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._frames: queue.Queue[bytes | None] = queue.Queue(_AHEAD)
        self._thread = threading.Thread(target=self._run, name="flashback-parse-sender", daemon=True)
        self._thread.start()

    def send(self, message: tuple) -> None:
        self._frames.put(marshal.dumps(message))

    def _run(self) -> None:
        while (frame := self._frames.get()) is not None:
            try:
                _write_all(self._fd, len(frame).to_bytes(_HEADER, "little"))
                _write_all(self._fd, frame)
            except OSError:
                os._exit(0)  # the parent went away (broken pipe): nothing left to do

    def close(self) -> None:
        self._frames.put(None)
        self._thread.join()


def _parse(send: Callable[[tuple], None], export: ExportInput, format_name: str, source_id: int, ids: tuple,
           known_chats: dict, known_persons: dict) -> None:
    builder = RowBuilder(IdState.from_tuple(ids), known_chats, known_persons)
    builder.begin_source(format_name, source_id)
    position = 0

    def report(done: int) -> None:
        nonlocal position
        position = done

    chats: set[str] = set()
    where = None
    limit = FIRST_BATCH_MESSAGES  # the writer waits for the first batch: keep it short
    try:
        for record in guarded(importer_classes()[format_name](), export, report):
            if type(record) is MessageRecord:
                where = record.where
                if builder.add_message(record) >= limit:
                    ops, messages, artifacts = builder.take_batch()
                    send(("batch", ops, messages, artifacts, len(messages), position))
                    limit = BATCH_MESSAGES
            else:
                builder.add_chat(record.key, record.title, record.kind)
                chats.add(record.key)
        batch = builder.take_batch()
        if batch is not None:
            send(("batch", *batch, len(batch[1]), position))
        send(("done", builder.ids.as_tuple(), len(chats), position))
    except EngineError as exc:
        send(_error_message(exc, export))
    except ParserBug as exc:  # the traceback travels too: it is what a bug report needs
        cause = exc.__cause__ or exc
        send(("bug", exc.source, exc.format_name, exc.detail, exc.where,
              "".join(traceback.format_exception(cause))[-4000:]))
    except Exception as exc:  # a bug outside the parser (the row builder): reported the same way
        bug = parser_bug(export, format_name, exc, where)
        send(("bug", bug.source, bug.format_name, bug.detail, bug.where,
              "".join(traceback.format_exception(exc))[-4000:]))


def _error_message(exc: EngineError, export: ExportInput) -> tuple:
    if isinstance(exc, ImportFormatError):
        return ("error", type(exc).__name__, exc.source, exc.problem, exc.where)
    return ("error", "ImportFormatError", export.display_name, str(exc), None)
