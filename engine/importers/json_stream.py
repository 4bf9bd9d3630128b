"""Byte-level helpers for streaming big JSON exports.

`RepairingReader` reads a byte range of a file and repairs, on the fly, the two known
tdesktop breakages (FORMATS.md): `\\xNN` escapes, which JSON does not allow, and the
unquoted `custom_emoji` `document_id` of tdesktop 4.1.1. Repairs happen per line (a raw
newline cannot occur inside a JSON string), so a chunk boundary never splits one.

`array_items` streams the elements of one JSON array with the standard library's C
decoder, one element at a time (`raw_decode` on a sliding window of decoded text):
measured 1.4-1.8x faster than ijson's yajl2_c `items` on Telegram messages.
`decode_one` reads a single value the same way (an over-long JSONL line).

Memory does not follow the size of one string: when an element does not decode because a
string in it runs on for more than `LONG_STRING_CHARS`, the window keeps the string's first
`KEEP_CHARS` characters and skips the rest as it reads (`_Window.elide_string`); the
importers' `cap_text` then cuts and marks the text. Until then nothing costs extra: the
check runs only on the slow path, for an element longer than what has been read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import BinaryIO

from engine.importers.records import KEEP_CHARS

# `\x41` preceded by an even number of backslashes (an odd count means the backslash
# itself is escaped and `x41` is ordinary text).
_BAD_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*)\\x([0-9A-Fa-f]{2})")
_UNQUOTED_DOCUMENT_ID = re.compile(rb'("document_id"\s*:\s*)(?![\s"\d\-\[{nt])([^,\r\n}]+)')
_CHUNK = 256 * 1024
_SCAN_CHUNK = 4 * 1024 * 1024
_ARRAY_CHUNK = 1024 * 1024
_MAX_ITEM_CHARS = 64 * 1024 * 1024  # one message bigger than this: the file is broken
# How close to the end of the window a decode error must be to mean "read more".
_NEAR_END = 16
# A string longer than this that is still open when an element fails to decode is cut to
# its first KEEP_CHARS characters as the rest streams past.
LONG_STRING_CHARS = 2 * KEEP_CHARS
# The string's head: at most KEEP_CHARS characters or escapes, never half an escape.
# Possessive (`*+`, `{…}+`): a plain repeat keeps backtracking state per escape, which for
# a string of escapes (ensure_ascii Cyrillic) costs more memory than the string.
_STRING_HEAD = re.compile(r'(?:[^"\\]|\\u[0-9a-fA-F]{4}|\\[^u]){0,' + str(KEEP_CHARS) + "}+")
# Up to the closing quote (or a trailing lone backslash); unrolled, so it runs at C speed.
_STRING_BODY = re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+')
_HIGH_SURROGATE_END = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}$")
_SPACE = re.compile(r"[ \t\n\r]*")
_NEXT_ELEMENT = re.compile(r"[ \t\n\r]*,[ \t\n\r]*")


class JsonCutOff(ValueError):
    """The JSON ends before the array does."""


class JsonDamaged(ValueError):
    """The JSON is not valid at this point."""


def _reject_constant(name: str) -> float:
    raise JsonDamaged(f"{name} is not JSON")


_raw_decode = json.JSONDecoder(parse_constant=_reject_constant).raw_decode


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


def array_items(read: Callable[[int], bytes], trailing: str = "ignored") -> Iterator[object]:
    """Yield the elements of the JSON array that `read` starts with (UTF-8 bytes).

    Stops at the array's closing bracket: what follows is not read, unless `trailing` is
    "whitespace" (the array is the whole document: anything else after it is damage).
    Raises `JsonCutOff` when the input ends first, `JsonDamaged` for anything that is not
    JSON, and `UnicodeDecodeError` when an element (or the array itself) reaches bytes that
    are not UTF-8.
    """
    window = _Window(read)
    pos = window.skip_space(0)
    if window.text[pos] != "[":
        raise JsonDamaged("not an array")
    pos = window.skip_space(pos + 1)
    if window.text[pos] == "]":
        _check_trailing(window, pos + 1, trailing)
        return
    raw_decode = _raw_decode
    next_element = _NEXT_ELEMENT.match
    while True:
        text = window.text
        try:
            value, end = raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            value, end = window.decode_longer(pos, exc)
            text = window.text
        yield value
        found = next_element(text, end)
        if found is not None and found.end() < len(text):
            pos = found.end()  # the common case: ", " and the next element already in the window
            continue
        pos = window.skip_space(end)
        if window.text[pos] == "]":
            _check_trailing(window, pos + 1, trailing)
            return
        if window.text[pos] != ",":
            raise JsonDamaged("expected , or ] after an element")
        pos = window.skip_space(pos + 1)


class _Window:
    """Decoded text of the input, from the element being read to as far as was read."""

    def __init__(self, read: Callable[[int], bytes]) -> None:
        self._read = read
        self.text = ""
        self._partial = b""  # an incomplete UTF-8 character at the end of the last read
        self._at_end = False
        self._undecodable = False  # the bytes after `text` are not UTF-8

    def more(self, keep_from: int, size: int = _ARRAY_CHUNK) -> bool:
        """Drop text before `keep_from` and append about `size` more bytes' worth."""
        if self._undecodable:
            raise UnicodeDecodeError("utf-8", b"", 0, 1, "invalid UTF-8 inside the messages")
        if self._at_end:
            return False
        data = self._partial + self._read(size)
        self._at_end = len(data) == len(self._partial)
        cut = _complete_utf8(data)
        self._partial = data[cut:]
        try:
            added = data[:cut].decode("utf-8")
        except UnicodeDecodeError as exc:
            # Keep the good part; only an element (or the array) reaching the rest fails.
            added = data[: exc.start].decode("utf-8")
            self._undecodable = True
        self.text = self.text[keep_from:] + added
        return not self._at_end

    def skip_space(self, pos: int) -> int:
        """Index of the next non-space character (reading more as needed); the window may move."""
        while True:
            pos = _end_of(_SPACE, self.text, pos)
            if pos < len(self.text):
                return pos
            if not self.more(pos):
                raise JsonCutOff("the input ends inside the array")
            pos = 0

    def decode_longer(self, pos: int, exc: json.JSONDecodeError) -> tuple[object, int]:
        """The element at `pos` did not decode: read on while it may just be incomplete."""
        size = _ARRAY_CHUNK
        while True:
            maybe_short = len(self.text) - exc.pos <= _NEAR_END or exc.msg.startswith("Unterminated string")
            if not maybe_short:
                raise JsonDamaged(str(exc)) from None
            quote = _open_string(self.text, pos, exc)
            if quote is not None and len(self.text) - quote > LONG_STRING_CHARS:
                self.elide_string(pos, quote)
                pos = 0
                try:
                    return _raw_decode(self.text, pos)
                except json.JSONDecodeError as again:
                    exc = again
                    continue
            if len(self.text) - pos > _MAX_ITEM_CHARS:
                raise JsonDamaged("an element is far too long") from None
            if not self.more(pos, size):  # the whole rest of the input is in the window now
                try:
                    return _raw_decode(self.text, 0)
                except json.JSONDecodeError as final:
                    raise (JsonCutOff if _ends_early(self.text, final) else JsonDamaged)(str(final)) from None
            pos = 0
            size *= 2  # an element longer than a chunk: grow, so re-decoding stays linear
            try:
                return _raw_decode(self.text, pos)
            except json.JSONDecodeError as again:
                exc = again


    def expect_end(self, pos: int) -> None:
        """Only whitespace from `pos` to the end of the input, else `JsonDamaged`."""
        while True:
            pos = _end_of(_SPACE, self.text, pos)
            if pos < len(self.text):
                raise JsonDamaged("more follows the JSON value")
            if not self.more(pos):
                return
            pos = 0

    def elide_string(self, pos: int, quote: int) -> None:
        """Keep the element from `pos` with the string opening at `quote` cut to its head;
        read past the rest of the string (dropping it) up to its closing quote."""
        head_end = _end_of(_STRING_HEAD, self.text, quote + 1)
        kept = self.text[pos:head_end]
        if _HIGH_SURROGATE_END.search(kept):  # half of an escaped pair would decode to a lone surrogate
            kept = kept[:-6]
        rest = head_end
        while True:
            skipped = _end_of(_STRING_BODY, self.text, rest)
            if skipped < len(self.text) and self.text[skipped] == '"':
                self.text = kept + self.text[skipped:]
                return
            self.text = self.text[skipped:]  # what is left is a lone backslash at most
            if not self.more(0):
                self.text = kept + self.text  # the input ends inside the string: the decoder says so
                return
            rest = 0


