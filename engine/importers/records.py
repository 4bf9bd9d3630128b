"""The plain records every importer yields; the store writer is the only consumer.

An importer turns one export file into a stream of `ChatRecord`s, each followed by the
`MessageRecord`s of that chat (a chat may be announced again later; the writer merges).
Records carry no database ids: identity is `(chat key, message external id)`, or a
content hash when the format has no ids (WhatsApp), so re-imports add nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import final

from engine.errors import ImportFormatError
from engine.messages import Message, msg

ROLES = ("user", "assistant", "other")
ARTIFACT_KINDS = ("photo", "file", "voice", "video", "sticker", "audio", "animation", "other")


@final  # consumers test `type(record) is MessageRecord` (the hot path); no subclass may slip past that
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


@dataclass(frozen=True, slots=True)
class Reaction:
    """One emoji (or word: iMessage's "Loved") put on a message, by whom; `count` when the export
    gives only a number (Slack, Discord without its users), else the people's count."""

    emoji: str
    people: tuple[str, ...] = ()
    count: int = 0


@final
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
    # Beside the text, never in it (they change after a message is sent: in the text they would
    # change a content-keyed message's identity) nor searched: stored in the message's `meta`.
    reactions: list[Reaction] | None = None
    model: str | None = None  # the model that wrote an assistant's answer (ChatGPT's "gpt-4o")


# One message's stored text is capped: import and build memory must not follow the size of
# the largest message (a pasted 2 GiB log in a 2 MB zip). Telegram caps a message at 4,096
# characters and WhatsApp at 65,536; 100,000 keeps whole anything a person typed or an
# assistant answered, while a topic is embedded in 4,000-character windows and Flash reads
# topics of up to 25,000, so what is cut is never what search would have used well.
MAX_MESSAGE_CHARS = 100_000
CUT_MARK = "\n[…]"  # the universal sign of an omission: stored once, read in either UI language
# Parsers keep a little more than the cap of an over-long string, so that `cap_text` (the
# one place that cuts and marks) sees it is over.
KEEP_CHARS = MAX_MESSAGE_CHARS + 1


def reactions_by_emoji(pairs: list[tuple[str, str]]) -> list[Reaction] | None:
    """(who, emoji) pairs as one `Reaction` per emoji in first-seen order; None for none."""
    people: dict[str, list[str]] = {}
    for who, emoji in pairs:
        people.setdefault(emoji, []).append(who)
    return [Reaction(emoji, tuple(names), len(names)) for emoji, names in people.items()] or None


def cap_text(text: str) -> tuple[str, bool]:
    """`text` cut to `MAX_MESSAGE_CHARS` with `CUT_MARK` appended, and whether it was cut."""
    if len(text) <= MAX_MESSAGE_CHARS:
        return text, False
    return text[:MAX_MESSAGE_CHARS] + CUT_MARK, True


# The times a store keeps: years 1900-2200 once the zone is applied (UTC). A time past them
# is no chat's (the first chat apps are from the 1970s) but a damaged or hand-made file's,
# and a year past 9999 stops every step that shows a date ("year 10000 is out of range"),
# so such a message is refused at import, naming it (issue 34); `check` repairs older stores.
EARLIEST_TIME = -2_208_988_800.0  # 1900-01-01T00:00:00Z
LATEST_TIME = 7_289_654_400.0  # 2201-01-01T00:00:00Z, itself outside


def checked_time(seconds: float, written: object, source: str, where: str | Message | None) -> float:
    """`seconds` when it lies in the years 1900-2200 (NaN never does); else the import error
    naming the date as the file wrote it (`written`) and where it is."""
    if EARLIEST_TIME <= seconds < LATEST_TIME:
        return seconds
    raise ImportFormatError(source, msg("import.problem.date_out_of_range", date=str(written)[:40]), where)
