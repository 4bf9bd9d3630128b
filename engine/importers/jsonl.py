"""Flashback JSONL: one message per line, the simplest way to bring any chat in.

    {"chat": "Team", "id": "42", "author": "Anna", "date": "2024-05-01T10:00:00+02:00",
     "text": "…", "role": "user", "reply_to": "41", "attachments": [{"kind": "photo", "name": "a.jpg"}]}

`chat`, `id`, `author`, `date` and `text` are required; `role` (user | assistant | other,
default other), `reply_to` and `attachments` are optional. Dates without a zone are
read as local time.
"""

from __future__ import annotations

import json
import mimetypes
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import BinaryIO

from engine.errors import ImportFormatError
from engine.importers.base import Importer, skip_rest_of_line
from engine.importers.inputs import SNIFF_BYTES, ExportInput
from engine.importers.json_stream import JsonCutOff, JsonDamaged, decode_one
from engine.importers.records import (
    ARTIFACT_KINDS,
    EARLIEST_TIME,
    LATEST_TIME,
    ROLES,
    AttachmentRecord,
    ChatRecord,
    MessageRecord,
    checked_time,
)
from engine.messages import Message, msg

_REQUIRED = ("chat", "id", "author", "date", "text")
# Lines up to this are read whole and decoded at once (the fast path); a longer one is
# decoded in a window that cuts its long strings, so one huge message does not show in memory.
_LINE_LIMIT = 1 << 20
# A first line longer than the sniffed head: recognised by its keys.
_KEY = re.compile(rb'"(chat|date|text)"\s*:')


class JsonlImporter(Importer):
    format_name = "jsonl"

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        first = head.lstrip().split(b"\n", 1)[0].strip()
        if first.startswith(b"{") and b"\n" not in head.lstrip() and len(head) >= SNIFF_BYTES - 3:
            keys = {match.group(1) for match in _KEY.finditer(first)}
            return b"chat" in keys and len(keys) >= 2  # a message longer than the head
        if not (first.startswith(b"{") and first.endswith(b"}")):
            return False
        try:
            row = json.loads(first)
        except ValueError:
            return False
        return isinstance(row, dict) and all(key in row for key in ("chat", "date", "text"))

    def parse(self, source: ExportInput, report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
        name = source.display_name
        chats: set[str] = set()
        done = 0
        with open(source.path, "rb") as handle, open(source.path, "rb") as long_lines:
            for number, raw in enumerate(iter(lambda: handle.readline(_LINE_LIMIT), b""), 1):
                if len(raw) == _LINE_LIMIT and not raw.endswith(b"\n"):
                    start = done
                    done += len(raw) + skip_rest_of_line(handle, _LINE_LIMIT)
                    row = _long_row(long_lines, start, done, name, number)
                else:
                    done += len(raw)
                    try:
                        line = raw.decode("utf-8-sig" if number == 1 else "utf-8").strip()
                    except UnicodeDecodeError as exc:
                        raise ImportFormatError(name, msg("import.problem.line_not_utf8"), _at(number)) from exc
                    if not line:
                        continue
                    row = _row(line, name, number)
                if number % 5000 == 0:
                    report(done)
                chat = _text(row["chat"])
                if chat not in chats:
                    chats.add(chat)
                    yield ChatRecord(key=f"jsonl:{chat}", title=chat, kind="other")
                yield _message(row, chat, name, number)
        report(done)


def _at(line: int) -> Message:
    """Where an error is, as a code (built only when one is raised: the records keep plain text)."""
    return msg("import.where.line", line=line)


def _long_row(handle: BinaryIO, start: int, end: int, name: str, line: int) -> dict:
    """Decode the line at bytes [start, end) in a window: its long strings come back cut."""
    handle.seek(start)
    if start == 0 and handle.read(3) != b"\xef\xbb\xbf":  # a byte-order mark opens line 1 at most
        handle.seek(0)
    remaining = end - handle.tell()

    def read(size: int) -> bytes:
        nonlocal remaining
        data = handle.read(min(size, remaining)) if remaining > 0 else b""
        remaining -= len(data)
        return data

    try:
        row = decode_one(read)
    except UnicodeDecodeError as exc:
        raise ImportFormatError(name, msg("import.problem.line_not_utf8"), _at(line)) from exc
    except (JsonCutOff, JsonDamaged) as exc:
        raise ImportFormatError(name, msg("import.problem.line_not_json"), _at(line)) from exc
    return _checked(row, name, line)


def _text(value: object) -> str:
    """A field as text: a string as it is, a nested object or list as JSON (not a Python repr)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _row(text: str, name: str, line: int) -> dict:
    try:
        row = json.loads(text)
    except ValueError as exc:
        raise ImportFormatError(name, msg("import.problem.line_not_json"), _at(line)) from exc
    return _checked(row, name, line)


def _checked(row: object, name: str, line: int) -> dict:
    if not isinstance(row, dict):
        raise ImportFormatError(name, msg("import.problem.line_not_object"), _at(line))
    missing = [key for key in _REQUIRED if row.get(key) is None]
    if missing:
        raise ImportFormatError(name, msg("import.problem.fields_missing", fields=", ".join(missing)), _at(line))
    return row


def _message(row: dict, chat: str, name: str, line: int) -> MessageRecord:
    try:
        sent_at = datetime.fromisoformat(str(row["date"]).replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError) as exc:
        raise ImportFormatError(name, msg("import.problem.not_iso_date", date=row["date"]), _at(line)) from exc
    if not EARLIEST_TIME <= sent_at < LATEST_TIME:  # "9999-12-31T23:59:59-05:00" is in year 10000 in UTC
        checked_time(sent_at, row["date"], name, _at(line))
    role = row.get("role") or "other"
    if role not in ROLES:
        raise ImportFormatError(name, msg("import.problem.bad_role", roles=", ".join(ROLES), role=role), _at(line))
    attachments = []
    items = row.get("attachments") or []
    if not isinstance(items, list):
        raise ImportFormatError(name, msg("import.problem.attachments_not_list"), _at(line))
    for item in items:
        if not isinstance(item, dict):
            raise ImportFormatError(name, msg("import.problem.attachment_not_object"), _at(line))
        kind = str(item.get("kind") or "file")
        file_name = None if item.get("name") is None else str(item["name"])
        attachments.append(AttachmentRecord(
            kind=kind if kind in ARTIFACT_KINDS else "other", file_name=file_name,
            mime=mimetypes.guess_type(file_name)[0] if file_name else None, rel_path=file_name))
    reply = row.get("reply_to")
    return MessageRecord(
        chat_key=f"jsonl:{chat}", external_id=_text(row["id"]), author=_text(row["author"]),
        author_key=None, role=role, sent_at=sent_at, text=_text(row["text"]), where=f"line {line}",
        reply_to=None if reply is None else _text(reply), attachments=attachments)
