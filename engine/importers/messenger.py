"""Facebook Messenger and Instagram "Download your information" JSON.

A thread is a folder, `…/messages/inbox/<title>_<id>/`, holding `message_1.json`,
`message_2.json`, … (each `{"participants", "messages", "title", "thread_path", …}`, the
newest messages first, `message_1` the newest part); `engine.importers.groups` joins one
thread's parts with the export's owner files, and they are read oldest first, so a longer
export starts with what a shorter one held.

- Meta writes UTF-8 text as if each byte were a Latin-1 character ("JosÃ©" for "José",
  "Ð\u009fÑ\u0080Ð¸Ð²ÐµÑ\u0082" for "Привет"): every string, names included, is repaired
  (`repair_mojibake`); text that is not such a mis-decoding is left as it is.
- The owner is the name in the export's profile (`profile_information.json`), autofill
  (`autofill_information.json`) or, on Instagram, `personal_information.json`; without
  them, in a one-to-one thread titled after the other person, the other participant.
- Messages carry no ids: they are keyed by time, author and text, so a re-export adds only
  new messages and a thread whose folder was renamed merges by its messages
  (`chat_identity`). The chat key is the thread folder's name, wherever the thread sits
  (inbox, archived_threads, message_requests).
- Photos, videos, audio, GIFs, files and stickers become files (their path in the export);
  a shared link becomes a file named by its link; reactions are kept beside the message
  (`chat_json.reactions_record`). Joins, leaves and calls are service lines. A message with
  no text, no media and no share (an unsent one) is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

from engine.errors import ImportFormatError
from engine.importers.base import Importer
from engine.importers.chat_json import checked_time, kind_of_file, load_json, reactions_record
from engine.importers.groups import META_OWNER_FILES
from engine.importers.inputs import ExportInput
from engine.importers.records import AttachmentRecord, ChatRecord, MessageRecord, Reaction
from engine.messages import msg

_MEDIA = (("photos", "photo"), ("videos", "video"), ("audio_files", "audio"), ("gifs", "animation"),
          ("files", "file"))
_ATTACHMENT_KEYS = frozenset((*(key for key, _ in _MEDIA), "media", "sticker", "share"))
_SERVICE_TYPES = {"Subscribe", "Unsubscribe", "Call"}
_GROUP_TYPES = {"RegularGroup", "Group"}


def repair_mojibake(text: str) -> str:
    """Meta's Latin-1-escaped UTF-8 back to the text it was; anything else unchanged."""
    if text.isascii():
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text  # a character above U+00FF, or bytes that are not UTF-8: not Meta's mis-decoding


class MessengerImporter(Importer):
    format_name = "messenger"

    @classmethod
    def sniff(cls, head: bytes) -> bool:
        return head.lstrip().startswith(b"{") and b'"participants"' in head \
            and (b'"sender_name"' in head or b'"senderName"' in head)

    def parse(self, source: ExportInput, report: Callable[[int], None]) -> Iterator[ChatRecord | MessageRecord]:
        owner = None
        threads = []
        for part in source.files():
            if part.relative.rsplit("/", 1)[-1] in META_OWNER_FILES:
                owner = owner or _owner_name(part)
            else:
                threads.append(part)
        done = 0
        chat: ChatRecord | None = None
        for part in threads:
            data = _load(part)
            if chat is None:
                chat = _chat_record(data, source)
                yield chat
                if owner is None:
                    owner = _peer_owner(data)
            messages = data.get("messages")
            if not isinstance(messages, list):
                raise ImportFormatError(part.display_name, msg("import.problem.messenger_no_messages"))
            # Newest first in the file; the oldest first here: a longer export starts as a shorter one did.
            for index in range(len(messages) - 1, -1, -1):
                raw = messages[index]
                if type(raw) is not dict:
                    raise ImportFormatError(part.display_name, msg("import.problem.message_not_object"),
                                            msg("import.where.chat", chat=chat.title))
                where = f"thread '{chat.title}', {part.relative.rsplit('/', 1)[-1]} message {index + 1}"
                record = _message_record(raw, chat.key, owner, part.display_name, where)
                if record is not None:
                    yield record
            done += part.size
            report(done)


def _load(part: ExportInput) -> dict:
    data = load_json(part)
    if not isinstance(data, dict):
        raise ImportFormatError(part.display_name, msg("import.problem.messenger_no_messages"))
    return data


def _owner_name(part: ExportInput) -> str | None:
    """The account's name from a profile, autofill or personal-information file; None if absent."""
    try:
        with open(part.path, "rb") as handle:
            data = json.load(handle)
    except (ValueError, OSError):
        return None  # an owner file Flashback cannot read does not stop the messages
    if not isinstance(data, dict):
        return None
    for key in ("profile_v2", "profile"):
        profile = data.get(key)
        if isinstance(profile, dict) and isinstance(profile.get("name"), dict):
            full = profile["name"].get("full_name")
            if isinstance(full, str) and full:
                return repair_mojibake(full)
    autofill = data.get("autofill_information_v2")
    if isinstance(autofill, dict) and isinstance(autofill.get("FULL_NAME"), list) and autofill["FULL_NAME"]:
        return repair_mojibake(str(autofill["FULL_NAME"][0]))
    users = data.get("profile_user")
    if isinstance(users, list) and users and isinstance(users[0], dict):
        fields = users[0].get("string_map_data")
        if isinstance(fields, dict) and isinstance(fields.get("Name"), dict):
            name = fields["Name"].get("value")
            if isinstance(name, str) and name:
                return repair_mojibake(name)
    return None


