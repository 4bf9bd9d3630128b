"""The user's relevance labels: given where they search, kept per message, read per topic.

Mapping (docs/evaluation.md):
- topic → messages: labelling a topic relevant (or not) for a query labels every message
  the topic holds at that moment; clearing it removes the labels of those messages.
- messages → topics: in whichever build is current, a topic is *relevant* when it holds at
  least one message labelled relevant, *not relevant* when it holds labelled messages and
  none of them is relevant, and unlabelled otherwise.
A rebuild keeps message ids, so labels survive it: topics cut finer each inherit the label
of the messages they hold; topics merged together are relevant when any part was.

QRELS files (engine/evaluation/qrels.py) are the exchange format: `export_qrels` names each
message by its chat key and export id; `import_qrels` maps them back onto the store.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.evaluation.qrels import (
    JudgedQuery,
    QrelsError,
    QueryFilters,
    load_qrels,
    message_names,
    message_topics,
    resolve_messages,
)
from engine.messages import msg
from engine.store.database import connect, db_path
from engine.store.lock import StoreWriteLock
from engine.store.transaction import write_transaction


@dataclass(frozen=True)
class LabelledQuery:
    id: int
    query: str
    filters: QueryFilters
    category: str
    created_at: float  # when it was first labelled (UTC epoch seconds)
    external_id: str | None
    relevant: frozenset[int]  # message ids labelled relevant (evidence)
    not_relevant: frozenset[int]

    @property
    def key(self) -> str:
        """The id a QRELS export gives it."""
        return self.external_id or f"label-{self.id}"


@dataclass(frozen=True)
class ImportSummary:
    queries: int
    labels: int
    unmatched: int  # (chat, message) pairs the store does not hold


def find_query(connection: sqlite3.Connection, query: str, filters: QueryFilters) -> int | None:
    row = connection.execute("SELECT id FROM label_query WHERE query = ? AND filters = ?",
                             (query, filters.as_json())).fetchone()
    return row[0] if row else None


def _ensure_query(connection: sqlite3.Connection, query: str, filters: QueryFilters, category: str = "all",
                  external_id: str | None = None) -> int:
    now = time.time()
    connection.execute(
        "INSERT INTO label_query (query, filters, category, external_id, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (query, filters) DO UPDATE SET updated_at = excluded.updated_at",
        (query, filters.as_json(), category, external_id, now, now))
    query_id = find_query(connection, query, filters)
    assert query_id is not None  # inserted (or kept) just above, in the caller's transaction
    return query_id


def _set(connection: sqlite3.Connection, query_id: int, message_ids: list[int], relevant: bool) -> None:
    now = time.time()
    connection.executemany(
        "INSERT INTO label_message (query_id, message_id, relevant, labelled_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (query_id, message_id) DO UPDATE SET relevant = excluded.relevant, "
        "labelled_at = excluded.labelled_at", [(query_id, m, int(relevant), now) for m in message_ids])


def label_topic(connection: sqlite3.Connection, query: str, filters: QueryFilters, topic_id: int,
                verdict: bool | None) -> dict[int, bool]:
    """Label (True: relevant, False: not) or clear (None) `topic_id` for the query, message by
    message; returns the query's topic labels afterwards. A query left without labels is removed."""
    with write_transaction(connection):
        messages = [r[0] for r in connection.execute("SELECT id FROM message WHERE topic_id = ?", (topic_id,))]
        query_id = find_query(connection, query, filters)
        if verdict is None:
            if query_id is not None and messages:
                connection.executemany("DELETE FROM label_message WHERE query_id = ? AND message_id = ?",
                                       [(query_id, m) for m in messages])
                connection.execute("DELETE FROM label_query WHERE id = ? AND NOT EXISTS "
                                   "(SELECT 1 FROM label_message WHERE query_id = ?)", (query_id, query_id))
        elif messages:
            query_id = _ensure_query(connection, query, filters)
            _set(connection, query_id, messages, verdict)
    return topic_labels(connection, query, filters)


def topic_labels(connection: sqlite3.Connection, query: str, filters: QueryFilters) -> dict[int, bool]:
    """topic id → relevant? for the query, in the current build (topics with no labelled message absent)."""
    query_id = find_query(connection, query, filters)
    if query_id is None:
        return {}
    rows = connection.execute(
        "SELECT m.topic_id, max(l.relevant) FROM label_message l JOIN message m ON m.id = l.message_id "
        "WHERE l.query_id = ? AND m.topic_id IS NOT NULL GROUP BY m.topic_id", (query_id,))
    return {topic: bool(relevant) for topic, relevant in rows}


