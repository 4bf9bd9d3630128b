"""What each kind of selection contributes to a context pack, read from the store.

A topic: its conversation, one `format_log` line per message (or the reranker's excerpt,
split at message starts), so packing can cut at message boundaries. A person: the same
profile text that is embedded for people search (`person_document`), with their most
recent lines instead of the longest ones, since the pack answers "what is going on now".
An artifact: a reference (kind, file name, caption, who sent it when, in which chat and
message), never the file itself.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, assert_never

from engine.memory.documents import artifact_document, person_document
from engine.retrieval.candidate import CandidateKind
from engine.store.reactions import reactions_of
from engine.topics.content import COLUMNS, MessageRow, format_log, topic_messages

RECENT_LINES = 5  # a person's latest messages shown in their profile
AROUND_MESSAGE = 2  # an unbuilt message is shown with this many of its chat's messages on each side
LINE_CHARS = 300  # one quoted message at most, in profiles and references
CHATS_SHOWN = 5
FACTS_SHOWN = 10  # a person's facts in their profile

# An excerpt is "[Author (time)]: text" lines, possibly multi-line messages: split where
# a line starts a new message (or is packing's "[… N messages left out …]" marker), so a
# cut never lands inside one.
MESSAGE_START = re.compile(r"\n(?=\[[^\]\n]{1,200}\]:|\[… )")


def iso_date(epoch: float | None) -> str | None:
    return datetime.fromtimestamp(epoch, UTC).date().isoformat() if epoch is not None else None


def iso_time(epoch: float | None) -> str | None:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds") if epoch is not None else None


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 1].rstrip() + "…"


def reactions_notes(connection: sqlite3.Connection, message_ids: list[int]) -> dict[int, str]:
    """message id → "\n(reactions: 👍 Anna, Boris · ❤️ 3)" for those of `message_ids` that have
    reactions: shown under the message's line."""
    return {message_id: f"\n(reactions: {said})" for message_id, said in reactions_of(connection, message_ids).items()}


@dataclass
class Material:
    """One selection's content before packing: `pieces` joined by newlines is the full text."""

    date: str | None
    chat: str | None
    summary: str
    pieces: list[str]
    sources: dict[str, Any] = field(default_factory=dict)
    cuttable: bool = False  # only topics are shortened; a half profile is worse than none


def topic_material(connection: sqlite3.Connection, topic_id: int, excerpt: str | None) -> Material | None:
    row = connection.execute(
        "SELECT t.summary, t.first_at, t.last_at, t.message_count, c.title FROM topic t "
        "JOIN chat c ON c.id = t.chat_id WHERE t.id = ?", (topic_id,)).fetchone()
    if row is None:
        return None
    summary, first_at, last_at, count, chat = row
    messages = topic_messages(connection, topic_id)
    if messages:  # the stored span can lag behind a consolidation; the messages are the truth
        first_at, last_at, count = messages[0].sent_at, messages[-1].sent_at, len(messages)
    sources = {"topic_id": topic_id, "first_message_id": messages[0].id if messages else None,
               "last_message_id": messages[-1].id if messages else None, "messages": count,
               "first_at": iso_time(first_at), "last_at": iso_time(last_at)}
    if excerpt and excerpt.strip():
        pieces = MESSAGE_START.split(excerpt.strip())
    else:
        notes = reactions_notes(connection, [message.id for message in messages])
        pieces = [format_log([message]) + notes.get(message.id, "") for message in messages]
    return Material(iso_date(first_at), chat, summary, pieces, sources, cuttable=True)


def person_material(connection: sqlite3.Connection, person_id: int) -> Material | None:
    row = connection.execute("SELECT display_name, external_id, message_count, first_seen, last_seen FROM person "
                             "WHERE id = ?", (person_id,)).fetchone()
    if row is None:
        return None
    name, handle, count, first, last = row
    chats = [r[0] for r in connection.execute(
        "SELECT c.title FROM message m JOIN chat c ON c.id = m.chat_id WHERE m.person_id = ? "
        "GROUP BY c.id ORDER BY count(*) DESC, c.id LIMIT ?", (person_id, CHATS_SHOWN))]
    recent = connection.execute(
        "SELECT m.sent_at, c.title, m.text FROM message m JOIN chat c ON c.id = m.chat_id "
        "WHERE m.person_id = ? AND m.is_service = 0 AND m.text != '' ORDER BY m.sent_at DESC, m.id DESC LIMIT ?",
        (person_id, RECENT_LINES)).fetchall()
    lines = [f"[{datetime.fromtimestamp(at, UTC):%Y-%m-%d %H:%M}, {title}] {_quote(text)}"
             for at, title, text in reversed(recent)]
    text = person_document(name, handle, count, chats, iso_date(first), iso_date(last), lines)
    known = _known_facts(connection, person_id)
    if known:  # what is known of them (issue 33), each fact with the messages that state it
        text += "\nKnown:\n" + "\n".join(f"- {fact}" + (f" [messages {', '.join(map(str, ids))}]" if ids else "")
                                         for fact, ids in known)
    sources = {"person_id": person_id, "handle": handle, "messages": count, "chats": chats,
               "first_at": iso_time(first), "last_at": iso_time(last),
               "facts": [{"text": fact, "message_ids": ids} for fact, ids in known]}
    return Material(iso_date(last), ", ".join(chats[:3]) or None, name, text.split("\n"), sources)