def _end_of(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where `pattern` stops matching at `pos`."""
    found = pattern.match(text, pos)
    assert found is not None  # _SPACE, _STRING_HEAD and _STRING_BODY all match the empty string
    return found.end()


def _open_string(text: str, pos: int, exc: json.JSONDecodeError) -> int | None:
    """Where the string that the window ends inside opens, if that is why decoding failed."""
    if exc.msg.startswith("Unterminated string"):
        return exc.pos
    if exc.msg.startswith("Invalid \\uXXXX"):  # the window cut an escape in two: decode up to it
        try:
            _raw_decode(text[:exc.pos], pos)
        except json.JSONDecodeError as inner:
            return inner.pos if inner.msg.startswith("Unterminated string") else None
    return None


def _check_trailing(window: _Window, end: int, trailing: str) -> None:
    if trailing == "whitespace":
        window.expect_end(end)


def decode_one(read: Callable[[int], bytes]) -> object:
    """The one JSON value that `read` holds (only whitespace may follow); long strings cut
    as in `array_items`. Raises `JsonCutOff`, `JsonDamaged` or `UnicodeDecodeError`."""
    window = _Window(read)
    pos = window.skip_space(0)
    try:
        value, end = _raw_decode(window.text, pos)
    except json.JSONDecodeError as exc:
        value, end = window.decode_longer(pos, exc)
    window.expect_end(end)
    return value


def _ends_early(text: str, exc: json.JSONDecodeError) -> bool:
    """With all of the input in `text`: is this error the input stopping mid-element?"""
    rest = text[exc.pos:].strip()
    if not rest or exc.msg.startswith("Unterminated string"):
        return True
    if exc.msg == "Expecting value":  # a literal or number cut short
        return any(word.startswith(rest) for word in ("true", "false", "null", "-"))
    return exc.msg.startswith("Invalid \\uXXXX") and '"' not in rest


def _complete_utf8(data: bytes) -> int:
    """Length of `data` without an incomplete multi-byte character at its end."""
    end = len(data)
    start = end - 1
    while start >= 0 and end - start <= 4 and data[start] & 0xC0 == 0x80:
        start -= 1
    if start < 0 or data[start] < 0xC0:
        return end
    need = 2 if data[start] < 0xE0 else 3 if data[start] < 0xF0 else 4
    return start if end - start < need else end
