"""The vectors of stored items, from wherever they are (engine.memory.vectors says where each is kept).

In order: `embedding_cache` (models worth caching: a local model, an API), the full vectors
beside the kind's loaded index (the built-in embedder's only copy), else the embedder again
(the built-in one, which costs nothing to run) from the text the store gives the item's
entity now, as the build made it; the text's hash must match the item's, or the item is
left out (its entity changed and the next build replaces it). Used wherever vectors are read
outside an index's own search: rebuilding an index, merging neighbouring topics,
calibration, exact scores under filters and for items an index lacks, MMR.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import numpy as np

from engine.embeddings.base import Embedder
from engine.index.vector_file import VectorFile
from engine.memory.documents import DEFAULT_CHUNK_CHARS, PassageShape
from engine.memory.people_and_files import artifact_documents, people_documents
from engine.memory.topic_documents import topic_documents_for
from engine.memory.vectors import decode_rows, decode_vector, encode_vector, text_hash
from engine.store.sql import select_in

_ROWS = ("SELECT v.id, v.entity_id, v.text_hash, c.dim, c.vector FROM vector_item v LEFT JOIN embedding_cache c "
         "ON c.model_id = v.model_id AND c.text_hash = v.text_hash WHERE v.model_id = ? AND v.kind = ?")
# Given items by id, by primary key: with the model and kind as they are, SQLite walked the
# (model, kind, entity) index over every item of the kind for each 500 ids.
_ROWS_BY_ID = _ROWS.replace("WHERE v.model_id = ? AND v.kind = ?", "WHERE +v.model_id = ? AND +v.kind = ?")
_EMBED_BATCH = 512


def documents_of(connection: sqlite3.Connection, kind: str, entity_ids: list[int],
                 chunk_chars: int | PassageShape = DEFAULT_CHUNK_CHARS) -> dict[int, list[str]]:
    """entity id → the texts a build embeds for it (as `engine.memory.build` makes them)."""
    if kind == "topic":
        return topic_documents_for(connection, entity_ids, chunk_chars)
    if kind == "artifact":
        return artifact_documents(connection, entity_ids)
    wanted = set(entity_ids)
    return {person: texts for person, texts in people_documents(connection).items() if person in wanted}


class ItemVectors:
    """Vectors of one model's items. `held`: the full vectors beside the kind's loaded index;
    `embedder`: a model that costs nothing to run (the built-in one), to make a vector no copy holds."""

    def __init__(self, connection: sqlite3.Connection, model_id: str, *, embedder: Embedder | None = None,
                 chunk_chars: int | PassageShape = DEFAULT_CHUNK_CHARS, held: VectorFile | None = None) -> None:
        self.connection = connection
        self.model_id = model_id
        self.held = held
        free = embedder is not None and embedder.model_id == model_id and embedder.model_id.startswith("builtin:")
        self.embedder = embedder if free else None
        self.chunk_chars = chunk_chars
        self.missing: list[int] = []  # items no copy held and whose text is no longer the one embedded

    def load(self, kind: str, item_ids: list[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(labels, entity ids, vectors) of the given items that have a vector, ascending by label."""
        ids = [int(i) for i in item_ids]
        rows = sorted(select_in(self.connection, _ROWS_BY_ID + " AND v.id IN ({ids})", ids, (self.model_id, kind)))
        return self._vectors(kind, rows)

    def iterate(self, kind: str, batch: int = 20000) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Every item of a kind, `batch` at a time (an index rebuild holds one batch besides the index)."""
        cursor = self.connection.execute(_ROWS + " ORDER BY v.id", (self.model_id, kind))
        while rows := cursor.fetchmany(batch):
            yield self._vectors(kind, rows)

    def _vectors(self, kind: str, rows: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cached = [row for row in rows if row[4] is not None]
        vectors = decode_rows([(row[3], row[4]) for row in cached])
        rest = [row for row in rows if row[4] is None]
        if rest and self.held is not None:
            found, extra = self.held.vectors_of(np.fromiter((r[0] for r in rest), np.int64, len(rest)))
            if found.any():
                cached += [row for row, here in zip(rest, found, strict=True) if here]
                vectors = np.vstack([vectors, extra]) if len(vectors) else extra
                rest = [row for row, here in zip(rest, found, strict=True) if not here]
        if rest and self.embedder is not None:
            remade = self._remade(kind, rest)
            kept = [row for row in rest if row[0] in remade]
            if kept:
                cached += kept
                extra = np.vstack([remade[row[0]] for row in kept])
                vectors = np.vstack([vectors, extra]) if len(vectors) else extra
        found_labels = {row[0] for row in cached}
        self.missing += [row[0] for row in rest if row[0] not in found_labels]
        if not cached:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
        order = np.argsort(np.fromiter((r[0] for r in cached), np.int64, len(cached)), kind="stable")
        labels = np.fromiter((r[0] for r in cached), np.int64, len(cached))[order]
        entities = np.fromiter((r[1] for r in cached), np.int64, len(cached))[order]
        return labels, entities, np.ascontiguousarray(vectors[order], dtype=np.float32)

    def _remade(self, kind: str, rows: list[tuple]) -> dict[int, np.ndarray]:
        """Vectors embedded again from the texts the store gives the items' entities now."""
        texts: dict[str, str] = {}
        for document in documents_of(self.connection, kind, sorted({r[1] for r in rows}), self.chunk_chars).values():
            for text in document:
                texts.setdefault(text_hash(text), text)
        wanted = [row for row in rows if row[2] in texts]
        digests = list(dict.fromkeys(row[2] for row in wanted))
        vectors: dict[str, np.ndarray] = {}
        assert self.embedder is not None
        for start in range(0, len(digests), _EMBED_BATCH):
            batch = digests[start:start + _EMBED_BATCH]
            embedded = self.embedder.embed([texts[d] for d in batch], "document")
            # As the build keeps them (int8 for the built-in embedder): every copy reads the same.
            vectors.update((d, decode_vector(encode_vector(v, self.embedder.stored_as), len(v)))
                           for d, v in zip(batch, embedded, strict=True))
        return {row[0]: vectors[row[2]] for row in wanted}
