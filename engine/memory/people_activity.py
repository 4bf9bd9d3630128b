"""Who the people of a history are, by what the store holds without any model (issue 33, item 2).

Each person's activity: first and last message, messages per month, the chats and the topics
they wrote in. The People view draws its cards from these; with no chat model and no facts
this is all there is to show, and it is never invented: every figure is a count of messages.
Assistants (ChatGPT, a JSONL "role": "assistant") are no people here either.
"""

from __future__ import annotations

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


def people_list(connection: sqlite3.Connection, limit: int = 1000) -> list[PersonSummary]:
    """The owner first, then everyone else by how much they wrote; assistants left out."""
    rows = connection.execute(
        "SELECT p.id, p.display_name, p.external_id, p.is_self, p.message_count, p.first_seen, p.last_seen "
        f"FROM person p WHERE p.message_count > 0 AND NOT {ASSISTANT_PERSON_SQL} "
        "ORDER BY p.is_self DESC, p.message_count DESC, p.id LIMIT ?", (max(0, limit),)).fetchall()
    return [PersonSummary(r[0], r[1], r[2], bool(r[3]), r[4], r[5], r[6]) for r in rows]


def _months_between(first: str, last: str) -> list[str]:
    year, month = int(first[:4]), int(first[5:7])
    months: list[str] = []
    while f"{year:04d}-{month:02d}" <= last:
        months.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return months


def person_activity(connection: sqlite3.Connection, person_id: int) -> PersonActivity | None:
    """The activity of one person; None when there is no such person (or no message of theirs)."""
    row = connection.execute(
        "SELECT p.id, p.display_name, p.external_id, p.is_self, p.message_count, p.first_seen, p.last_seen "
        "FROM person p WHERE p.id = ? AND p.message_count > 0", (person_id,)).fetchone()
    if row is None:
        return None
    person = PersonSummary(row[0], row[1], row[2], bool(row[3]), row[4], row[5], row[6])
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

