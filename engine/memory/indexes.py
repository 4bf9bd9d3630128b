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
import queue
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.embeddings.base import Embedder
from engine.files import private_folder
from engine.index.vector_file import VectorFile
from engine.index.vector_index import IndexMeta, IndexUnusable, VectorIndex, saved_full_vectors
from engine.memory.documents import DEFAULT_CHUNK_CHARS, PassageShape
from engine.memory.item_vectors import ItemVectors
from engine.memory.vectors import VectorChanges, delete_items, item_generation, store_checksum
from engine.messages import Message, msg
from engine.store.lock import current_holder
from engine.store.sql import select_in
from engine.store.transaction import write_transaction

log = logging.getLogger(__name__)
INDEX_FOLDER = "index"
KIND_FILES = {"topic": "topics", "person": "people", "artifact": "artifacts"}
# Hashed lexical vectors are far from clustered: at ef 128 hnswlib found only 0.81 of the
# true top-10 on 10k LoCoMo turns, 0.97 at ef 512 (bench/embedder_choice.py --hnsw), still ~1 ms.
EF_SEARCH = 512


class LabelEntities:
    """label (vector_item id) → entity id, read from the store for the labels a search meets
    and remembered: reading the whole map of a 285k-item kind cost 0.1-0.2 s of every first
    search (issue 26). Labels are never handed out twice (engine.memory.vectors), so a label
    once read keeps its entity; one whose item is gone is simply not found."""

    def __init__(self, model_id: str, kind: str) -> None:
        self.model_id = model_id
        self.kind = kind
        self._known: dict[int, int] = {}

    def lookup(self, connection: sqlite3.Connection, labels: list[int]) -> dict[int, int]:
        unknown = [label for label in labels if label not in self._known]
        if unknown:
            # `+model_id`, `+kind`: by primary key. Given the columns, SQLite walked the (model,
            # kind, entity) index over every item of the kind for each 500 labels (0.25 s a search).
            self._known.update(select_in(connection, "SELECT id, entity_id FROM vector_item WHERE +model_id = ? "
                                         "AND +kind = ? AND id IN ({ids})", unknown, (self.model_id, self.kind)))
        return {label: self._known[label] for label in labels if label in self._known}

    def learn(self, labels: np.ndarray, entities: np.ndarray) -> None:
        self._known.update(zip(labels.tolist(), entities.tolist(), strict=True))

    def forget(self, labels: list[int]) -> None:
        for label in labels:
            self._known.pop(label, None)


@dataclass
class LoadedIndex:
    index: VectorIndex | None
    entities: LabelEntities
    items: int  # the store's items of this kind when it was loaded
    rebuilt_because: str | None  # None when the file on disk was used as is
    checksum: str  # the store checksum the index matches
    # A search's stand-in while another process rebuilds: why, and the store's labels the
    # (older or absent) index lacks, which `search` scores exactly.
    note: Message | None = None
    unindexed: np.ndarray | None = None
    fed: set[int] = field(default_factory=set)  # labels a build added as it embedded (`IndexSet.add`)
    sketched: bool = False  # the index holds sketches: its hits are scored with the stored vectors
    rebuilt_why: Message | None = None  # rebuilt_because as a code, for `flashback check` to say in its language


def sketch(vectors: np.ndarray, dim: int) -> np.ndarray:
    """Rows folded to `dim` dimensions (every dim-th coordinate summed) and made unit length.
    For the built-in embedder's hashed vectors this is the text hashed into `dim` buckets."""
    vectors = np.asarray(vectors, dtype=np.float32)
    folded = vectors.reshape(len(vectors), -1, dim).sum(axis=1) if vectors.ndim == 2 else \
        vectors.reshape(-1, dim).sum(axis=0)
    norms = np.linalg.norm(folded, axis=-1, keepdims=True)
    return np.divide(folded, norms, out=np.zeros_like(folded), where=norms > 0).astype(np.float32)


