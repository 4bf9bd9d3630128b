"""The plain records every importer yields; the store writer is the only consumer.

An importer turns one export file into a stream of `ChatRecord`s, each followed by the
`MessageRecord`s of that chat (a chat may be announced again later; the writer merges).
Records carry no database ids: identity is `(chat key, message external id)`, or a
content hash when the format has no ids (WhatsApp), so re-imports add nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ROLES = ("user", "assistant", "other")
ARTIFACT_KINDS = ("photo", "file", "voice", "video", "sticker", "audio", "animation", "other")


@dataclass(slots=True)
class ChatRecord:
    key: str  # stable id of the chat inside its format, e.g. "telegram:5000"
    title: str
    kind: str = "other"  # personal | group | channel | saved | assistant | other


@dataclass(slots=True)
class AttachmentRecord:
    kind: str  # one of ARTIFACT_KINDS
    file_name: str | None = None
    mime: str | None = None
    size: int | None = None
    rel_path: str | None = None  # path inside the export, None when the file was not exported
    missing: str | None = None  # why the file is absent (Telegram's "File not included" etc.)


@dataclass(slots=True)
class MessageRecord:
    chat_key: str
    external_id: str | None  # None: the writer derives a content-hash key
    author: str | None  # display name as the export shows it
    author_key: str | None  # stable author id (Telegram "user123"); None: derived from the name
    role: str  # user (the person who exported) | assistant | other
    sent_at: float  # seconds since the epoch, UTC
    text: str
    where: str  # human location for error messages: "message 42", "line 17"
    reply_to: str | None = None  # external id of the message replied to
    forwarded_from: str | None = None
    is_service: bool = False  # joins, pins, calls: kept, but never part of a topic
    attachments: list[AttachmentRecord] = field(default_factory=list)
