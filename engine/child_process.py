"""One way to run engine work in a child Python: start, talk, cancel, stop, and errors that
keep their type across the boundary.

Two children use it: the import-and-build child (`engine.api.pipeline`, so the window's
process keeps its GIL) and the parse child (`engine.importers.parse_child`, which parses a
big export beside the writer). The child is a fresh interpreter that imports only the module
it runs (`python -c` with a boot line, like multiprocessing's spawn: the same on Linux, macOS
and Windows, and what the frozen app's launcher supports; not `-m`, which depends on the
working directory). Its entry is `function(channel)` in that module; what it returns is the
result, what it raises comes back to the parent as the same class.

Wire: both ways, frames of an 8-byte little-endian length and a `marshal` payload (the parse
child moves batches of hundreds of thousands of rows: marshal is the fastest Python codec for
plain tuples, and a frame is one `os.write`). A message is a tuple whose first item says what
it is: ("progress", …), ("result", value), ("error", encoded error); a child adds its own
kinds (the parse child's ("batch", …)); parent → child, the request and ("cancel",).

Errors: the child sends the class's module and qualified name, its args and its attributes
(an engine error's `Message`, an `ImportFormatError`'s source, problem and where, …); the
parent rebuilds the same class, without calling its `__init__`, when it is an engine or a
built-in exception. Another class becomes `EngineError` with the child's message (its code, so
it is still said in the person's language) when the child said it was an engine error, else
`ChildCrashed`; a bug's traceback travels as a note.

Lifetime: `close()` kills the child if it still runs and waits for it (every way out of the
parent's work calls it); a cancel that the child does not answer in time ends in a kill too.
If the parent dies, the child's next write fails and it exits.
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import marshal
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.errors import Cancelled, CancelToken, EngineError, ImportCancelled
from engine.messages import Message

_ROOT = str(Path(__file__).resolve().parents[1])  # the folder holding the `engine` package
_HEADER = 8
_WAIT_S = 5.0
_TRACE_CHARS = 4000


class ChildEnded(RuntimeError):
    """The child's output ended before its result: it could not start, died or was killed."""

    def __init__(self, returncode: int | None, frames: int) -> None:
        self.returncode, self.frames = returncode, frames
        super().__init__(f"the child process ended without an answer (exit code {returncode})")


class ChildCrashed(RuntimeError):
    """The child raised an exception of a class the parent does not rebuild (not the engine's,
    not a built-in one): a bug, reported by its class name and text."""


# -- the parent's side ----------------------------------------------------------------------
class ChildProcess:
    """The parent's handle on one child running `function(channel)` of `module`."""

    def __init__(self, module: str, function: str = "child_main") -> None:
        boot = (f"import sys; sys.path.insert(0, {_ROOT!r}); from engine.child_process import run_child; "
                f"run_child({module!r}, {function!r})")
        self.module = module
        self.process = subprocess.Popen(
            [sys.executable, "-c", boot], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
            creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))
        # stdin=PIPE and stdout=PIPE with bufsize=0: Popen opened both, unbuffered (io.FileIO).
        assert isinstance(self.process.stdin, io.FileIO) and isinstance(self.process.stdout, io.FileIO)
        self._to_child: io.FileIO = self.process.stdin
        self._from_child: io.FileIO = self.process.stdout
        self.frames = 0  # frames received from the child
        self._kill_at: float | None = None
        try:
            _binary(self._from_child.fileno())
            _binary(self._to_child.fileno())
        except OSError:
            self.close()
            raise

    def __enter__(self) -> ChildProcess:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def send(self, message: tuple) -> bool:
        """Frame `message` to the child's stdin; False when the child is gone (its output says why)."""
        try:
            _write_frame(self._to_child.fileno(), marshal.dumps(message))
            return True
        except (OSError, ValueError):  # a broken pipe, or stdin already closed
            return False

    def end_input(self) -> None:
        try:
            self._to_child.close()
        except OSError:
            pass

    def cancel(self, kill_after: float) -> None:
        """Ask the child to stop; kill it if it has not ended `kill_after` seconds later."""
        if self._kill_at is None:
            self._kill_at = time.monotonic() + kill_after
            self.send(("cancel",))

    @property
    def cancelling(self) -> bool:
        return self._kill_at is not None

    def receive(self, timeout: float) -> tuple | None:
        """The child's next message, or None when none came within `timeout` seconds. An
        ("error", …) is raised here as the class the child raised; the end of the output
        before a result raises `ChildEnded`."""
        if self._kill_at is not None and time.monotonic() > self._kill_at and self.process.poll() is None:
            self.process.kill()  # a cancel is checked between steps: past this the child is stuck
        # Read on the calling thread: a reader thread would need the GIL for every 64 KiB the
        # pipe delivers and, with the caller busy writing rows, wait ~5 ms for it each time.
        if not _readable(self._from_child.fileno(), timeout):
            return None
        header = self._read_exactly(_HEADER)
        frame = self._read_exactly(int.from_bytes(header, "little")) if header is not None else None
        if frame is None:
            try:
                code = self.process.wait(_WAIT_S)
            except subprocess.TimeoutExpired:
                code = None
            raise ChildEnded(code, self.frames)
        self.frames += 1
        message = marshal.loads(frame)
        if message[0] == "error":
            raise decode_error(message[1], self.module)
        return message

    def _read_exactly(self, size: int) -> bytearray | None:
        buffer = bytearray(size)
        view = memoryview(buffer)
        got = 0
        while got < size:
            count = self._from_child.readinto(view[got:])
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
        for stream in (self._to_child, self._from_child):
            try:
                stream.close()
            except OSError:
                pass


