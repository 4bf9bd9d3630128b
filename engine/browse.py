"""Read-only views of the store for browsing: chats, topics, people, one topic in full.

Plain frozen dataclasses, so the window can show them without knowing SQL and tests can
compare them. Every query is bounded (`limit`) because a real history has tens of
thousands of topics and a list widget should not receive them all.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from engine.errors import EngineError
from engine.messages import msg
from engine.store.reactions import reactions_of
from engine.topics.content import topic_messages
from engine.topics.summary import author_label


class BrowseError(EngineError):
    """What was asked for is not in the store."""


@dataclass(frozen=True)
class ChatInfo:
    id: int
    name: str
    kind: str
    messages: int
    topics: int
    first_at: float | None
    last_at: float | None


@dataclass(frozen=True)
class TopicInfo:
    id: int
    chat_id: int
    chat: str
    summary: str
    messages: int
    chars: int
    first_at: float | None
    last_at: float | None


@dataclass(frozen=True)
class PersonInfo:
    id: int
    name: str
    handle: str | None
    messages: int
    chats: int


@dataclass(frozen=True)
class MessageLine:
    id: int
    author: str
    sent_at: float
    text: str
    reactions: str = ""  # "👍 Anna, Boris · ❤️ 3" (engine/store/reactions.py); "" when none


@dataclass(frozen=True)
class TopicDetail:
    info: TopicInfo
    messages: list[MessageLine]


def chats(connection: sqlite3.Connection) -> list[ChatInfo]:
    rows = connection.execute(
        "SELECT c.id, c.title, c.kind, c.message_count, "
        "(SELECT COUNT(*) FROM topic t WHERE t.chat_id = c.id), c.first_at, c.last_at "
        "FROM chat c ORDER BY c.last_at DESC NULLS LAST, c.id").fetchall()
    return [ChatInfo(*row) for row in rows]


_TOPIC_COLUMNS = ("t.id, t.chat_id, c.title, t.summary, t.message_count, t.size_chars, t.first_at, t.last_at "
                  "FROM topic t JOIN chat c ON c.id = t.chat_id")


def topics(connection: sqlite3.Connection, chat_id: int | None = None, text: str = "",
           limit: int = 500) -> list[TopicInfo]:
    """Newest first; `text` matches the summary case-insensitively (a substring, not BM25:
    the user is filtering a list they are looking at, not searching)."""
    where: list[str] = []
    params: list[int | str] = []
    if chat_id is not None:
        where.append("t.chat_id = ?")
        params.append(chat_id)
    if text.strip():
        where.append("t.summary LIKE ? ESCAPE '\\'")
        escaped = text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params.append(f"%{escaped}%")
    clause = f"WHERE {' AND '.join(where)} " if where else ""
    rows = connection.execute(f"SELECT {_TOPIC_COLUMNS} {clause}ORDER BY t.first_at DESC, t.id DESC LIMIT ?",
                              (*params, max(0, limit))).fetchall()
    return [TopicInfo(*row) for row in rows]


def people(connection: sqlite3.Connection, limit: int = 1000) -> list[PersonInfo]:
    rows = connection.execute(
        "SELECT p.id, p.display_name, p.external_id, p.message_count, "
        "(SELECT COUNT(DISTINCT m.chat_id) FROM message m WHERE m.person_id = p.id) "
        # message_count > 0: a row merged into the account owner (issue 23) is not a second "you"
        "FROM person p WHERE p.message_count > 0 ORDER BY p.message_count DESC, p.id LIMIT ?", (limit,)).fetchall()
    return [PersonInfo(*row) for row in rows]


def topic_detail(connection: sqlite3.Connection, topic_id: int) -> TopicDetail:
    row = connection.execute(f"SELECT {_TOPIC_COLUMNS} WHERE t.id = ?", (topic_id,)).fetchone()
    if row is None:
        raise BrowseError(msg("browse.topic_missing", topic_id=topic_id))
    messages = topic_messages(connection, topic_id)
    reactions = reactions_of(connection, [m.id for m in messages])
    lines = [MessageLine(m.id, author_label(m), m.sent_at, m.text, reactions.get(m.id, "")) for m in messages]
    return TopicDetail(TopicInfo(*row), lines)
