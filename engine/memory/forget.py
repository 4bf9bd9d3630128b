"""Forget a chat, or everything one import brought, with all that was made from it (issue 23).

What goes, in one write transaction: the messages and their attachments; the search
entries of their text (`message_fts`); every topic holding one of them, with its `topic_fts`
row and its vectors (items and cached vectors of every model); people who had messages only
there, with their vectors; labels on those messages (and labelled queries left with none);
run records that showed a forgotten topic, person or file (their candidates, selections and
Flash traces quote its text, so they are deleted, not scrubbed); chats left empty; imports
(`source`) left with no message. A chat of a whole-account export is forgotten alone: its
import stays, with its fingerprint cleared, so importing that file again brings the chat back.

Messages of another import that shared a forgotten topic lose their topic and are cut into
topics again by the next build. The hnswlib indexes mark the forgotten vectors deleted, as a
build does with the items it replaces: a search never returns them, and their numbers (not
text) leave the index files when an index is next rebuilt. Rebuilding here instead was
ruled out: it costs what a build's index step does, and where an index holds a vector's
only copy it would embed items again. An index already out of date is left to the next
build. Then the full-text
indexes are merged (a deleted row's words leave FTS5 only when its segments merge), and the
store is vacuumed and its write-ahead log truncated, so the text is gone from the files on
disk: `PRAGMA secure_delete` zeroes what the delete freed even if vacuuming fails (a full
disk), which the report then says.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import EngineError
from engine.index.sidecar import IndexMeta, IndexUnusable, read_sidecar
from engine.index.vector_index import VectorIndex
from engine.memory.indexes import INDEX_FOLDER, KIND_FILES
from engine.memory.lexical_index import delete_topic_rows
from engine.memory.vectors import delete_items, store_checksum
from engine.messages import Message, msg
from engine.store.database import connect, db_path
from engine.store.faults import plain_faults
from engine.store.lock import StoreWriteLock
from engine.store.sql import execute_in, select_in
from engine.store.transaction import write_transaction

StageCallback = Callable[[str], None]  # "remove", "index", "compact"


class ForgetError(EngineError):
    """The chat or import to forget is not in the store."""


@dataclass(frozen=True)
class ForgetTarget:
    """One chat (`chat_id`) or one import (`source_id`)."""

    chat_id: int | None = None
    source_id: int | None = None

    def __post_init__(self) -> None:
        if (self.chat_id is None) == (self.source_id is None):
            raise ValueError("forget one chat or one import")


@dataclass
class ForgetReport:
    """What forgetting removes (a preview, `done` False) or removed."""

    kind: str  # chat | source
    name: str  # the chat's name, or the import's file name
    chats: list[str] = field(default_factory=list)  # chats removed whole
    chats_kept: list[str] = field(default_factory=list)  # chats that keep messages of other imports
    messages: int = 0
    topics: int = 0
    people: int = 0
    attachments: int = 0
    vectors: int = 0  # vector items of every model
    labels: int = 0  # relevance labels on the forgotten messages
    runs: int = 0  # recorded searches that showed a forgotten topic, person or file
    done: bool = False
    compacted: bool = False  # the store was vacuumed (False: a full disk, see the module docstring)
    bytes_before: int = 0
    bytes_after: int = 0
    seconds: float = 0.0

    def preview_message(self) -> Message:
        """What will go, for a confirmation (the CLI's prompt, the window's dialog)."""
        counts = {"name": self.name, "messages": self.messages, "topics": self.topics, "people": self.people,
                  "attachments": self.attachments, "runs": self.runs}
        if self.kind == "chat":
            return msg("forget.preview.chat", **counts)
        return msg("forget.preview.source", chats=len(self.chats) + len(self.chats_kept), **counts)

    def done_message(self) -> Message:
        """What went, in one line."""
        counts = {"name": self.name, "messages": self.messages, "topics": self.topics, "people": self.people,
                  "runs": self.runs}
        if not self.compacted:
            return msg("forget.done_uncompacted", **counts)
        return msg("forget.done", before=_size(self.bytes_before), after=_size(self.bytes_after), **counts)


def _size(count: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count} B"


@dataclass(frozen=True)
class SourceInfo:
    """One import, as `flashback forget --sources` lists it."""

    id: int
    name: str  # "export.zip › result.json"
    path: str
    format: str
    imported_at: float
    messages: int  # stored now (a forgotten chat's are gone)


def list_sources(connection: sqlite3.Connection) -> list[SourceInfo]:
    counts = dict(connection.execute("SELECT source_id, count(*) FROM message GROUP BY source_id").fetchall())
    rows = connection.execute("SELECT id, display_name, path, format, imported_at FROM source ORDER BY id").fetchall()
    return [SourceInfo(id=source_id, name=name, path=path, format=format_name, imported_at=imported_at,
                       messages=counts.get(source_id, 0)) for source_id, name, path, format_name, imported_at in rows]


def preview(connection: sqlite3.Connection, target: ForgetTarget) -> ForgetReport:
    """What `forget` would remove; writes nothing but this connection's temporary tables."""
    return _mark(connection, target)


