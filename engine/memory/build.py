"""`flashback build`: topics for new messages, their vectors, people and artifacts, the indexes.

Incremental at every step: only messages without a topic become topics; only texts not in
the embedding cache are embedded; the indexes take the added and removed items instead of
being rebuilt. A model switch drops the other model's items (their vectors stay cached,
so switching back is cheap) and every text is embedded with the new model, with progress.
Each stage commits on its own, so a cancel keeps the stages already finished.

The caller holds the store's write lock file (`StoreWriteLock`: no other import or build)
for the whole build, but SQLite's own write lock only for short transactions that write:
embedding (minutes with a local model or an API) runs with no transaction open
(`engine.memory.vectors`), so a search in another process can record its run meanwhile.

A build also heals what damage left behind: a saved calibration that is not finite, or a
damaged vector met on the way (NaN in an index rebuild or in the measured anchors), has
every damaged vector removed (`health`) and the build run again, which embeds those
entities anew; `BuildReport.repaired` says what was done.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from engine.embeddings.base import Embedder
from engine.embeddings.builtin import BuiltinEmbedder
from engine.errors import CancelToken
from engine.index.vector_index import InvalidVector
from engine.memory import calibration as calibration_store
from engine.memory.documents import DEFAULT_CHUNK_CHARS, PassageShape
from engine.memory.embedder_state import needs_refit, refit
from engine.memory.health import InvalidVectors, describe_repair, find_damaged_vectors, remove_damaged, repair_dates
from engine.memory.indexes import INDEX_FOLDER, IndexSet
from engine.memory.lexical_index import sync_topic_fts, topic_fts_is_current
from engine.memory.model_options import build_options_for
from engine.memory.people_and_files import artifact_documents, artifacts_without_items, people_documents
from engine.memory.topic_documents import topic_documents_for, topics_without_items
from engine.memory.vectors import VectorChanges, delete_items, items_of_entities, replace_items
from engine.store.transaction import write_transaction
from engine.topics.builder import build_topics
from engine.topics.consolidation import consolidate
from engine.topics.merge_scale import merge_bar, neighbour_cosines
from engine.topics.settings import TopicSettings

log = logging.getLogger(__name__)
# A topic's windows, on average, in hundredths (1.04 at 200k synthetic messages, ~1.3 on LoCoMo):
# what a build reserves in the topic index before it embeds, so the index grows once.
_ITEMS_PER_TOPIC = 115
StageProgress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class BuildReport:
    model_id: str
    topics_created: int = 0
    messages_assigned: int = 0
    topics_merged: int = 0
    embedded: int = 0  # texts sent to the embedder
    cached: int = 0  # texts whose vector was already known
    vectors: dict[str, int] = field(default_factory=dict)  # kind → live items after the build
    # kind → topics, people, files with a vector: what a search can find. A topic cut into
    # passages (a sentence model) has several items: "searchable: 236 topics" was 113 (issue 23).
    searchable: dict[str, int] = field(default_factory=dict)
    rebuilt: dict[str, str] = field(default_factory=dict)  # kind → why its index was rebuilt
    calibration: dict[str, float] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    # With the splitter/merger agents: chunks they split, chunks summarised extractively
    # instead (by reason), messages they left out, merge calls that failed (by reason).
    agents: dict[str, object] = field(default_factory=dict)
    repaired: list[str] = field(default_factory=list)  # what damage this build found and made anew
    merge_threshold: float | None = None  # consolidation's bar, raised for this model's scale (topics.merge_scale)
    freed_mib: float = 0.0  # disk space given back by dropping vectors the store no longer keeps (issue 26)

    def add(self, changes: VectorChanges) -> None:
        self.embedded += changes.embedded
        self.cached += changes.cached


@dataclass(frozen=True)
class BuildOptions:
    topics: TopicSettings = field(default_factory=TopicSettings)
    chunk_chars: int | PassageShape = DEFAULT_CHUNK_CHARS  # a sentence model's passages: model_options
    consolidate: bool = True


ARTIFACT_SLICE = 5000  # files whose documents are built and embedded at a time


def _guarded(work):
    """An index step; a damaged vector met in it becomes InvalidVectors (see build_memory)."""
    try:
        return work()
    except InvalidVector as exc:
        raise InvalidVectors() from exc


def topic_vectors(connection: sqlite3.Connection, indexes: IndexSet) -> Callable[[list[int]], np.ndarray]:
    """ids → one normalised row per topic (mean of its chunks), zeros where a topic has none.
    The vectors come from the build's own index (or the cache, or the embedder again)."""
    model_id = indexes.model_id

    def vectors_for(topic_ids: list[int]) -> np.ndarray:
        _labels, entities, vectors = indexes.item_vectors(connection, "topic").load(
            "topic", items_of_entities(connection, model_id, "topic", topic_ids))
        if not len(entities):
            return np.zeros((len(topic_ids), 1), dtype=np.float32)
        rows = np.zeros((len(topic_ids), vectors.shape[1]), dtype=np.float32)
        position = {t: i for i, t in enumerate(topic_ids)}
        for entity, vector in zip(entities.tolist(), vectors, strict=True):
            rows[position[entity]] += vector
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)

    return vectors_for


