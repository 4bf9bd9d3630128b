"""Flash against the threshold reranker on labelled queries, over the scripted OpenAI-compatible
server: the cost estimated first (with the provider's price), every call recorded as a run,
both rerankers scored by the same definitions."""

from __future__ import annotations

import asyncio

import pytest

import resources
from engine.api import Flashback
from engine.evaluation.flash_compare import Price, estimate, model_price
from engine.evaluation.frozen import freeze_with_service, labelled_targets
from engine.evaluation.labels import LabelStore
from engine.evaluation.qrels import QueryFilters
from engine.llm import Endpoint
from engine.rerank.flash import FlashSettings
from engine.rerank.threshold import ThresholdSettings
from tests.fake_openai import FakeOpenAI, FakeResponse, LocalServerModel

CHAT = "/v1/chat/completions"
QUERIES = ("Postgres upgrade incident", "hotel in Lisbon")


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> Flashback:
    service = Flashback(tmp_path_factory.mktemp("flash-compare") / "data")
    service.imports.import_path(resources.demo_export())
    service.memory.build()
    labels = LabelStore(service.data_dir)
    for query in QUERIES:  # the best candidate is relevant, the second is not
        topics = [c.id for c in service.search.candidates(query).candidates if c.kind == "topic"]
        labels.label_topic(query, QueryFilters(), topics[0], True)
        labels.label_topic(query, QueryFilters(), topics[1], False)
    return service


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def test_the_estimate_uses_the_providers_price_and_comes_before_any_chat_call(service, server):
    server.script("/v1/models", FakeResponse(json={"data": [
        {"id": "other/model", "pricing": {"prompt": "0.1", "completion": "0.2"}},
        {"id": "test/flash", "pricing": {"prompt": "0.0000003", "completion": "0.0000025"}}]}))
    price = model_price(server.base_url, "test/flash", "sk-test")
    assert price == Price(3e-7, 2.5e-6)
    assert server.requests[0].headers["Authorization"] == "Bearer sk-test"
    frozen = freeze_with_service(service.search, labelled_targets(service.search))
    cost = estimate(frozen, FlashSettings(model="test/flash"), price)
    assert cost.queries == 2 and cost.prompt_tokens > 2 * 900 and cost.completion_tokens == 2 * 2 * 350
    assert cost.usd == pytest.approx(cost.prompt_tokens * 3e-7 + cost.completion_tokens * 2.5e-6)
    assert estimate(frozen, FlashSettings(), None).usd is None
    assert model_price(server.base_url, "unknown/model") is None  # the list lacks it: tokens only
    assert model_price("http://127.0.0.1:9/v1", "x", timeout=0.5) is None  # nobody there: no error either
    assert server.requests_to(CHAT) == []


def test_flash_runs_once_per_query_recorded_and_scored_beside_the_threshold(service, server):
    server.handle(CHAT, LocalServerModel(forces=frozenset({"required", "named"}), picks=3))
    frozen = freeze_with_service(service.search, labelled_targets(service.search))
    endpoint = Endpoint.from_preset("custom", base_url=server.base_url, model="test/flash")
    reranker = service.search.flash_reranker(endpoint, FlashSettings(model="test/flash", protocol="tools"))
    seen: list[int] = []
    runs_before = len(service.runs.list())

    outcomes = asyncio.run(service.evaluation.compare_flash(frozen, reranker, ThresholdSettings(),
                                                            lambda done, _outcome: seen.append(done)))
    assert seen == [1, 2] and len(outcomes) == 2
    runs = service.runs.list()
    assert len(runs) == runs_before + 2 and {o.run_id for o in outcomes} == {r.id for r in runs[:2]}
    for query, outcome in zip(frozen, outcomes, strict=True):
        assert outcome.error is None and outcome.fallback is None
        assert outcome.flash.kept == tuple(query.topics[:2])  # the scripted model keeps the first two it read
        assert outcome.flash.kept_precision == 0.5 and outcome.flash.kept_recall == 1.0
        assert outcome.threshold.kept_f1 is not None and outcome.threshold.frozen is query


def test_a_failing_server_is_a_query_that_kept_nothing_not_a_lost_comparison(service, server):
    server.handle(CHAT, lambda _request: FakeResponse(status=401, json={"error": {"message": "bad key"}}))
    frozen = freeze_with_service(service.search, labelled_targets(service.search))
    endpoint = Endpoint.from_preset("custom", base_url=server.base_url, model="test/flash")
    reranker = service.search.flash_reranker(endpoint, FlashSettings(model="test/flash"))
    outcomes = asyncio.run(service.evaluation.compare_flash(frozen, reranker, ThresholdSettings()))
    assert len(outcomes) == 2
    for outcome in outcomes:  # Flash falls back (or fails): either way it is scored, never dropped
        assert outcome.fallback is not None or outcome.error is not None