def forget(data_dir: Path, target: ForgetTarget, origin: str = "",
           on_stage: StageCallback | None = None) -> ForgetReport:
    """Remove `target` and everything made from it (module docstring). A store another
    process writes is refused at once (`WriterBusy`), a read-only one in one sentence."""
    started = time.perf_counter()
    stage = on_stage or (lambda _name: None)
    data_dir = Path(data_dir)
    with plain_faults(data_dir, "forget"), StoreWriteLock(data_dir, "forget", origin, wait=False):
        connection = connect(db_path(data_dir))
        try:
            connection.execute("PRAGMA secure_delete=ON")  # freed pages are zeroed, not left to a later write
            bytes_before = _store_bytes(data_dir)
            stage("remove")
            indexes = _index_metas(connection, data_dir)  # what a current index matches before the change
            with write_transaction(connection):
                report = _mark(connection, target)
                removed = _remove(connection)
            stage("index")
            _update_indexes(connection, data_dir, indexes, removed)
            stage("compact")
            report.compacted = _compact(connection)
        finally:
            connection.close()
    report.done = True
    report.bytes_before, report.bytes_after = bytes_before, _store_bytes(data_dir)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


# -- what goes ------------------------------------------------------------------------------
_TEMP_TABLES = {
    "forgotten_message": "id INTEGER PRIMARY KEY",
    "forgotten_chat": "id INTEGER PRIMARY KEY",
    "forgotten_entity": "kind TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (kind, id)",  # topic | person | artifact
    "forgotten_source": "id INTEGER PRIMARY KEY",
    "touched": "kind TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (kind, id)",  # chats and people that lose some
}
_OTHER_MESSAGES = "m.id NOT IN (SELECT id FROM temp.forgotten_message)"


def _name(connection: sqlite3.Connection, target: ForgetTarget) -> tuple[str, str]:
    if target.chat_id is not None:
        row = connection.execute("SELECT title FROM chat WHERE id = ?", (target.chat_id,)).fetchone()
        if row is None:
            raise ForgetError(msg("forget.chat_missing", chat=target.chat_id))
        return "chat", row[0]
    row = connection.execute("SELECT display_name FROM source WHERE id = ?", (target.source_id,)).fetchone()
    if row is None:
        raise ForgetError(msg("forget.source_missing", source=target.source_id))
    return "source", row[0]


