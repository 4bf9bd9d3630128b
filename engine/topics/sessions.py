"""Session archival (seed 004): the messages that have no topic yet, cut into chunks.

A chat's unassigned messages are read in (sent_at, id) order, a page at a time (memory
stays flat on a chat of a million messages), and cut where the conversation paused for at
least `chunk_interval_s` or where a chunk reached its message or character cap. A chunk
longer than 1.5× `subject_chars` is then cut where its subject changes (session_split.py) into
parts near that size. Each chunk is what the splitter sees, or, without a language model,
one topic.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator

from engine.topics.message_row import COLUMNS, MessageRow
from engine.topics.session_split import split_subjects
from engine.topics.settings import TopicSettings

_UNASSIGNED = "topic_id IS NULL AND is_service = 0"
# Keyset paging along ix_message_chat_time (chat_id, sent_at[, rowid]): `sent_at >= ?` is the
# index range, the OR only skips the few rows of the boundary second already returned.
_PAGE = (
    f"SELECT {COLUMNS} FROM message WHERE chat_id = ? AND {_UNASSIGNED} "
    "AND sent_at >= ? AND (sent_at > ? OR id > ?) ORDER BY sent_at, id LIMIT ?"
)


def count_unassigned(connection: sqlite3.Connection) -> int:
    return connection.execute(f"SELECT count(*) FROM message WHERE {_UNASSIGNED}").fetchone()[0]


def chats_with_unassigned(connection: sqlite3.Connection) -> list[int]:
    rows = connection.execute(f"SELECT DISTINCT chat_id FROM message WHERE {_UNASSIGNED} ORDER BY chat_id")
    return [chat_id for (chat_id,) in rows]


def unassigned_messages(connection: sqlite3.Connection, chat_id: int, page_size: int = 5000) -> Iterator[MessageRow]:
    """Yield the chat's messages without a topic, oldest first (ties by id).

    Each page is a fresh query, so the caller may write (assign topics) between pages:
    rows already returned are behind the key and are never read again.
    """
    last_at, last_id = float("-inf"), -1
    while True:
        page = connection.execute(_PAGE, (chat_id, last_at, last_at, last_id, page_size)).fetchall()
        yield from map(MessageRow._make, page)
        if len(page) < page_size:
            return
        last_at, last_id = page[-1][4], page[-1][0]


def cut_sessions(rows: Iterable[MessageRow], settings: TopicSettings) -> Iterator[list[MessageRow]]:
    """Cut time-ordered rows into chunks at inactivity gaps, at the size caps, and where the subject changes.

    A gap of exactly `chunk_interval_s` cuts (seed: "pause ≥ chunk_interval"). A chunk
    never exceeds the caps unless one message alone does; that message is a chunk of its own.
    A subject cut needs words to read (see session_split.py): rows without them are cut only
    at gaps and caps.
    """
    for session in _sessions(rows, settings):
        yield from split_subjects(session, settings.subject_chars, settings.chunk_interval_s)


def _sessions(rows: Iterable[MessageRow], settings: TopicSettings) -> Iterator[list[MessageRow]]:
    interval, max_count, max_chars = settings.chunk_interval_s, settings.max_chunk_messages, settings.max_chunk_chars
    chunk: list[MessageRow] = []
    chars = 0
    last_at = 0.0
    for row in rows:
        size = len(row.text)
        if chunk and (row.sent_at - last_at >= interval or len(chunk) >= max_count or chars + size > max_chars):
            yield chunk
            chunk, chars = [], 0
        chunk.append(row)
        chars += size
        last_at = row.sent_at
    if chunk:
        yield chunk
