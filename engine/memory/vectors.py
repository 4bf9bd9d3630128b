"""Embedded documents in the store: `vector_item` rows and, for models worth caching, their vectors.

Every item is keyed by (model, sha256 of the text); `vector_item.id` is the label in that
kind's hnswlib index. Each vector is stored once, compactly (issue 26), as the embedder says
(`Embedder.stored_as`: float16, half of float32's bytes, or int8 with a float32 scale in
front, a quarter; what each costs in recall@50 against exact float32 search is measured in
docs/benchmarks.md):

- a model whose vectors take hours or money to make again (a local model, an API) keeps them
  in `embedding_cache`, keyed by (model, text hash): a text embedded once is never embedded
  again, not after a merge that leaves a window unchanged, not after switching to another
  model and back. Its index holds the vectors themselves (hnswlib keeps float32).
- the built-in embedder caches nothing (it makes a vector again faster than a search read one
  back: 457 MB of a 300k-message store were its cache). Its index searches a 256-dimension
  sketch of each vector and keeps the full vectors, int8, in a file beside it that scores the
  sketch's candidates (engine.memory.indexes, engine.index.vector_file); where no index holds
  one, it is made again from its text (engine.memory.item_vectors).

Rows a Flashback before issue 26 wrote as float32 are read as they are (a row's byte length
over its `dim` says which width it is); a build drops the built-in embedder's old rows.

The embedder never runs inside a write transaction: a local model or an API takes minutes
over a build, and the store's SQLite write lock held that long makes every other writer
(a search recording its run, a label) give up after its busy timeout (issue 22). Texts are
embedded with no transaction open, and each write is a short transaction of its own: one
per batch of embedded vectors, one per batch of entities whose items change.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from engine.embeddings.base import Embedder
from engine.errors import CancelToken
from engine.store.sql import execute_in, select_in
from engine.store.transaction import write_transaction

EMBED_BATCH = 256  # texts per embedder call: progress and cancel granularity
ITEM_BATCH = 500  # entities whose items one write transaction replaces: milliseconds, not seconds
# (labels, entity ids, vectors) of items just written: the build feeds them to the index as it goes.
VectorSink = Callable[[np.ndarray, np.ndarray, np.ndarray], None]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode_vector(vector: np.ndarray, stored_as: str = "float16") -> bytes:
    """A vector as its cache row stores it: float16, or int8 after a float32 scale (max |x| / 127)."""
    vector = np.asarray(vector, dtype=np.float32)
    if stored_as == "int8":
        scale = np.float32(max(float(np.abs(vector).max(initial=0.0)), 1e-12) / 127.0)
        return scale.tobytes() + np.round(vector / scale).astype(np.int8).tobytes()
    return vector.astype(np.float16).tobytes()


def decode_vector(blob: bytes, dim: int) -> np.ndarray:
    """A cached vector as float32, whichever width it was written in (float32 before issue 26).
    A blob of no known width reads as float32: `health` tells it is damaged."""
    if len(blob) == 2 * dim and dim != 4:
        return np.frombuffer(blob, dtype=np.float16).astype(np.float32)
    if len(blob) == dim + 4:
        return np.frombuffer(blob, dtype=np.int8, offset=4).astype(np.float32) * np.frombuffer(blob[:4], np.float32)
    return np.frombuffer(blob, dtype=np.float32).copy()


def decode_rows(rows: list[tuple[int, bytes]]) -> np.ndarray:
    """(dim, blob) rows as one float32 matrix, int8 rows in one numpy pass (a search scores a
    thousand candidates this way)."""
    if rows and all(len(blob) == dim + 4 for dim, blob in rows) and len({dim for dim, _ in rows}) == 1:
        dim = rows[0][0]
        raw = np.frombuffer(b"".join(blob for _, blob in rows), dtype=np.uint8).reshape(len(rows), dim + 4)
        scales = raw[:, :4].copy().view(np.float32)
        return raw[:, 4:].view(np.int8).astype(np.float32) * scales
    return np.vstack([decode_vector(blob, dim) for dim, blob in rows]) if rows else np.zeros((0, 0), np.float32)


@dataclass
class VectorChanges:
    """What an update did to one kind's items: the index applies exactly this."""

    added: list[int] = field(default_factory=list)  # new vector_item ids (labels)
    removed: list[int] = field(default_factory=list)  # deleted vector_item ids
    embedded: int = 0  # texts given to the embedder
    cached: int = 0  # texts whose vector was read from the cache instead