def _mark(connection: sqlite3.Connection, target: ForgetTarget) -> ForgetReport:
    """Fill the temporary tables with what goes, and count it."""
    kind, name = _name(connection, target)
    for table, columns in _TEMP_TABLES.items():
        connection.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table} ({columns})")
        connection.execute(f"DELETE FROM temp.{table}")
    column, value = ("chat_id", target.chat_id) if target.chat_id is not None else ("source_id", target.source_id)
    connection.execute(f"INSERT INTO temp.forgotten_message SELECT id FROM message WHERE {column} = ?", (value,))
    touched = "SELECT DISTINCT m.chat_id FROM temp.forgotten_message f JOIN message m ON m.id = f.id"
    connection.execute(f"INSERT INTO temp.forgotten_chat SELECT c.id FROM chat c WHERE c.id IN ({touched}) "
                       f"AND NOT EXISTS (SELECT 1 FROM message m WHERE m.chat_id = c.id AND {_OTHER_MESSAGES})")
    if target.chat_id is not None:  # even a chat without messages
        connection.execute("INSERT OR IGNORE INTO temp.forgotten_chat VALUES (?)", (target.chat_id,))
    connection.execute("INSERT INTO temp.forgotten_source SELECT DISTINCT m.source_id FROM temp.forgotten_message f "
                       "JOIN message m ON m.id = f.id")
    connection.execute(f"INSERT INTO temp.touched SELECT 'chat', chat_id FROM ({touched})")
    connection.execute("INSERT INTO temp.touched SELECT DISTINCT 'person', m.person_id FROM temp.forgotten_message f "
                       "JOIN message m ON m.id = f.id WHERE m.person_id IS NOT NULL")
    if target.source_id is not None:
        connection.execute("INSERT OR IGNORE INTO temp.forgotten_source VALUES (?)", (target.source_id,))
    for statement in (
        # every topic holding a forgotten message, and every topic of a chat that goes
        "SELECT DISTINCT 'topic', m.topic_id FROM temp.forgotten_message f JOIN message m ON m.id = f.id "
        "WHERE m.topic_id IS NOT NULL",
        "SELECT 'topic', id FROM topic WHERE chat_id IN (SELECT id FROM temp.forgotten_chat)",
        "SELECT 'artifact', a.id FROM temp.forgotten_message f JOIN artifact a ON a.message_id = f.id",
        # people whose every message goes
        "SELECT 'person', p.id FROM (SELECT DISTINCT m.person_id AS id FROM temp.forgotten_message f JOIN message m "
        f"ON m.id = f.id WHERE m.person_id IS NOT NULL) p WHERE NOT EXISTS (SELECT 1 FROM message m "
        f"WHERE m.person_id = p.id AND {_OTHER_MESSAGES})",
    ):
        connection.execute(f"INSERT OR IGNORE INTO temp.forgotten_entity {statement}")
    counts = dict(connection.execute("SELECT kind, count(*) FROM temp.forgotten_entity GROUP BY kind").fetchall())
    chats = [row[0] for row in connection.execute(
        "SELECT title FROM chat WHERE id IN (SELECT id FROM temp.forgotten_chat) ORDER BY title")]
    kept = [row[0] for row in connection.execute(
        f"SELECT title FROM chat WHERE id IN ({touched}) AND id NOT IN (SELECT id FROM temp.forgotten_chat) "
        "ORDER BY title")]
    return ForgetReport(
        kind, name, chats, kept,
        messages=_count(connection, "SELECT count(*) FROM temp.forgotten_message"),
        topics=counts.get("topic", 0), people=counts.get("person", 0), attachments=counts.get("artifact", 0),
        vectors=_count(connection, "SELECT count(*) FROM temp.forgotten_entity e JOIN vector_item v "
                                   "ON v.kind = e.kind AND v.entity_id = e.id"),
        labels=_count(connection, "SELECT count(*) FROM temp.forgotten_message f "
                                  "JOIN label_message l ON l.message_id = f.id"),
        runs=len(_runs(connection)))


def _count(connection: sqlite3.Connection, sql: str) -> int:
    return int(connection.execute(sql).fetchone()[0])


def _runs(connection: sqlite3.Connection) -> list[int]:
    """Recorded runs whose candidates or selections name a forgotten topic, person or file."""
    # A damaged JSON column reads as an empty list: json_each would fail the whole statement.
    shows = ("EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(r.{column}) THEN r.{column} ELSE '[]' END) j "
             "WHERE (json_extract(j.value, '$.kind'), json_extract(j.value, '$.id')) IN "
             "(SELECT kind, id FROM temp.forgotten_entity))")
    return [row[0] for row in connection.execute(
        f"SELECT r.id FROM rerank_run r WHERE {shows.format(column='candidates')} "
        f"OR {shows.format(column='selected')}")]


