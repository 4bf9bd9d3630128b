"""The `cross-encoder` reranker on a real store and real stage-1 candidates, its rerank server
scripted on 127.0.0.1: selection by its own threshold and top-K, passages cut to the token
budget, the seed's conditions for skipping, the named fallback to stage 1's order, people and
files, and the run recorded through engine.api."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest

from engine.api import Flashback, RetrievalSettings, SearchRequest
from engine.messages import render
from engine.rerank.base import fallback_message
from engine.rerank.cross_encoder import (
    CrossEncoderReranker,
    CrossEncoderSettings,
    CrossEncoderSettingsError,
    RerankEndpoint,
    store_log_source,
)
from engine.rerank.threshold import ThresholdSettings
from engine.store.database import connect, db_path
from engine.text.tokens import estimate_tokens
from tests.engine.rerank.conftest import FAST, topic_ids, topic_of
from tests.fake_openai import FakeResponse
from tests.fake_rerank import FakeRerank, overlap

QUERY = "hotel in Lisbon"


def reranker(server: FakeRerank, data_dir, preset: str = "tei", **settings) -> CrossEncoderReranker:
    others = settings.pop("others", None)
    return CrossEncoderReranker(RerankEndpoint(preset, server.root), CrossEncoderSettings(**settings),
                                store_log_source(lambda: connect(db_path(data_dir))), others, retry=FAST)


def sent_passages(server: FakeRerank) -> list[str]:
    return [text for request in server.requests for text in request.body["texts"]]


def test_the_best_scored_passages_are_kept_by_its_own_threshold_and_top_k(rerank_server, data_dir, stage1):
    rerank_server.serve("tei")
    candidates = stage1(QUERY)
    result = asyncio.run(reranker(rerank_server, data_dir, threshold=0.3, top_k=4).arerank(QUERY, candidates))

    sent = topic_ids(candidates)[:40]  # top_n: stage 1's first 40 topics, in its order
    scores = {topic: overlap(QUERY, text) for topic, text in zip(sent, sent_passages(rerank_server), strict=True)}
    best = sorted(sent, key=lambda t: (-scores[t], sent.index(t)))
    expected = [t for t in best if scores[t] >= 0.3][:4]
    assert expected and result.selected_ids("topic") == expected
    for selection in result.selected:
        assert selection.reason == f"cross-encoder score {scores[selection.id]:.2f}"
        assert render(selection.reason_message, "ru") == f"оценка кросс-энкодера {scores[selection.id]:.2f}"
    report = result.report
    assert [entry["id"] for entry in report["scores"]] == best  # every score, for the chart and the cards
    assert report["sent"] == 40 and report["not_sent"] == 10 and report["kept"] == len(expected)
    assert report["batches"] == report["requests"] == 3 and result.fallback is None and not report["failed"]
    assert report["removed_by_threshold"] + report["removed_by_top_k"] + report["kept"] == 40
    json.dumps(report)  # recorded with the run as it is


def test_each_passage_is_the_topics_date_summary_and_opening_cut_to_the_token_budget(rerank_server, data_dir,
                                                                                      stage1):
    rerank_server.serve("tei")
    candidates = stage1("Zeppelin maintenance log valve pressure")
    asyncio.run(reranker(rerank_server, data_dir, passage_tokens=64, batch=8).arerank("valve", candidates))

    passages = sent_passages(rerank_server)
    assert [len(r.body["texts"]) for r in rerank_server.requests] == [8] * 5
    topics = [c for c in candidates if c.kind == "topic"][:40]
    assert all(estimate_tokens(p) <= 64 for p in passages)
    for topic, passage in zip(topics, passages, strict=True):
        assert passage.startswith(f"{topic.date}: {topic.summary}"[:40])
    huge = topic_of(data_dir, "entry 699: valve")  # a 25,000-character message: only its opening is sent
    assert any(p for t, p in zip(topics, passages, strict=True) if t.id == huge and "entry 0:" in p and len(p) < 600)


def _reshaped(candidates, count: int, scores: list[float]):
    topics = [c for c in candidates if c.kind == "topic"][:count]
    return [dataclasses.replace(c, score=s) for c, s in zip(topics, scores, strict=True)]


@pytest.mark.parametrize("count, spread, small, flat, runs", [
    (12, 0.30, True, True, False),   # the seed: few candidates, clearly apart → stage 1 has chosen
    (12, 0.01, True, True, True),    # few, but their scores barely differ → rerank
    (50, 0.30, True, True, True),    # more than 20 → rerank
    (12, 0.30, False, True, False),  # only the spread rule on: apart → skip
    (12, 0.01, False, True, True),
    (50, 0.30, True, False, True),   # only the count rule on: many → rerank
    (12, 0.01, True, False, False),  # only the count rule on: few → skip, flat or not
    (12, 0.30, False, False, True),  # both off: always
])
def test_the_seeds_conditions_decide_when_the_cross_encoder_runs(rerank_server, data_dir, stage1, count, spread,
                                                                  small, flat, runs):
    rerank_server.serve("tei")
    scores = [0.9 - spread * i / 4 for i in range(count)]
    candidates = _reshaped(stage1(QUERY), count, scores)
    result = asyncio.run(reranker(rerank_server, data_dir, skip_small=small, skip_flat=flat,
                                  top_k=3).arerank(QUERY, candidates))
    assert bool(rerank_server.requests) == runs
    if not runs:
        assert result.report["skipped"] and result.fallback is None
        assert result.selected_ids("topic") == [c.id for c in candidates[:3]]  # stage 1's first top_k
        assert result.selected[0].reason == f"vector rank 1, score {scores[0]:.2f}"
        assert result.report["note"].startswith("cross-encoder not needed: ")


@pytest.mark.parametrize("failure, reason", [
    (FakeResponse(status=500, json={"error": "model crashed"}), "endpoint_error"),
    (FakeResponse(body=b"not json"), "parse_error"),
    (FakeResponse(json=[{"index": 0, "score": 0.9}]), "missing_scores"),
    (FakeResponse(delay=1.5, json=[]), "timeout"),
])
def test_any_failure_falls_back_to_stage_ones_order_by_name(rerank_server, data_dir, stage1, failure, reason):
    rerank_server.handle("/rerank", lambda _request: failure)
    candidates = stage1(QUERY)
    # Only the timeout case has a budget shorter than its server: the others must fail on their
    # own reason even when a loaded machine makes their retries slow.
    timeout = 0.5 if reason == "timeout" else 10.0
    result = asyncio.run(reranker(rerank_server, data_dir, top_k=3, timeout=timeout).arerank(QUERY, candidates))

    assert result.fallback == reason and result.report["failed"] and result.report["fallback"] == reason
    topics = sorted((c for c in candidates if c.kind == "topic"), key=lambda c: (-c.score, c.rank))[:3]
    assert result.selected_ids("topic") == [c.id for c in topics]
    first = topics[0]
    words = render(fallback_message(reason))  # the reason in words, never its name (issue 31)
    assert result.selected[0].reason == f"fallback ({words}): vector rank {first.rank}, score {first.score:.2f}"
    assert result.report["error"] and result.report["error_message"]["code"].startswith("rerank.cross_encoder.error")
    assert result.message("error") is not None and render(result.message("error"), "ru")


def test_nothing_above_the_threshold_is_an_answer_not_a_fallback(rerank_server, data_dir, stage1):
    rerank_server.serve("tei", scorer=lambda _q, _p: 0.05)
    result = asyncio.run(reranker(rerank_server, data_dir).arerank(QUERY, stage1(QUERY)))
    assert result.selected == [] and result.fallback is None
    assert result.report["note"] == "no passage reached the cross-encoder threshold 0.10 (best 0.05)"


def test_people_and_files_keep_their_threshold_cut_when_asked(rerank_server, data_dir, stage1):
    rerank_server.serve("tei")
    candidates = stage1(QUERY)
    others = ThresholdSettings(threshold=0.0, gap=1.0, top_k=2)
    alone = asyncio.run(reranker(rerank_server, data_dir).arerank(QUERY, candidates))
    assert {s.kind for s in alone.selected} == {"topic"}
    both = asyncio.run(reranker(rerank_server, data_dir, others=others).arerank(QUERY, candidates))
    people = [s for s in both.selected if s.kind == "person"]
    assert len(people) == 2 and people[0].reason.startswith("score ")
    assert both.report["by_kind"]["person"]["kept"] == 2


def test_a_search_through_engine_api_records_the_run_with_its_fallback(rerank_server, data_dir):
    rerank_server.handle("/v1/rerank", lambda _request: FakeResponse(status=503, json={"error": "loading"}))
    app = Flashback(data_dir)
    chosen = app.search.cross_encoder_reranker(RerankEndpoint("llamacpp", rerank_server.root),
                                               CrossEncoderSettings(skip_small=False, skip_flat=False),
                                               retry=FAST)
    outcome = app.search.search_sync(SearchRequest(QUERY, RetrievalSettings(), chosen, record=True))
    shaped = outcome.as_dict()
    assert shaped["reranker"] == "cross-encoder" and shaped["fallback"] == "endpoint_error"
    assert shaped["report"]["endpoint"] == {"preset": "llamacpp", "label": "llama.cpp server", "model": "",
                                            "local": True}
    run = app.runs.get(outcome.run_id)
    assert run.reranker == "cross-encoder" and run.fallback == "endpoint_error"
    assert run.settings["reranker"]["name"] == "cross-encoder"
    assert run.settings["reranker"]["preset"] == "llamacpp"


def test_a_custom_server_without_an_address_is_refused_before_any_search(data_dir):
    with pytest.raises(CrossEncoderSettingsError, match="needs an address"):
        Flashback(data_dir).search.cross_encoder_reranker(RerankEndpoint("custom"))
    with pytest.raises(CrossEncoderSettingsError, match="top_k is out of range"):
        CrossEncoderSettings(top_k=0)


@pytest.mark.parametrize("text", ["Kim: the hotel in Lisbon is booked for May 3-7, confirmation SXKQ7L. " * 40,
                                  "Катя: договор аренды на Стромынке подписали, ключи в пятницу. " * 40])
def test_a_passage_is_the_longest_start_within_the_budget_counted_as_everywhere(text):
    from engine.text.tokens import cut_to_tokens

    for limit in (1, 17, 64, 256):
        cut = cut_to_tokens(text, limit)
        assert estimate_tokens(cut) <= limit < estimate_tokens(text[: len(cut) + 12])  # one more word would not fit
        assert text.startswith(cut) and not cut.endswith(" ")
    assert cut_to_tokens("short", 256) == "short" and cut_to_tokens("short", 0) == ""


def test_every_cross_encoder_fallback_has_words_in_both_languages_where_the_faces_look():
    from engine.rerank.cross_encoder.errors import CROSS_ENCODER_FALLBACKS

    for reason in CROSS_ENCODER_FALLBACKS:
        said = fallback_message(reason)  # what the search view and the run history call
        assert said.code != "error.text" and render(said, "en") != reason
        assert render(said, "ru") != reason
