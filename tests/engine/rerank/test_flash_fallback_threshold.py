"""Fallbacks that explain themselves (issue 23): given the person's threshold settings, a failed
Flash run keeps what their threshold filter keeps (it kept Max-topics items, some below the
threshold they set); the seeds' policy (the requested ids, else the vector top) only where
that filter keeps nothing; the report says which, and the run recorded keeps the reason's
sentence ("Could not reach … Check that the server is running"), scrubbed.

Real store, real stage 1, the scripted LLM server (tests/fake_openai.py) and, for "could not
reach", a port nothing listens on."""

from __future__ import annotations

import json
import socket
from dataclasses import replace

from engine.api import Flashback, FlashSettings, RetrievalSettings, SearchRequest
from engine.http_retry import RetryPolicy
from engine.llm import ChatClient, Endpoint
from engine.messages import render
from engine.rerank.flash import FlashReranker, store_topic_source
from engine.rerank.threshold import ThresholdReranker, ThresholdSettings
from engine.store.database import connect, db_path
from tests.engine.rerank.conftest import CHAT, KEY, NOW, load, run
from tests.fake_openai import FakeResponse

QUERY = "hotel in Lisbon"
MINE = ThresholdSettings(threshold=0.5, gap=0.15, top_k=3)


def flash(server, data_dir, threshold: ThresholdSettings | None, **settings) -> FlashReranker:
    endpoint = Endpoint(base_url=server.base_url, api_key=KEY, model="test/flash", preset="openrouter")
    client = ChatClient(endpoint, retry=RetryPolicy(max_retries=0, initial_backoff=0.01, max_backoff=0.05))
    return FlashReranker(client, store_topic_source(lambda: connect(db_path(data_dir))),
                         replace(FlashSettings(model="test/flash"), **settings), now=lambda: NOW, threshold=threshold)


def failing(server) -> None:
    server.handle(CHAT, lambda request: FakeResponse(status=500, json={"error": {"message": "upstream down"}}))


def threshold_keeps(candidates, settings: ThresholdSettings) -> list[int]:
    return ThresholdReranker(settings).rerank_now(QUERY, candidates).selected_ids("topic")


def test_a_fallback_keeps_what_the_threshold_filter_keeps(server, data_dir, stage1):
    candidates = stage1(QUERY)
    expected = threshold_keeps(candidates, MINE)
    assert 0 < len(expected) < 5  # the seeds' policy would keep 5, some below the threshold
    failing(server)
    result = run(flash(server, data_dir, MINE), QUERY, candidates)
    assert result.fallback == "llm_error"
    assert result.selected_ids("topic") == expected and all(s.kind == "topic" for s in result.selected)
    scores = {c.id: c.score for c in candidates if c.kind == "topic"}
    assert all(scores[topic] >= MINE.threshold for topic in result.selected_ids("topic"))
    assert all("≥ threshold 0.50" in s.reason for s in result.selected), [s.reason for s in result.selected]
    kept = result.report["fallback_kept"]
    assert kept["policy"] == "threshold" and "kept what the threshold filter keeps" in kept["text"]
    assert result.message("fallback_kept").code == "rerank.flash.fallback_kept.threshold"
    assert result.trace["fallback_kept"] == kept
    assert "оставлено то, что оставляет фильтр по порогу" in render(result.message("fallback_kept"), "ru")


def test_where_the_threshold_keeps_nothing_the_seeds_vector_top_5(server, data_dir, stage1):
    candidates = stage1(QUERY)
    strict = ThresholdSettings(threshold=0.99, gap=0.15, top_k=3)
    assert threshold_keeps(candidates, strict) == []
    failing(server)
    result = run(flash(server, data_dir, strict), QUERY, candidates)
    topics = sorted((c for c in candidates if c.kind == "topic"), key=lambda c: (-c.score, c.rank))
    assert result.selected_ids("topic") == [c.id for c in topics[:5]]
    assert result.report["fallback_kept"]["policy"] == "vector"
    assert result.report["fallback_kept"]["text"] == ("nothing passed the threshold 0.99, so kept stage 1's best "
                                                      "5 topics by vector score")


def test_where_the_threshold_keeps_nothing_the_requested_ids(server, data_dir, stage1):
    candidates = stage1(QUERY)
    strict = ThresholdSettings(threshold=0.99, gap=0.15, top_k=3)
    asked = [c.id for c in candidates if c.kind == "topic"][10:12]
    server.script(CHAT, load(asked), FakeResponse(status=500, json={"error": {"message": "upstream down"}}))
    result = run(flash(server, data_dir, strict), QUERY, candidates)
    assert result.fallback == "llm_error" and sorted(result.selected_ids("topic")) == sorted(asked)
    assert result.report["fallback_kept"]["policy"] == "requested"
    assert "the model asked to read" in result.report["fallback_kept"]["text"]


def test_without_threshold_settings_the_seeds_policy_as_before(server, data_dir, stage1):
    candidates = stage1(QUERY)
    failing(server)
    result = run(flash(server, data_dir, None), QUERY, candidates)
    assert len(result.selected_ids("topic")) == 5 and result.report["fallback_kept"]["policy"] == "vector"
    assert "nothing passed" not in result.report["fallback_kept"]["text"]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_reason_is_recorded_with_the_run_scrubbed(data_dir):
    service = Flashback(data_dir)
    endpoint = Endpoint.from_preset("ollama", api_key=KEY, model="test/flash",
                                    base_url=f"http://127.0.0.1:{_closed_port()}/v1")
    reranker = service.search.flash_reranker(endpoint, FlashSettings(model="test/flash"), threshold=MINE,
                                             retry=RetryPolicy(max_retries=0))
    outcome = service.search.search_sync(SearchRequest(QUERY, RetrievalSettings(), reranker, record=True))
    assert outcome.result.fallback == "llm_error" and outcome.run_id is not None
    run_record = service.runs.get(outcome.run_id)
    said = run_record.report["error"]
    assert said.startswith("Could not reach Ollama") and "Check that the server is running" in said, said
    assert run_record.report["error_message"]["code"] == "llm.unreachable"
    assert run_record.report["fallback_kept"]["policy"] in ("threshold", "vector")
    assert KEY not in json.dumps(run_record.as_dict(), ensure_ascii=False, default=str)
    as_json = outcome.as_dict()
    assert as_json["fallback_reason"] == said and as_json["fallback_kept"] == run_record.report["fallback_kept"]
