"""Who the people of a history are, by what the store holds without any model (issue 33, item 2).

Each person's activity: first and last message, messages per month, the chats and the topics
they wrote in. The People view draws its cards from these; with no chat model and no facts
this is all there is to show, and it is never invented: every figure is a count of messages.
Assistants (ChatGPT, a JSONL "role": "assistant") are no people here either.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from engine.memory.people_and_files import ASSISTANT_PERSON_SQL

TOPICS_SHOWN = 50  # a card lists a person's newest topics; the count says how many there are


@dataclass(frozen=True)
class PersonSummary:
    """One person in the People list: enough for a row, without their activity."""

    id: int
    name: str
    handle: str | None
    is_self: bool
    messages: int
    first_at: float | None
    last_at: float | None
    aliases: tuple[str, ...] = ()  # other names the person or the Archivist gave them (issue 33)
    circle: str | None = None  # family | friends | work | other; None: not known
    bio: str = ""


@dataclass(frozen=True)
class SourceMessage:
    """A message a fact cites, as a card quotes it: who, when, where, what, and its topic."""

    id: int
    author: str
    sent_at: float
    chat: str
    text: str
    topic_id: int | None


@dataclass(frozen=True)
class PersonTopic:
    """A topic a person wrote in, and how many of its messages are theirs."""

    id: int
    chat: str
    summary: str
    first_at: float | None
    messages: int
    own_messages: int


@dataclass(frozen=True)
class PersonActivity:
    """A person's activity: first and last message, messages per month (every month between the
    two, zeros included, so a chart's gaps are real), their chats and their newest topics."""

    person: PersonSummary
    per_month: tuple[tuple[str, int], ...]  # ("2025-04", 12), oldest first
    chats: tuple[str, ...]
    topics: tuple[PersonTopic, ...]  # newest first, at most TOPICS_SHOWN
    topic_count: int


_SUMMARY = "p.id, p.display_name, p.external_id, p.is_self, p.message_count, p.first_seen, p.last_seen"
_KNOWN = ", p.aliases, p.circle, p.bio"


def _summaries(connection: sqlite3.Connection, where: str, params: tuple) -> list[PersonSummary]:
    try:
        rows = connection.execute(f"SELECT {_SUMMARY}{_KNOWN} FROM person p WHERE {where}", params).fetchall()
    except sqlite3.OperationalError:  # a read-only store older than issue 33: nothing known beyond messages
        rows = [(*r, "[]", None, "") for r in connection.execute(f"SELECT {_SUMMARY} FROM person p WHERE {where}",
                                                                  params)]
    return [PersonSummary(r[0], r[1], r[2], bool(r[3]), r[4], r[5], r[6], _aliases(r[7]), r[8], r[9] or "")
            for r in rows]


def _aliases(stored: str | None) -> tuple[str, ...]:
    try:
        return tuple(str(a) for a in json.loads(stored or "[]") if str(a).strip())
    except (ValueError, TypeError):
        return ()


def people_list(connection: sqlite3.Connection, limit: int = 1000) -> list[PersonSummary]:
    """The owner first, then everyone else by how much they wrote; assistants left out."""
    return _summaries(connection, f"p.message_count > 0 AND NOT {ASSISTANT_PERSON_SQL} "
                                  "ORDER BY p.is_self DESC, p.message_count DESC, p.id LIMIT ?", (max(0, limit),))


def source_messages(connection: sqlite3.Connection, message_ids: list[int]) -> list[SourceMessage]:
    """The messages with these ids, oldest first (a fact's provenance, quoted on its card)."""
    found: list[SourceMessage] = []
    for start in range(0, len(message_ids), 500):  # SQLite's bound-parameter limit
        chunk = message_ids[start:start + 500]
        found += [SourceMessage(r[0], r[1] or "?", r[2], r[3], r[4], r[5]) for r in connection.execute(
            "SELECT m.id, m.author, m.sent_at, c.title, m.text, m.topic_id FROM message m JOIN chat c "
            f"ON c.id = m.chat_id WHERE m.id IN ({','.join('?' * len(chunk))})", chunk)]
    return sorted(found, key=lambda m: (m.sent_at, m.id))


def _months_between(first: str, last: str) -> list[str]:
    year, month = int(first[:4]), int(first[5:7])
    months: list[str] = []
    while f"{year:04d}-{month:02d}" <= last:
        months.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return months


def person_activity(connection: sqlite3.Connection, person_id: int) -> PersonActivity | None:
    """The activity of one person; None when there is no such person (or no message of theirs)."""
    found = _summaries(connection, "p.id = ? AND p.message_count > 0", (person_id,))
    if not found:
        return None
    person = found[0]
    counts = dict(connection.execute(
        "SELECT strftime('%Y-%m', sent_at, 'unixepoch'), count(*) FROM message "
        "WHERE person_id = ? AND is_service = 0 GROUP BY 1", (person_id,)).fetchall())
    per_month: tuple[tuple[str, int], ...] = ()
    if counts:
        per_month = tuple((m, counts.get(m, 0)) for m in _months_between(min(counts), max(counts)))
    chats = tuple(r[0] for r in connection.execute(
        "SELECT c.title FROM chat c JOIN (SELECT chat_id, count(*) AS n FROM message WHERE person_id = ? "
        "GROUP BY chat_id) m ON m.chat_id = c.id ORDER BY m.n DESC, c.id", (person_id,)))
    own = connection.execute(
        "SELECT topic_id, count(*) FROM message WHERE person_id = ? AND topic_id IS NOT NULL GROUP BY topic_id",
        (person_id,)).fetchall()
    own_by_topic = dict(own)
    topics: list[PersonTopic] = []
    if own_by_topic:
        ids = list(own_by_topic)
        rows = []
        for start in range(0, len(ids), 500):  # SQLite's bound-parameter limit
            chunk = ids[start:start + 500]
            rows += connection.execute(
                "SELECT t.id, c.title, t.summary, t.first_at, t.message_count FROM topic t JOIN chat c "
                f"ON c.id = t.chat_id WHERE t.id IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        rows.sort(key=lambda r: (-(r[3] or 0.0), -r[0]))
        topics = [PersonTopic(r[0], r[1], r[2], r[3], r[4], own_by_topic[r[0]]) for r in rows[:TOPICS_SHOWN]]
    return PersonActivity(person, per_month, chats, tuple(topics), len(own_by_topic))

