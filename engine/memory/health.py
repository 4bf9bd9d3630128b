"""Vectors and calibration that cannot be right, found and removed so a build makes them anew.

Damage inside the store (a disk error, a bad copy) can leave an `embedding_cache` row whose
bytes are still readable but are no longer a vector: NaN or infinite values, the wrong
length, or a norm other than 1 (every embedder stores L2-normalised rows; the local model
may store an all-zero row for a text with nothing in it). Such a vector poisoned everything
downstream: the build measured a NaN calibration and from then on every score was NaN and
every search came back empty, exit 0, no word (issue 12, finding 5). A damaged item is
removed with every other item of its entity, and its cache row too; the build then embeds
that entity again like a new one.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

import numpy as np

from engine.errors import EngineError
from engine.importers.records import EARLIEST_TIME, LATEST_TIME
from engine.memory.vectors import decode_vector
from engine.messages import Message, msg
from engine.store.sql import execute_in
from engine.store.transaction import write_transaction

_SCAN_BATCH = 5000
_NORM_TOLERANCE = 1e-3  # float32 rows normalised by the embedders are within ~1e-6 of 1
_INT8_TOLERANCE = 2e-2


class InvalidVectors(EngineError):
    """A vector read from the store is not a vector (NaN, infinite, wrong length)."""

    code = "memory.vectors_damaged"

    def __init__(self) -> None:
        super().__init__()


@dataclass
class VectorDamage:
    items: list[int] = field(default_factory=list)  # vector_item ids of the damaged vectors
    entities: dict[str, set[int]] = field(default_factory=dict)  # kind → entity ids to embed again
    hashes: set[str] = field(default_factory=set)  # embedding_cache rows to drop

    def __bool__(self) -> bool:
        return bool(self.items)

    def counts(self) -> dict[str, int]:
        return {kind: len(ids) for kind, ids in sorted(self.entities.items())}


def find_damaged_vectors(connection: sqlite3.Connection, model_id: str, dim: int, cached: bool = True) -> VectorDamage:
    """Every item of `model_id` whose cached vector is missing (a model whose vectors are cached:
    `cached`), of no width a `dim`-long vector is stored in (float16, int8 with its scale,
    float32 as written before issue 26) or not finite; reads the vectors a batch at a time.
    The built-in embedder caches nothing since issue 26 (its vectors are kept beside its index,
    which a build checks and remakes): only a row left from before is looked at."""
    damage = VectorDamage()
    cursor = connection.execute(
        "SELECT v.id, v.kind, v.entity_id, v.text_hash, c.vector FROM vector_item v LEFT JOIN embedding_cache c "
        "ON c.model_id = v.model_id AND c.text_hash = v.text_hash WHERE v.model_id = ? ORDER BY v.id", (model_id,))
    while rows := cursor.fetchmany(_SCAN_BATCH):
        for item_id, kind, entity_id, digest, blob in rows:
            if blob is None and not cached:
                continue
            # int8 rows round each value by up to half a step: their norm is within ~1e-3 of 1, not 1e-6
            tolerance = _INT8_TOLERANCE if blob is not None and len(blob) == dim + 4 else _NORM_TOLERANCE
            if blob is not None and len(blob) in (dim + 4, 2 * dim, 4 * dim) and _is_vector(decode_vector(blob, dim),
                                                                                            tolerance):
                continue
            damage.items.append(item_id)
            damage.entities.setdefault(kind, set()).add(entity_id)
            damage.hashes.add(digest)
    return damage


def _is_vector(values: np.ndarray, tolerance: float = _NORM_TOLERANCE) -> bool:
    if not np.isfinite(values).all():
        return False
    norm = float(np.sqrt(np.dot(values, values)))
    return abs(norm - 1.0) < tolerance or norm == 0.0


def remove_damaged(connection: sqlite3.Connection, model_id: str, damage: VectorDamage) -> dict[str, int]:
    """Drop the damaged vectors and every item of their entities, in one transaction; the
    next build embeds those entities again. Returns kind → entities affected."""
    if not damage:
        return {}
    with write_transaction(connection):
        for kind, entities in damage.entities.items():
            execute_in(connection, "DELETE FROM vector_item WHERE model_id = ? AND kind = ? AND entity_id IN ({ids})",
                       sorted(entities), (model_id, kind))
        connection.executemany("DELETE FROM embedding_cache WHERE model_id = ? AND text_hash = ?",
                               [(model_id, digest) for digest in sorted(damage.hashes)])
    return damage.counts()


def describe_repair(counts: dict[str, int]) -> str:
    return str(repair_message(counts))


def repair_message(counts: dict[str, int]) -> Message:
    """"re-embedded damaged vectors (3 topics, 1 file)", as codes (kind → entities re-embedded)."""
    listed: Message | None = None
    for kind, count in counts.items():
        part = msg(f"memory.repair.{kind}" if kind in _KINDS else "memory.repair.other", count=count, kind=kind)
        listed = part if listed is None else msg("memory.list", first=listed, then=part)
    return msg("memory.repair.vectors", listed=listed or "")


_KINDS = ("topic", "person", "artifact")


# -- message dates no calendar step can show (issue 34) --------------------------------------
@dataclass
class DateRepair:
    """Messages whose time lay outside the years 1900-2200, given a time inside them."""

    messages: int = 0
    chats: list[str] = field(default_factory=list)  # their chats' names

    def __bool__(self) -> bool:
        return bool(self.messages)

    def message(self) -> Message:
        shown = ", ".join(self.chats[:3]) + (", \u2026" if len(self.chats) > 3 else "")
        return msg("check.dates_repaired", count=self.messages, chats=shown)


def repair_dates(connection: sqlite3.Connection) -> DateRepair:
    """Give every message stored with a time outside the years 1900-2200 (imports before issue
    34 took "9999-12-31T23:59:59-05:00", a Telegram date_unixtime of 1e20) the time of the
    message before it in its chat (the next one's when it is the first; its import's time
    when none is sound), and bring the chats', people's and topics' spans up to date: every
    step that shows a date stopped on such a row ("year 10000 is out of range"). Deleting
    the message would lose its text, and its export may be gone; its neighbour's time keeps
    it where the export put it. One probe of the (chat, time) index per chat and end."""
    low, high = EARLIEST_TIME, LATEST_TIME
    bad = connection.execute(
        "SELECT m.id, m.chat_id FROM chat c CROSS JOIN message m ON m.chat_id = c.id AND m.sent_at < ? "
        "UNION ALL SELECT m.id, m.chat_id FROM chat c CROSS JOIN message m ON m.chat_id = c.id AND m.sent_at >= ?",
        (low, high)).fetchall()
    repair = DateRepair()
    stale_spans = _scalar_list(connection, "SELECT id FROM chat WHERE first_at < ? OR last_at >= ?", low, high)
    if not bad and not stale_spans and not _spans_out_of_range(connection):
        return repair
    with write_transaction(connection):
        for message_id, chat_id in sorted(bad):
            connection.execute("UPDATE message SET sent_at = ? WHERE id = ?",
                               (_neighbour_time(connection, message_id, chat_id), message_id))
        chat_ids = sorted({chat_id for _, chat_id in bad} | set(stale_spans))
        execute_in(connection, "UPDATE chat SET (first_at, last_at) = (SELECT min(sent_at), max(sent_at) FROM message "
                               "WHERE chat_id = chat.id) WHERE id IN ({ids})", chat_ids)
        connection.execute(
            "UPDATE person SET (first_seen, last_seen) = (SELECT min(sent_at), max(sent_at) FROM message "
            "WHERE person_id = person.id) WHERE first_seen < ? OR last_seen >= ?", (low, high))
        connection.execute(
            "UPDATE topic SET (first_at, last_at) = (SELECT min(sent_at), max(sent_at) FROM message "
            "WHERE topic_id = topic.id) WHERE first_at < ? OR last_at >= ?", (low, high))
    repair.messages = len(bad)
    repair.chats = sorted(str(connection.execute("SELECT title FROM chat WHERE id = ?", (chat_id,)).fetchone()[0])
                          for chat_id in {chat_id for _, chat_id in bad})
    return repair


def _neighbour_time(connection: sqlite3.Connection, message_id: int, chat_id: int) -> float:
    sound = "chat_id = ? AND sent_at >= ? AND sent_at < ?"
    for sql in (f"SELECT sent_at FROM message WHERE {sound} AND id < ? ORDER BY id DESC LIMIT 1",
                f"SELECT sent_at FROM message WHERE {sound} AND id > ? ORDER BY id LIMIT 1"):
        row = connection.execute(sql, (chat_id, EARLIEST_TIME, LATEST_TIME, message_id)).fetchone()
        if row is not None:
            return float(row[0])
    row = connection.execute("SELECT s.imported_at FROM message m JOIN source s ON s.id = m.source_id "
                             "WHERE m.id = ?", (message_id,)).fetchone()
    imported = float(row[0]) if row is not None and row[0] is not None else 0.0
    return imported if EARLIEST_TIME <= imported < LATEST_TIME else 0.0


def _spans_out_of_range(connection: sqlite3.Connection) -> bool:
    return connection.execute(
        "SELECT EXISTS (SELECT 1 FROM person WHERE first_seen < :low OR last_seen >= :high) "
        "OR EXISTS (SELECT 1 FROM topic WHERE first_at < :low OR last_at >= :high)",
        {"low": EARLIEST_TIME, "high": LATEST_TIME}).fetchone()[0] == 1


def _scalar_list(connection: sqlite3.Connection, sql: str, *params: object) -> list:
    return [row[0] for row in connection.execute(sql, params)]
