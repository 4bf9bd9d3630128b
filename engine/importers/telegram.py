"""Telegram Desktop "Machine-readable JSON" exports: single chats and whole accounts.

Big exports are streamed. Every chat object in either shape (`{"name", "type", "id",
"messages": [...]}` at the top, or inside `chats.list` / `left_chats.list`) is found by
its `"messages": [` key in a chunked scan; its header (the keys tdesktop writes before
`messages`) is parsed with `json`, and its messages with `json`'s C decoder one message
at a time (`json_stream.array_items`; faster than ijson's C backend `items`, and a
Python loop over ijson's events would be 8 s per million messages before any work).
This keeps parsing in C and memory flat.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import BinaryIO

from engine.errors import ImportFormatError
from engine.importers.base import Importer
from engine.importers.inputs import ExportInput
from engine.importers.json_stream import (
    JsonCutOff,
    JsonDamaged,
    RepairingReader,
    array_items,
    find_all,
    repair_json_bytes,
)
from engine.importers.records import (
    EARLIEST_TIME,
    LATEST_TIME,
    AttachmentRecord,
    ChatRecord,
    MessageRecord,
    Reaction,
    checked_time,
)
from engine.importers.telegram_text import attachments_of, flatten_text, service_text, text_or_none
from engine.messages import Message, msg

# A "messages" key opening an array: unescaped quotes cannot occur inside a JSON string,
# so this only matches real keys.
_MESSAGES_KEY = re.compile(rb'"messages"\s*:\s*\[')
# The chat object's opening brace: a list element or the document start, whose first key
# is one tdesktop writes before "messages". Searched backwards from the "messages" key.
_CHAT_START = re.compile(rb'(?:^|[\[,])\s*(\{)\s*"(?:name|type|id)"\s*:')
_SELF_ID = re.compile(rb'"personal_information"\s*:\s*\{[^{}]*?"user_id"\s*:\s*(\d+)')
_HEADER_WINDOW = 64 * 1024

_CHAT_KINDS = {
    "personal_chat": "personal", "bot_chat": "personal", "private_group": "group",
    "private_supergroup": "group", "public_supergroup": "group", "private_channel": "channel",
    "public_channel": "channel", "saved_messages": "saved", "replies": "other",
}
_DEFAULT_TITLES = {"saved_messages": "Saved Messages", "replies": "Replies"}


class TelegramImporter(Importer):
    format_name = "telegram"

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        stripped = head.lstrip()
        if not stripped.startswith(b"{") or b'"mapping"' in head:
            return False
        keys = (b'"messages"', b'"personal_information"', b'"left_chats"', b'"chats"')
        return any(key in head for key in keys)

    def parse(self, source: ExportInput, report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
        with open(source.path, "rb") as handle:
            yield from self._parse_file(source, handle, report)

    def _parse_file(self, source: ExportInput, handle: BinaryIO, report: Callable[[int], None]):
        name = source.display_name
        size = source.size
        self_match = _SELF_ID.search(handle.read(4 * _HEADER_WINDOW))
        account_self = f"user{int(self_match.group(1))}" if self_match else None
        previous_end = 0
        number = 0
        # The scan runs ahead one chat at a time on its own handle (not the whole file
        # first), so the first messages come out at once.
        with open(source.path, "rb") as scan:
            for _start, end in find_all(scan, _MESSAGES_KEY):
                number += 1
                array_start = end - 1
                header = _read_header(handle, previous_end, array_start, name, number)
                previous_end = array_start
                chat = _chat_record(header, number)
                yield chat
                self_id = account_self or _self_in_personal_chat(header)
                yield from self._messages(handle, array_start, size, chat, self_id, name, report)
        if not number:
            raise ImportFormatError(name, msg("import.problem.telegram_no_chats"))

    def _messages(self, handle, array_start, size, chat: ChatRecord, self_id, name, report) -> Iterator[MessageRecord]:
        reader = RepairingReader(handle, array_start, size)
        index, ident = 0, None
        try:
            for index, raw in enumerate(array_items(reader.read), 1):
                if type(raw) is not dict:
                    raise ImportFormatError(name, msg("import.problem.message_not_object"),
                                            msg("import.where.chat", chat=chat.title))
                ident = raw.get("id")
                where = f"chat '{chat.title}', message {ident if ident is not None else '#' + str(index)}"
                record = _message_record(raw, chat.key, self_id, name, where)
                if record is not None:
                    yield record
                else:  # "unsupported": tdesktop writes only {"id", "type"} for what it cannot export
                    self.skipped["unsupported"] += 1
                if index % 2000 == 0:
                    report(reader.position)
        # Only what the reader raises for bad bytes is the file's fault here: the fields are
        # checked where they are read, so a TypeError or KeyError is a bug for the guard. The
        # reader fails on the message *after* the last one read (`index`): that one is named.
        except JsonCutOff as exc:
            raise ImportFormatError(name, msg("import.problem.telegram_cut_off"), _unread(chat, index)) from exc
        except JsonDamaged as exc:
            raise ImportFormatError(name, msg("import.problem.json_damaged_here"), _unread(chat, index)) from exc
        except UnicodeDecodeError as exc:
            raise ImportFormatError(name, msg("import.problem.not_utf8"), _unread(chat, index)) from exc
        except ImportFormatError as exc:  # a message's own (its date) comes without its place: add it
            if exc.where is not None:
                raise
            raise ImportFormatError(name, exc.message.params["problem"], _at(chat, index, ident)) from exc
        report(reader.position)


def _at(chat: ChatRecord, index: int, ident: object) -> Message:
    """Where in the chat the reader was, as a code (built only for an error: records keep text)."""
    if not index:
        return msg("import.where.chat_start", chat=chat.title)
    return msg("import.where.chat_message", chat=chat.title, message=ident if ident is not None else f"#{index}")


def _unread(chat: ChatRecord, index: int) -> Message:
    """The message the reader failed in: the one after the `index` read whole (its id unread)."""
    return _at(chat, 0, None) if not index else msg("import.where.chat_message", chat=chat.title,
                                                      message=f"#{index + 1}")


def _read_header(handle: BinaryIO, floor: int, array_start: int, name: str, number: int) -> dict:
    """Parse the chat's keys that precede "messages" (tdesktop: name, type, id)."""
    low = max(floor, array_start - _HEADER_WINDOW)
    handle.seek(low)
    window = handle.read(array_start - low)
    matches = list(_CHAT_START.finditer(window))
    if not matches:
        return {}
    chunk = window[matches[-1].start(1):]
    chunk = chunk[: chunk.rfind(b'"messages"')].rstrip().rstrip(b",") + b"}"
    try:
        header = json.loads(repair_json_bytes(chunk))
    except (ValueError, UnicodeDecodeError):
        # Keys in an order tdesktop never writes (e.g. re-serialised with sorted keys):
        # the messages are still read; the chat gets a generic title.
        return {}
    return header if isinstance(header, dict) else {}


