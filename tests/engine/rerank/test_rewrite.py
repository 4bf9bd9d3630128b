"""Seed 000 step 1: the contextualized query, for stage 1 (fused) and for Flash's prompt."""

from __future__ import annotations

import asyncio

from engine.api import SearchRequest
from engine.http_retry import RetryPolicy
from engine.llm import ChatClient, Endpoint
from engine.rerank.base import Candidate
from engine.rerank.flash import FlashSettings, QueryRewrite, fuse_candidates, rewrite_query
from engine.rerank.flash.contextualize import clean_rewrite
from engine.rerank.flash.session import FlashSession
from tests.engine.rerank.conftest import CHAT, KEY, answer, bodies, load, make_reranker, run, topic_ids
from tests.fake_openai import FakeResponse, chat_reply

RECENT = "Kim: the hangar people called again about the Zeppelin\nme: ugh, that lease"
REWRITE = "Zeppelin hangar lease increase and discount"


def client_for(server, preset="openrouter") -> ChatClient:
    return ChatClient(Endpoint(base_url=server.base_url, api_key=KEY, model="test/flash", preset=preset),
                      retry=RetryPolicy(max_retries=0))


def rewrite(server, query="what did he say?", recent=RECENT, timeout=5.0, client=True) -> QueryRewrite:
    async def go():
        if not client:
            return await rewrite_query(None, query, recent, timeout=timeout, max_tokens=64)
        async with client_for(server) as chat:
            return await rewrite_query(chat, query, recent, timeout=timeout, max_tokens=64, model="test/flash")
    return asyncio.run(go())


def test_rewrite_is_one_short_bounded_call(server):
    server.script(CHAT, answer(f"«{REWRITE}»"))
    done = rewrite(server)
    assert done.used and done.rewritten == REWRITE and done.queries == ["what did he say?", REWRITE]
    (body,) = bodies(server)
    assert body["max_tokens"] == 64 and "tools" not in body and "response_format" not in body
    assert "<current_messages>\nKim: the hangar people" in body["messages"][1]["content"]
    assert done.usage["prompt_tokens"] == 100 and done.call["request"]["max_tokens"] == 64


def test_without_recent_messages_or_a_model_it_costs_nothing(server):
    assert rewrite(server, recent="  ").reason == "no recent messages"
    assert rewrite(server, client=False).reason == "no chat model configured"
    assert bodies(server) == []


def test_failures_keep_the_original_with_a_reason(server):
    server.script(CHAT, FakeResponse(json=chat_reply("late"), delay=60))
    done = rewrite(server, timeout=0.3)
    assert not done.used and done.queries == ["what did he say?"]
    assert done.reason.startswith("failed (LLMTimeout)") and done.elapsed_ms < 30_000  # not the server's 60 s
    server.script(CHAT, FakeResponse(json=chat_reply("what did he say", finish_reason="length")))
    assert rewrite(server).reason == "cut off at the reply bound"


def test_prose_is_not_a_query():
    prose = ("You're right, I am adding \"for three nights\" to the query. You're right, the sentence is edited "
             "to keep the language.")
    assert clean_rewrite(prose, "where are we staying?") == ("where are we staying?", "answer is prose, not a query")
    assert clean_rewrite("Dr. Smith's hangar lease", "his lease?") == ("Dr. Smith's hangar lease", None)
    # SmolLM2-135M on llama-server answered a lead-in alone; with the query after it, the query counts.
    assert clean_rewrite("You could rephrase the query to:", "where did we stay?") == (
        "where did we stay?", "answer is a lead-in, not a query")
    assert clean_rewrite("Sure, here it is:\n\"hotel in Lisbon near Alfama\"", "where did we stay?") == (
        "hotel in Lisbon near Alfama", None)


def test_the_prompts_own_tags_are_not_a_query():
    """SmolLM2-135M on llama-server answered "<user_query>" alone, and stage 1 searched it."""
    assert clean_rewrite("<user_query>", "what did he say?") == ("what did he say?",
                                                                 "answer is only markup, not a query")
    assert clean_rewrite("<user_query>\nDan's hotel in Lisbon\n</user_query>", "what did he say?") == (
        "Dan's hotel in Lisbon", None)
    assert clean_rewrite("<contextualized_query>Dan's hotel</contextualized_query>", "which one?") == (
        "Dan's hotel", None)
    assert clean_rewrite("a < b > c", "a?") == ("a < b > c", None)  # comparison signs are not tags


def cand(kind, id_, score, rank):
    return Candidate(kind, id_, rank, score, score)


def test_fusion_keeps_each_item_once_at_its_better_score():
    original = [cand("topic", 1, 0.9, 1), cand("topic", 2, 0.5, 2), cand("topic", 3, 0.4, 3), cand("person", 7, 0.6, 1)]
    rewritten = [cand("topic", 4, 0.8, 1), cand("topic", 2, 0.7, 2), cand("topic", 5, 0.1, 3)]
    fused = fuse_candidates(original, rewritten)
    topics = [(c.id, c.score, c.rank) for c in fused if c.kind == "topic"]
    assert topics == [(1, 0.9, 1), (4, 0.8, 2), (2, 0.7, 3)]  # 3 kept: the longer list's count
    assert [(c.kind, c.id, c.rank) for c in fused if c.kind == "person"] == [("person", 7, 1)]


