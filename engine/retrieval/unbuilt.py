"""Messages no build has reached yet, found by their words (issue 26: never wait for a build).

An import makes messages searchable by full text at once (`message_fts`, written with them);
topics, vectors and the indexes come with the next build, which takes minutes on a big
import. Until then a search answers from what is built and adds the unbuilt messages that
hold the query's words, as candidates of kind "message", and a note says how many messages
were searched this way and that a build adds them to memory.

Imports only append messages and a build gives every waiting one a topic, so the unbuilt
messages are the newest ones: the first of them is found by a binary search over ids (a
few primary-key reads, whatever the store's size), and FTS5 searches only rowids from
there. (A message that lost its topic when a shared topic was forgotten sits among older
ones and waits for the next build.)

A query word matches a message word that starts like it (its stem, or what the stem and the
word share: "flights" and "flight" find "flight", "flights" and "flighty"); the score is the
share of the query's words a message holds, bent into [0, 1) as BM25's share of the query's
weight is (`engine.retrieval.lexical.lexical_relevance`): all of them → 0.67, half → 0.50.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from engine.retrieval.candidate import Candidate, CandidateKind
from engine.retrieval.lexical import HALF_MATCH, MAX_QUERY_TERMS, chat_filter, query_stopwords
from engine.text.stemming import fold, stem_word

KIND: CandidateKind = "message"
LIMIT = 20  # message candidates at most
_SUMMARY_CHARS = 200
_MIN_PREFIX = 3


def first_unbuilt(connection: sqlite3.Connection) -> int | None:
    """The id of the oldest non-service message without a topic after the last one with a
    topic (see the module docstring), or None when the newest message has a topic."""
    first_from = "SELECT id, topic_id FROM message WHERE id >= ? AND is_service = 0 ORDER BY id LIMIT 1"
    newest = connection.execute("SELECT id, topic_id FROM message WHERE is_service = 0 "
                                "ORDER BY id DESC LIMIT 1").fetchone()
    if newest is None or newest[1] is not None:
        return None
    # The smallest v whose first non-service message at or after v has no topic.
    low, high = connection.execute("SELECT min(id) FROM message").fetchone()[0], newest[0]
    while low < high:
        middle = (low + high) // 2
        found, topic = connection.execute(first_from, (middle,)).fetchone()
        if topic is None:
            high = middle
        else:
            low = found + 1
    return connection.execute(first_from, (low,)).fetchone()[0]


def unbuilt_count(connection: sqlite3.Connection, first: int) -> int:
    return connection.execute("SELECT count(*) FROM message WHERE id >= ? AND is_service = 0 AND topic_id IS NULL",
                              (first,)).fetchone()[0]


def _prefixes(query: str) -> list[str]:
    """What each query word is matched by: the part its stem and the word share (at least 3
    letters, else the whole word); function words left out unless nothing else is left; the
    first `MAX_QUERY_TERMS` (each prefix makes FTS5 walk every term it starts)."""
    words = [w for w in dict.fromkeys(fold(query).split()) if w]
    cleaned = ["".join(ch for ch in w if ch.isalnum()) for w in words]
    cleaned = [w for w in dict.fromkeys(cleaned) if len(w) > 1 or w.isdigit()]
    stopwords = query_stopwords()
    content = ([w for w in cleaned if stem_word(w) not in stopwords] or cleaned)[:MAX_QUERY_TERMS]
    prefixes = []
    for word in content:
        stem = stem_word(word)
        shared = 0
        while shared < min(len(word), len(stem)) and word[shared] == stem[shared]:
            shared += 1
        prefixes.append(word[:shared] if shared >= _MIN_PREFIX else word)
    return list(dict.fromkeys(prefixes))[:MAX_QUERY_TERMS]


def _share(text: str, prefixes: list[str]) -> float:
    words = fold(text).split()
    held = sum(1 for p in prefixes if any(w.strip(".,!?;:()\"'«»").startswith(p) for w in words))
    return held / len(prefixes)


def unbuilt_candidates(connection: sqlite3.Connection, query: str, first: int, *, limit: int = LIMIT,
                       chat_ids: tuple[int, ...] = (), date_from: float | None = None,
                       date_to: float | None = None) -> list[Candidate]:
    """Unbuilt messages (ids from `first`) holding the query's words, best first (FTS5's BM25)."""
    prefixes = _prefixes(query)
    if not prefixes:
        return []
    match = " OR ".join('"' + p.replace('"', '""') + '"*' for p in prefixes)
    sql = ("SELECT m.id, m.sent_at, c.title, m.author, m.text FROM message_fts f JOIN message m ON m.id = f.rowid "
           "JOIN chat c ON c.id = m.chat_id WHERE message_fts MATCH ? AND f.rowid >= ? AND m.topic_id IS NULL "
           "AND m.is_service = 0")
    params: list[object] = [match, first]
    if chat_ids:
        clause, chats = chat_filter("m.chat_id", chat_ids)
        sql += f" AND {clause}"
        params.append(chats)
    if date_from is not None:
        sql += " AND m.sent_at >= ?"
        params.append(date_from)
    if date_to is not None:
        sql += " AND m.sent_at <= ?"
        params.append(date_to)
    rows = connection.execute(sql + " ORDER BY rank LIMIT ?", [*params, limit]).fetchall()
    found = []
    for message_id, sent_at, chat, author, text in rows:
        share = _share(text or "", prefixes)
        score = share / (share + HALF_MATCH) if share > 0 else 0.0
        summary = f"{author}: {text}" if author else (text or "")
        found.append((message_id, score, sent_at, chat, summary, len(text or "")))
    found.sort(key=lambda row: -row[1])  # stable: BM25's order among equal shares
    return [Candidate(KIND, message_id, rank, round(score, 4), round(score, 4),
                      datetime.fromtimestamp(sent_at, UTC).date().isoformat() if sent_at is not None else None,
                      chat, 1, chars, summary[:_SUMMARY_CHARS])
            for rank, (message_id, score, sent_at, chat, summary, chars) in enumerate(found, 1)]
