"""One hnswlib index per kind (topics, people, artifacts), kept in step with the store.

An index on disk is trusted only when its sidecar names the current model and dimension
and the store checksum of its kind matches (`vectors.store_checksum`); anything else
(missing, corrupt, stale) is rebuilt from the vectors in the store, and the reason is
returned so it can be shown. Search results are mapped from item labels to entities, a
topic keeping its best chunk.

Index files are written by builds only (the `owner`, holding the store's write lock; also
`flashback check`). A search's IndexSet never rebuilds or saves one: when the file is not
current it uses what is on disk (the last index of the same model, if any) and scores the
store's items that index lacks exactly, a batch of vectors at a time, and says why
(`notes`): a build in another process is making the new index, or nobody is and `flashback
build` (Build memory) remakes it. A search used to rebuild the index itself (35 s and 527 MB
on a 285k-topic store; 74 s for 33k topics here, bench/many_processes.py) and save it after
a build elsewhere had finished, replacing the newer index (issue 12, finding 2).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.index.vector_index import IndexMeta, IndexUnusable, VectorIndex
from engine.memory.vectors import VectorChanges, iter_items, load_items, store_checksum
from engine.messages import Message, msg
from engine.store.lock import current_holder

log = logging.getLogger(__name__)
INDEX_FOLDER = "index"
KIND_FILES = {"topic": "topics", "person": "people", "artifact": "artifacts"}
# Hashed lexical vectors are far from clustered: at ef 128 hnswlib found only 0.81 of the
# true top-10 on 10k LoCoMo turns, 0.97 at ef 512 (bench/embedder_choice.py --hnsw), still ~1 ms.
EF_SEARCH = 512


@dataclass
class LoadedIndex:
    index: VectorIndex
    label_entity: dict[int, int]  # vector_item id → topic / person / artifact id
    rebuilt_because: str | None  # None when the file on disk was used as is
    checksum: str  # the store checksum the index matches
    # A search's stand-in while another process rebuilds: why, and the store's labels the
    # (older or absent) index lacks, which `search` scores exactly.
    note: Message | None = None
    unindexed: np.ndarray | None = None


ADD_BATCH = 20000  # vectors read from the store and added to hnswlib at a time


class IndexSet:
    """The indexes of one store and one model; thread-safe (one lock around load/update).

    `owner=True` (a build, which holds the store's write lock) rebuilds and saves freely;
    otherwise (searches) see the module docstring."""

    def __init__(self, data_dir: Path, model_id: str, dim: int, *, owner: bool = True) -> None:
        self.data_dir = Path(data_dir)
        self.folder = self.data_dir / INDEX_FOLDER
        self.model_id = model_id
        self.dim = dim
        self.owner = owner
        self._loaded: dict[str, LoadedIndex] = {}
        self._on_disk: dict[str, tuple[tuple, VectorIndex | None]] = {}  # kind → (sidecar stat, older index)
        self._lock = threading.Lock()

    def path(self, kind: str) -> Path:
        return self.folder / f"{KIND_FILES[kind]}.hnsw"

    def _meta(self, connection: sqlite3.Connection, kind: str, count: int) -> IndexMeta:
        return IndexMeta(model_id=self.model_id, dim=self.dim, count=count, params={},
                         store_checksum=store_checksum(connection, self.model_id, kind))

    def get(self, connection: sqlite3.Connection, kind: str) -> LoadedIndex:
        """The kind's index, loaded from disk if it is current; else rebuilt and saved (owner)
        or stood in for (a search)."""
        with self._lock:
            loaded = self._loaded.get(kind)
            # A stand-in is looked at again every time: the build it waits for may be over.
            if loaded is not None and loaded.note is None and loaded.checksum == store_checksum(
                    connection, self.model_id, kind):
                return loaded
            loaded = self._load_or_rebuild(connection, kind) if self.owner else self._load_for_search(connection, kind)
            self._loaded[kind] = loaded
            return loaded

    def notes(self) -> dict[str, Message]:
        """kind → why searches of that kind use a stand-in instead of a current index."""
        with self._lock:
            return {kind: loaded.note for kind, loaded in self._loaded.items() if loaded.note}

    def _load_saved(self, connection: sqlite3.Connection, kind: str) -> tuple[dict[int, int], IndexMeta,
                                                                                 LoadedIndex | Message]:
        """(labels, the meta the store expects, the saved index loaded — or why it cannot be used)."""
        labels = self._label_map(connection, kind)
        expected = self._meta(connection, kind, len(labels))
        try:
            index = VectorIndex.load(self.path(kind), expected)
        except IndexUnusable as unusable:
            return labels, expected, unusable.reason_message
        index.set_ef(EF_SEARCH)
        return labels, expected, LoadedIndex(index, labels, None, expected.store_checksum)

    def _load_for_search(self, connection: sqlite3.Connection, kind: str) -> LoadedIndex:
        labels, expected, loaded = self._load_saved(connection, kind)
        if isinstance(loaded, LoadedIndex):
            return loaded
        reason = loaded
        if not labels:  # nothing of this kind to search: no index needed, nothing to say
            return LoadedIndex(None, labels, None, expected.store_checksum)
        holder = current_holder(self.data_dir)
        name = msg(f"memory.index.{kind}")  # what it says, as codes: the window says it in its language
        if holder is not None and holder.operation == "build":
            note = msg("memory.stand_in.rebuilding", index=name, writer=holder.message())
        elif holder is not None:
            note = msg("memory.stand_in.writing", index=name, reason=reason, writer=holder.message())
        else:
            note = msg("memory.stand_in.stale", index=name, reason=reason)
        return self._stand_in(connection, kind, labels, expected, note)

    def _stand_in(self, connection: sqlite3.Connection, kind: str, labels: dict[int, int], expected: IndexMeta,
                  note: Message) -> LoadedIndex:
        index = self._older_index(kind, expected)
        indexed = index.labels() if index is not None else np.zeros(0, np.int64)
        unindexed = np.setdiff1d(np.fromiter(labels, np.int64, len(labels)), indexed)
        return LoadedIndex(index, labels, None, expected.store_checksum, note, unindexed)

    def _older_index(self, kind: str, expected: IndexMeta) -> VectorIndex | None:
        """The index file on disk whatever store state it was saved for (same model and
        dimension), kept while its sidecar is unchanged; None when there is none usable."""
        path = self.path(kind)
        try:
            stat = path.with_name(path.name + ".json").stat()
            signature = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            return None
        cached = self._on_disk.get(kind)
        if cached is not None and cached[0] == signature:
            return cached[1]
        try:
            index = VectorIndex.load(path, expected, current=False)
            index.set_ef(EF_SEARCH)
        except IndexUnusable:
            index = None
        self._on_disk[kind] = (signature, index)
        return index

    def _label_map(self, connection: sqlite3.Connection, kind: str) -> dict[int, int]:
        rows = connection.execute("SELECT id, entity_id FROM vector_item WHERE model_id = ? AND kind = ?",
                                  (self.model_id, kind))
        return dict(rows.fetchall())

    def _load_or_rebuild(self, connection: sqlite3.Connection, kind: str,
                         on_progress: Callable[[int, int], None] | None = None) -> LoadedIndex:
        labels, expected, loaded = self._load_saved(connection, kind)
        if isinstance(loaded, LoadedIndex):
            return loaded
        reason = str(loaded)  # English: the build's report and the log
        log.info("rebuilding the %s index: %s", kind, reason)
        index = VectorIndex.create(self.dim, capacity=max(1024, len(labels)), ef_search=EF_SEARCH)
        done = 0
        for item_ids, vectors in iter_items(connection, self.model_id, kind):
            index.add(item_ids, vectors)
            done += len(item_ids)
            if on_progress:  # a 285k-vector rebuild takes minutes: show it moving
                on_progress(done, len(labels))
        self._save(index, kind, expected)
        return LoadedIndex(index, labels, reason, expected.store_checksum)

    def _save(self, index: VectorIndex, kind: str, meta: IndexMeta) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        index.save(self.path(kind), meta)

    def apply(self, connection: sqlite3.Connection, kind: str, changes: VectorChanges,
              on_progress: Callable[[int, int], None] | None = None) -> str | None:
        """Bring the kind's index in line after `changes` were committed; returns a rebuild reason or None."""
        with self._lock:
            loaded = self._loaded.pop(kind, None)
            if loaded is None:
                # Not in memory: load what is on disk against the checksum *before* the changes
                # is not possible any more, so a cold apply is a rebuild (cheap next to embedding).
                loaded = self._load_or_rebuild(connection, kind, on_progress)
                self._loaded[kind] = loaded
                return loaded.rebuilt_because
            index = loaded.index
            if changes.removed:
                index.mark_deleted(np.asarray(changes.removed, dtype=np.int64))
                for label in changes.removed:
                    loaded.label_entity.pop(label, None)
            # In batches, for the same reason as the rebuild: a first build adds every vector.
            for start in range(0, len(changes.added), ADD_BATCH):
                batch = changes.added[start:start + ADD_BATCH]
                item_ids, entities, vectors = load_items(connection, self.model_id, kind, batch)
                if len(item_ids):
                    index.add(item_ids, vectors)
                    loaded.label_entity.update(zip(item_ids.tolist(), entities.tolist(), strict=True))
                if on_progress:
                    on_progress(min(start + ADD_BATCH, len(changes.added)), len(changes.added))
            meta = self._meta(connection, kind, len(loaded.label_entity))
            self._save(index, kind, meta)
            loaded.checksum = meta.store_checksum
            self._loaded[kind] = loaded
            return None

    def search(self, connection: sqlite3.Connection, kind: str, vector: np.ndarray, entities: int,
               chunks_per_entity: int = 4) -> list[tuple[int, float]]:
        """(entity id, best cosine) for up to `entities` entities, best first."""
        loaded = self.get(connection, kind)
        wanted = entities * chunks_per_entity
        best: dict[int, float] = {}
        while loaded.index is not None:
            hits = loaded.index.search(vector, wanted)
            best.clear()
            for label, score in hits:
                entity = loaded.label_entity.get(label)
                if entity is not None and score > best.get(entity, -2.0):
                    best[entity] = score
            # Long topics fill the hit list with their own chunks: ask for more until enough entities show.
            if len(best) >= entities or len(hits) < wanted:
                break
            wanted *= 4
        if loaded.unindexed is not None:
            self._score_exactly(connection, kind, loaded.unindexed, vector, best)
        return sorted(best.items(), key=lambda pair: -pair[1])[:entities]

    def _score_exactly(self, connection: sqlite3.Connection, kind: str, labels: np.ndarray, vector: np.ndarray,
                       best: dict[int, float]) -> None:
        """Cosines of items no index holds, a batch of vectors at a time (bounded memory)."""
        for start in range(0, len(labels), ADD_BATCH):
            _ids, owners, vectors = load_items(connection, self.model_id, kind,
                                               labels[start:start + ADD_BATCH].tolist())
            if not len(owners):
                continue
            for entity, score in zip(owners.tolist(), (vectors @ vector).tolist(), strict=True):
                if score > best.get(entity, -2.0):  # NaN (a damaged vector) never wins
                    best[entity] = score

    def forget(self) -> None:
        with self._lock:
            self._loaded.clear()
