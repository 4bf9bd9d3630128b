"""Flash after the cross-encoder (`--reranker flash --chain-cross-encoder`): the rerank server
and the chat model both scripted on 127.0.0.1, the store and stage 1 real. Flash reads only
the cross-encoder's best topics, in its order, and its prompt shrinks by as much; when the
cross-encoder skips or fails, Flash reads stage 1's candidates as they are."""

from __future__ import annotations

import asyncio
import json
import re

from engine.api import Flashback, RetrievalSettings, SearchRequest
from engine.llm import Endpoint
from engine.rerank.cross_encoder import CrossEncoderSettings, RerankEndpoint
from engine.rerank.flash import FlashSettings
from engine.text.tokens import estimate_tokens
from tests.engine.rerank.conftest import CHAT, FAST, KEY, topic_ids
from tests.fake_openai import FakeResponse, LocalServerModel, RecordedRequest

QUERY = "hotel in Lisbon"


def counting_model(request: RecordedRequest) -> FakeResponse:
    """The scripted model (turn 1 reads three, then keeps two), reporting the prompt's tokens."""
    response = LocalServerModel(forces=frozenset({"required", "named"}), picks=3)(request)
    sent = json.dumps(request.body.get("messages"), ensure_ascii=False) + json.dumps(request.body.get("tools"))
    response.json["usage"] = {"prompt_tokens": estimate_tokens(sent), "completion_tokens": 20}
    return response


def rerankers(app: Flashback, chat_url: str, rerank_url: str, **settings):
    flash = app.search.flash_reranker(Endpoint(base_url=chat_url, api_key=KEY, model="test/flash", preset="openrouter"),
                                      FlashSettings(model="test/flash", protocol="tools"))
    cross = app.search.cross_encoder_reranker(RerankEndpoint("tei", rerank_url), CrossEncoderSettings(**settings),
                                              retry=FAST)
    return flash, app.search.chained_reranker(cross, flash)


def shown_topics(server) -> list[int]:
    first = server.requests_to(CHAT)[0].body["messages"][1]["content"]
    return [int(i) for i in re.findall(r"\[Topic:(\d+)\]", first)]


def test_flash_reads_only_the_cross_encoders_best_and_its_prompt_shrinks(server, rerank_server, data_dir, stage1):
    server.handle(CHAT, counting_model)
    rerank_server.serve("tei")
    candidates = stage1(QUERY)
    flash, chained = rerankers(Flashback(data_dir), server.base_url, rerank_server.root, chain_keep=8)

    alone = asyncio.run(flash.arerank(QUERY, candidates))
    assert shown_topics(server) == topic_ids(candidates)  # all 50
    server.reset()
    server.handle(CHAT, counting_model)
    result = asyncio.run(chained.arerank(QUERY, candidates))

    chain = result.report["chain"]
    best = [entry["id"] for entry in chain["scores"][:8]]
    assert shown_topics(server) == best == chain["kept_ids"]  # the cross-encoder's order
    assert chain["before"] == 50 and chain["after"] == 8 and chain["fallback"] is None
    assert chain["note"] == "the cross-encoder left Flash 8 of 50 topics"
    assert result.reranker == "flash" and set(result.selected_ids("topic")) <= set(best)
    assert result.trace["chain"] == chain
    people = [c.id for c in candidates if c.kind == "person"]
    assert people and f"[Person:{people[0]}]" in server.requests_to(CHAT)[0].body["messages"][1]["content"]
    assert result.usage["prompt_tokens"] < 0.7 * alone.usage["prompt_tokens"]


def test_a_failing_cross_encoder_leaves_flash_every_candidate(server, rerank_server, data_dir, stage1):
    server.handle(CHAT, counting_model)
    rerank_server.handle("/rerank", lambda _request: FakeResponse(status=500, json={"error": "down"}))
    candidates = stage1(QUERY)
    _, chained = rerankers(Flashback(data_dir), server.base_url, rerank_server.root)
    result = asyncio.run(chained.arerank(QUERY, candidates))

    assert shown_topics(server) == topic_ids(candidates)
    assert result.report["chain"]["fallback"] == "endpoint_error" and result.fallback is None
    assert result.report["chain"]["note"] == "Flash read all 50 topics: the rerank server answered with an error"


def test_when_flash_fails_its_fallback_keeps_the_cross_encoders_best(server, rerank_server, data_dir, stage1):
    server.handle(CHAT, lambda _request: FakeResponse(status=401, json={"error": {"message": "bad key"}}))
    rerank_server.serve("tei")
    candidates = stage1(QUERY)
    _, chained = rerankers(Flashback(data_dir), server.base_url, rerank_server.root, chain_keep=8)
    result = asyncio.run(chained.arerank(QUERY, candidates))

    assert result.fallback == "llm_error"
    best = [entry["id"] for entry in result.report["chain"]["scores"]]
    kept = result.selected_ids("topic")
    assert kept and kept == best[: len(kept)]


def test_a_chained_search_through_engine_api_is_recorded_as_flash_with_the_chain(server, rerank_server, data_dir):
    server.handle(CHAT, counting_model)
    rerank_server.serve("tei")
    app = Flashback(data_dir)
    _, chained = rerankers(app, server.base_url, rerank_server.root, skip_small=False, skip_flat=False)
    outcome = app.search.search_sync(SearchRequest(QUERY, RetrievalSettings(), chained, record=True))
    shaped = outcome.as_dict()
    chain = shaped["report"]["chain"]
    assert shaped["reranker"] == "flash" and chain["after"] == min(10, chain["before"]) and chain["sent"]
    assert shaped["usage"]["prompt_tokens"] > 0  # Flash's own figures, as for Flash alone
    run = app.runs.get(outcome.run_id)
    assert run.settings["reranker"]["cross_encoder"]["chain_keep"] == 10
    assert run.settings["reranker"]["flash"]["model"] == "test/flash"
    assert run.reranker == "flash"
