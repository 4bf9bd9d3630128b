"""Signal chats as signal-export (carderne/signal-export) writes them: `chat.md` or `data.json`.

signal-export puts each chat in a folder named after it: `<chat>/chat.md` (Markdown, one
message per `[YYYY-MM-DD HH:MM:SS] Sender: text` paragraph; older versions wrote
`[YYYY-MM-DD, HH:MM]`) and `<chat>/data.json` (one JSON object a line: date, sender, body,
quote, sticker, reactions, attachments, deleted, call). Both read to the same records, so
importing the Markdown and the JSON of one export adds each message once.

- The chat is named after its folder; messages have no ids, so they are keyed by content
  (a re-export or a longer one adds only what is new; a renamed folder merges by content).
- "Me" is the account owner (signal-export writes every outgoing message so).
- Quoted replies keep only the reply's own text (the quote is the earlier message, stored
  already). Attachments, stickers and "(media not exported)" become attachments; calls and
  deleted messages are service lines; reactions are kept beside the message they react to
  (its `reactions`, stored in the message's `meta`), never in its text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import unquote

from engine.errors import ImportFormatError
from engine.importers.base import Importer
from engine.importers.inputs import ExportInput
from engine.importers.records import AttachmentRecord, ChatRecord, MessageRecord, reactions_by_emoji
from engine.importers.text_lines import (
    REPORT_EVERY,
    chat_folder_name,
    file_attachment,
    head_lines,
    read_lines,
)
from engine.messages import msg

OWNER = "Me"
_START = re.compile(r"\[(\d{4})-(\d{2})-(\d{2}),? (\d{2}):(\d{2})(?::(\d{2}))?\] (.*?): ?(.*)")
_JSON_KEY = re.compile(r'"(date|sender|body|reactions|attachments)"\s*:')
# What signal-export appends after a message's body, in its order: reactions, a sticker, files.
_QUOTE = re.compile(r"\A\n\n((?:>[^\n]*(?:\n|\Z))+)")
_REACTIONS = re.compile(r"\n\(- (.*) -\)")
_STICKER_LABEL = re.compile(r"\n\(\( (.*) \)\)")
# Bounded lengths: a line of many "[" costs a pass each of at most that much, not of the whole line.
_LINK = re.compile(r"(!?)\[([^\]\n]{0,500})\]\(((?:\./media/|\.\./exported_stickers/)[^)\n]{0,2000})\)  ")
_NOT_EXPORTED = re.compile(r"\((media|attachment) not exported\)  ")
_DELETED = "(This message was deleted)"
_CALL = re.compile(r"(?:Incoming|Outgoing|Missed) (?:(?:voice|video) )?call(?: \([^)\n]*\))?")
_AUTHORS_SCANNED = 2000  # lines looked at to tell a group from a two-person chat


@dataclass
class _Parsed:
    """One message as both layouts describe it."""

    sent_at: float
    sender: str
    text: str
    where: str
    service: bool = False
    attachments: list[AttachmentRecord] = field(default_factory=list)
    reactions: list[tuple[str, str]] = field(default_factory=list)


class SignalImporter(Importer):
    format_name = "signal"

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        lines = head_lines(head)
        if not lines:
            return False
        first = lines[0].lstrip()
        if first.startswith("{"):
            return {"date", "sender", "body"} <= set(_JSON_KEY.findall(first))
        # `[2024-05-01 10:00:00] Name:` is also a (rare) WhatsApp layout; signal-export ends every
        # message with two spaces (a Markdown line break), which WhatsApp never writes.
        raw = head.decode("utf-8", errors="replace").split("\n")[:40]
        return bool(_START.fullmatch(first)) and any(line.rstrip("\r").endswith("  ") for line in raw)

    def parse(self, source: ExportInput, report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
        is_json = source.head().lstrip()[:1] == b"{"
        messages = _json_messages(source, report) if is_json else _markdown_messages(source, report)
        title = chat_folder_name(source) or "Signal chat"
        key = "signal:" + " ".join(title.casefold().split())
        authors = _authors(source, is_json)
        yield ChatRecord(key=key, title=title, kind="group" if len(authors - {OWNER}) > 1 else "personal")
        count = 0
        for parsed in messages:
            count += 1
            yield from _records(key, parsed)
        if not count:
            raise ImportFormatError(source.display_name, msg("import.problem.signal_nothing"),
                                    where=msg("import.where.line", line=1))
        report(source.size)


def _authors(source: ExportInput, is_json: bool) -> set[str]:
    found: set[str] = set()
    for n, _, line in read_lines(source):
        if n > _AUTHORS_SCANNED or len(found) > 2:
            break
        if is_json:
            match = re.search(r'"sender"\s*:\s*"((?:[^"\\]|\\.)*)"', line)
            if match:
                found.add(json.loads(f'"{match[1]}"'))
        elif match := _START.match(line):
            found.add(match[7])
    return found


def _records(key: str, parsed: _Parsed) -> Iterator[MessageRecord]:
    yield MessageRecord(
        chat_key=key, external_id=None, author=parsed.sender, author_key=_author_key(parsed.sender),
        role="user" if parsed.sender == OWNER else "other", sent_at=parsed.sent_at, text=parsed.text,
        where=parsed.where, is_service=parsed.service, attachments=parsed.attachments,
        reactions=reactions_by_emoji(parsed.reactions))


def _author_key(name: str) -> str | None:
    # The owner is one person however the export names the chat; others are keyed by name.
    return "me" if name == OWNER else None


def _markdown_messages(source: ExportInput, report: Callable[[int], None]) -> Iterator[_Parsed]:
    pending: tuple[int, re.Match[str], list[str]] | None = None
    for n, done, line in read_lines(source):
        if n % REPORT_EVERY == 0:
            report(done)
        match = _START.fullmatch(line)
        if match is None:
            if pending is not None:
                pending[2].append(line)
            elif line.strip():
                raise ImportFormatError(source.display_name, msg("import.problem.signal_no_start"),
                                        where=msg("import.where.line", line=n))
            continue
        if pending is not None:
            yield _from_markdown(source, *pending)
        pending = (n, match, [match[8]])
    if pending is not None:
        yield _from_markdown(source, *pending)


def _from_markdown(source: ExportInput, n: int, match: re.Match[str], lines: list[str]) -> _Parsed:
    year, month, day, hour, minute = (int(match[i]) for i in range(1, 6))
    sent_at = _local(source, n, year, month, day, hour, minute, int(match[6] or 0))
    text = "\n".join(lines).rstrip("\n")
    where = f"line {n}"
    if text.strip() == _DELETED:
        return _Parsed(sent_at, match[7], _DELETED, where, service=True)
    attachments: list[AttachmentRecord] = []
    links = _LINK.findall(text) if "](./media/" in text or "](../exported_stickers/" in text else []
    for bang, name, path in links:
        rel_path = unquote(path.removeprefix("./").removeprefix("../"))
        sticker = rel_path.startswith("exported_stickers/")
        record = file_attachment(rel_path, "sticker" if sticker else "photo" if bang else None)
        if name and not sticker:
            record.file_name = name
        attachments.append(record)
    for missing in _NOT_EXPORTED.findall(text):
        attachments.append(AttachmentRecord(kind="other", missing=f"{missing} not exported"))
    text = _NOT_EXPORTED.sub("", _LINK.sub("", text) if links else text)
    sticker_label = ""
    if found := _STICKER_LABEL.search(text):
        sticker_label = found[1]
        attachments.append(AttachmentRecord(kind="sticker", missing="sticker not exported"))
        text = text[: found.start()] + text[found.end():]
    elif any(item.kind == "sticker" for item in attachments):
        sticker_label = next(name for _, name, path in _LINK.findall("\n".join(lines)) if "exported_stickers/" in path)
    reactions: list[tuple[str, str]] = []
    if found := _REACTIONS.search(text):
        reactions = _reaction_pairs(found[1])
        text = text[: found.start()] + text[found.end():]
    text = _QUOTE.sub("", text)
    return _message(sent_at, match[7], text, where, attachments, reactions, sticker_label, call=False)


def _reaction_pairs(listed: str) -> list[tuple[str, str]]:
    pairs = []
    for item in listed.split(", "):
        who, colon, emoji = item.rpartition(": ")
        if colon:
            pairs.append((who, emoji))
    return pairs


def _message(sent_at: float, sender: str, body: str, where: str, attachments: list[AttachmentRecord],
             reactions: list[tuple[str, str]], sticker_label: str, call: bool) -> _Parsed:
    """The one place both layouts' messages are finished, so they hash the same."""
    text = body.strip() or sticker_label
    service = call or bool(_CALL.fullmatch(text))
    return _Parsed(sent_at, sender or "No-Sender", text, where, service, attachments, reactions)