def _remove(connection: sqlite3.Connection) -> dict[tuple[str, str], list[int]]:
    """Delete what `_mark` found (inside the caller's transaction); returns the vector items
    removed, (model, kind) → labels, for the indexes."""
    execute_in(connection, "DELETE FROM rerank_run WHERE id IN ({ids})", _runs(connection))
    # Labelled queries whose every label goes with these messages (the labels cascade with them).
    connection.execute(
        "DELETE FROM label_query WHERE id IN (SELECT l.query_id FROM temp.forgotten_message f "
        "JOIN label_message l ON l.message_id = f.id) AND NOT EXISTS (SELECT 1 FROM label_message l "
        "WHERE l.query_id = label_query.id AND l.message_id NOT IN (SELECT id FROM temp.forgotten_message))")
    # The search entries of the messages: exactly the text the import indexed (engine/importers/writer.py).
    connection.execute(
        "INSERT INTO message_fts (message_fts, rowid, text) SELECT 'delete', m.id, "
        "replace(replace(m.text, 'ё', 'е'), 'Ё', 'Е') FROM temp.forgotten_message f JOIN message m ON m.id = f.id "
        "WHERE m.is_service = 0 AND m.text != ''")
    # Facts (issue 33) whose every message goes: with their history (cascade). A fact also
    # stated elsewhere stays, citing what remains (its forgotten messages cascade away).
    connection.execute(
        "DELETE FROM fact WHERE id IN (SELECT fm.fact_id FROM fact_message fm JOIN temp.forgotten_message f "
        "ON f.id = fm.message_id) AND NOT EXISTS (SELECT 1 FROM fact_message o WHERE o.fact_id = fact.id "
        "AND o.message_id NOT IN (SELECT id FROM temp.forgotten_message))")
    removed = _remove_vectors(connection)
    topics = "(SELECT id FROM temp.forgotten_entity WHERE kind = 'topic')"
    delete_topic_rows(connection, [r[0] for r in connection.execute(topics[1:-1])])
    connection.execute(f"UPDATE message SET topic_id = NULL WHERE topic_id IN {topics}")  # another import's share
    connection.execute("DELETE FROM artifact WHERE id IN "
                       "(SELECT id FROM temp.forgotten_entity WHERE kind = 'artifact')")
    connection.execute("DELETE FROM message WHERE id IN (SELECT id FROM temp.forgotten_message)")
    connection.execute(f"DELETE FROM topic WHERE id IN {topics}")
    connection.execute("DELETE FROM person WHERE id IN (SELECT id FROM temp.forgotten_entity WHERE kind = 'person')")
    connection.execute("DELETE FROM chat WHERE id IN (SELECT id FROM temp.forgotten_chat)")
    _settle_sources(connection)
    _refresh_counts(connection)
    return removed


def _remove_vectors(connection: sqlite3.Connection) -> dict[tuple[str, str], list[int]]:
    """Vector items of the forgotten entities in every model, and their cached vectors unless
    another item (an unchanged text elsewhere) still uses them."""
    removed: dict[tuple[str, str], list[int]] = {}
    models = [row[0] for row in connection.execute("SELECT DISTINCT model_id FROM vector_generation")]
    for model in models:
        rows = connection.execute(
            "SELECT v.id, v.kind, v.text_hash FROM temp.forgotten_entity e JOIN vector_item v "
            "ON v.model_id = ? AND v.kind = e.kind AND v.entity_id = e.id", (model,)).fetchall()
        if not rows:
            continue
        for item_id, kind, _hash in rows:
            removed.setdefault((model, kind), []).append(item_id)
        delete_items(connection, [row[0] for row in rows])
        hashes = sorted({row[2] for row in rows})
        still_used = {row[0] for row in select_in(
            connection, "SELECT DISTINCT text_hash FROM vector_item WHERE model_id = ? AND text_hash IN ({ids})",
            hashes, (model,))}
        execute_in(connection, "DELETE FROM embedding_cache WHERE model_id = ? AND text_hash IN ({ids})",
                   [digest for digest in hashes if digest not in still_used], (model,))
    return removed


