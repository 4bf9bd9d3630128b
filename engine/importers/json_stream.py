"""Byte-level helpers for streaming big JSON exports with ijson.

`RepairingReader` feeds ijson from a byte range of a file and repairs, on the fly, the two known
tdesktop breakages (FORMATS.md): `\\xNN` escapes, which JSON does not allow, and the
unquoted `custom_emoji` `document_id` of tdesktop 4.1.1. Repairs happen per line (a raw
newline cannot occur inside a JSON string), so a chunk boundary never splits one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import BinaryIO

# `\x41` preceded by an even number of backslashes (an odd count means the backslash
# itself is escaped and `x41` is ordinary text).
_BAD_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*)\\x([0-9A-Fa-f]{2})")
_UNQUOTED_DOCUMENT_ID = re.compile(rb'("document_id"\s*:\s*)(?![\s"\d\-\[{nt])([^,\r\n}]+)')
_CHUNK = 256 * 1024
_SCAN_CHUNK = 16 * 1024 * 1024


def _quote_document_id(match: re.Match[bytes]) -> bytes:
    value = match.group(2).decode("utf-8", "replace").strip()
    return match.group(1) + json.dumps(value, ensure_ascii=False).encode("utf-8")


def repair_json_bytes(data: bytes) -> bytes:
    """Apply the tdesktop repairs to a run of whole lines."""
    if b"\\x" in data:
        data = _BAD_ESCAPE.sub(rb"\1\\u00\2", data)
    if b'"document_id"' in data:
        data = _UNQUOTED_DOCUMENT_ID.sub(_quote_document_id, data)
    return data


def find_all(handle: BinaryIO, pattern: re.Pattern[bytes], overlap: int = 256) -> Iterator[tuple[int, int]]:
    """Yield the (start, end) file offsets of `pattern` (matches shorter than `overlap`).

    Plain reads rather than mmap: a mapped file's pages count as the process's memory,
    and a 500 MB export would then look like a 500 MB import.
    """
    handle.seek(0)
    offset = 0  # file offset of data[0]
    data = b""
    while True:
        block = handle.read(_SCAN_CHUNK)
        data += block
        limit = len(data) if not block else max(0, len(data) - overlap)
        resume = limit
        for match in pattern.finditer(data):
            if match.start() >= limit:
                break  # may continue past the data read so far: scanned again next round
            yield offset + match.start(), offset + match.end()
            resume = max(resume, match.end())
        if not block:
            return
        data = data[resume:]
        offset += resume


class RepairingReader:
    """A file-like `read()` over `handle[start:end]` that yields repaired bytes."""

    def __init__(self, handle: BinaryIO, start: int, end: int) -> None:
        self._handle = handle
        self.position = start
        self._end = end
        self._carry = b""

    def read(self, size: int = -1) -> bytes:
        if size == 0:  # ijson probes with read(0) to learn bytes vs str
            return b""
        # Never return b"" before the end: ijson takes an empty read as end of file.
        while True:
            if self.position >= self._end:
                carry, self._carry = self._carry, b""
                return repair_json_bytes(carry) if carry else b""
            stop = min(self._end, self.position + max(size, _CHUNK))
            self._handle.seek(self.position)
            data = self._carry + self._handle.read(stop - self.position)
            self.position = stop
            self._carry = b""
            if stop < self._end:
                cut = data.rfind(b"\n") + 1
                if cut == 0:  # one enormous line: at least keep a possible escape whole
                    cut = max(0, len(data) - 8)
                    while cut > 0 and data[cut - 1] == 0x5C:
                        cut -= 1
                data, self._carry = data[:cut], data[cut:]
            if data:
                return repair_json_bytes(data)
