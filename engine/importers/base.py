"""The interface every format importer implements, and the context it reports through."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO, ClassVar

from engine.importers.inputs import ExportInput
from engine.importers.records import ChatRecord, MessageRecord

ProgressCallback = Callable[["ImportProgress"], None]
# Why a parser read an entry and made no message of it; each has its `import.skipped.<reason>` words.
SKIP_REASONS = ("hidden", "unsupported")


@dataclass(frozen=True, slots=True)
class ImportProgress:
    source: str
    bytes_done: int
    bytes_total: int
    messages: int
    file_number: int = 1  # which export of the path this is ("file 2 of 5"), from 1
    files: int = 1  # how many exports the path holds


class Importer(ABC):
    """Parses one export file into a stream of records.

    `sniff` decides by content (the first bytes), never by file name. `parse` yields a
    `ChatRecord` before the messages of that chat and raises `ImportFormatError` (with the
    file and a location) for input it cannot read. A malformed file's standard failures
    (ValueError, UnicodeError, …) escaping `parse` become import errors too; anything else
    is a bug, reported as one (`engine.importers.registry`).
    """

    format_name: ClassVar[str]
    # What the file holds that `parse` read and did not make a message, by reason (one of
    # `SKIP_REASONS`): the import summary says it (issue 34: nothing silently lost).
    skipped: Counter[str]

    def __init__(self) -> None:
        self.skipped = Counter()

    @classmethod
    @abstractmethod
    def sniff(cls, head: bytes) -> bool:
        """True when `head` (the first 64 KiB, BOM stripped) looks like this format."""

    @abstractmethod
    def parse(self, source: ExportInput, report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
        """Yield records; call `report(bytes_done)` now and then so progress can move."""


def skip_rest_of_line(handle: BinaryIO, chunk_bytes: int) -> int:
    """Read past the rest of an over-long line, `chunk_bytes` at a time, so a line of any
    length costs bounded memory (issue 12); returns the bytes skipped."""
    skipped = 0
    while chunk := handle.readline(chunk_bytes):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped
