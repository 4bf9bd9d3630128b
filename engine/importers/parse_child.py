"""Parse a big export in a child process while this one writes SQLite.

An import is two halves of about equal CPU: parsing plus building rows (JSON decoding,
Python) and writing them (SQLite, FTS5). In one process they take turns; a writer thread does
not help because both halves need the GIL (measured slower: the threads convoy). So
for files of `WORKER_MIN_BYTES` and more, a child Python runs the importer and a
`RowBuilder` and streams finished row batches to this process, whose importing thread only
writes them, inside its one transaction. Small files stay in-process: a child costs ~0.15 s
to start (measured break-even: ~12 MB).

The child runs under the engine's child-process harness (`engine.child_process`: a fresh
interpreter that imports only the importers, no SQLAlchemy, no Qt, not the parent's
`__main__`; marshal frames; errors that keep their class). It is started before the file's
sha256 is computed so its start-up overlaps the hash. Frozen builds (no Python to start)
parse in-process.

Memory is bounded: the child holds at most three finished batches (the harness's sender
thread writes them, one `os.write` each); when the writer falls behind, the child blocks.

Lifetime: the parent kills the child on every way out of the import (success, error,
cancel) and waits for it. If the parent dies, the child's next write fails and it exits.

Parent → child, once: ("parse", path, display_name, format, source_id, ids, known_chats,
known_persons, around, relative, parts), `parts` the (path, display_name, around, relative) of
each file of a multi-file export (`engine.importers.groups`; empty for one file); closing stdin
with nothing sent means "not needed".
Child → parent: ("batch", ops, messages, artifacts, messages_in_batch, bytes_done) frames,
then ("result", (ids, chats, bytes_done, skipped)), `skipped` the importer's reason → count;
or an error: an `ImportFormatError` as one, a parser bug as `registry.ParserBug` with the
child's traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.child_process import ChildEnded, ChildProcess, ParentChannel
from engine.errors import EngineError, ImportFormatError
from engine.importers.formats import BYTES_PER_MESSAGE, expected_messages
from engine.importers.inputs import ExportInput
from engine.importers.records import MessageRecord
from engine.importers.registry import ParserBug, guarded, importer_classes, parser_bug
from engine.importers.rows import IdState, RowBuilder
from engine.messages import msg

# Below this a file is parsed in-process (measured on Telegram's JSON: the child pays off from
# ~12 MB, ~30,000 messages). In Telegram bytes: a denser format reaches it with fewer bytes.
WORKER_MIN_BYTES = 16 * 1024 * 1024
BATCH_MESSAGES = 5_000
FIRST_BATCH_MESSAGES = 1_000
CHILD = ("engine.importers.parse_child", "child_main")  # what the child runs (module, function)
_POLL_S = 0.1


def wanted(size: int, format_name: str = "telegram") -> bool:
    """Whether an export of `size` bytes is worth a child: by its messages, not its bytes (what
    a child saves is per message; a WhatsApp chat holds five times Telegram's messages per byte)."""
    telegram_bytes = expected_messages(size, format_name) * BYTES_PER_MESSAGE["telegram"]
    return telegram_bytes >= WORKER_MIN_BYTES and not getattr(sys, "frozen", False)


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
        self._child = ChildProcess(*CHILD)
        self.process = self._child.process
        self.ids: tuple | None = None
        self.chats = 0
        self.skipped: dict[str, int] = {}

    @property
    def frames(self) -> int:
        """Frames received from the child."""
        return self._child.frames

    def run(self, setup: tuple, check: Callable[[], None]) -> Iterator[tuple[tuple, int, int]]:
        """Start parsing; yield (batch, messages in it, bytes done). `check` runs while waiting."""
        parts = [(str(part.path), part.display_name, list(part.around), part.relative) for part in self._export.parts]
        self._child.send(("parse", str(self._export.path), self._export.display_name, self._format, *setup,
                          list(self._export.around), self._export.relative, parts))
        self._child.end_input()
        while True:
            try:
                message = self._child.receive(_POLL_S)
            except ChildEnded as ended:
                if not ended.frames:
                    raise WorkerUnavailable() from ended
                raise ImportFormatError(self._export.display_name, msg("import.problem.reader_stopped",
                                                                       exit_code=ended.returncode)) from ended
            if message is None:
                check()
            elif message[0] == "batch":
                yield message[1:4], message[4], message[5]
            else:  # ("result", (ids, chats, bytes_done, skipped))
                self.ids, self.chats, done, self.skipped = message[1]
                yield (), 0, done
                return

    def close(self) -> None:
        """Stop the child if it still runs and wait for it; safe to call twice."""
        self._child.close()


# -- the child ------------------------------------------------------------------------
def child_main(channel: ParentChannel) -> tuple | None:
    """The child's work (see `CHILD`): parse the file it is sent into row batches."""
    order = channel.receive()
    if order is None:
        return None  # the parent did not need us after all
    _, path, display_name, format_name, source_id, ids, known_chats, known_persons, around, relative, parts = order
    export = ExportInput(Path(path), display_name, tuple(around), relative,
                         tuple(ExportInput(Path(p), name, tuple(a), rel) for p, name, a, rel in parts))
    return _parse(channel.send, export, format_name, source_id, ids, known_chats, known_persons)


def _parse(send: Callable[[tuple], None], export: ExportInput, format_name: str, source_id: int, ids: tuple,
           known_chats: dict, known_persons: dict) -> tuple:
    builder = RowBuilder(IdState.from_tuple(ids), known_chats, known_persons)
    builder.begin_source(format_name, source_id, export.display_name)
    position = 0

    def report(done: int) -> None:
        nonlocal position
        position = done

    chats: set[str] = set()
    where = None
    limit = FIRST_BATCH_MESSAGES  # the writer waits for the first batch: keep it short
    importer = importer_classes()[format_name]()
    try:
        for record in guarded(importer, export, report):
            if type(record) is MessageRecord:
                where = record.where
                if builder.add_message(record) >= limit:
                    taken = builder.take_batch()
                    assert taken is not None  # a message was just added
                    ops, messages, artifacts = taken
                    send(("batch", ops, messages, artifacts, len(messages), position))
                    limit = BATCH_MESSAGES
            else:
                builder.add_chat(record.key, record.title, record.kind)
                chats.add(record.key)
        batch = builder.take_batch()
        if batch is not None:
            send(("batch", *batch, len(batch[1]), position))
    except (EngineError, ParserBug):
        raise  # travels to the parent as it is (the harness keeps its class)
    except Exception as exc:  # a bug outside the parser (the row builder): reported the same way
        raise parser_bug(export, format_name, exc, where) from exc
    return builder.ids.as_tuple(), len(chats), position, dict(importer.skipped)