def _participants(data: dict) -> list[str]:
    found = []
    for person in data.get("participants") or ():
        name = person.get("name") if isinstance(person, dict) else person
        if isinstance(name, str):
            found.append(repair_mojibake(name))
    return found


def _peer_owner(data: dict) -> str | None:
    """In a one-to-one thread Meta titles the thread after the other person: the owner is the other."""
    title = repair_mojibake(str(data.get("title") or data.get("threadName") or ""))
    people = _participants(data)
    if len(people) == 2 and people.count(title) == 1 and data.get("thread_type") not in _GROUP_TYPES:
        return people[1 - people.index(title)]
    return None


def _chat_record(data: dict, source: ExportInput) -> ChatRecord:
    folder = source.relative.rstrip("/").rsplit("/", 1)[-1] if source.parts else ""
    thread_path = data.get("thread_path")
    if not folder and isinstance(thread_path, str) and thread_path:
        folder = thread_path.rstrip("/").rsplit("/", 1)[-1]
    people = _participants(data)
    title = repair_mojibake(str(data.get("title") or data.get("threadName") or "")) or ", ".join(people) \
        or folder or "Messenger"
    kind = "group" if data.get("thread_type") in _GROUP_TYPES or len(people) > 2 else "personal"
    return ChatRecord(key=f"messenger:{folder}" if folder else f"messenger:name:{title}", title=title, kind=kind)


def _message_record(raw: dict, chat_key: str, owner: str | None, name: str, where: str) -> MessageRecord | None:
    stamp = raw.get("timestamp_ms", raw.get("timestamp"))
    sent_at = checked_time(stamp / 1000 if isinstance(stamp, int | float) and not isinstance(stamp, bool) else stamp,
                           name, where)
    author = raw.get("sender_name", raw.get("senderName"))
    author = repair_mojibake(author) if type(author) is str and author else None
    text = raw.get("content", raw.get("text"))
    text = repair_mojibake(text) if isinstance(text, str) else ""
    attachments = [] if _ATTACHMENT_KEYS.isdisjoint(raw) else _attachments(raw)  # most messages: text only
    reactions = _reactions(raw["reactions"]) if "reactions" in raw else None
    if not text and not attachments:
        return None  # unsent, or only reacted to: nothing to keep
    # Joins and leaves name who in `users` (older exports write no `type` for them).
    is_service = raw.get("type") in _SERVICE_TYPES or isinstance(raw.get("users"), list)
    role = "user" if owner is not None and author == owner else "other"
    return MessageRecord(chat_key, None, author, None, role, sent_at, text, where, None, None, is_service,
                         attachments, reactions)


def _attachments(raw: dict) -> list[AttachmentRecord]:
    found = []
    for key, kind in _MEDIA:
        for item in raw.get(key) or ():
            if isinstance(item, dict) and isinstance(item.get("uri"), str):
                found.append(_file(kind, item["uri"]))
    for item in raw.get("media") or ():  # the end-to-end encrypted export's one list
        if isinstance(item, dict) and isinstance(item.get("uri"), str):
            found.append(_file("file", item["uri"]))
    sticker = raw.get("sticker")
    if isinstance(sticker, dict) and isinstance(sticker.get("uri"), str):
        found.append(_file("sticker", sticker["uri"]))
    share = raw.get("share")
    if isinstance(share, dict) and isinstance(share.get("link"), str) and share["link"]:
        found.append(AttachmentRecord(kind="other", file_name=repair_mojibake(share["link"])))
    return found


def _file(kind: str, uri: str) -> AttachmentRecord:
    if kind == "file":  # the generic list: the name says what it is
        kind = kind_of_file(uri)
    uri = repair_mojibake(uri)
    return AttachmentRecord(kind=kind, file_name=uri.rsplit("/", 1)[-1] or None, rel_path=uri)


def _reactions(reactions: object) -> list[Reaction] | None:
    if not isinstance(reactions, list):
        return None
    by_emoji: dict[str, list[str]] = {}
    for reaction in reactions:
        if isinstance(reaction, dict) and isinstance(reaction.get("reaction"), str):
            actor = reaction.get("actor")
            people = by_emoji.setdefault(repair_mojibake(reaction["reaction"]), [])
            if isinstance(actor, str):
                people.append(repair_mojibake(actor))
    return reactions_record([(emoji, people, len(people)) for emoji, people in by_emoji.items()])