def test_the_callers_rewrite_is_in_the_prompt_and_the_trace_without_a_second_call(server, data_dir, stage1):
    candidates = stage1("what did he say?")
    ids = topic_ids(candidates)
    server.script(CHAT, load(ids[:2]), answer({"topic_ids": [ids[0]]}))
    given = QueryRewrite("what did he say?", REWRITE, None, 12.5, "test/flash",
                         {"prompt_tokens": 40, "completion_tokens": 8, "cost": None})
    reranker = make_reranker(server, data_dir, recent=RECENT)

    async def go():
        async with reranker.client:
            return await reranker.arerank("what did he say?", candidates, given)
    result = asyncio.run(go())
    sent = bodies(server)
    assert len(sent) == 2  # no rewrite call: the caller made it (and searched with it)
    user = sent[0]["messages"][1]["content"]
    assert f"<contextualized_query>\n{REWRITE}\n</contextualized_query>" in user
    assert user.endswith("<user_query>\nwhat did he say?\n</user_query>")
    assert result.report["rewrite"] == {"original": "what did he say?", "rewritten": REWRITE, "reason": None,
                                        "elapsed_ms": 12.5, "model": "test/flash", "usage": given.usage,
                                        "used": True, "stage1": True}
    assert result.trace["contextualization"]["stage1"] is True and result.usage["prompt_tokens"] == 240


def test_on_by_default_with_recent_messages(server, data_dir, stage1):
    candidates = stage1("what did he say?")
    ids = topic_ids(candidates)
    server.script(CHAT, answer(REWRITE), load(ids[:1]), answer({}))
    result = run(make_reranker(server, data_dir, recent=RECENT), "what did he say?", candidates)
    assert result.report["rewrite"]["rewritten"] == REWRITE and result.report["rewrite"]["stage1"] is False
    assert len(bodies(server)) == 3 and bodies(server)[0]["max_tokens"] == 1024


def test_the_session_rewrites_only_when_asked_and_given_messages(server, service):
    endpoint = Endpoint(base_url=server.base_url, api_key=KEY, model="test/flash", preset="openrouter")
    off = FlashSession(endpoint, FlashSettings(model="test/flash", contextualize_query=False), service._context.connect,
                       RECENT)
    assert asyncio.run(off.arewrite("what did he say?")) is None
    assert asyncio.run(FlashSession(endpoint, FlashSettings(), service._context.connect, "").arewrite("x")) is None
    server.script(CHAT, answer(REWRITE))
    session = FlashSession(endpoint, FlashSettings(model="test/flash"), service._context.connect, RECENT)
    done = asyncio.run(session.arewrite("what did he say?"))
    assert done.rewritten == REWRITE and len(bodies(server)) == 1


def zeppelin_topics(service, query, settings):
    return {c.id for c in service.search.candidates(query, settings).candidates if c.kind == "topic"}


def test_stage_1_searches_the_rewrite_and_the_original_fused(server, service):
    """Seed 000 step 1 end to end in the service: rewrite, stage 1 for both, fused, Flash, trace."""
    from engine.retrieval.search import RetrievalSettings

    settings = RetrievalSettings(candidates=10)
    original = zeppelin_topics(service, "what did he say?", settings)
    rewritten = zeppelin_topics(service, REWRITE, settings)
    assert rewritten - original  # the rewrite finds topics the vague question does not
    endpoint = Endpoint(base_url=server.base_url, api_key=KEY, model="test/flash", preset="openrouter")
    session = FlashSession(endpoint, FlashSettings(model="test/flash"), service._context.connect, RECENT)
    server.script(CHAT, answer(REWRITE), answer({"topic_ids": [1]}), answer({}))
    outcome = service.search.search_sync(SearchRequest("what did he say?", settings, session, record=True))
    fused = {c.id for c in outcome.stage1.candidates if c.kind == "topic"}
    assert (rewritten - original) & fused and outcome.stage1.query == "what did he say?"
    assert outcome.rewrite.used and outcome.rewrite.rewritten == REWRITE
    assert outcome.timings.part("rewrite_stage1") is not None
    first_turn = bodies(server)[1]["messages"][1]["content"]
    assert f"<contextualized_query>\n{REWRITE}\n</contextualized_query>" in first_turn
    for topic in (rewritten - original) & fused:  # Flash was shown what only the rewrite found
        assert f"[Topic:{topic}]" in first_turn
    assert outcome.result.report["rewrite"]["stage1"] is True
    assert outcome.as_dict()["rewrite"]["rewritten"] == REWRITE
    run = service.runs.get(outcome.run_id)
    assert run.trace["contextualization"]["rewritten"] == REWRITE
    assert run.trace["contextualization"]["stage1"] is True


def test_a_failed_rewrite_searches_as_typed(server, service):
    from engine.retrieval.search import RetrievalSettings

    settings = RetrievalSettings(candidates=10)
    endpoint = Endpoint(base_url=server.base_url, api_key=KEY, model="test/flash", preset="openrouter")
    session = FlashSession(endpoint, FlashSettings(model="test/flash", rewrite_timeout=0.3), service._context.connect,
                           RECENT)
    server.script(CHAT, FakeResponse(json=chat_reply("late"), delay=1.0), answer({"topic_ids": [1]}), answer({}))
    outcome = service.search.search_sync(SearchRequest("what did he say?", settings, session))
    assert not outcome.rewrite.used and outcome.rewrite.reason.startswith("failed (LLMTimeout)")
    assert [c.id for c in outcome.stage1.candidates] == \
        [c.id for c in service.search.candidates("what did he say?", settings).candidates]
    assert outcome.timings.part("rewrite_stage1") is None