def _known_facts(connection: sqlite3.Connection, person_id: int) -> list[tuple[str, list[int]]]:
    """The person's active facts, most important first, with their messages; none in a store
    from before the facts (a read-only one is not migrated)."""
    try:
        rows = connection.execute(
            "SELECT f.text, (SELECT group_concat(fm.message_id) FROM fact_message fm WHERE fm.fact_id = f.id) "
            "FROM fact f WHERE f.person_id = ? AND f.state = 'active' "
            "ORDER BY f.pinned DESC, f.importance DESC, f.id LIMIT ?", (person_id, FACTS_SHOWN)).fetchall()
    except sqlite3.OperationalError:
        return []
    return [(text, sorted(int(i) for i in (cited or "").split(",") if i)) for text, cited in rows]


def artifact_material(connection: sqlite3.Connection, artifact_id: int) -> Material | None:
    row = connection.execute(
        "SELECT a.kind, a.file_name, a.caption, a.rel_path, a.missing, m.id, m.author, m.sent_at, m.text, "
        "m.topic_id, c.title FROM artifact a JOIN message m ON m.id = a.message_id "
        "JOIN chat c ON c.id = m.chat_id WHERE a.id = ?", (artifact_id,)).fetchone()
    if row is None:
        return None
    kind, file_name, caption, rel_path, missing, message_id, author, sent_at, text, topic_id, chat = row
    lines = artifact_document(kind, file_name, caption, author, iso_date(sent_at), []).split("\n")
    lines.append(f"In {chat}, message {message_id}" + (f": {_quote(text)}" if text and text != caption else ""))
    if rel_path:
        lines.append(f"File in the export: {rel_path}")
    elif missing:
        lines.append(f"File not in the export ({missing})")
    sources = {"artifact_id": artifact_id, "message_id": message_id, "topic_id": topic_id,
               "sent_at": iso_time(sent_at), "file": rel_path}
    head = f"{kind}: {file_name}" if file_name else kind
    return Material(iso_date(sent_at), chat, head, lines, sources)


def message_material(connection: sqlite3.Connection, message_id: int) -> Material | None:
    """A message no build has reached (a "message" candidate): it and its chat's neighbours, so
    the reader sees what it answers; cut like a topic when the budget is short."""
    row = connection.execute("SELECT m.chat_id, m.sent_at, c.title FROM message m JOIN chat c ON c.id = m.chat_id "
                             "WHERE m.id = ?", (message_id,)).fetchone()
    if row is None:
        return None
    chat_id, sent_at, chat = row
    before = connection.execute(
        f"SELECT {COLUMNS} FROM message WHERE chat_id = ? AND is_service = 0 AND (sent_at, id) < (?, ?) "
        "ORDER BY sent_at DESC, id DESC LIMIT ?", (chat_id, sent_at, message_id, AROUND_MESSAGE)).fetchall()
    rest = connection.execute(
        f"SELECT {COLUMNS} FROM message WHERE chat_id = ? AND is_service = 0 AND (sent_at, id) >= (?, ?) "
        "ORDER BY sent_at, id LIMIT ?", (chat_id, sent_at, message_id, AROUND_MESSAGE + 1)).fetchall()
    rows = [MessageRow._make(r) for r in [*reversed(before), *rest]]
    own = next((r for r in rows if r.id == message_id), None)
    summary = _quote(own.text) if own is not None else ""
    sources = {"message_id": message_id, "first_message_id": rows[0].id, "last_message_id": rows[-1].id,
               "sent_at": iso_time(sent_at), "built": False}
    notes = reactions_notes(connection, [r.id for r in rows])
    return Material(iso_date(sent_at), chat, summary, [format_log([r]) + notes.get(r.id, "") for r in rows], sources,
                    cuttable=True)


def material(connection: sqlite3.Connection, kind: CandidateKind, entity_id: int,
             excerpt: str | None) -> Material | None:
    """The content of one selection, or None when it is no longer in the store."""
    if kind == "topic":
        return topic_material(connection, entity_id, excerpt)
    if kind == "person":
        return person_material(connection, entity_id)
    if kind == "artifact":
        return artifact_material(connection, entity_id)
    if kind == "message":
        return message_material(connection, entity_id)
    assert_never(kind)