# -- the child's side -----------------------------------------------------------------------
class ParentChannel:
    """The child's end: frames from the parent on fd 0, frames to it on a private copy of fd 1.
    fd 1 itself then points at stderr, so nothing printed (by Python or a C library) can land
    in the frame stream. Sends go through a thread, up to `ahead` frames queued: the child
    goes on working while the parent is busy with earlier frames, and blocks when it falls
    behind (so memory stays bounded)."""

    def __init__(self, ahead: int = 3) -> None:
        _binary(0)
        try:
            os.fstat(2)
        except OSError:  # no stderr (a windowless parent's child): what is printed goes nowhere,
            devnull = os.open(os.devnull, os.O_WRONLY)  # and the copy of fd 1 below cannot land on fd 2
            if devnull != 2:
                os.dup2(devnull, 2)
                os.close(devnull)
        self._out = os.dup(1)
        _binary(self._out)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        self._frames: queue.Queue[bytes | None] = queue.Queue(ahead)
        self._sender = threading.Thread(target=self._send_frames, name="flashback-child-sender", daemon=True)
        self._sender.start()

    def receive(self) -> tuple | None:
        """The parent's next message; None when it closed our stdin (or is gone)."""
        header = _read_fd(0, _HEADER)
        frame = _read_fd(0, int.from_bytes(header, "little")) if header is not None else None
        return marshal.loads(frame) if frame is not None else None

    def send(self, message: tuple) -> None:
        self._frames.put(marshal.dumps(message))

    def progress(self, payload: Any) -> None:
        self.send(("progress", payload))

    def cancel_token(self, error: Callable[[], Cancelled] = ImportCancelled) -> CancelToken:
        """A token set when the parent sends ("cancel",) or goes away (its stdin ends)."""
        token = CancelToken(error)

        def watch() -> None:
            while (message := self.receive()) is not None and message[0] != "cancel":
                pass
            token.cancel()

        threading.Thread(target=watch, name="flashback-child-cancel", daemon=True).start()
        return token

    def _send_frames(self) -> None:
        while (frame := self._frames.get()) is not None:
            try:
                _write_frame(self._out, frame)
            except OSError:
                os._exit(0)  # the parent went away (broken pipe): nothing left to do

    def close(self) -> None:
        """Wait until every queued frame is written."""
        self._frames.put(None)
        self._sender.join()


