"""Build → search on a real store (SQLite file, hnswlib files, the built-in embedder)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import resources
from engine.api import Flashback, SearchRequest
from engine.embeddings.base import EmbeddingConfig
from engine.memory.indexes import INDEX_FOLDER
from engine.rerank.threshold import ThresholdReranker
from engine.retrieval.search import RetrievalSettings

DEMO = resources.demo_export()


@pytest.fixture(scope="module")
def built_store(tmp_path_factory) -> Path:
    data_dir = tmp_path_factory.mktemp("store")
    service = Flashback(data_dir)
    service.imports.import_path(DEMO)
    report = service.memory.build()
    assert report.topics_created > 50 and report.vectors["topic"] >= report.topics_created - report.topics_merged
    return data_dir


def _copy(built_store: Path, tmp_path: Path) -> Flashback:
    target = tmp_path / "copy"
    shutil.copytree(built_store, target)
    return Flashback(target)


def _top_topic_text(service: Flashback, query: str, **settings) -> str:
    stage1 = service.search.candidates(query, RetrievalSettings(**settings))
    topics = [c for c in stage1.candidates if c.kind == "topic"]
    assert topics, f"no candidates for {query!r}"
    return " ".join(c.summary for c in topics[:3])


def test_latin_and_cyrillic_queries_find_their_topics(built_store, tmp_path):
    service = _copy(built_store, tmp_path)
    assert "Remédios" in _top_topic_text(service, "hotel in Lisbon Alfama")
    assert "аспорт" in _top_topic_text(service, "загранпаспорт отпечатки")


def test_scores_are_calibrated_and_sorted_within_kind(built_store, tmp_path):
    service = _copy(built_store, tmp_path)
    stage1 = service.search.candidates("Postgres upgrade", RetrievalSettings(hybrid=False))
    topics = [c for c in stage1.candidates if c.kind == "topic"]
    assert all(0.0 <= c.score <= 1.0 for c in stage1.candidates)
    assert [c.score for c in topics] == sorted((c.score for c in topics), reverse=True)
    assert all(c.score >= 0.30 for c in topics)  # the safety threshold


def test_threshold_reranker_keeps_a_prefix_of_candidates(built_store, tmp_path):
    service = _copy(built_store, tmp_path)
    outcome = service.search.search_sync(SearchRequest("hotel in Lisbon", reranker=ThresholdReranker()))
    report = outcome.result.report
    assert report["retrieved"] == report["removed_by_threshold"] + report["removed_by_gap"] + \
        report["removed_by_top_k"] + report["kept"]
    kept = outcome.result.selected_ids("topic")
    assert kept and len(kept) <= 3


def test_deleted_or_corrupt_index_is_rebuilt_not_used(built_store, tmp_path):
    service = _copy(built_store, tmp_path)
    before = [c.id for c in service.search.candidates("hotel in Lisbon").candidates]
    index_file = service.data_dir / INDEX_FOLDER / "topics.hnsw"
    index_file.write_bytes(b"garbage" * 100)
    fresh = Flashback(service.data_dir)
    result = fresh.search.candidates("hotel in Lisbon")
    assert [c.id for c in result.candidates] == before
    index_file.unlink()
    assert [c.id for c in Flashback(service.data_dir).search.candidates("hotel in Lisbon").candidates] == before


def test_second_build_is_incremental(built_store, tmp_path):
    service = _copy(built_store, tmp_path)
    report = service.memory.build()
    assert report.topics_created == 0 and report.embedded == 0 and not report.rebuilt


def test_model_switch_re_embeds_instead_of_mixing(built_store, tmp_path):
    service = _copy(built_store, tmp_path)
    other = Flashback(service.data_dir, EmbeddingConfig(dimensions=256))
    report = other.memory.build()
    assert report.model_id != service.memory.embedder().model_id
    assert report.vectors["topic"] > 0 and report.embedded > 0
    sidecar = json.loads((service.data_dir / INDEX_FOLDER / "topics.hnsw.json").read_text())
    assert sidecar["model_id"] == report.model_id and sidecar["dim"] == 256
    assert other.search.candidates("hotel in Lisbon").candidates


def test_more_candidates_than_topics_is_fine(built_store, tmp_path):
    service = _copy(built_store, tmp_path)
    stage1 = service.search.candidates("Lisbon", RetrievalSettings(candidates=5000, safety_threshold=0.0, hybrid=False))
    topics = [c for c in stage1.candidates if c.kind == "topic"]
    assert len(topics) == len({c.id for c in topics}) > 50


def test_chat_filter_is_exact(built_store, tmp_path):
    service = _copy(built_store, tmp_path)
    everything = service.search.candidates("Lisbon", RetrievalSettings(safety_threshold=0.0)).candidates
    chat_title = next(c.chat for c in everything if c.kind == "topic")
    import sqlite3
    conn = sqlite3.connect(service.data_dir / "flashback.sqlite3")
    chat_id = conn.execute("SELECT id FROM chat WHERE title = ?", (chat_title,)).fetchone()[0]
    only_chat = RetrievalSettings(safety_threshold=0.0, chat_ids=(chat_id,))
    filtered = service.search.candidates("Lisbon", only_chat).candidates
    assert filtered and {c.chat for c in filtered if c.kind == "topic"} == {chat_title}


def test_empty_store_searches_to_nothing(tmp_path):
    service = Flashback(tmp_path / "empty")
    report = service.memory.build()
    assert report.topics_created == 0
    assert service.search.candidates("anything at all").candidates == []


def test_a_changed_entity_never_gets_an_id_a_saved_index_may_still_hold(built_store, tmp_path):
    """An index label is a vector_item id. A search in another process reads the index saved
    before the build that is running: if the build re-issued an id it just deleted to another
    item, that search would map a hit to the wrong topic. New items come before deletes."""
    from engine.memory.vectors import replace_items
    from engine.store.database import connect, db_path

    service = _copy(built_store, tmp_path)
    embedder = service.memory.embedder()
    connection = connect(db_path(service.data_dir))
    try:
        top_id, kind, entity = connection.execute(
            "SELECT id, kind, entity_id FROM vector_item WHERE model_id = ? ORDER BY id DESC LIMIT 1",
            (embedder.model_id,)).fetchone()
        changes = replace_items(connection, embedder, kind, {entity: ["a new text for the newest item's entity"]})
        assert changes.removed == [top_id] and len(changes.added) == 1
        assert changes.added[0] > top_id  # not top_id again
        assert connection.execute("SELECT count(*) FROM vector_item WHERE id = ?", (top_id,)).fetchone()[0] == 0
    finally:
        connection.close()


def test_a_stand_in_index_says_why_in_the_persons_language(built_store, tmp_path):
    """Issue 22: the note a search gets while a build rebuilds the index is a code (the Russian
    window says it in Russian); its English is what `--json` and the log show."""
    from engine.store.lock import StoreWriteLock

    service = _copy(built_store, tmp_path)
    (service.data_dir / INDEX_FOLDER / "topics.hnsw").write_bytes(b"garbage" * 100)
    with StoreWriteLock(service.data_dir, "build", origin="command"):
        outcome = Flashback(service.data_dir).search.search_sync(SearchRequest("hotel in Lisbon"))
    [note] = [n for n in outcome.notes if getattr(n, "code", "").startswith("memory.stand_in")]
    assert str(note).startswith("the topic index is being rebuilt by the build in this process (pid ")
    assert note.render("ru").startswith("индекс тем перестраивается — построение памяти в этом процессе (pid ")


def test_files_are_embedded_a_slice_at_a_time_with_one_progress(tmp_path, monkeypatch):
    """The build takes files' documents a slice at a time (their text for a 1M store was its peak
    memory): with slices of 2, every one of the demo's 9 files still gets its vector, once, and
    the progress counts files from 0 to all of them without going back."""
    import engine.memory.build as build_module

    monkeypatch.setattr(build_module, "ARTIFACT_SLICE", 2)  # the slice size only: the demo has 9 files
    service = Flashback(tmp_path / "data")
    service.imports.import_path(DEMO)
    seen: list[tuple[int, int]] = []

    def on_progress(stage, done, total):
        if stage == "artifacts":
            seen.append((done, total))
    report = service.memory.build(on_progress=on_progress)
    assert report.vectors["artifact"] == 9 and report.searchable["artifact"] == 9
    assert seen and {total for _, total in seen} == {9} and seen[-1] == (9, 9)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    import sqlite3

    with sqlite3.connect(tmp_path / "data" / "flashback.sqlite3") as connection:
        names = [n for (n,) in connection.execute("SELECT file_name FROM artifact WHERE file_name IS NOT NULL")]
    stage1 = service.search.candidates(names[-1], RetrievalSettings())  # a file of the last slice is found
    assert any(c.kind == "artifact" for c in stage1.candidates)
