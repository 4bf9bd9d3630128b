"""Evaluate with three rerankers side by side (threshold, cross-encoder, Flash) on the user's
labels, through engine.api, both servers scripted on 127.0.0.1: the same frozen candidates,
the same definitions, every model run recorded, and the cross-encoder's cost estimated before
anything is sent."""

from __future__ import annotations

import asyncio
import math

import pytest

import resources
from engine.api import CrossEncoderSettings, Flashback, QueryFilters, RerankEndpoint, ThresholdSettings, side_by_side
from engine.http_retry import RetryPolicy
from engine.llm import Endpoint
from engine.rerank.flash import FlashSettings
from tests.fake_openai import FakeOpenAI, FakeResponse, LocalServerModel
from tests.fake_rerank import FakeRerank

CHAT = "/v1/chat/completions"
QUERIES = ("Postgres upgrade incident", "hotel in Lisbon")
EVERY_QUERY = CrossEncoderSettings(skip_small=False, skip_flat=False, top_k=1)


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Flashback:
    app = Flashback(tmp_path_factory.mktemp("ce-evaluate") / "data")
    app.imports.import_path(resources.demo_export())
    app.memory.build()
    for query in QUERIES:  # the second candidate is relevant, the first is not
        topics = [c.id for c in app.search.candidates(query).candidates if c.kind == "topic"]
        app.labels.label_topic(query, QueryFilters(), topics[1], True)
        app.labels.label_topic(query, QueryFilters(), topics[0], False)
    return app


@pytest.fixture
def servers():
    with FakeOpenAI() as chat, FakeRerank() as rerank:
        chat.handle(CHAT, LocalServerModel(forces=frozenset({"required", "named"}), picks=3))
        yield chat, rerank


def relevant_first(frozen):
    """A scorer that knows the labels: the relevant topic's passage scores 0.9, the rest 0.05."""
    summaries = {c.summary for q in frozen for c in q.stage1.candidates if c.kind == "topic" and c.id in q.relevant}
    return lambda _query, passage: 0.9 if any(s and s in passage for s in summaries) else 0.05


def test_three_rerankers_side_by_side_on_the_same_frozen_candidates(app, servers):
    chat, rerank = servers
    frozen = app.evaluation.freeze(app.evaluation.labelled_targets())
    rerank.serve("tei", scorer=relevant_first(frozen))
    flash = app.search.flash_reranker(Endpoint(base_url=chat.base_url, model="test/flash", preset="custom"),
                                      FlashSettings(model="test/flash", protocol="tools"))
    cross = app.search.cross_encoder_reranker(RerankEndpoint("tei", rerank.root), EVERY_QUERY)
    runs_before = len(app.runs.list())
    seen: list[int] = []

    comparisons = asyncio.run(app.evaluation.compare_rerankers(
        frozen, {"threshold": ThresholdSettings(), "cross-encoder": cross, "flash": flash},
        lambda done, _comparison: seen.append(done)))

    assert seen == [1, 2] and [c.frozen for c in comparisons] == frozen
    for query, comparison in zip(frozen, comparisons, strict=True):
        assert list(comparison.runs) == ["threshold", "cross-encoder", "flash"]
        threshold, ce, llm = comparison.runs.values()
        assert threshold.run_id is None and threshold.cost == 0.0  # arithmetic on the frozen scores
        assert ce.report.kept == tuple(sorted(query.relevant))  # the relevant topic, though stage 1 put it second
        assert ce.report.kept_precision == ce.report.kept_recall == 1.0 and ce.fallback is None
        assert llm.report.kept == tuple(query.topics[:2])  # the scripted model keeps the first two it read
        assert ce.run_id is not None and llm.run_id is not None
    assert len(app.runs.list()) == runs_before + 4  # the cross-encoder and Flash runs are recorded
    table = side_by_side(comparisons)
    assert list(table) == ["threshold", "cross-encoder", "flash"]
    assert table["cross-encoder"]["kept_f1"] == 1.0 > table["flash"]["kept_f1"]
    assert table["cross-encoder"]["queries"] == 2 and table["cross-encoder"]["fallbacks"] == 0


def test_a_failing_cross_encoder_is_counted_as_a_fallback_not_a_lost_comparison(app, servers):
    chat, rerank = servers
    rerank.handle("/rerank", lambda _request: FakeResponse(status=503, json={"error": "loading"}))
    frozen = app.evaluation.freeze(app.evaluation.labelled_targets())
    cross = app.search.cross_encoder_reranker(RerankEndpoint("tei", rerank.root), EVERY_QUERY,
                                              retry=RetryPolicy(max_retries=0))
    comparisons = asyncio.run(app.evaluation.compare_rerankers(frozen, {"cross-encoder": cross}))
    assert [c.runs["cross-encoder"].fallback for c in comparisons] == ["endpoint_error"] * 2
    assert side_by_side(comparisons)["cross-encoder"]["fallbacks"] == 2


def test_the_cost_estimate_comes_before_any_request(app, servers):
    _, rerank = servers
    frozen = app.evaluation.freeze(app.evaluation.labelled_targets())
    topics = [len([c for c in q.stage1.candidates if c.kind == "topic"]) for q in frozen]
    local = app.evaluation.estimate_cross_encoder(frozen, EVERY_QUERY, RerankEndpoint("tei", rerank.root))
    assert local.queries == 2 and local.usd == 0.0 and local.completion_tokens == 0 and local.skipped == 0
    assert local.requests == sum(math.ceil(min(n, 40) / 16) for n in topics)
    assert local.prompt_tokens > sum(topics) * 5  # the query and a passage per pair
    cloud = RerankEndpoint("voyage", api_key="k")
    priced = app.evaluation.estimate_cross_encoder(frozen, EVERY_QUERY, cloud, usd_per_million=0.05)
    assert priced.prompt_tokens == local.prompt_tokens
    assert priced.usd == pytest.approx(priced.prompt_tokens * 0.05 / 1e6)
    assert app.evaluation.estimate_cross_encoder(frozen, EVERY_QUERY, cloud).usd is None  # no price: tokens only
    seed_rule = app.evaluation.estimate_cross_encoder(frozen, CrossEncoderSettings(), cloud)
    assert seed_rule.skipped + (seed_rule.requests > 0) >= 1  # skipped queries cost nothing
    assert rerank.requests == []