def build_memory(data_dir: Path, connection: sqlite3.Connection, embedder: Embedder, *,
                 options: BuildOptions | None = None, splitter=None, merger=None,
                 on_progress: StageProgress | None = None, cancel: CancelToken | None = None) -> BuildReport:
    """Build what is missing (see the module docstring); the caller holds the store's write lock."""
    run = dict(options=options, splitter=splitter, merger=merger, on_progress=on_progress, cancel=cancel)
    repaired: list[str] = []
    dates = repair_dates(connection)  # issue 34: a date in year 10000 from an older import stops every date shown
    if dates:
        repaired.append(str(dates.message()))
    problem = calibration_store.problem(Path(data_dir) / INDEX_FOLDER, embedder.model_id)
    if problem is not None and problem != "missing":
        repaired.append(f"calibration measured again (it was {problem})")
        calibration_store.discard(Path(data_dir) / INDEX_FOLDER, embedder.model_id)
        repaired += _remove_damaged(connection, embedder)
    try:
        report = _build(data_dir, connection, embedder, **run)
    except InvalidVectors:
        repaired += _remove_damaged(connection, embedder) or ["nothing damaged found on a second look"]
        report = _build(data_dir, connection, embedder, **run)
    report.repaired = repaired + report.repaired
    return report


def _remove_damaged(connection: sqlite3.Connection, embedder: Embedder) -> list[str]:
    damage = find_damaged_vectors(connection, embedder.model_id, embedder.dim, embedder.cache_vectors)
    if not damage:
        return []
    log.warning("removing %d damaged vectors so they are embedded again", len(damage.items))
    return [describe_repair(remove_damaged(connection, embedder.model_id, damage))]


def _build(data_dir: Path, connection: sqlite3.Connection, embedder: Embedder, *,
           options: BuildOptions | None = None, splitter=None, merger=None,
           on_progress: StageProgress | None = None, cancel: CancelToken | None = None) -> BuildReport:
    # Every build (the CLI, the window, `check`'s repair) cuts topics the way this embedder needs.
    options = build_options_for(embedder, options or BuildOptions())
    cancel = cancel or CancelToken()
    progress = on_progress or (lambda stage, done, total: None)
    report = BuildReport(embedder.model_id)

    def timed(stage: str, started: float) -> None:
        report.seconds[stage] = round(time.perf_counter() - started, 3)

    started = time.perf_counter()
    topics = build_topics(connection, splitter=splitter, settings=options.topics,
                          on_progress=lambda d, t: progress("topics", d, t), cancel=cancel)
    report.topics_created, report.messages_assigned = topics.topics_created, topics.messages_assigned
    if splitter is not None:
        report.agents.update(split_chunks=topics.llm_chunks, fallbacks=dict(topics.fallbacks),
                             stragglers=topics.stragglers, fallback_examples=list(topics.fallback_examples))
    timed("topics", started)

    if isinstance(embedder, BuiltinEmbedder) and needs_refit(connection, embedder):  # only it is fitted
        started = time.perf_counter()
        progress("fit", 0, 1)
        embedder = refit(data_dir, connection, embedder, options.chunk_chars, cancel)
        timed("fit", started)
    report.model_id = model = embedder.model_id
    indexes = IndexSet(data_dir, model, embedder.dim, embedder=embedder, chunk_chars=options.chunk_chars)
    try:
        return _build_vectors(connection, embedder, indexes, options, report, progress, cancel, splitter=splitter,
                              merger=merger)
    finally:
        indexes.close()