def _chat_record(header: dict, number: int) -> ChatRecord:
    chat_type = str(header.get("type") or "")
    chat_id = header.get("id")
    title = header.get("name") or _DEFAULT_TITLES.get(chat_type) or (
        "Deleted Account" if "name" in header else f"Telegram chat {chat_id or number}")
    if chat_id is not None:
        key = f"telegram:{chat_id}"
    elif chat_type in _DEFAULT_TITLES:
        key = f"telegram:{chat_type}"
    else:
        key = f"telegram:name:{title}"
    return ChatRecord(key=key, title=str(title), kind=_CHAT_KINDS.get(chat_type, "other"))


def _self_in_personal_chat(header: dict) -> str | None:
    """In a personal chat the peer's user id is the chat id; anyone else is the exporter."""
    if header.get("type") == "personal_chat" and header.get("id") is not None:
        return f"!user{header['id']}"
    return None


def _timestamp(raw: dict, unix: object, name: str) -> float | None:
    """The message's time from `date_unixtime` (`unix`) or else `date`; None when it has neither."""
    if unix is not None:
        if not isinstance(unix, int | float):  # a str goes the fast way, in `_message_record`
            raise _not_a_date(unix, name)
        try:
            return float(unix)
        except OverflowError as exc:  # an integer past a float's range
            raise _not_a_date(unix, name) from exc
    date = raw.get("date")
    if date is None:
        return None
    try:
        return datetime.fromisoformat(str(date)).timestamp()  # naive: the exporter's local time
    except (ValueError, OverflowError, OSError) as exc:  # not ISO 8601, or a year no clock can hold
        raise _not_a_date(date, name) from exc


def _not_a_date(value: object, name: str) -> ImportFormatError:
    """Without its place: `_messages` adds it (as a code) when it passes through."""
    return ImportFormatError(name, msg("import.problem.not_a_date", value=str(value)[:40]))


