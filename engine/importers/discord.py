"""DiscordChatExporter JSON: direct messages, group DMs, server channels and threads.

One file is one channel: `{"guild", "channel", "dateRange", "exportedAt", "messages": [...],
"messageCount"}` (DiscordChatExporter's `JsonMessageWriter`). A channel exported with a
partition limit comes as `… .json`, `… [part 2].json`, …: `engine.importers.groups` joins
them and they are read in order as one export. Messages are streamed one at a time
(`json_stream.array_items`), so memory does not follow the channel's length.

- A chat is its channel id (`discord:<id>`): a re-export, a longer one or a renamed channel
  adds only new messages (Discord's message ids are the dedup keys).
- People are keyed by their user name (`discord:name:<name>`), shown by their nickname, so
  `flashback owner --name` and an owner named in another format's export reach them. In a
  one-to-one DM the exporter names the chat after the other person: anyone else writing
  there is the owner (`role` "user").
- Replies point at the message replied to; mentions are names (`<@id>` left raw by an old
  export is replaced by the mentioned user's name); the text is the message as last edited;
  attachments and stickers are files; reactions are kept beside the message
  (`chat_json.reactions_record`).
- Calls, joins, pins, renames and the other system notices are kept as service lines
  (never part of a topic), with DiscordChatExporter's own sentence as their text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import BinaryIO

from engine.errors import ImportFormatError
from engine.importers.base import Importer
from engine.importers.chat_json import EARLIEST, LATEST, as_dict, iso_time, kind_of_file, reactions_record
from engine.importers.inputs import ExportInput
from engine.importers.json_stream import JsonCutOff, JsonDamaged, RepairingReader, array_items
from engine.importers.records import AttachmentRecord, ChatRecord, MessageRecord, Reaction
from engine.messages import msg

_MESSAGES_KEY = re.compile(rb'"messages"\s*:\s*\[')
_HEADER_BYTES = 256 * 1024
# What a person writes; every other message type is a system notice (calls, joins, pins, …).
_WRITTEN = {"Default", "Reply", "ApplicationCommand", "ContextMenuCommand"}
_DM, _GROUP_DM = "DirectTextChat", "DirectGroupTextChat"
# A DM's owner is inferred from the peer's messages; these many are held back meanwhile.
_HOLD_MAX = 5000


class DiscordImporter(Importer):
    format_name = "discord"

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        return head.lstrip().startswith(b"{") and b'"guild"' in head and b'"channel"' in head \
            and (b'"messages"' in head or b'"dateRange"' in head)

    def parse(self, source: ExportInput, report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
        done_before = 0
        owner = _DmOwner()
        for part in source.files():
            with open(part.path, "rb") as handle:
                yield from self._parse_part(part, handle, owner, _offset(report, done_before))
            done_before += part.size
        yield from owner.release()

    def _parse_part(self, part: ExportInput, handle: BinaryIO, owner: _DmOwner,
                    report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
        name = part.display_name
        header, array_start = _read_header(handle, name)
        chat = _chat_record(header)
        yield chat
        channel = as_dict(header.get("channel"))
        if channel.get("type") == _DM:
            owner.peer(str(channel.get("name") or ""))
        reader = RepairingReader(handle, array_start, part.size)
        people: dict[str, tuple[str | None, str | None]] = {}  # author id → (shown name, key)
        index, ident = 0, None
        try:
            for index, raw in enumerate(array_items(reader.read), 1):
                if type(raw) is not dict:
                    raise ImportFormatError(name, msg("import.problem.message_not_object"),
                                            msg("import.where.chat", chat=chat.title))
                ident = raw.get("id")
                where = f"channel '{chat.title}', message {ident if ident is not None else '#' + str(index)}"
                yield from owner.decide(_message_record(raw, chat.key, name, where, people))
                if index % 2000 == 0:
                    report(reader.position)
        except JsonCutOff as exc:
            raise ImportFormatError(name, msg("import.problem.telegram_cut_off"), _at(chat, index, ident)) from exc
        except JsonDamaged as exc:
            raise ImportFormatError(name, msg("import.problem.json_damaged_here"), _at(chat, index, ident)) from exc
        except UnicodeDecodeError as exc:
            raise ImportFormatError(name, msg("import.problem.not_utf8"), _at(chat, index, ident)) from exc
        report(reader.position)


def _offset(report: Callable[[int], None], before: int) -> Callable[[int], None]:
    """A part's progress as the whole export's: the parts before it are done."""
    return lambda done: report(before + done)


class _DmOwner:
    """Who the owner is in a one-to-one DM: whoever is not the peer the chat is named after.

    Messages are held back until the peer has written (at most `_HOLD_MAX`); if the peer never
    does, nobody is marked as the owner. Outside DMs every message passes straight through."""

    def __init__(self) -> None:
        self._peer: set[str] = set()
        self._peer_seen = False
        self._held: list[MessageRecord] = []
        self._identity: dict[int, set[str]] = {}  # held message → its author's names

    def peer(self, name: str) -> None:
        if name:
            self._peer = {name}

    def decide(self, record: MessageRecord) -> Iterator[MessageRecord]:
        if not self._peer:
            yield record
            return
        names = {record.author or "", (record.author_key or "")[len("name:"):]}
        if names & self._peer:
            self._peer_seen = True
            yield from self.release()
            yield record
        elif self._peer_seen:
            if record.author is not None:
                record.role = "user"
            yield record
        else:
            self._held.append(record)
            if len(self._held) >= _HOLD_MAX:
                self._peer = set()  # no peer so far: stop inferring, keep the order
                yield from self.release()

    def release(self) -> Iterator[MessageRecord]:
        held, self._held = self._held, []
        for record in held:
            if self._peer_seen and record.author is not None:
                record.role = "user"
            yield record


def _at(chat: ChatRecord, index: int, ident: object):
    if not index:
        return msg("import.where.chat_start", chat=chat.title)
    return msg("import.where.chat_message", chat=chat.title, message=ident if ident is not None else f"#{index}")


def _read_header(handle: BinaryIO, name: str) -> tuple[dict, int]:
    """The keys before "messages" (guild, channel, dateRange) and where the array starts."""
    head = handle.read(_HEADER_BYTES)
    match = _MESSAGES_KEY.search(head)
    if match is None:
        raise ImportFormatError(name, msg("import.problem.discord_no_messages"))
    prefix = head[: match.start()].rstrip().rstrip(b",") + b"}"
    try:
        header = json.loads(prefix.removeprefix(b"\xef\xbb\xbf"))
    except (ValueError, UnicodeDecodeError):
        header = {}  # keys in another order: the messages are still read, the chat named by its file
    return (header if isinstance(header, dict) else {}), match.end() - 1


def _chat_record(header: dict) -> ChatRecord:
    guild = as_dict(header.get("guild"))
    channel = as_dict(header.get("channel"))
    channel_id = channel.get("id")
    channel_name = str(channel.get("name") or channel_id or "Discord channel")
    kind = channel.get("type")
    if kind in (_DM, _GROUP_DM):
        title = channel_name
    else:
        category = channel.get("category")
        where = f"{category} \u203a {channel_name}" if kind and "Thread" in str(kind) and category else channel_name
        title = f"{guild.get('name') or 'Discord'} #{where}"
    key = f"discord:{channel_id}" if channel_id is not None else f"discord:name:{title}"
    return ChatRecord(key=key, title=title, kind="personal" if kind == _DM else "group")


def _person(user: object) -> tuple[str | None, str | None]:
    """(shown name, key) of a DiscordChatExporter user object."""
    if not isinstance(user, dict):
        return None, None
    handle = str(user.get("name") or "") or None
    discriminator = str(user.get("discriminator") or "0")
    if handle and discriminator.strip("0"):  # before 2023 a name was unique only with its #tag
        handle = f"{handle}#{discriminator}"
    shown = str(user.get("nickname") or user.get("name") or "") or None
    return shown, (f"name:{handle}" if handle else None)


def _message_record(raw: dict, chat_key: str, name: str, where: str,
                    people: dict[str, tuple[str | None, str | None]]) -> MessageRecord:
    # The hot path (once per message): the common shapes first, the rest through the checks.
    stamp = raw.get("timestamp")
    try:
        sent_at = datetime.fromisoformat(stamp).timestamp() if type(stamp) is str else None
    except (ValueError, OverflowError, OSError):
        sent_at = None
    if sent_at is None or not EARLIEST <= sent_at < LATEST:
        sent_at = iso_time(stamp, name, where)  # raises, naming the value
    user = raw.get("author")
    user_id = user.get("id") if type(user) is dict else None
    known = people.get(user_id) if type(user_id) is str else None
    if known is None:
        known = _person(user)
        if type(user_id) is str:
            people[user_id] = known
    author, author_key = known
    kind = raw.get("type") or "Default"
    is_service = kind not in _WRITTEN
    text = raw.get("content")
    text = text if type(text) is str else ""
    if "<@" in text:
        for mentioned in raw.get("mentions") or ():
            if isinstance(mentioned, dict) and mentioned.get("id") is not None:
                shown = mentioned.get("nickname") or mentioned.get("name") or ""
                for raw_mention in (f"<@{mentioned['id']}>", f"<@!{mentioned['id']}>"):
                    text = text.replace(raw_mention, f"@{shown}")
    forwarded = raw.get("forwardedMessage")
    if not text and isinstance(forwarded, dict) and isinstance(forwarded.get("content"), str):
        text = forwarded["content"]
    if not text:
        text = _embeds_text(raw.get("embeds"))
    if is_service and not text:
        text = str(kind)
    attachments = [] if is_service or not (raw.get("attachments") or raw.get("stickers")) else _attachments(raw)
    reactions = _reactions(raw["reactions"]) if raw.get("reactions") else None
    reference = raw.get("reference")
    reply_to = None
    if isinstance(reference, dict) and reference.get("messageId") is not None and kind == "Reply":
        reply_to = str(reference["messageId"])
    ident = raw.get("id")
    return MessageRecord(
        chat_key, None if ident is None else str(ident), author, author_key, "other", sent_at, text, where,
        reply_to, "forwarded" if isinstance(forwarded, dict) else None, is_service, attachments, reactions)


def _embeds_text(embeds: object) -> str:
    """A bot's or a link's embed, when it is all the message says: its title and description."""
    if not isinstance(embeds, list):
        return ""
    lines: list[str] = []
    for embed in embeds:
        if isinstance(embed, dict):
            lines.extend(str(embed[key]) for key in ("title", "description") if embed.get(key))
    return "\n".join(lines)


def _attachments(raw: dict) -> list[AttachmentRecord]:
    found = []
    for item in raw.get("attachments") or ():
        if isinstance(item, dict):
            file_name = str(item.get("fileName") or "") or None
            url = str(item.get("url") or "")
            size = item.get("fileSizeBytes")
            local = url if url and "://" not in url else None  # exported with --media: a path beside the JSON
            found.append(AttachmentRecord(kind=kind_of_file(file_name or url), file_name=file_name,
                                          size=size if isinstance(size, int) else None, rel_path=local))
    for sticker in raw.get("stickers") or ():
        if isinstance(sticker, dict):
            found.append(AttachmentRecord(kind="sticker", file_name=str(sticker.get("name") or "") or None))
    return found


def _reactions(reactions: object) -> list[Reaction] | None:
    if not isinstance(reactions, list):
        return None
    summary = []
    for reaction in reactions:
        if not isinstance(reaction, dict):
            continue
        emoji = as_dict(reaction.get("emoji"))
        symbol = str(emoji.get("name") or emoji.get("code") or "?")
        if emoji.get("id"):  # a server's own emoji: its name, as Discord writes it in text
            symbol = f":{symbol}:"
        people = [_person(user)[0] or "?" for user in reaction.get("users") or () if isinstance(user, dict)]
        count = reaction.get("count")
        summary.append((symbol, people, count if isinstance(count, int) else len(people)))
    return reactions_record(summary)