def run_child(module: str, function: str) -> None:
    """The child's main (see `ChildProcess`): run `function(channel)`, send its result or its
    error, and exit without the interpreter's teardown (nothing to flush, and it takes a while)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's to handle
    channel = ParentChannel()
    try:
        main = getattr(importlib.import_module(module), function)
    except Exception:  # this child cannot run here: end with no frame sent (`ChildEnded.frames == 0`)
        if sys.stderr is not None:
            traceback.print_exc()
        os._exit(1)
    try:
        channel.send(("result", main(channel)))
    except Exception as exc:  # every way out is a message the parent understands
        channel.send(("error", encode_error(exc)))
    finally:
        channel.close()
        if sys.stderr is not None:
            sys.stderr.flush()
    os._exit(0)


# -- errors across the boundary ---------------------------------------------------------------
def encode_error(error: BaseException) -> tuple:
    """`error` as plain marshal data: class, args, attributes, text, and a bug's traceback."""
    cls = type(error)
    args = error.args
    if isinstance(error, OSError) and error.filename is not None:  # not kept in args
        args = (error.errno, error.strerror, error.filename, None, error.filename2)
    trace = "" if isinstance(error, EngineError) else "".join(traceback.format_exception(error))[-_TRACE_CHARS:]
    return (cls.__module__, cls.__qualname__, isinstance(error, EngineError), str(error), _encode(args),
            _encode(dict(vars(error))), trace)


def decode_error(data: tuple, child: str = "the child process") -> BaseException:
    module, qualname, is_engine, text, args, state, trace = data
    cls = _known_class(module, qualname, BaseException)
    error: BaseException | None = None
    if cls is not None:
        try:
            error = cls.__new__(cls, *_decode(args))  # BaseException.__new__ sets args; no __init__
            vars(error).update(_decode(state))
        except Exception:  # a class that cannot be made this way: say it in words below
            error = None
    if error is None and is_engine:  # the child's own message (its code), else its English as it said it
        said = _decode(state).get("message")  # the error's attributes: always a dict
        error = EngineError(said if isinstance(said, Message) else Message("error.text", {"text": text}))
    if error is None:
        error = ChildCrashed(f"{qualname}: {text}")
    if trace:
        error.add_note(f"Raised in the child process running {child}:\n{trace}")
    return error


def _known_class(module: str, qualname: str, base: type) -> type | None:
    """The engine's or a built-in class by name, never anything else (the name comes from data)."""
    if module != "builtins" and module != "engine" and not module.startswith("engine."):
        return None
    try:
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found if isinstance(found, type) and issubclass(found, base) else None


# Scalars travel as they are; every container as a tagged tuple (so a tuple is always a tag).
def _encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return value
    if isinstance(value, Message):
        return ("M", value.code, _encode(dict(value.params)))
    if isinstance(value, list | tuple | set | frozenset):
        return ("T" if isinstance(value, tuple) else "L", [_encode(item) for item in value])
    if isinstance(value, dict):
        return ("D", [(_encode(key), _encode(item)) for key, item in value.items()])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        return ("C", cls.__module__, cls.__qualname__,
                [(f.name, _encode(getattr(value, f.name))) for f in dataclasses.fields(value)])
    return str(value)  # a Path, an enum, …: its text is what a message shows of it


def _decode(value: Any) -> Any:
    if not isinstance(value, tuple):
        return value
    tag = value[0]
    if tag == "M":
        return Message(value[1], _decode(value[2]))
    if tag in ("T", "L"):
        items = [_decode(item) for item in value[1]]
        return tuple(items) if tag == "T" else items
    if tag == "D":
        return {_decode(key): _decode(item) for key, item in value[1]}
    fields = {name: _decode(item) for name, item in value[3]}
    cls = _known_class(value[1], value[2], object)
    if cls is not None and dataclasses.is_dataclass(cls):
        try:
            return cls(**fields)
        except (TypeError, ValueError):
            pass
    return fields


# -- frames and pipes -------------------------------------------------------------------------
def _write_frame(fd: int, payload: bytes) -> None:
    _write_all(fd, len(payload).to_bytes(_HEADER, "little"))
    _write_all(fd, payload)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_fd(fd: int, size: int) -> bytes | None:
    chunks, got = [], 0
    while got < size:
        chunk = os.read(fd, min(size - got, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


if sys.platform == "win32":  # pragma: no cover - Windows (os.name == "nt"; the form mypy reads)
    import _winapi
    import msvcrt

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