def _json_messages(source: ExportInput, report: Callable[[int], None]) -> Iterator[_Parsed]:
    for n, done, line in read_lines(source):
        if n % REPORT_EVERY == 0:
            report(done)
        if not line.strip():
            continue
        where = msg("import.where.line", line=n)
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ImportFormatError(source.display_name, msg("import.problem.line_not_json"), where) from exc
        if not isinstance(row, dict) or not isinstance(row.get("date"), str):
            raise ImportFormatError(source.display_name, msg("import.problem.fields_missing", fields="date"), where)
        try:
            stamp = datetime.fromisoformat(row["date"]).replace(microsecond=0)
        except ValueError as exc:
            raise ImportFormatError(source.display_name, msg("import.problem.not_iso_date", date=row["date"][:40]),
                                    where) from exc
        sent_at = _local(source, n, stamp.year, stamp.month, stamp.day, stamp.hour, stamp.minute, stamp.second,
                         stamp)
        sender = _string(row.get("sender"))
        if row.get("deleted") is True:
            yield _Parsed(sent_at, sender or "No-Sender", _DELETED, f"line {n}", service=True)
            continue
        attachments = []
        for item in _list(row.get("attachments")):
            if not isinstance(item, dict):
                continue
            if item.get("missing_kind"):
                attachments.append(AttachmentRecord(kind="other", missing=f"{item['missing_kind']} not exported"))
            elif isinstance(item.get("path"), str) and item["path"]:
                path = unquote(item["path"].removeprefix("./"))
                name = _string(item.get("name"))
                kind = "photo" if path.rpartition(".")[2].lower() in _IMAGE_EXTENSIONS else None
                record = file_attachment(path, kind)
                record.file_name = name or record.file_name
                attachments.append(record)
        sticker_label = ""
        sticker = row.get("sticker")
        if isinstance(sticker, dict):
            sticker_label = _string(sticker.get("emoji")) or "sticker"
            extension = _string(sticker.get("extension"))
            if extension:
                path = f"exported_stickers/{sticker.get('packId')}/{sticker.get('id')}.{extension}"
                attachments.insert(0, file_attachment(path, "sticker"))
            else:
                attachments.insert(0, AttachmentRecord(kind="sticker", missing="sticker not exported"))
        reactions = [(_string(pair[0]), _string(pair[1])) for pair in _list(row.get("reactions"))
                     if isinstance(pair, list) and len(pair) == 2 and _string(pair[0]) and _string(pair[1])]
        yield _message(sent_at, sender, _string(row.get("body")).replace("`", ""), f"line {n}", attachments,
                       reactions, sticker_label, call=row.get("call") is True)


# signal-export marks these as images ("![name](path)") in its Markdown.
_IMAGE_EXTENSIONS = {"png", "jpg", "jpeg", "gif", "tif", "tiff", "webp", "apng", "svg"}


def _string(value: object) -> str:
    return value if isinstance(value, str) else ""


def _list(value: object) -> list:
    """A JSON list as a list; anything else (a damaged or hand-edited file) as no items."""
    return value if isinstance(value, list) else []


def _local(source: ExportInput, n: int, year: int, month: int, day: int, hour: int, minute: int, second: int,
           stamp: datetime | None = None) -> float:
    """Seconds since the epoch of a local wall-clock time (signal-export writes the exporting
    machine's local time); a zone given in the JSON is honoured."""
    try:
        if stamp is not None and stamp.tzinfo is not None:
            return stamp.timestamp()
        return datetime(year, month, day, hour, minute, second).timestamp()
    except (ValueError, OverflowError, OSError) as exc:
        stamp_text = f"{year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}"
        problem = msg("import.problem.not_a_real_date", stamp=stamp_text, order=msg("import.date_order.ymd"))
        raise ImportFormatError(source.display_name, problem, where=msg("import.where.line", line=n)) from exc
