"""Records → the store's row tuples, with every id assigned here.

`RowBuilder` is the CPU half of an import: dedup keys, content hashes, people and chats,
message ids. It never touches the database, so it runs unchanged inside the import
transaction's process or in the parse child (`engine.importers.parse_child`), which then only
ships finished rows. Chats and people are looked up in `known_*` (what the store held
before: a dict, or a lookup that queries the store); ones the store does not have yet
get the next free id here and an insert op that the writer applies before the rows
that refer to them. This module must stay free of SQLAlchemy and Qt: the child imports it.

A batch is `(ops, messages, artifacts)`, plain tuples only (it crosses a pipe with
`marshal`):
  ops        ("chat", id, key, title, kind, format) | ("title", id, title)
             | ("person", id, key, name, external_id, is_self) | ("self", id)
  messages   rows in `message`'s insert order (see engine.importers.writer), `meta` last
  artifacts  rows for `artifact`, the message id repeated last (inserted only if the
             message went in)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from hashlib import blake2b as _blake2b
from typing import Protocol

from engine.importers.records import (
    EARLIEST_TIME,
    LATEST_TIME,
    MAX_MESSAGE_CHARS,
    MessageRecord,
    cap_text,
    checked_time,
)


def message_meta(message: MessageRecord) -> str | None:
    """The message's `meta` column: what the export says beside its text, as JSON
    (`{"reactions": [{"emoji", "by", "count"}], "model": …}`); None when it says nothing."""
    meta: dict[str, object] = {}
    if message.reactions:
        meta["reactions"] = [{"emoji": r.emoji, "by": list(r.people), "count": r.count or len(r.people)}
                             for r in message.reactions]
    if message.model:
        meta["model"] = message.model
    return json.dumps(meta, ensure_ascii=False) if meta else None


class Lookup(Protocol):
    def get(self, key: str, /) -> int | None: ...


@dataclass
class IdState:
    """What one import has assigned so far; travels to the parse child and back."""

    next_message_id: int = 1
    next_chat_id: int = 1
    next_person_id: int = 1
    chat_ids: dict[str, int] = field(default_factory=dict)  # chats this import touched
    person_ids: dict[str, int] = field(default_factory=dict)  # people this import touched

    def as_tuple(self) -> tuple:
        return (self.next_message_id, self.next_chat_id, self.next_person_id, self.chat_ids, self.person_ids)

    @classmethod
    def from_tuple(cls, data: tuple) -> IdState:
        return cls(*data)


class RowBuilder:
    def __init__(self, ids: IdState, known_chats: Lookup, known_persons: Lookup) -> None:
        self.ids = ids
        self._known_chats = known_chats
        self._known_persons = known_persons
        self._format = ""
        self._source_id = 0
        self._source_name = ""
        self._occurrences: dict[tuple[int, str], int] = {}
        self._people: dict[tuple, int | None] = {}  # (author_key, author) → person id, this source
        self._ops: list[tuple] = []
        self._messages: list[tuple] = []
        self._artifacts: list[tuple] = []
        self.seen = 0  # messages of the current source

    def begin_source(self, format_name: str, source_id: int, source_name: str = "") -> None:
        self._format = format_name
        self._source_id = source_id
        self._source_name = source_name  # what an error names: "export.zip › result.json"
        self._occurrences.clear()
        self._people.clear()
        self.seen = 0

    @property
    def pending(self) -> int:
        return len(self._messages)

    def take_batch(self) -> tuple[list, list, list] | None:
        if not (self._ops or self._messages):
            return None
        batch = (self._ops, self._messages, self._artifacts)
        self._ops, self._messages, self._artifacts = [], [], []
        return batch

    def add_chat(self, key: str, title: str, kind: str) -> int:
        chat_id = self.ids.chat_ids.get(key)
        if chat_id is None:
            chat_id = self._known_chats.get(key)
            if chat_id is None:
                chat_id = self.ids.next_chat_id
                self.ids.next_chat_id += 1
                self._ops.append(("chat", chat_id, key, title, kind, self._format))
            else:
                self._ops.append(("title", chat_id, title))
            self.ids.chat_ids[key] = chat_id
        return chat_id

    def _person_id(self, author: str | None, author_key: str | None, role: str) -> int | None:
        if not author and not author_key:
            return None
        key = f"{self._format}:{author_key or 'name:' + str(author)}"
        person_id = self.ids.person_ids.get(key)
        if person_id is None:
            person_id = self._known_persons.get(key)
            if person_id is None:
                person_id = self.ids.next_person_id
                self.ids.next_person_id += 1
                self._ops.append(("person", person_id, key, author or key, author_key, role == "user"))
            elif role == "user":
                self._ops.append(("self", person_id))
            self.ids.person_ids[key] = person_id
        elif role == "user":  # met earlier in this import where it was not known to be the owner
            self._ops.append(("self", person_id))
        return person_id

    def add_message(self, message: MessageRecord) -> int:
        """Queue one message's rows; returns how many messages are pending.

        The per-message half of every import (issue 34): attributes are read once into locals
        and the common case (a short text, a known chat and author) takes no call it can skip."""
        ids = self.ids
        chat_id = ids.chat_ids.get(message.chat_key)
        if chat_id is None:  # an importer may skip the ChatRecord for a one-chat file
            chat_id = self.add_chat(message.chat_key, message.chat_key, "other")
        author = message.author
        text = message.text
        if len(text) > MAX_MESSAGE_CHARS:
            text = cap_text(text)[0]  # the writer counts the cut ones by their mark
        sent_at = message.sent_at
        if not EARLIEST_TIME <= sent_at < LATEST_TIME:  # each importer checks its dates; this keeps any reader honest
            checked_time(sent_at, sent_at, self._source_name, message.where)
        digest = _blake2b(f"{sent_at:.3f}\x1f{author}\x1f{text}".encode("utf-8", "surrogatepass"),
                          digest_size=8).hexdigest()
        external_id = message.external_id
        dedup_key = external_id
        if dedup_key is None:
            # No ids in the format: identical messages in the same second are still
            # distinct messages, so number the repeats (stable across re-imports).
            occurrence = (chat_id, digest)
            seen = self._occurrences.get(occurrence, 0)
            self._occurrences[occurrence] = seen + 1
            dedup_key = f"h:{digest}:{seen}"
        author_key = message.author_key
        people_key = (author_key, author)
        person_id = self._people.get(people_key, -1)
        if person_id == -1:
            person_id = self._people[people_key] = self._person_id(author, author_key, message.role)
        message_id = ids.next_message_id
        ids.next_message_id = message_id + 1
        messages = self._messages
        messages.append((
            message_id, chat_id, dedup_key, external_id, person_id, author, message.role, sent_at, text,
            message.reply_to, message.forwarded_from, digest, message.is_service, self._source_id,
            message_meta(message) if message.reactions or message.model else None,
        ))
        if message.attachments:
            caption = text or None
            for item in message.attachments:
                self._artifacts.append((
                    message_id, item.kind, item.file_name, item.mime, item.size, item.rel_path,
                    caption, item.missing, message_id,
                ))
        self.seen += 1
        return len(messages)