def labelled_queries(connection: sqlite3.Connection) -> list[LabelledQuery]:
    """Every labelled query, oldest first, with its message labels."""
    labels: dict[int, tuple[set[int], set[int]]] = {}
    for query_id, message_id, relevant in connection.execute(
            "SELECT query_id, message_id, relevant FROM label_message"):
        labels.setdefault(query_id, (set(), set()))[0 if relevant else 1].add(message_id)
    queries = []
    for row in connection.execute("SELECT id, query, filters, category, created_at, external_id FROM label_query "
                                  "ORDER BY created_at, id"):
        relevant, not_relevant = labels.get(row[0], (set(), set()))
        queries.append(LabelledQuery(row[0], row[1], QueryFilters.from_json(row[2]), row[3], row[4], row[5],
                                     frozenset(relevant), frozenset(not_relevant)))
    return queries


def relevant_topics(connection: sqlite3.Connection, queries: list[LabelledQuery]) -> dict[int, int | None]:
    """message id → topic for every relevant message of `queries` (one read for all of them)."""
    return message_topics(connection, (m for q in queries for m in sorted(q.relevant)))


def delete_query(connection: sqlite3.Connection, query_id: int) -> None:
    connection.execute("DELETE FROM label_query WHERE id = ?", (query_id,))  # labels cascade


def export_qrels(connection: sqlite3.Connection) -> dict:
    """Every labelled query as a QRELS document `flashback eval` reads."""
    queries = labelled_queries(connection)
    names = message_names(connection, (m for q in queries for m in sorted(q.relevant | q.not_relevant)))

    def named(ids: frozenset[int]) -> list[dict[str, str]]:
        return [{"chat": names[m][0], "message": names[m][1]} for m in sorted(ids) if m in names]

    shaped = []
    for q in queries:
        entry: dict[str, Any] = {
            "id": q.key, "query": q.query, "category": q.category, "relevant": named(q.relevant),
            "not_relevant": named(q.not_relevant),
            "labelled_at": datetime.fromtimestamp(q.created_at, UTC).isoformat(timespec="seconds")}
        if not q.filters.is_empty():
            entry["filters"] = {"chat_ids": list(q.filters.chat_ids), "since": q.filters.since,
                                "until": q.filters.until}
        shaped.append(entry)
    return {"queries": shaped}


def import_judged(connection: sqlite3.Connection, judged: list[JudgedQuery],
                  source: str | None = None) -> ImportSummary:
    """Add judged queries as labels (a message's label is replaced by the file's); one transaction.
    `source` is the file's name, for the error when the store has none of its messages."""
    pairs = [p for q in judged for p in (*q.relevant, *q.not_relevant)]
    messages = resolve_messages(connection, pairs)
    if pairs and not any(m is not None for m in messages.values()):
        if source is None:
            raise QrelsError(msg("evaluation.qrels.nothing_known", count=len(messages)))
        raise QrelsError(msg("evaluation.qrels.nothing_known_in", count=len(messages), file=source))
    labels = 0
    with write_transaction(connection):
        for q in judged:
            query_id = _ensure_query(connection, q.query, q.filters, q.category, q.id)
            for verdict, group in ((False, q.not_relevant), (True, q.relevant)):  # relevant wins a clash
                ids = [m for m in (messages.get(p) for p in group) if m is not None]
                _set(connection, query_id, ids, verdict)
                labels += len(ids)
    return ImportSummary(len(judged), labels, sum(1 for m in messages.values() if m is None))


class LabelStore:
    """The label functions over a data folder, one short connection per call (safe from workers).

    Writes take the store's write lock without waiting: while an import or build (here or in
    another process) holds it, a label is refused at once with `WriterBusy` naming that
    writer, instead of waiting out SQLite's busy timeout and failing "database is locked",
    and instead of parking a worker thread for the minutes an import can take.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)

    def _run(self, work):
        connection = connect(db_path(self.data_dir))
        try:
            return work(connection)
        finally:
            connection.close()

    def _write(self, work):
        with StoreWriteLock(self.data_dir, "labels", wait=False):
            return self._run(work)

    def label_topic(self, query: str, filters: QueryFilters, topic_id: int, verdict: bool | None) -> dict[int, bool]:
        return self._write(lambda c: label_topic(c, query, filters, topic_id, verdict))

    def topic_labels(self, query: str, filters: QueryFilters) -> dict[int, bool]:
        return self._run(lambda c: topic_labels(c, query, filters))

    def queries(self) -> list[LabelledQuery]:
        return self._run(labelled_queries)

    def delete(self, query_id: int) -> None:
        self._write(lambda c: delete_query(c, query_id))

    def export_qrels(self) -> dict:
        return self._run(export_qrels)

    def import_qrels(self, path: Path) -> ImportSummary:
        judged = load_qrels(path)  # a malformed file is refused before anything is written
        return self._write(lambda c: import_judged(c, judged, Path(path).name))
