"""Bulk writer for imports: one transaction, raw `executemany`, bounded memory.

The ORM is far too slow for millions of rows (measured: `session.add_all` of 1M rows
67 s and 2.1 GiB), so imports go through a sqlite3 connection directly. Writing on a
second thread was tried and measured slower (37 s vs 20 s per 1M messages): sqlite3 must
re-take the GIL to bind every row, and the parser holds it, so the two threads convoy.

Message, chat and person ids are assigned up front (`engine.importers.rows.RowBuilder`,
here or in the parse child of `engine.importers.parse_child`), which lets artifacts and FTS
rows be written without reading ids back; `INSERT OR IGNORE` on (chat, dedup key) makes
re-imports add nothing, and artifacts and FTS rows are only written for messages that
really went in. The import transaction holds the write lock, so the ids stay free.

A chat the import would create is held back until its first messages arrive: if they are
already stored in another chat of the format (`chat_identity`: a renamed or re-downloaded
WhatsApp export), its rows are written into that chat instead, and `matches` says so.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.importers.chat_identity import ChatMatch, probes, stored_chat_holding
from engine.importers.owner import merge_owner
from engine.importers.records import CUT_MARK, ChatRecord, MessageRecord
from engine.importers.rows import IdState, RowBuilder
from engine.store.database import connect
from engine.store.transaction import write_transaction

BATCH_SIZE = 5000
# Rebuilding an index by sorting beats updating it row by row once the import is larger
# than what is already stored (measured on 1M messages: 7.8 s with all indexes live,
# 4.1 s with only the unique one). The import's messages are estimated from its size and
# format (`engine.importers.formats.expected_messages`).
_DEFERRABLE_INDEXES = {
    "ix_message_chat_time": "CREATE INDEX ix_message_chat_time ON message (chat_id, sent_at)",
    "ix_message_person_id": "CREATE INDEX ix_message_person_id ON message (person_id)",
}

# Page cache of the import connection (also the sorter's memory when indexes are rebuilt).
_CACHE_KIB = 16 * 1024

_INSERT_MESSAGE = (
    "INSERT OR IGNORE INTO message (id, chat_id, dedup_key, external_id, person_id, author, role, "
    "sent_at, text, reply_to, forwarded_from, content_hash, is_service, source_id, meta) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
# places in a message row (RowBuilder.add_message)
_ID, _CHAT, _KEY, _EXTERNAL, _TEXT, _SERVICE, _META = 0, 1, 2, 3, 8, 12, 14
# A re-export brings a stored message's reactions as they are now: they replace the stored ones.
_REFRESH_META = "UPDATE message SET meta = ? WHERE chat_id = ? AND dedup_key = ? AND meta IS NOT ?"
_CONFLICT_ROWS = 3000  # rows per conflict query: 3 parameters each, under SQLite's 32,766
_INSERT_ARTIFACT = (
    "INSERT INTO artifact (message_id, kind, file_name, mime, size, rel_path, caption, missing) "
    "SELECT ?,?,?,?,?,?,?,? WHERE EXISTS (SELECT 1 FROM message WHERE id = ?)"
)
_INSERT_FTS = (
    "INSERT INTO message_fts (rowid, text) "
    "SELECT id, replace(replace(text, 'ё', 'е'), 'Ё', 'Е') FROM message "
    "WHERE id BETWEEN ? AND ? AND is_service = 0 AND text != ''"
)


@dataclass
class WriteCounts:
    messages_seen: int = 0
    messages_added: int = 0
    artifacts_added: int = 0
    messages_cut: int = 0  # texts cut to MAX_MESSAGE_CHARS (recognised by CUT_MARK)
    # An id already stored (or seen earlier in this import) with another text: the first is
    # kept; counted so a summary can say so instead of "seen 2, added 1" (issue 12).
    messages_conflicting: int = 0
    messages_service: int = 0  # system lines (joins, calls, renames): stored, never part of a topic
    chats_seen: set[int] = field(default_factory=set)


class ImportWriter:
    """Writes the records of one import inside a single transaction.

    Use as a context manager: any exception rolls everything back, so a broken export
    leaves the store exactly as it was. `flush_hook` runs before every batch (the import
    service uses it to honour cancellation).

    Rows come from a `RowBuilder`: the writer's own (`add_chat`/`add_message`), or one in
    the parse child, whose finished batches arrive through `write_batch` (`worker_setup`
    hands the child the ids so far, `adopt` takes back what it assigned).
    """

    def __init__(self, db_file: Path, flush_hook: Callable[[], None] = lambda: None) -> None:
        self._db_file = db_file
        self._flush_hook = flush_hook
        self._conn: sqlite3.Connection | None = None
        self._format = ""
        self._builder: RowBuilder | None = None
        self._source_id = 0
        self._source_counts_start = (0, 0, 0, 0, 0, 0)
        self._dropped_indexes: list[str] = []
        self.counts = WriteCounts()
        self._unsettled: dict[int, tuple] = {}  # new chats not written yet: id → its "chat" op
        self._same_as: dict[int, int] = {}  # a new chat's id → the stored chat it turned out to be
        self.matches: list[ChatMatch] = []  # stored chats the current source's messages went into

    # -- transaction -------------------------------------------------------------------
    @property
    def conn(self) -> sqlite3.Connection:
        assert self._conn is not None, "ImportWriter used outside its `with` block"
        return self._conn

    @property
    def builder(self) -> RowBuilder:
        assert self._builder is not None, "ImportWriter used outside its `with` block"
        return self._builder

    def __enter__(self) -> ImportWriter:
        self._conn = connect(self._db_file)
        self._conn.execute(f"PRAGMA cache_size=-{_CACHE_KIB}")
        self._transaction = write_transaction(self._conn)  # the whole import: one transaction
        self._transaction.__enter__()
        ids = IdState(
            next_message_id=_scalar(self.conn, "SELECT coalesce(max(id), 0) + 1 FROM message"),
            next_chat_id=_scalar(self.conn, "SELECT coalesce(max(id), 0) + 1 FROM chat"),
            next_person_id=_scalar(self.conn, "SELECT coalesce(max(id), 0) + 1 FROM person"),
        )
        self._builder = RowBuilder(ids, _StoreLookup(self.conn, "chat"), _PersonLookup(self.conn))
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self._transaction.__exit__(exc_type, exc, tb)  # commits, or rolls back and lets `exc` go on
        finally:
            self.conn.close()
            self._conn = None

    def bulk_mode(self, expected_messages: int) -> None:
        """Drop rebuildable indexes when this import (about `expected_messages`) dwarfs the store;
        `finish` restores them."""
        existing = _scalar(self.conn, "SELECT count(*) FROM message")
        if expected_messages > max(existing, 50_000) and not self._dropped_indexes:
            for name in _DEFERRABLE_INDEXES:
                _execute(self.conn, f"DROP INDEX IF EXISTS {name}")
                self._dropped_indexes.append(name)

    def source_exists(self, sha256: str) -> bool:
        return _scalar(self.conn, "SELECT count(*) FROM source WHERE sha256 = ?", sha256) > 0

    # -- records -----------------------------------------------------------------------
    def begin_source(self, path: str, display_name: str, format_name: str, sha256: str, size_bytes: int) -> int:
        """Start a new export file; records that follow belong to it."""
        self.flush()
        self._format = format_name
        self._source_id = _insert(
            self.conn,
            "INSERT INTO source (path, display_name, format, sha256, size_bytes, chats, messages_seen, "
            "messages_added, artifacts_added, imported_at) VALUES (?,?,?,?,?,0,0,0,0,?)",
            path, display_name, format_name, sha256, size_bytes, time.time(),
        )
        self.builder.begin_source(format_name, self._source_id, display_name)
        self.matches = []
        self._source_counts_start = (self.counts.messages_seen, self.counts.messages_added,
                                     self.counts.artifacts_added, self.counts.messages_cut,
                                     self.counts.messages_conflicting, self.counts.messages_service)
        return self._source_id

    def end_source(self, chats: int) -> tuple[int, int, int, int, int, int]:
        """Record this file's counts on its Source row; returns (seen, added, artifacts, cut, conflicting,
        system lines)."""
        self.flush()
        self._settle_all()  # chats announced without messages are kept, as before
        seen0, added0, artifacts0, cut0, conflicting0, service0 = self._source_counts_start
        figures = (self.counts.messages_seen - seen0, self.counts.messages_added - added0,
                   self.counts.artifacts_added - artifacts0)
        _execute(self.conn, "UPDATE source SET chats = ?, messages_seen = ?, messages_added = ?, "
                   "artifacts_added = ? WHERE id = ?", chats, *figures, self._source_id)
        return (*figures, self.counts.messages_cut - cut0, self.counts.messages_conflicting - conflicting0,
                self.counts.messages_service - service0)

    def add_chat(self, chat: ChatRecord) -> int:
        return self.builder.add_chat(chat.key, chat.title, chat.kind)

    def add_message(self, message: MessageRecord) -> None:
        self.counts.messages_seen += 1
        if self.builder.add_message(message) >= BATCH_SIZE:
            self.flush()

    def flush(self) -> None:
        self._flush_hook()
        batch = self.builder.take_batch()
        if batch is not None:
            self._write_batch(batch)

    # -- rows built by the parse child -----------------------------------------------------
    def worker_setup(self) -> tuple:
        """What a parse child needs to build this source's rows exactly as `add_message` would."""
        self.flush()
        prefix = f"{self._format}:"
        known_chats = dict(self.conn.execute("SELECT key, id FROM chat"))
        known_persons = dict(self.conn.execute(
            "SELECT key, id FROM person WHERE key >= ? AND key < ?", (prefix, prefix[:-1] + ";")))
        known_persons.update({key: kept for key, kept in merged_people(self.conn).items() if key in known_persons})
        return self._source_id, self.builder.ids.as_tuple(), known_chats, known_persons

    def write_batch(self, batch: tuple, seen: int) -> None:
        """Write a batch the parse child built; `seen` = messages in it."""
        self._flush_hook()
        self.counts.messages_seen += seen
        self._write_batch(batch)

    def adopt(self, ids: tuple) -> None:
        """Take over the ids the parse child assigned (its final `IdState`)."""
        self.builder.ids = IdState.from_tuple(ids)

    def _write_batch(self, batch: tuple) -> None:
        ops, messages, artifacts = batch
        conn = self.conn
        for op in ops:
            if op[0] == "chat":
                self._unsettled[op[1]] = op  # written once its first messages say which chat it is
                continue
            _apply_op(conn, op)
            if op[0] == "title":
                self._matched(ChatMatch(op[1], op[2], "key"))
        if not messages:
            return
        if self._unsettled:
            self._settle(messages)
        if self._same_as:
            same_as = self._same_as
            messages = [row if row[_CHAT] not in same_as else (*row[:_CHAT], same_as[row[_CHAT]], *row[_CHAT + 1:])
                        for row in messages]
        before = conn.total_changes
        conn.executemany(_INSERT_MESSAGE, messages)
        added = conn.total_changes - before
        self.counts.messages_added += added
        if added < len(messages):
            self.counts.messages_conflicting += _conflicts(conn, messages)
            conn.executemany(_REFRESH_META, [(row[_META], row[_CHAT], row[_KEY], row[_META])
                                             for row in messages if row[_META] is not None])
        self.counts.messages_cut += sum(1 for row in messages if row[_TEXT].endswith(CUT_MARK))
        self.counts.messages_service += sum(1 for row in messages if row[_SERVICE])
        if artifacts:
            before = conn.total_changes
            conn.executemany(_INSERT_ARTIFACT, artifacts)
            self.counts.artifacts_added += conn.total_changes - before
        conn.execute(_INSERT_FTS, (messages[0][0], messages[-1][0]))

    def _settle(self, messages: list[tuple]) -> None:
        """Write each held-back chat that has rows in `messages`, or take it for the stored chat
        already holding its first messages (the rows are then written into that one)."""
        for chat_id, probe in probes(messages, set(self._unsettled)).items():
            op = self._unsettled.pop(chat_id)
            match = stored_chat_holding(self.conn, op[5], probe)
            if match is None:
                _apply_op(self.conn, op)
            else:
                self._same_as[chat_id] = match.chat_id
                self._matched(match)

    def _settle_all(self) -> None:
        for op in self._unsettled.values():
            _apply_op(self.conn, op)
        self._unsettled.clear()

    def _matched(self, match: ChatMatch) -> None:
        if all(known.chat_id != match.chat_id for known in self.matches):
            self.matches.append(match)

    def finish(self) -> WriteCounts:
        """Flush, rebuild dropped indexes, refresh per-chat and per-person aggregates."""
        self.flush()
        self._settle_all()
        for name in self._dropped_indexes:
            _execute(self.conn, _DEFERRABLE_INDEXES[name])
        self._dropped_indexes.clear()
        ids = self.builder.ids
        self.counts.chats_seen = {self._same_as.get(chat_id, chat_id) for chat_id in ids.chat_ids.values()}
        _refresh_aggregates(self.conn, sorted(self.counts.chats_seen), sorted(set(ids.person_ids.values())))
        merge_owner(self.conn)  # issue 23: "(you)" of every import is one person (engine/importers/owner.py)
        return self.counts