def _message_record(raw: dict, chat_key: str, self_id: str | None, name: str, where: str) -> MessageRecord | None:
    # The hot path of a big import (once per message): plain lookups, positional record.
    unix = raw.get("date_unixtime")
    sent_at: float | None
    if type(unix) is str:  # what tdesktop writes
        try:
            sent_at = float(unix)
        except ValueError as exc:
            raise _not_a_date(unix, name) from exc
    else:
        sent_at = _timestamp(raw, unix, name)
    if sent_at is None:  # "unsupported" messages are only {"id", "type"}: nothing to keep
        return None
    if not EARLIEST_TIME <= sent_at < LATEST_TIME:  # a date_unixtime of 1e20; without its place: `_messages` adds it
        checked_time(sent_at, raw.get("date") if unix is None else unix, name, None)
    is_service = raw.get("type") == "service"
    if is_service:
        author, author_key = raw.get("actor"), raw.get("actor_id")
        text = service_text(raw)
    else:
        author, author_key = raw.get("from"), raw.get("from_id")
        text = raw.get("text", "")
        if type(text) is not str:
            text = flatten_text(text)
    if author_key is not None:
        author_key = str(author_key)
        if not author_key[:1].isalpha():  # very old exports: a bare number
            author_key = f"user{author_key}"
    if self_id is None or author_key is None:
        role = "other"
    elif self_id.startswith("!"):
        role = "other" if author_key == self_id[1:] else "user"
    else:
        role = "user" if author_key == self_id else "other"
    ident = raw.get("id")
    reply = raw.get("reply_to_message_id")
    if author is not None and type(author) is not str:  # a damaged export's list or object: its text, if any
        author = text_or_none(author)
    attachments: list[AttachmentRecord] = (
        attachments_of(raw) if not is_service and ("photo" in raw or "file" in raw) else [])
    if attachments or "poll" in raw or "location_information" in raw or "contact_information" in raw:
        text = _with_media_text(raw, text)
    return MessageRecord(
        chat_key,
        None if ident is None else str(ident),
        author,
        author_key,
        role,
        sent_at,
        text,
        where,
        None if reply is None else str(reply),
        text_or_none(raw.get("forwarded_from")),
        is_service,
        attachments,
        _reactions(raw["reactions"]) if "reactions" in raw else None,
    )


def _reactions(reactions: object) -> list[Reaction] | None:
    """tdesktop's `reactions`: [{"type": "emoji", "emoji": "👍", "count": 2, "recent": [{"from", "from_id",
    "date"}]}]; a custom emoji (`"type": "custom_emoji"`, a sticker's document id) or a paid reaction
    (Telegram Stars) is named by its type. `recent` lists only the last few people: `count` is the number."""
    if type(reactions) is not list:
        return None
    found = []
    for reaction in reactions:
        if type(reaction) is not dict:
            continue
        emoji = text_or_none(reaction.get("emoji")) or f":{text_or_none(reaction.get('type')) or 'reaction'}:"
        recent = reaction.get("recent")
        people = tuple(name for name in (text_or_none(who.get("from")) for who in recent if type(who) is dict)
                       if name) if type(recent) is list else ()
        count = reaction.get("count")
        found.append(Reaction(emoji, people, count if type(count) is int and count > len(people) else len(people)))
    return found or None


def _with_media_text(raw: dict, text: str) -> str:
    """Polls, places and contacts carry their content outside `text`: keep it searchable."""
    extra = []
    poll = raw.get("poll")
    if isinstance(poll, dict):
        answers = poll.get("answers")
        answers = ", ".join(flatten_text(a.get("text")) for a in answers if isinstance(a, dict)) \
            if isinstance(answers, list) else ""
        extra.append(f"Poll: {flatten_text(poll.get('question'))} ({answers})")
    location = raw.get("location_information")
    if isinstance(location, dict):
        place = flatten_text(raw.get("place_name")) or flatten_text(raw.get("address"))
        where = ", ".join(axis for axis in (flatten_text(location.get(key)) for key in ("latitude", "longitude"))
                          if axis)
        extra.append(f"Location: {place} {where}".strip())
    contact = raw.get("contact_information")
    if isinstance(contact, dict):
        fields = (flatten_text(contact.get(key)) for key in ("first_name", "last_name", "phone_number"))
        extra.append("Contact: " + " ".join(f for f in fields if f))
    return "\n".join([text, *extra]) if text else "\n".join(extra)