ADD_BATCH = 20000  # vectors read from the store and added to hnswlib at a time
COMPACT_FLOOR = 1000  # deleted items before an index is worth rebuilding (a rebuild reads every live vector)
COMPACT_RATIO = 2  # … and more of them than twice the live ones
# A sketch index's nearest items that the stored vectors score: recall@50 of the exact
# top 50 was 0.995 at 1,000 (fold to 256 dimensions, docs/benchmarks.md), 0.985 at 500.
RESCORED = 1000
RESCORED_PER_WANTED = 10  # people and files ask for 20: their 200 nearest sketches are scored
_FEED_QUEUE = 4  # batches of vectors waiting for the index while the next ones are embedded


class IndexSet:
    """The indexes of one store and one model; thread-safe (one lock around load/update).

    `owner=True` (a build, which holds the store's write lock) rebuilds and saves freely;
    otherwise (searches) see the module docstring. `embedder` (the model itself) makes a
    vector again where neither the cache nor an index holds it (engine.memory.item_vectors).

    A build feeds each batch of vectors to the index as it is embedded (`add`): a thread adds
    it to hnswlib, which releases the GIL, while the build embeds the next batch on the other
    core (issue 26: the index stage was half of a 200k-message build, after the embeddings)."""

    def __init__(self, data_dir: Path, model_id: str, dim: int, *, owner: bool = True,
                 embedder: Embedder | None = None, chunk_chars: int | PassageShape = DEFAULT_CHUNK_CHARS,
                 full_check: bool = False) -> None:
        self.data_dir = Path(data_dir)
        self.full_check = full_check  # read every binary's CRC (`flashback check`), not just its identity
        self.folder = self.data_dir / INDEX_FOLDER
        self.model_id = model_id
        self.dim = dim
        wanted = embedder.sketch_dim if embedder is not None and embedder.model_id == model_id else None
        # A sketch only where it is shorter and folds evenly (a user's --embedding-dim may not).
        self.sketch_dim = wanted if wanted and wanted < dim and dim % wanted == 0 else None
        self.index_dim = self.sketch_dim or dim
        self.owner = owner
        self.embedder = embedder
        self.chunk_chars = chunk_chars
        self._loaded: dict[str, LoadedIndex] = {}
        # kind → (sidecar stat, (older index, whether it holds sketches))
        self._on_disk: dict[str, tuple[tuple[int, int], tuple[VectorIndex | None, bool]]] = {}
        self._lock = threading.Lock()
        self._feed: queue.Queue | None = None
        self._feeder: threading.Thread | None = None
        self._feed_error: BaseException | None = None

    def path(self, kind: str) -> Path:
        return self.folder / f"{KIND_FILES[kind]}.hnsw"

    def _meta(self, connection: sqlite3.Connection, kind: str, dim: int | None = None) -> IndexMeta:
        items, _generation = item_generation(connection, self.model_id, kind)
        params = {"sketch": self.sketch_dim} if self.sketch_dim and dim in (None, self.index_dim) else {}
        return IndexMeta(model_id=self.model_id, dim=dim or self.index_dim, count=items, params=params,
                         store_checksum=store_checksum(connection, self.model_id, kind))

    def _for_index(self, loaded: LoadedIndex, vectors: np.ndarray) -> np.ndarray:
        return sketch(vectors, self.index_dim) if loaded.sketched else vectors

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

    def loaded(self, kind: str) -> VectorIndex | None:
        """The kind's index as loaded by `get` (None before, or when there is none)."""
        with self._lock:
            loaded = self._loaded.get(kind)
        return loaded.index if loaded is not None else None

    def item_vectors(self, connection: sqlite3.Connection, kind: str) -> ItemVectors:
        """Vectors of this model's items of `kind`: the cache, the full vectors beside the kind's
        loaded index, or the embedder again (engine.memory.item_vectors)."""
        index = self.loaded(kind)
        return ItemVectors(connection, self.model_id, embedder=self.embedder, chunk_chars=self.chunk_chars,
                           held=index.full if index is not None else None)

    def vectors(self, connection: sqlite3.Connection, kind: str,
                item_ids: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(labels, entity ids, vectors) of the given items, the kind's index loaded first (the
        built-in embedder's vectors are kept beside it)."""
        self.get(connection, kind)
        return self.item_vectors(connection, kind).load(kind, item_ids)

    def notes(self) -> dict[str, Message]:
        """kind → why searches of that kind use a stand-in instead of a current index."""
        with self._lock:
            return {kind: loaded.note for kind, loaded in self._loaded.items() if loaded.note}

    def _load_saved(self, connection: sqlite3.Connection, kind: str) -> tuple[IndexMeta, LoadedIndex | Message]:
        """(the meta the store expects, the saved index loaded — or why it cannot be used).

        A search also takes a current index of the vectors themselves where a sketch is wanted:
        a store built before issue 26 searches as it did until its next build remakes it."""
        expected = self._meta(connection, kind)
        sketched = self.sketch_dim is not None
        try:
            index = VectorIndex.load(self.path(kind), expected, full_check=self.full_check)
        except IndexUnusable as unusable:
            full = self._meta(connection, kind, self.dim)
            if self.owner or not sketched or unusable.reason_message.code != "index.stale.dimension":
                return expected, unusable.reason_message
            try:
                index = VectorIndex.load(self.path(kind), full, full_check=self.full_check)
            except IndexUnusable:
                return expected, unusable.reason_message
            sketched = False
        if sketched and index.full is None:  # a sketch without the vectors that score its candidates
            return expected, msg("index.corrupt.vectors", problem=msg("index.vectors.missing"))
        index.set_ef(EF_SEARCH)
        return expected, LoadedIndex(index, LabelEntities(self.model_id, kind), expected.count, None,
                                     expected.store_checksum, sketched=sketched)

    def _load_for_search(self, connection: sqlite3.Connection, kind: str) -> LoadedIndex:
        expected, loaded = self._load_saved(connection, kind)
        if isinstance(loaded, LoadedIndex):
            return loaded
        reason = loaded
        if not expected.count:  # nothing of this kind to search: no index needed, nothing to say
            return LoadedIndex(None, LabelEntities(self.model_id, kind), 0, None, expected.store_checksum)
        holder = current_holder(self.data_dir)
        name = msg(f"memory.index.{kind}")  # what it says, as codes: the window says it in its language
        if holder is not None and holder.operation == "build":
            note = msg("memory.stand_in.rebuilding", index=name, writer=holder.message())
        elif holder is not None:
            note = msg("memory.stand_in.writing", index=name, reason=reason, writer=holder.message())
        else:
            note = msg("memory.stand_in.stale", index=name, reason=reason)
        return self._stand_in(connection, kind, expected, note)

    def _stand_in(self, connection: sqlite3.Connection, kind: str, expected: IndexMeta, note: Message) -> LoadedIndex:
        index, sketched = self._older_index(kind, expected)
        indexed = index.labels() if index is not None else np.zeros(0, np.int64)
        stored = np.fromiter((r[0] for r in connection.execute(
            "SELECT id FROM vector_item WHERE model_id = ? AND kind = ?", (self.model_id, kind))), np.int64)
        unindexed = np.setdiff1d(stored, indexed)
        return LoadedIndex(index, LabelEntities(self.model_id, kind), expected.count, None, expected.store_checksum,
                           note, unindexed, sketched=sketched)

    def _older_index(self, kind: str, expected: IndexMeta) -> tuple[VectorIndex | None, bool]:
        """(the index file on disk whatever store state it was saved for, same model, of the
        sketch or of the vectors themselves; whether it holds sketches), kept while its sidecar
        is unchanged; (None, False) when there is none usable."""
        path = self.path(kind)
        try:
            stat = path.with_name(path.name + ".json").stat()
            signature = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            return None, False
        cached = self._on_disk.get(kind)
        if cached is not None and cached[0] == signature:
            return cached[1]
        found: tuple[VectorIndex | None, bool] = (None, False)
        for dim in dict.fromkeys((self.index_dim, self.dim)):
            try:
                index = VectorIndex.load(path, IndexMeta(self.model_id, dim, expected.count), current=False)
            except IndexUnusable:
                continue
            index.set_ef(EF_SEARCH)
            found = (index, dim != self.dim)
            break
        self._on_disk[kind] = (signature, found)
        return found

    def _load_or_rebuild(self, connection: sqlite3.Connection, kind: str,
                         on_progress: Callable[[int, int], None] | None = None) -> LoadedIndex:
        expected, loaded = self._load_saved(connection, kind)
        if isinstance(loaded, LoadedIndex) and not _bloated(loaded.index):
            return loaded
        if isinstance(loaded, LoadedIndex):
            # hnswlib keeps a deleted item's vector and links for good: builds and forgets that
            # replace topics again and again grew an index to 14 times its live items, and the
            # memory of every process that loads it (issue 35's soak). Rebuilt from its vectors.
            loaded = msg("index.compacted", deleted=loaded.index.deleted_count if loaded.index else 0)
        reason = str(loaded)  # English: the build's report and the log
        log.info("rebuilding the %s index: %s", kind, reason)
        index = self._new_index(expected.count)
        entities = LabelEntities(self.model_id, kind)
        # The vectors kept beside the index being replaced serve what they hold (the built-in
        # embedder caches none): only items added since are embedded again.
        source = ItemVectors(connection, self.model_id, embedder=self.embedder, chunk_chars=self.chunk_chars,
                             held=saved_full_vectors(self.path(kind), self.model_id))
        done = 0
        for item_ids, owners, vectors in source.iterate(kind, ADD_BATCH):
            if len(item_ids):
                self._add(index, item_ids, vectors)
                entities.learn(item_ids, owners)
            done += len(item_ids)
            if on_progress:  # a 285k-vector rebuild takes minutes: show it moving
                on_progress(done, expected.count)
        if source.missing:
            # No copy of their vectors and their entity's text changed since: the entity loses
            # every item, so this build embeds it again like a new one.
            self._drop_entities_of(connection, kind, source.missing)
            expected = self._meta(connection, kind)
        self._save(index, kind, expected)
        return LoadedIndex(index, entities, expected.count, reason, expected.store_checksum,
                           sketched=self.sketch_dim is not None, rebuilt_why=loaded)

    def _new_index(self, capacity: int) -> VectorIndex:
        index = VectorIndex.create(self.index_dim, capacity=max(1024, capacity), ef_search=EF_SEARCH)
        if self.sketch_dim is not None:
            index.full = VectorFile(self.dim, self.embedder.stored_as if self.embedder is not None else "float16")
        return index

    def _add(self, index: VectorIndex, labels: np.ndarray, vectors: np.ndarray) -> None:
        """Into an index of this set's own shape: the vectors, or their sketches plus the full vectors beside."""
        if index.full is not None and index.dim == self.index_dim != self.dim:
            index.full.add(labels, vectors)
            index.add(labels, sketch(vectors, self.index_dim))
        else:
            index.add(labels, vectors)

    def _drop_entities_of(self, connection: sqlite3.Connection, kind: str, labels: list[int]) -> None:
        owners = sorted({r[0] for r in select_in(connection, "SELECT entity_id FROM vector_item WHERE id IN ({ids})",
                                                  labels)})
        gone = [r[0] for r in select_in(connection, "SELECT id FROM vector_item WHERE model_id = ? AND kind = ? "
                                        "AND entity_id IN ({ids})", owners, (self.model_id, kind))]
        log.warning("%d %s items had no vector and a changed text: their %d entities are embedded again",
                    len(labels), kind, len(owners))
        with write_transaction(connection):
            delete_items(connection, gone)

    def _save(self, index: VectorIndex, kind: str, meta: IndexMeta) -> None:
        private_folder(self.folder)
        index.save(self.path(kind), meta)

    # -- a build feeding vectors as it embeds them -------------------------------------------

    def add(self, kind: str, labels: np.ndarray, entities: np.ndarray, vectors: np.ndarray) -> None:
        """Queue just-written items for the kind's loaded index (a build, after `get`); a
        thread adds them while the caller goes on. An error there is raised by the next
        `add` or by `flush`."""
        self._raise_feed_error()
        with self._lock:
            loaded = self._loaded[kind]
            loaded.entities.learn(labels, entities)
            loaded.fed.update(labels.tolist())
            if self._feeder is None:
                self._feed = queue.Queue(_FEED_QUEUE)
                self._feeder = threading.Thread(target=self._feed_index, args=(self._feed,), name="index-feeder",
                                                daemon=True)
                self._feeder.start()
            feed = self._feed
        assert feed is not None and loaded.index is not None
        if loaded.sketched and loaded.index.full is not None:
            loaded.index.full.add(labels, vectors)  # here: cheap; the graph is built in the feeder
        feed.put((loaded.index, labels, self._for_index(loaded, vectors)))

    def reserve(self, kind: str, extra: int) -> None:
        """Make room in the kind's loaded index for about `extra` items a build is about to add."""
        index = self.loaded(kind)
        if index is not None and extra > 0:
            index.reserve(extra)

    def _feed_index(self, feed: queue.Queue) -> None:
        while (work := feed.get()) is not None:
            index, labels, vectors = work
            try:
                if self._feed_error is None:
                    index.add(labels, vectors)
            except BaseException as exc:  # kept for the build's thread: raised by add/flush there
                self._feed_error = exc
            finally:
                feed.task_done()
        feed.task_done()

    def flush(self) -> None:
        """Wait until every queued batch is in its index; raise what went wrong there."""
        feed = self._feed
        if feed is not None:
            feed.join()
        self._raise_feed_error()

    def close(self) -> None:
        """Stop the feeding thread (a build's end, or its cancel)."""
        with self._lock:
            feed, feeder, self._feed, self._feeder = self._feed, self._feeder, None, None
        if feed is not None and feeder is not None:
            feed.put(None)
            feeder.join()

    def _raise_feed_error(self) -> None:
        error, self._feed_error = self._feed_error, None
        if error is not None:
            raise error

    def apply(self, connection: sqlite3.Connection, kind: str, changes: VectorChanges,
              on_progress: Callable[[int, int], None] | None = None) -> str | None:
        """Bring the kind's index in line after `changes` were committed; returns a rebuild reason or None."""
        self.flush()
        with self._lock:
            loaded = self._loaded.pop(kind, None)
            if loaded is None or loaded.index is None:
                # Not in memory: load what is on disk against the checksum *before* the changes
                # is not possible any more, so a cold apply is a rebuild (cheap next to embedding).
                loaded = self._load_or_rebuild(connection, kind, on_progress)
                self._loaded[kind] = loaded
                return loaded.rebuilt_because
            index = loaded.index
            if changes.removed:
                index.mark_deleted(np.asarray(changes.removed, dtype=np.int64))
                loaded.entities.forget(changes.removed)
            # Items nobody fed while embedding (a caller without a sink): read and added in batches.
            pending = [label for label in changes.added if label not in loaded.fed]
            source = ItemVectors(connection, self.model_id, embedder=self.embedder, chunk_chars=self.chunk_chars)
            for start in range(0, len(pending), ADD_BATCH):
                item_ids, entities, vectors = source.load(kind, pending[start:start + ADD_BATCH])
                if len(item_ids):
                    self._add(index, item_ids, vectors)
                    loaded.entities.learn(item_ids, entities)
                if on_progress:
                    on_progress(min(start + ADD_BATCH, len(pending)), len(pending))
            loaded.fed.clear()
            meta = self._meta(connection, kind)
            self._save(index, kind, meta)
            loaded.index = self._reopened(kind, meta, index)
            loaded.checksum, loaded.items = meta.store_checksum, meta.count
            self._loaded[kind] = loaded
            return None

    def _reopened(self, kind: str, meta: IndexMeta, index: VectorIndex) -> VectorIndex:
        """The index just saved, opened again from its files: the graph and the vectors a build
        held in memory (340 MB and 290 MB for the 285k topics of a 1M-message store, most of
        its peak: issue 26) are freed, the next search reads the files in place and builds the
        graph when a second one comes (engine.index.vector_index). `index` if that fails."""
        try:
            reopened = VectorIndex.load(self.path(kind), meta)
        except IndexUnusable as unusable:  # not expected right after a save; the one in memory is good
            log.warning("the %s index just saved did not open again: %s", kind, unusable.reason)
            return index
        reopened.set_ef(EF_SEARCH)
        return reopened

    def search(self, connection: sqlite3.Connection, kind: str, vector: np.ndarray, entities: int,
               chunks_per_entity: int = 4) -> list[tuple[int, float]]:
        """(entity id, best cosine) for up to `entities` entities, best first."""
        loaded = self.get(connection, kind)
        wanted = entities * chunks_per_entity
        best: dict[int, float] = {}
        while loaded.index is not None:
            hits, owners, exhausted = self._hits(connection, kind, loaded, vector, wanted)
            best.clear()
            for label, score in hits:
                entity = owners.get(label)
                if entity is not None and score > best.get(entity, -2.0):
                    best[entity] = score
            # Long topics fill the hit list with their own chunks: ask for more until enough entities show.
            if len(best) >= entities or exhausted:
                break
            wanted *= 4
        if loaded.unindexed is not None and len(loaded.unindexed):
            self._score_exactly(connection, kind, loaded.unindexed, vector, best)
        return sorted(best.items(), key=lambda pair: -pair[1])[:entities]

    def _hits(self, connection: sqlite3.Connection, kind: str, loaded: LoadedIndex, vector: np.ndarray,
              wanted: int) -> tuple[list[tuple[int, float]], dict[int, int], bool]:
        """(the `wanted` best (label, cosine), label → entity, whether the index has no more).
        A sketch index names its `RESCORED` nearest items; their stored vectors give the cosines."""
        assert loaded.index is not None
        if not loaded.sketched:
            hits = loaded.index.search(vector, wanted)
            return hits, loaded.entities.lookup(connection, [label for label, _ in hits]), len(hits) < wanted
        asked = max(wanted, min(RESCORED, RESCORED_PER_WANTED * wanted))
        near = loaded.index.search(sketch(vector, self.index_dim), asked)
        labels = np.fromiter((label for label, _ in near), np.int64, len(near))
        held, scores = loaded.index.full.scores_of(labels, vector) if loaded.index.full is not None else \
            (np.zeros(len(labels), dtype=bool), np.zeros(0, np.float32))
        labels = labels[held]
        order = np.argsort(-scores, kind="stable")[:wanted]
        hits = [(int(labels[i]), float(scores[i])) for i in order]
        return hits, loaded.entities.lookup(connection, [label for label, _ in hits]), len(near) < asked

    def _score_exactly(self, connection: sqlite3.Connection, kind: str, labels: np.ndarray, vector: np.ndarray,
                       best: dict[int, float]) -> None:
        """Cosines of items no index holds, a batch of vectors at a time (bounded memory)."""
        source = ItemVectors(connection, self.model_id, embedder=self.embedder, chunk_chars=self.chunk_chars)
        for start in range(0, len(labels), ADD_BATCH):
            _ids, owners, vectors = source.load(kind, labels[start:start + ADD_BATCH].tolist())
            if not len(owners):
                continue
            for entity, score in zip(owners.tolist(), (vectors @ vector).tolist(), strict=True):
                if score > best.get(entity, -2.0):  # NaN (a damaged vector) never wins
                    best[entity] = score

    def forget(self) -> None:
        with self._lock:
            self._loaded.clear()


def _bloated(index: VectorIndex | None) -> bool:
    """More deleted items than COMPACT_RATIO times the live ones (and at least COMPACT_FLOOR)."""
    if index is None:
        return False
    dead = index.deleted_count
    return dead >= COMPACT_FLOOR and dead > COMPACT_RATIO * max(index.live_count, 1)
