"""Embedded documents in the store: `vector_item` rows and their vectors in `embedding_cache`.

Every vector is keyed by (model, sha256 of the text), so a text embedded once is never
embedded again: not after a merge that leaves a window unchanged, not after switching to
another model and back. `vector_item.id` is the label in that kind's hnswlib index.

The embedder never runs inside a write transaction: a local model or an API takes minutes
over a build, and the store's SQLite write lock held that long makes every other writer
(a search recording its run, a label) give up after its busy timeout (issue 22). Texts are
embedded with no transaction open, and each write is a short transaction of its own: one
per batch of embedded vectors, one per batch of entities whose items change.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from engine.embeddings.base import Embedder
from engine.errors import CancelToken
from engine.store.sql import execute_in, select_in
from engine.store.transaction import write_transaction

EMBED_BATCH = 256  # texts per embedder call: progress and cancel granularity
ITEM_BATCH = 500  # entities whose items one write transaction replaces: milliseconds, not seconds


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class VectorChanges:
    """What an update did to one kind's items: the index applies exactly this."""

    added: list[int] = field(default_factory=list)  # new vector_item ids (labels)
    removed: list[int] = field(default_factory=list)  # deleted vector_item ids
    embedded: int = 0  # texts that were not in the cache
    cached: int = 0


