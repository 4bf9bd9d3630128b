"""Byte-level helpers for streaming big JSON exports with ijson.

`RepairingReader` feeds ijson from a memory map and repairs, on the fly, the two known
tdesktop breakages (FORMATS.md): `\\xNN` escapes, which JSON does not allow, and the
unquoted `custom_emoji` `document_id` of tdesktop 4.1.1. Repairs happen per line (a raw
newline cannot occur inside a JSON string), so a chunk boundary never splits one.
"""

from __future__ import annotations

import json
import mmap
import re

# `\x41` preceded by an even number of backslashes (an odd count means the backslash
# itself is escaped and `x41` is ordinary text).
_BAD_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*)\\x([0-9A-Fa-f]{2})")
_UNQUOTED_DOCUMENT_ID = re.compile(rb'("document_id"\s*:\s*)(?![\s"\d\-\[{nt])([^,\r\n}]+)')
_CHUNK = 256 * 1024


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


class RepairingReader:
    """A file-like `read()` over `mm[start:end]` that yields repaired bytes."""

    def __init__(self, mm: mmap.mmap, start: int, end: int | None = None) -> None:
        self._mm = mm
        self.position = start
        self._end = len(mm) if end is None else end
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
            data = self._carry + self._mm[self.position:stop]
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