def cached_vectors(connection: sqlite3.Connection, model_id: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
    found: dict[str, np.ndarray] = {}
    for digest, dim, blob in select_in(connection, "SELECT text_hash, dim, vector FROM embedding_cache "
                                       "WHERE model_id = ? AND text_hash IN ({ids})", list(dict.fromkeys(hashes)),
                                       (model_id,)):
        found[digest] = decode_vector(blob, dim)
    return found


def embed_texts(connection: sqlite3.Connection, embedder: Embedder, texts: dict[str, str],
                on_progress: Callable[[int, int], None] | None = None,
                cancel: CancelToken | None = None) -> tuple[dict[str, np.ndarray], int, int]:
    """(hash → vector for every (hash → text), texts embedded, texts read from the cache).

    A model worth caching has its cached vectors read and the rest embedded a batch at a time
    with no transaction open, each batch written to the cache in one of its own, so a cancel
    keeps the batches already embedded (the next build finds them). The built-in embedder
    just embeds; its vectors come back as their stored form reads (int8), as they are kept
    beside its index."""
    vectors = cached_vectors(connection, embedder.model_id, texts) if embedder.cache_vectors else {}
    missing = [digest for digest in texts if digest not in vectors]
    for start in range(0, len(missing), EMBED_BATCH):
        if cancel is not None:
            cancel.raise_if_cancelled()
        batch = missing[start:start + EMBED_BATCH]

        def within(done: int, _total: int, start: int = start) -> None:
            if on_progress is not None:  # a slow model (a local CPU one: seconds per batch) shows it moving
                on_progress(start + done, len(missing))

        embedded = np.asarray(embedder.embed([texts[d] for d in batch], "document", on_progress=within,
                                             cancel=cancel), dtype=np.float32)
        rows = [(embedder.model_id, d, int(embedded.shape[1]), encode_vector(v, embedder.stored_as))
                for d, v in zip(batch, embedded, strict=True)]
        if embedder.cache_vectors:
            with write_transaction(connection):
                connection.executemany("INSERT OR REPLACE INTO embedding_cache (model_id, text_hash, dim, vector) "
                                       "VALUES (?, ?, ?, ?)", rows)
        # What the index gets is what a later read gives, so every copy agrees exactly.
        vectors.update((d, decode_vector(row[3], row[2])) for d, row in zip(batch, rows, strict=True))
        if on_progress is not None:
            on_progress(start + len(batch), len(missing))
    return vectors, len(missing), len(texts) - len(missing)


def replace_items(connection: sqlite3.Connection, embedder: Embedder, kind: str,
                  documents: dict[int, list[str]], on_progress: Callable[[int, int], None] | None = None,
                  cancel: CancelToken | None = None, on_vectors: VectorSink | None = None) -> VectorChanges:
    """Make the items of each entity in `documents` exactly its texts (chunk order kept).

    Entities whose texts are unchanged keep their items (and index labels) untouched. The
    others go `ITEM_BATCH` at a time: their texts embedded with no transaction open, then
    their items written in one short transaction (an entity's new and old items change
    together), then the new items' vectors handed to `on_vectors` (the build's index), so no
    more than one batch of vectors is held. The caller holds the store's write lock
    (`StoreWriteLock`): no other process changes these items meanwhile.
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
    # New items first, old ones after: SQLite gives a new row max(id) + 1, so an id is never
    # handed out while the item that last had it may still be a label in an index a search
    # in another process reads during this build (it would map a hit to another entity).
    # Entities that get items come first, so the first batch inserts before any batch deletes.
    order = sorted(stale, key=lambda entity_id: not wanted[entity_id])
    total = sum(len(documents[e]) for e in order)
    done = 0
    for start in range(0, len(order), ITEM_BATCH):
        batch = order[start:start + ITEM_BATCH]
        texts = {digest: text for e in batch for digest, text in zip(wanted[e], documents[e], strict=True)}

        def within(finished: int, _total: int, done: int = done) -> None:
            if on_progress is not None:
                on_progress(done + finished, total)

        vectors, embedded, cached = embed_texts(connection, embedder, texts, within, cancel)
        changes.embedded += embedded
        changes.cached += cached
        added: list[tuple[int, int, str]] = []  # (label, entity, hash)
        with write_transaction(connection):
            for entity_id in batch:
                for chunk, digest in enumerate(wanted[entity_id]):
                    cursor = connection.execute(
                        "INSERT INTO vector_item (kind, entity_id, chunk, model_id, text_hash) VALUES (?, ?, ?, ?, ?)",
                        (kind, entity_id, chunk, model, digest))
                    assert cursor.lastrowid is not None  # set by every INSERT
                    added.append((cursor.lastrowid, entity_id, digest))
            removed = [item_id for entity_id in batch for item_id in stale[entity_id]]
            delete_items(connection, removed)
        changes.added.extend(label for label, _, _ in added)
        changes.removed.extend(removed)
        if on_vectors is not None and added:
            on_vectors(np.fromiter((a[0] for a in added), np.int64, len(added)),
                       np.fromiter((a[1] for a in added), np.int64, len(added)),
                       np.vstack([vectors[a[2]] for a in added]))
        done += sum(len(documents[e]) for e in batch)
        if on_progress is not None:
            on_progress(done, total)
    return changes


def delete_items(connection: sqlite3.Connection, item_ids: list[int]) -> None:
    execute_in(connection, "DELETE FROM vector_item WHERE id IN ({ids})", item_ids)


def items_of_entities(connection: sqlite3.Connection, model_id: str, kind: str, entity_ids: list[int]) -> list[int]:
    return [r[0] for r in select_in(connection, "SELECT id FROM vector_item WHERE model_id = ? AND kind = ? "
                                    "AND entity_id IN ({ids})", entity_ids, (model_id, kind))]


def store_checksum(connection: sqlite3.Connection, model_id: str, kind: str) -> str:
    """Changes whenever an item of this kind and model is added or removed: the item count and
    the generation that the store's triggers bump on every insert and delete (schema v4)."""
    items, generation = item_generation(connection, model_id, kind)
    return f"g{generation}:{items}"


def item_generation(connection: sqlite3.Connection, model_id: str, kind: str) -> tuple[int, int]:
    """(live items, generation) of a kind: one primary-key read."""
    row = connection.execute("SELECT items, generation FROM vector_generation WHERE model_id = ? AND kind = ?",
                             (model_id, kind)).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)
