"""Issue 31: one search pipeline. Messages imported since the last build (candidates of kind
"message") are shown, kept, exported and cited by every reranker and face, or refused with a
true reason: before, the threshold filter never kept them, export dropped them as "not in the
store any more", Flash's and Ask's fusion dropped them silently, and evaluation searched another
way than search did.

Real store (the demo, built, then a small JSONL import left unbuilt), real stage 1, the scripted
LLM server on 127.0.0.1 for Flash."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from engine.api import (
    Endpoint,
    Flashback,
    FlashSettings,
    RetrievalSettings,
    SearchRequest,
    ThresholdReranker,
    ThresholdSettings,
    render,
    to_markdown,
)
from tests.fake_openai import FakeOpenAI, FakeResponse, chat_reply, tool_call
from tests.island_export import QUERY, write_island_export

MINE = ThresholdSettings(threshold=0.5, gap=0.15, top_k=3)
CHAT = "/v1/chat/completions"


@pytest.fixture(scope="module")
def data_dir(built_demo, tmp_path_factory) -> Path:
    folder = Path(shutil.copytree(built_demo, tmp_path_factory.mktemp("one-search") / "data"))
    export = write_island_export(folder.parent)
    Flashback(folder).imports.import_path(export)  # imported, not built
    return folder


@pytest.fixture(scope="module")
def service(data_dir) -> Flashback:
    return Flashback(data_dir)


def messages_of(outcome) -> list[int]:
    return [s.id for s in outcome.result.selected if s.kind == "message"]


def test_keep_all_and_the_threshold_filter_keep_unbuilt_messages(service):
    found = service.search.search_sync(SearchRequest(QUERY))
    unbuilt = [c for c in found.stage1.candidates if c.kind == "message"]
    assert unbuilt, "the unbuilt messages hold the query's words"
    assert messages_of(found) == [c.id for c in unbuilt]
    assert any(n.code == "search.unbuilt" for n in found.notes if hasattr(n, "code"))

    cut = service.search.search_sync(SearchRequest(QUERY, reranker=ThresholdReranker(MINE)))
    kept = messages_of(cut)
    assert kept and all(c.score >= MINE.threshold for c in unbuilt if c.id in kept)
    assert cut.result.report["by_kind"]["message"]["kept"] == len(kept)


def test_an_unbuilt_message_is_exported_not_dropped_as_gone(service):
    outcome = service.search.search_sync(SearchRequest(QUERY, reranker=ThresholdReranker(MINE)))
    pack = service.search.context(outcome, 4000)
    assert [i.kind for i in pack.items].count("message") == len(messages_of(outcome))
    assert not any("not in the store" in entry["why"] for entry in pack.omitted)
    text = to_markdown(pack)
    assert "not built into memory yet" in text and "quokka selfie on Rottnest" in text


def test_the_recut_is_the_result_itself_at_the_settings_it_ran_with(service):
    outcome = service.search.search_sync(SearchRequest(QUERY, reranker=ThresholdReranker(MINE), record=True))
    assert outcome.run_id is not None
    assert outcome.recut(ThresholdReranker(MINE)) is outcome  # the recorded run, run id and all
    stricter = outcome.recut(ThresholdReranker(ThresholdSettings(0.99, 0.15, 3)))
    assert stricter.run_id is None and stricter.result.selected == []
    assert stricter.stage1 is outcome.stage1  # the same frozen candidates: no second stage 1


def _flash(service: Flashback, server: FakeOpenAI, threshold: ThresholdSettings | None):
    endpoint = Endpoint(base_url=server.base_url, api_key="sk-test-0123456789", model="test/flash",
                        preset="openrouter")
    return service.search.flash_reranker(endpoint, FlashSettings(model="test/flash"), threshold=threshold)


def _script_flash(server: FakeOpenAI, topic: int) -> None:
    load = chat_reply(tool_calls=[tool_call("get_topics_content", {"topic_ids": [topic]}, "call_1")])
    final = chat_reply(json.dumps({"topic_ids": [{"id": topic, "reason": "the model read it"}]}))
    server.script(CHAT, FakeResponse(json=load), FakeResponse(json=final))


def test_flash_keeps_unbuilt_messages_by_the_threshold_or_says_why_not(service):
    with FakeOpenAI() as server:
        topic = next(c.id for c in service.search.candidates(QUERY).candidates if c.kind == "topic")
        _script_flash(server, topic)
        request = SearchRequest(QUERY, reranker=_flash(service, server, MINE), threshold=MINE)
        kept = service.search.search_sync(request)
        assert kept.result.fallback is None and kept.result.selected_ids("topic") == [topic]
        reasons = [s.reason_in("en") for s in kept.result.selected if s.kind == "message"]
        assert reasons and all("flash did not read it" in r for r in reasons)
        assert all("ещё не в памяти" in s.reason_in("ru") for s in kept.result.selected if s.kind == "message")

        _script_flash(server, topic)
        refused = service.search.search_sync(SearchRequest(QUERY, reranker=_flash(service, server, None)))
        assert messages_of(refused) == []
        said = [render(n, "en") for n in refused.notes if getattr(n, "code", "") == "search.unbuilt_not_read"]
        assert said and "flash reads built memory only" in said[0]


def test_ask_cites_unbuilt_messages_as_sources(service):
    outcome = asyncio.run(service.ask.ask(QUERY, ThresholdReranker(MINE)))
    unbuilt = [s for s in outcome.sources if s.topic_id is None]
    assert unbuilt and any("quokka selfie on Rottnest" in s.text for s in unbuilt)


def test_evaluation_searches_as_search_does_with_the_files_own_filters(service, tmp_path):
    """`flashback eval` and the Evaluate dock measured one file two ways (no date boost, no
    unbuilt messages, the QRELS filters ignored): now both go through the one pipeline."""
    chats = {c.name: c.id for c in service.browse.chats()}
    qrels = {"queries": [
        {"id": "1", "query": "hotel in Lisbon", "category": "travel",
         "relevant": [{"chat": "Dan Whitfield", "message": "48546"}]},
        {"id": "2", "query": "hotel in Lisbon", "category": "filtered",
         "relevant": [{"chat": "Dan Whitfield", "message": "48546"}],
         "filters": {"chat_ids": [chats["Island trip"]]}},
    ]}
    path = tmp_path / "qrels.json"
    path.write_text(json.dumps(qrels), encoding="utf-8")
    figures = service.evaluation.evaluate(path, RetrievalSettings())
    # The filtered query searched only "Island trip", where no topic is built: nothing found.
    assert figures.by_category["filtered"].recall_at_5_any == 0.0
    assert figures.by_category["travel"].recall_at_5_any == 1.0
    targets, _unmatched = service.evaluation.qrels_targets(path)
    frozen = service.evaluation.freeze(targets, RetrievalSettings())
    assert [q.topics for q in frozen][1] == ()  # the dock's freeze applies the same filter
