"""People and artifacts as search candidates (seed 003), described by what the store knows.

A person: name, handle, where and when they wrote, and a sample of their longest recent
messages (what they talk about). An artifact: kind, file name, caption, who sent it when,
and the messages just before and after it, which usually say what it is.

Assistants are not people (issue 23): ChatGPT's "ChatGPT", its system and tool speakers, and
anyone whose every message is an assistant's (a JSONL export's `"role": "assistant"`) get no
profile vector, and stage 1 skips them even in an index built before this rule: a profile of
everything an assistant ever answered matches any question and pulls unrelated text into
an exported context.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from engine.memory.documents import artifact_document, person_document

SAMPLE_MESSAGES = 12
CONTEXT_MESSAGES = 2

# A person row `p` that speaks for a program, not a person: the ChatGPT importer's assistant,
# system and tool authors (engine/importers/chatgpt.py keys them so), or someone with no
# message that is not an assistant's. SQLite evaluates the ORs in order, so the cheap key
# tests come first and the scan of their messages only runs for the others.
ASSISTANT_PERSON_SQL = (
    "(p.key IN ('chatgpt:assistant', 'chatgpt:system') OR p.key LIKE 'chatgpt:tool:%' "
    "OR NOT EXISTS (SELECT 1 FROM message am WHERE am.person_id = p.id AND am.role != 'assistant'))")


def _date(epoch: float | None) -> str | None:
    return datetime.fromtimestamp(epoch, UTC).date().isoformat() if epoch is not None else None


def people_documents(connection: sqlite3.Connection) -> dict[int, list[str]]:
    """Each person's profile; an empty list for those who are no search candidate (no messages
    left, e.g. merged into the owner, or an assistant), so their old vectors are removed."""
    people = connection.execute(
        "SELECT id, display_name, external_id, message_count, first_seen, last_seen, "
        f"message_count = 0 OR {ASSISTANT_PERSON_SQL} FROM person p").fetchall()
    documents: dict[int, list[str]] = {}
    for person_id, name, handle, count, first, last, not_a_candidate in people:
        if not_a_candidate:
            documents[person_id] = []
            continue
        chats = [r[0] for r in connection.execute(
            "SELECT c.title FROM chat c WHERE c.id IN (SELECT DISTINCT chat_id FROM message WHERE person_id = ?) "
            "LIMIT 5", (person_id,))]
        sample = [r[0] for r in connection.execute(
            "SELECT text FROM (SELECT text FROM message WHERE person_id = ? AND is_service = 0 AND text != '' "
            "ORDER BY sent_at DESC LIMIT 200) ORDER BY length(text) DESC LIMIT ?", (person_id, SAMPLE_MESSAGES))]
        documents[person_id] = [person_document(name, handle, count, chats, _date(first), _date(last),
                                                [s[:300] for s in sample])]
    return documents


def artifacts_without_items(connection: sqlite3.Connection, model_id: str) -> list[int]:
    rows = connection.execute(
        "SELECT a.id FROM artifact a WHERE NOT EXISTS (SELECT 1 FROM vector_item v "
        "WHERE v.model_id = ? AND v.kind = 'artifact' AND v.entity_id = a.id) ORDER BY a.id", (model_id,))
    return [r[0] for r in rows]


def artifact_documents(connection: sqlite3.Connection, artifact_ids: list[int]) -> dict[int, list[str]]:
    documents: dict[int, list[str]] = {}
    for artifact_id in artifact_ids:
        row = connection.execute(
            "SELECT a.kind, a.file_name, a.caption, m.author, m.sent_at, m.chat_id, m.id, m.text FROM artifact a "
            "JOIN message m ON m.id = a.message_id WHERE a.id = ?", (artifact_id,)).fetchone()
        if row is None:
            continue
        kind, file_name, caption, author, sent_at, chat_id, message_id, text = row
        around = connection.execute(
            # A range on sent_at, not abs(sent_at - ?): only a range can use ix_message_chat_time
            # (abs() scanned the whole chat per artifact: 1,000 s for a 1M-message store).
            "SELECT author, text FROM message WHERE chat_id = ? AND sent_at BETWEEN ? AND ? "
            "AND is_service = 0 AND text != '' ORDER BY abs(sent_at - ?), id LIMIT ?",
            (chat_id, sent_at - 3600, sent_at + 3600, sent_at, 2 * CONTEXT_MESSAGES + 1)).fetchall()
        lines = [f"{a or 'someone'}: {t[:300]}" for a, t in around]
        documents[artifact_id] = [artifact_document(kind, file_name, caption or text or None, author,
                                                    _date(sent_at), lines)]
    return documents
