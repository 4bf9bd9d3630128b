"""The soft date boost: topics in the range rise, nothing is removed, a wrong range costs order only.

Candidates come from the real stage 1 over the demo export (built once per module)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import resources
from engine.api import Flashback
from engine.ask.dates import DEFAULT_WEIGHT, DateRange, apply_date_boost, boost_in_range, find_date_range
from engine.rerank.base import Candidate
from engine.retrieval.search import RetrievalSettings
from engine.store.database import connect, db_path

NOW = datetime(2025, 11, 15, 12, 0, tzinfo=UTC)  # the demo export's times are UTC


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> Flashback:
    service = Flashback(tmp_path_factory.mktemp("dates") / "data")
    service.imports.import_path(resources.demo_export())
    service.memory.build()
    return service


def _day(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def test_boost_lifts_topics_in_the_range_and_removes_nothing():
    candidates = [Candidate("topic", 1, 1, 0.80, 0.5, "2025-03-17"), Candidate("topic", 2, 2, 0.75, 0.5, "2025-10-06"),
                  Candidate("topic", 3, 3, 0.40, 0.3, "2025-10-06"), Candidate("person", 9, 1, 0.9, 0.9, "2025-11-02"),
                  Candidate("topic", 4, 4, 0.99, 0.3, "2025-10-07")]
    october = DateRange(_day("2025-10-01"), _day("2025-11-01"), "last month", "parser")
    boosted = boost_in_range(candidates, october, 0.1)
    topics = [c for c in boosted if c.kind == "topic"]
    assert [c.id for c in topics] == [4, 2, 1, 3]  # 0.75 + 0.1 passes 0.80; 0.40 + 0.1 does not pass it
    assert [c.rank for c in topics] == [1, 2, 3, 4]
    assert [c.score for c in topics] == [1.0, 0.85, 0.80, 0.50]  # capped at 1
    assert boosted[3] == candidates[3]  # people keep their place and score
    assert {c.id for c in boosted} == {c.id for c in candidates}


def test_spans_from_the_store_count_a_topic_that_runs_into_the_range():
    candidates = [Candidate("topic", 1, 1, 0.6, 0.5, "2025-09-30"), Candidate("topic", 2, 2, 0.65, 0.5, "2025-09-29")]
    october = DateRange(_day("2025-10-01"), _day("2025-11-01"), "в октябре", "parser")
    spans = {1: (_day("2025-09-30"), _day("2025-10-01") + 3600), 2: (_day("2025-09-29"), _day("2025-09-29") + 60)}
    assert [c.id for c in boost_in_range(candidates, october, 0.1, spans)] == [1, 2]
    assert [c.id for c in boost_in_range(candidates, october, 0.1)] == [2, 1]  # by first day only: not in range


def _topic_ids(stage1):
    return [c.id for c in stage1.candidates if c.kind == "topic"]


def test_plain_search_gains_the_date_phrase_as_a_boost(service):
    stage1 = service.search.candidates("что мама говорила про витамин D в прошлом месяце", RetrievalSettings())
    connection = connect(db_path(service.data_dir))
    try:
        boosted, boost = apply_date_boost(connection, stage1, NOW)
        spans = {t: (first, last) for t, first, last in connection.execute("SELECT id, first_at, last_at FROM topic")}
    finally:
        connection.close()
    assert boost is not None and boost.date_range.phrase == "в прошлом месяце"
    october = find_date_range("в прошлом месяце", NOW)
    in_october = [t for t in _topic_ids(stage1) if october.overlaps(*spans[t])]
    assert in_october, "the demo's October vitamin D talk is a candidate"
    assert boost.boosted == [t for t in _topic_ids(boosted) if t in in_october]
    assert sorted(_topic_ids(boosted)) == sorted(_topic_ids(stage1))  # nothing removed
    first = _topic_ids(boosted)[0]
    assert first in in_october and _topic_ids(stage1)[0] not in in_october  # the date moved October's talk up
    assert boosted.timings_ms["date_boost"] >= 0 and "в прошлом месяце" in boost.note()
    assert boost.weight == DEFAULT_WEIGHT


def test_a_query_without_a_date_is_left_alone(service):
    stage1 = service.search.candidates("витамин D", RetrievalSettings())
    connection = connect(db_path(service.data_dir))
    try:
        same, boost = apply_date_boost(connection, stage1, NOW)
    finally:
        connection.close()
    assert boost is None and same is stage1