def _settle_sources(connection: sqlite3.Connection) -> None:
    """Imports left without a message go; one that keeps other chats forgets its fingerprint, so
    importing that file again is not skipped as "already imported" (it brings the chat back)."""
    for (source_id,) in connection.execute("SELECT id FROM temp.forgotten_source").fetchall():
        if connection.execute("SELECT 1 FROM message WHERE source_id = ? LIMIT 1", (source_id,)).fetchone():
            connection.execute("UPDATE source SET sha256 = '' WHERE id = ?", (source_id,))
        else:
            connection.execute("DELETE FROM source WHERE id = ?", (source_id,))


def _refresh_counts(connection: sqlite3.Connection) -> None:
    """Message counts and first/last dates of the chats and people that keep messages."""
    for table, column, first, last in (("chat", "chat_id", "first_at", "last_at"),
                                       ("person", "person_id", "first_seen", "last_seen")):
        connection.execute(
            f"UPDATE {table} SET (message_count, {first}, {last}) = (SELECT count(*), min(sent_at), max(sent_at) "
            f"FROM message WHERE {column} = {table}.id) WHERE id IN (SELECT id FROM temp.touched WHERE kind = ?)",
            (table,))


# -- the indexes and the files ----------------------------------------------------------------
def _index_path(data_dir: Path, kind: str) -> Path:
    return data_dir / INDEX_FOLDER / f"{KIND_FILES[kind]}.hnsw"


def _index_metas(connection: sqlite3.Connection, data_dir: Path) -> dict[str, IndexMeta]:
    """kind → the meta its saved index must carry to be current before the change (read from the
    sidecars alone: an index is loaded only if it loses items)."""
    metas: dict[str, IndexMeta] = {}
    for kind in KIND_FILES:
        try:
            saved = read_sidecar(_index_path(data_dir, kind)).meta
        except IndexUnusable:
            continue  # none, or damaged: the next build makes it
        items = connection.execute("SELECT count(*) FROM vector_item WHERE model_id = ? AND kind = ?",
                                   (saved.model_id, kind)).fetchone()[0]
        metas[kind] = IndexMeta(saved.model_id, saved.dim, items, {}, store_checksum(connection, saved.model_id, kind))
    return metas


def _update_indexes(connection: sqlite3.Connection, data_dir: Path, before: dict[str, IndexMeta],
                    removed: dict[tuple[str, str], list[int]]) -> None:
    """Mark the removed items deleted in each index that was current, and save it as current (what a
    build does with the items it removes). An index already out of date is left to the next build."""
    for kind, meta in before.items():
        labels = removed.get((meta.model_id, kind))
        if not labels:
            continue
        path = _index_path(data_dir, kind)
        try:
            index = VectorIndex.load(path, meta)
        except IndexUnusable:
            continue  # a search scores what it lacks exactly meanwhile
        index.mark_deleted(labels)
        index.save(path, IndexMeta(meta.model_id, meta.dim, index.live_count, {},
                                   store_checksum(connection, meta.model_id, kind)))


def _compact(connection: sqlite3.Connection) -> bool:
    """Merge the full-text indexes, vacuum, truncate the log; False when the disk had no room
    to vacuum (what was deleted is zeroed all the same: secure_delete)."""
    for table in ("message_fts", "topic_fts"):
        with write_transaction(connection):
            connection.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
    try:
        connection.execute("VACUUM")
    except sqlite3.OperationalError as exc:
        if "full" not in str(exc).lower():
            raise
        return False
    busy, _log, _done = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return busy == 0


def _store_bytes(data_dir: Path) -> int:
    path = db_path(data_dir)
    return sum(item.stat().st_size for item in (path, path.with_name(path.name + "-wal")) if item.exists())