def _build_vectors(connection: sqlite3.Connection, embedder: Embedder, indexes: IndexSet, options: BuildOptions,
                   report: BuildReport, progress: StageProgress, cancel: CancelToken, *, splitter=None,
                   merger=None) -> BuildReport:
    """Everything after the topics and the fit: vectors, merges, BM25, people and files, indexes, calibration."""
    model = embedder.model_id

    def timed(stage: str, started: float) -> None:
        report.seconds[stage] = round(time.perf_counter() - started, 3)

    # Items of another model are stale whatever happens next; their cached vectors stay.
    # Deleted 500 at a time (each its own transaction): a whole store's items at once held
    # the write lock for as long as the triggers took.
    delete_items(connection, [r[0] for r in connection.execute("SELECT id FROM vector_item WHERE model_id != ?",
                                                               (model,))])
    for kind in ("topic", "person", "artifact"):
        loaded = _guarded(lambda kind=kind: indexes.get(connection, kind))  # before any change: matches the store
        if loaded.rebuilt_because:
            report.rebuilt[kind] = loaded.rebuilt_because
    changes = {kind: VectorChanges() for kind in ("topic", "person", "artifact")}

    def absorb(kind: str, new: VectorChanges) -> None:
        changes[kind].added += new.added
        changes[kind].removed += new.removed
        report.add(new)

    def into_index(kind: str):
        """The new items' vectors go to the index as they are embedded (IndexSet.add)."""
        return lambda labels, entities, vectors: _guarded(lambda: indexes.add(kind, labels, entities, vectors))

    started = time.perf_counter()
    pending = topics_without_items(connection, model)
    # Topics whose items are written per step: what a cancel keeps of them (their vectors are
    # kept batch by batch anyway). A local CPU model embeds ~200 topics in minutes, not 2,000
    # (`bench.local_speed`): a cancelled or interrupted build resumes from there.
    step = 200 if isinstance(options.chunk_chars, PassageShape) else 2000
    indexes.reserve("topic", len(pending) * _ITEMS_PER_TOPIC // 100)
    for start in range(0, len(pending), step):
        batch = pending[start:start + step]
        documents = topic_documents_for(connection, batch, options.chunk_chars)

        def report_share(done: int, total: int, offset: int = start, size: int = len(batch)) -> None:
            progress("embeddings", offset + done * size // max(total, 1), len(pending))

        absorb("topic", replace_items(connection, embedder, "topic", documents, report_share, cancel,
                                      into_index("topic")))
    progress("embeddings", len(pending), len(pending))
    timed("embeddings", started)

    changed_topics: list[int] = []
    if options.consolidate:
        started = time.perf_counter()
        _guarded(indexes.flush)  # the merges read the topics' vectors from the index
        vectors_for = topic_vectors(connection, indexes)
        merging = options.topics
        if getattr(embedder, "consolidation_threshold", None) is None:  # a model the engine has not measured
            bar = merge_bar(neighbour_cosines(connection, vectors_for), merging.consolidation_threshold)
            if bar != merging.consolidation_threshold:
                report.merge_threshold = round(bar, 4)
                merging = replace(merging, consolidation_threshold=bar)
        merged = consolidate(connection, vectors_for, merger=merger, settings=merging,
                             on_progress=lambda d, t: progress("consolidation", d, t), cancel=cancel)
        report.topics_merged = merged.merged
        if merger is not None:
            report.agents["merge_failures"] = dict(merged.failures)
        gone = items_of_entities(connection, model, "topic", merged.deleted_ids)
        changed = changed_topics = [t for t in merged.changed_ids if t not in set(merged.deleted_ids)]
        if changed:
            absorb("topic", replace_items(connection, embedder, "topic",
                                          topic_documents_for(connection, changed, options.chunk_chars),
                                          cancel=cancel, on_vectors=into_index("topic")))
        absorb("topic", VectorChanges(removed=gone))
        delete_items(connection, gone)  # after the inserts: their ids stay unused (see replace_items)
        timed("consolidation", started)

    started = time.perf_counter()
    reshaped = not topic_fts_is_current(connection)  # remade by sync: a new store's, or an older shape's
    sync_topic_fts(connection, changed_topics, on_progress=lambda done, total: progress("lexical", done, total))
    if reshaped:  # a store built before issue 26: its old table's copy of the terms freed ~18 % of the file
        vacuum_if_worth(connection, "the old full-text table", share=_MIGRATION_VACUUM_SHARE)
    timed("lexical", started)

    def apply_to_index(kind: str) -> None:
        progress(f"index {kind}", 0, 1)
        reason = _guarded(lambda: indexes.apply(
            connection, kind, changes[kind], on_progress=lambda done, total: progress(f"index {kind}", done, total)))
        if reason:
            report.rebuilt[kind] = reason
        report.vectors[kind], report.searchable[kind] = connection.execute(
            "SELECT count(*), count(DISTINCT entity_id) FROM vector_item WHERE model_id = ? AND kind = ?",
            (model, kind)).fetchone()

    # The topics' index is saved, and let go of, before people and files are embedded: held
    # to the build's end it was most of a 1M-message build's peak memory (IndexSet.apply).
    started = time.perf_counter()
    apply_to_index("topic")
    index_seconds = time.perf_counter() - started

    started = time.perf_counter()
    people = people_documents(connection)
    if isinstance(options.chunk_chars, PassageShape):  # a sentence model pays per character: their heads
        people = options.chunk_chars.entities(people)
    # With progress: a local CPU model spends minutes here (LoCoMo: a third of its build).
    absorb("person", replace_items(connection, embedder, "person", people, cancel=cancel,
                                   on_progress=lambda done, total: progress("people", done, total),
                                   on_vectors=into_index("person")))
    # Files a slice at a time: their documents (a file's head and the messages around it) for a
    # whole 1M-message store were ~230 MB of text held to the build's end, its peak memory.
    pending = artifacts_without_items(connection, model)
    for first in range(0, len(pending), ARTIFACT_SLICE):
        artifacts = artifact_documents(connection, pending[first:first + ARTIFACT_SLICE])
        if isinstance(options.chunk_chars, PassageShape):
            artifacts = options.chunk_chars.entities(artifacts)

        def slice_progress(done: int, total: int, first: int = first) -> None:
            progress("artifacts", first + round(done / max(total, 1) * min(ARTIFACT_SLICE, len(pending) - first)),
                     len(pending))
        absorb("artifact", replace_items(
            connection, embedder, "artifact", artifacts, cancel=cancel, on_vectors=into_index("artifact"),
            on_progress=slice_progress))
        del artifacts
    timed("people_artifacts", started)

    started = time.perf_counter()
    for kind in ("person", "artifact"):
        apply_to_index(kind)
    report.seconds["index"] = round(index_seconds + time.perf_counter() - started, 3)

    started = time.perf_counter()
    measured = calibration_store.measure(connection, embedder, indexes.item_vectors(connection, "topic"))
    if measured is not None and not calibration_store.valid(measured):
        raise InvalidVectors()  # NaN anchors come from damaged vectors: build_memory removes them
    if measured is not None:
        calibration_store.save(indexes.folder, measured)
    chosen = measured or calibration_store.load(indexes.folder, embedder)
    report.calibration = {"unrelated": round(chosen.unrelated, 4), "related": round(chosen.related, 4),
                          "probes": chosen.probes}
    timed("calibration", started)

    if not embedder.cache_vectors:
        started = time.perf_counter()
        report.freed_mib = compact_uncached(connection, lambda done, total: progress("compact", done, total))
        timed("compact", started)
    return report


# A store built before issue 26 cached the built-in embedder's vectors (float32, 4 KB each:
# 457 MB of a 300k-message store). Its index now keeps them beside it: the rows go, in short
# transactions, and the file is vacuumed when what they freed is worth a rewrite of the store.
_DROP_BATCH = 5000
_VACUUM_SHARE = 0.25  # of the file free, and at least:
_VACUUM_MIB = 16
_MIGRATION_VACUUM_SHARE = 0.1  # once, when the full-text table changes shape: the 200k store freed 18 %


def compact_uncached(connection: sqlite3.Connection, on_progress: Callable[[int, int], None]) -> float:
    """Drop the built-in embedder's cached vectors (every fit of it); MiB given back to the disk."""
    total = connection.execute("SELECT count(*) FROM embedding_cache WHERE model_id LIKE 'builtin:%'").fetchone()[0]
    if not total:
        return 0.0
    page = connection.execute("PRAGMA page_size").fetchone()[0]
    before = connection.execute("PRAGMA page_count").fetchone()[0] * page
    done = 0
    while True:
        with write_transaction(connection):
            removed = connection.execute(
                "DELETE FROM embedding_cache WHERE rowid IN (SELECT rowid FROM embedding_cache "
                "WHERE model_id LIKE 'builtin:%' LIMIT ?)", (_DROP_BATCH,)).rowcount
        done += removed
        on_progress(done, total)
        if removed < _DROP_BATCH:
            break
    vacuum_if_worth(connection, "old vectors")
    after = connection.execute("PRAGMA page_count").fetchone()[0] * page
    return round(max(0, before - after) / 2**20, 1)


def vacuum_if_worth(connection: sqlite3.Connection, what: str, share: float = _VACUUM_SHARE) -> None:
    """VACUUM when at least `share` of the store file (and 16 MiB) is free pages, after `what`
    was dropped: SQLite reuses free pages but never gives them back to the disk by itself."""
    page = connection.execute("PRAGMA page_size").fetchone()[0]
    size = connection.execute("PRAGMA page_count").fetchone()[0] * page
    free = connection.execute("PRAGMA freelist_count").fetchone()[0] * page
    if free >= _VACUUM_MIB * 2**20 and free >= share * size:
        try:
            connection.execute("VACUUM")
        except sqlite3.OperationalError as exc:  # no room for the copy VACUUM writes: the space is reused later
            log.warning("could not vacuum the store after dropping %s: %s", what, exc)