def cached_vectors(connection: sqlite3.Connection, model_id: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
    found: dict[str, np.ndarray] = {}
    for digest, blob in select_in(connection, "SELECT text_hash, vector FROM embedding_cache WHERE model_id = ? "
                                  "AND text_hash IN ({ids})", list(dict.fromkeys(hashes)), (model_id,)):
        found[digest] = np.frombuffer(blob, dtype=np.float32)
    return found


def ensure_embedded(connection: sqlite3.Connection, embedder: Embedder, texts: dict[str, str],
                    on_progress: Callable[[int, int], None] | None = None,
                    cancel: CancelToken | None = None) -> tuple[int, int]:
    """Put a vector for every (hash → text) into the cache; returns (embedded, already cached).
    Each batch is embedded with no transaction open and written in one of its own, so a
    cancel keeps the batches already embedded (the next build finds them in the cache)."""
    have = cached_vectors(connection, embedder.model_id, texts)
    missing = [digest for digest in texts if digest not in have]
    for start in range(0, len(missing), EMBED_BATCH):
        if cancel is not None:
            cancel.raise_if_cancelled()
        batch = missing[start:start + EMBED_BATCH]

        def within(done: int, _total: int, start: int = start) -> None:
            if on_progress is not None:  # a slow model (a local CPU one: seconds per batch) shows it moving
                on_progress(start + done, len(missing))

        vectors = embedder.embed([texts[d] for d in batch], "document", on_progress=within, cancel=cancel)
        rows = [(embedder.model_id, d, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes())
                for d, v in zip(batch, vectors, strict=True)]
        with write_transaction(connection):
            connection.executemany(
                "INSERT OR REPLACE INTO embedding_cache (model_id, text_hash, dim, vector) VALUES (?, ?, ?, ?)", rows)
        if on_progress is not None:
            on_progress(start + len(batch), len(missing))
    return len(missing), len(texts) - len(missing)


def replace_items(connection: sqlite3.Connection, embedder: Embedder, kind: str,
                  documents: dict[int, list[str]], on_progress: Callable[[int, int], None] | None = None,
                  cancel: CancelToken | None = None) -> VectorChanges:
    """Make the items of each entity in `documents` exactly its texts (chunk order kept).

    Entities whose texts are unchanged keep their items (and index labels) untouched. Reads
    and embeds first with no transaction open, then writes the items `ITEM_BATCH` entities
    per transaction (an entity's new and old items change together). The caller holds the
    store's write lock (`StoreWriteLock`): no other process changes these items meanwhile.
    """
    changes = VectorChanges()
    model = embedder.model_id
    wanted: dict[int, list[str]] = {e: [text_hash(t) for t in texts] for e, texts in documents.items()}
    stale: dict[int, list[int]] = {}  # entity → the items it has now, to be replaced
    for entity_id, hashes in wanted.items():
        rows = connection.execute(
            "SELECT id, text_hash FROM vector_item WHERE model_id = ? AND kind = ? AND entity_id = ? ORDER BY chunk",
            (model, kind, entity_id)).fetchall()
        if [h for _, h in rows] != hashes:
            stale[entity_id] = [item_id for item_id, _ in rows]
    all_texts = {text_hash(t): t for e in stale for t in documents[e]}
    changes.embedded, changes.cached = ensure_embedded(connection, embedder, all_texts, on_progress, cancel)
    # New items first, old ones after: SQLite gives a new row max(id) + 1, so an id is never
    # handed out while the item that last had it may still be a label in an index a search
    # in another process reads during this build (it would map a hit to another entity).
    # Entities that get items come first, so the first batch inserts before any batch deletes.
    order = sorted(stale, key=lambda entity_id: not wanted[entity_id])
    for start in range(0, len(order), ITEM_BATCH):
        batch = order[start:start + ITEM_BATCH]
        with write_transaction(connection):
            for entity_id in batch:
                for chunk, digest in enumerate(wanted[entity_id]):
                    cursor = connection.execute(
                        "INSERT INTO vector_item (kind, entity_id, chunk, model_id, text_hash) VALUES (?, ?, ?, ?, ?)",
                        (kind, entity_id, chunk, model, digest))
                    changes.added.append(int(cursor.lastrowid))
            removed = [item_id for entity_id in batch for item_id in stale[entity_id]]
            delete_items(connection, removed)
        changes.removed.extend(removed)
    return changes


def delete_items(connection: sqlite3.Connection, item_ids: list[int]) -> None:
    execute_in(connection, "DELETE FROM vector_item WHERE id IN ({ids})", item_ids)


def items_of_entities(connection: sqlite3.Connection, model_id: str, kind: str, entity_ids: list[int]) -> list[int]:
    return [r[0] for r in select_in(connection, "SELECT id FROM vector_item WHERE model_id = ? AND kind = ? "
                                    "AND entity_id IN ({ids})", entity_ids, (model_id, kind))]


def load_items(connection: sqlite3.Connection, model_id: str, kind: str,
               item_ids: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(labels, entity ids, vectors) of a kind's items, all of them or the given ones."""
    sql = ("SELECT v.id, v.entity_id, c.vector FROM vector_item v JOIN embedding_cache c "
           "ON c.model_id = v.model_id AND c.text_hash = v.text_hash WHERE v.model_id = ? AND v.kind = ?")
    rows: list[tuple[int, int, bytes]] = []
    if item_ids is None:
        rows = connection.execute(sql + " ORDER BY v.id", (model_id, kind)).fetchall()
    else:
        rows = list(select_in(connection, sql + " AND v.id IN ({ids})", item_ids, (model_id, kind)))
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
    labels = np.fromiter((r[0] for r in rows), np.int64, len(rows))
    entities = np.fromiter((r[1] for r in rows), np.int64, len(rows))
    vectors = np.vstack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
    return labels, entities, vectors


def iter_items(connection: sqlite3.Connection, model_id: str, kind: str,
               batch: int = 20000) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(labels, vectors) of every item of a kind, `batch` rows at a time: an index rebuild
    then holds one batch of vectors besides the index instead of every vector twice (a list
    of row bytes and their stacked copy: 2.4 GB at 285k × 1024 measured, on top of the index)."""
    cursor = connection.execute(
        "SELECT v.id, c.vector FROM vector_item v JOIN embedding_cache c "
        "ON c.model_id = v.model_id AND c.text_hash = v.text_hash WHERE v.model_id = ? AND v.kind = ? ORDER BY v.id",
        (model_id, kind))
    while rows := cursor.fetchmany(batch):
        labels = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        vectors = np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
        yield labels, vectors


def store_checksum(connection: sqlite3.Connection, model_id: str, kind: str) -> str:
    """Changes whenever an item of this kind and model is added or removed: the item count and
    the generation that the store's triggers bump on every insert and delete (schema v4)."""
    row = connection.execute("SELECT items, generation FROM vector_generation WHERE model_id = ? AND kind = ?",
                             (model_id, kind)).fetchone()
    items, generation = row if row else (0, 0)
    return f"g{generation}:{items}"