def merged_people(conn: sqlite3.Connection) -> dict[str, int]:
    """person key → the id of the person it was merged into, as the person confirmed (People
    view, `person_merge`), following a later merge of the kept one: a re-import brings new
    messages of "bob" (WhatsApp) to the Bob it became, not back to a row of its own."""
    into = dict(conn.execute("SELECT merged_id, kept_id FROM person_merge ORDER BY id"))
    resolved: dict[str, int] = {}
    for key, merged_id in conn.execute(
            "SELECT p.key, m.merged_id FROM person_merge m JOIN person p ON p.id = m.merged_id"):
        kept, hops = into[merged_id], 0
        while kept in into and hops < len(into):  # a chain of merges; bounded against a cycle
            kept, hops = into[kept], hops + 1
        resolved[key] = kept
    return resolved


class _PersonLookup:
    """`get(key)` → the stored person with that key, or the one it was merged into."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._merged: dict[str, int] | None = None

    def get(self, key: str) -> int | None:
        if self._merged is None:
            self._merged = merged_people(self._conn)
        if key in self._merged:
            return self._merged[key]
        row = self._conn.execute("SELECT id FROM person WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]


class _StoreLookup:
    """`get(key)` → id of the stored chat or person with that key (a `Lookup`)."""

    def __init__(self, conn: sqlite3.Connection, table: str) -> None:
        self._conn = conn
        self._sql = f"SELECT id FROM {table} WHERE key = ?"

    def get(self, key: str) -> int | None:
        row = self._conn.execute(self._sql, (key,)).fetchone()
        return None if row is None else row[0]


# -- functions that run on the SQL thread ------------------------------------------------
def _conflicts(conn: sqlite3.Connection, messages: list[tuple]) -> int:
    """How many of `messages` were not inserted because a message with the same export id
    (chat + dedup key) is stored with another text. Rows without an export id are keyed by
    their content, so they cannot conflict."""
    inserted = {r[0] for r in conn.execute("SELECT id FROM message WHERE id BETWEEN ? AND ?",
                                           (messages[0][_ID], messages[-1][_ID]))}
    ignored = [row for row in messages if row[_ID] not in inserted and row[_EXTERNAL] is not None]
    found = 0
    for start in range(0, len(ignored), _CONFLICT_ROWS):
        chunk = ignored[start:start + _CONFLICT_ROWS]
        values = ",".join("(?,?,?)" for _ in chunk)
        params = [value for row in chunk for value in (row[_CHAT], row[_KEY], row[_TEXT])]
        found += conn.execute(
            f"WITH v(chat_id, dedup_key, text) AS (VALUES {values}) SELECT count(*) FROM v JOIN message m "
            "ON m.chat_id = v.chat_id AND m.dedup_key = v.dedup_key WHERE m.text IS NOT v.text", params).fetchone()[0]
    return found


def _scalar(conn: sqlite3.Connection, sql: str, *params):
    return conn.execute(sql, params).fetchone()[0]


def _execute(conn: sqlite3.Connection, sql: str, *params) -> None:
    conn.execute(sql, params)


def _insert(conn: sqlite3.Connection, sql: str, *params) -> int:
    row_id = conn.execute(sql, params).lastrowid
    assert row_id is not None  # set by every INSERT, which is all this runs
    return row_id


def _apply_op(conn: sqlite3.Connection, op: tuple) -> None:
    kind = op[0]
    if kind == "chat":
        conn.execute("INSERT INTO chat (id, key, title, kind, format, message_count) VALUES (?,?,?,?,?,0)", op[1:])
    elif kind == "title":
        conn.execute("UPDATE chat SET title = ? WHERE id = ?", (op[2], op[1]))
    elif kind == "person":
        conn.execute(
            "INSERT INTO person (id, key, display_name, external_id, message_count, is_self) VALUES (?,?,?,?,0,?)",
            op[1:])
    elif kind == "self":
        conn.execute("UPDATE person SET is_self = 1 WHERE id = ?", (op[1],))
    else:
        raise ValueError(f"unknown row op {kind!r}")


def _refresh_aggregates(conn: sqlite3.Connection, chat_ids: list[int], person_ids: list[int]) -> None:
    conn.executemany(
        "UPDATE chat SET (message_count, first_at, last_at) = "
        "(SELECT count(*), min(sent_at), max(sent_at) FROM message WHERE chat_id = chat.id) WHERE id = ?",
        [(chat_id,) for chat_id in chat_ids],
    )
    conn.executemany(
        "UPDATE person SET (message_count, first_seen, last_seen) = "
        "(SELECT count(*), min(sent_at), max(sent_at) FROM message WHERE person_id = person.id) WHERE id = ?",
        [(person_id,) for person_id in person_ids],
    )
