"""The agentic loop end to end: real HTTP to FakeOpenAI, real store reads, every fallback path."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine.rerank.flash import FALLBACK_REASONS
from tests.engine.rerank.conftest import (
    CHAT,
    KEY,
    answer,
    assert_clean_trace,
    assert_protocol,
    bodies,
    load,
    make_reranker,
    run,
    topic_ids,
)
from tests.fake_openai import FakeResponse, chat_reply, tool_call

QUERY = "Zeppelin budget and the hangar lease"
RU_QUERY = "когда мы ездили на дачу на майские"


def vector_top(candidates, n=5):
    return [c.id for c in sorted((c for c in candidates if c.kind == "topic"), key=lambda c: (-c.score, c.rank))[:n]]


def by_score(candidates, ids):
    order = {c.id: (-c.score, c.rank) for c in candidates if c.kind == "topic"}
    return sorted(ids, key=order.__getitem__)


def test_happy_two_turn_path(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    assert len(ids) == 50
    asked = ids[:15]
    person = next(c for c in candidates if c.kind == "person")
    server.script(CHAT, load(asked, "call_A"), answer(
        {"topic_ids": [{"id": f"Topic:{ids[2]}", "reason": "the lease discussion"},
                       {"id": f"Topic:{ids[0]}", "reason": "budget review date"}],
         "people_ids": [{"id": f"Person:{person.id}", "reason": "runs the budget"}]},
        usage={"prompt_tokens": 9000, "completion_tokens": 60, "total_tokens": 9060, "cost": 0.0021}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)

    assert result.fallback is None and result.report["failed"] is False
    assert [(s.kind, s.id, s.reason) for s in result.selected] == [
        ("topic", ids[2], "the lease discussion"), ("topic", ids[0], "budget review date"),
        ("person", person.id, "runs the budget")]
    assert result.tool_calls == [asked] and result.report["requested_ids"] == asked
    sent = assert_protocol(server, 2)
    # Turn 2 carries the whole conversation: the assistant's call, then its result by id.
    messages = sent[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert messages[2]["tool_calls"][0]["id"] == "call_A" and messages[3]["tool_call_id"] == "call_A"
    content = messages[3]["content"]
    assert content.startswith("<topic_content>\n=== Topic ") and content.count("=== Topic ") == 15
    assert "Hangar lease for the Zeppelin went up 12 percent" in content
    assert "\nDate: " in content and "\nTheme: " in content
    assert "[Alex Morozov (2025-09-01 10:01:00)]: Hangar lease" in content

    trace = assert_clean_trace(result, 2)
    assert trace["tool_calls"][0]["loaded"] == asked
    assert result.usage == {"prompt_tokens": 9100, "completion_tokens": 80, "cost": pytest.approx(0.0021)}
    assert trace["turns"][0]["request"]["tool_choice"]["function"]["name"] == "get_topics_content"
    assert trace["turns"][0]["request"]["messages"] == sent[0]["messages"]  # a snapshot, not the grown list


def test_real_query_in_russian_gets_the_russian_prompt(server, data_dir, stage1):
    candidates = stage1(RU_QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load(ids[:5]), answer({"topics": [{"id": ids[1], "reason": "поездка на дачу"}]}))
    result = run(make_reranker(server, data_dir), RU_QUERY, candidates)
    assert [(s.id, s.reason) for s in result.selected] == [(ids[1], "поездка на дачу")]
    sent = assert_protocol(server, 2)
    assert sent[0]["messages"][0]["content"].startswith("Ты отбираешь воспоминания")
    assert "Текущая дата: 2026-01-04" in sent[0]["messages"][1]["content"]
    assert "\nДата: " in sent[1]["messages"][3]["content"]
    assert result.report["prompt_language"] == "ru"


def test_no_tool_call_on_turn_1_is_a_protocol_violation(server, data_dir, stage1):
    # With the seeds' protocol pinned in the settings there is nothing to switch to.
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, answer({"topic_ids": [{"id": ids[3], "reason": "guess"}]}))
    result = run(make_reranker(server, data_dir, protocol="tools"), QUERY, candidates)
    assert result.fallback == "protocol_violation" and result.report["failed"] is True
    assert "the server ignored the forced call" in result.report["error"]
    assert [s.id for s in result.selected] == vector_top(candidates)
    assert all(s.kind == "topic" and s.reason.startswith("fallback (the model broke the protocol): vector rank ")
               for s in result.selected)
    assert_protocol(server, 1)
    assert_clean_trace(result, 1)


def test_weakened_tool_choice_still_checks_the_protocol(server, data_dir, stage1):
    # llama.cpp cannot force a named function: the client sends "required" and says so.
    candidates = stage1(QUERY)
    server.script(CHAT, answer({"topic_ids": []}))
    result = run(make_reranker(server, data_dir, preset="llamacpp", protocol="tools"), QUERY, candidates)
    assert bodies(server)[0]["tool_choice"] == "required"
    assert result.fallback == "protocol_violation"
    assert "ignored the forced call (sent as required)" in result.report["error"]
    assert "tool_choice:required" in result.trace["turns"][0]["degraded"]


def test_invalid_json_after_a_tool_call_keeps_the_requested_ids(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    asked = [ids[9], ids[1], ids[20], ids[4], ids[30], ids[2], ids[7]]
    server.script(CHAT, load(asked), answer('{"topic_ids": [{"id": "Topic:1", "reason": "unterminated'))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback == "parse_error"
    assert [s.id for s in result.selected] == by_score(candidates, asked[:5])
    assert all(s.reason.startswith("fallback (the answer could not be read): requested by the model, vector rank ")
               for s in result.selected)
    assert_protocol(server, 2)
    assert_clean_trace(result, 2)


def test_empty_answer_text_is_empty_response(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load(ids[:3]), FakeResponse(json=chat_reply(None)))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback == "empty_response" and [s.id for s in result.selected] == by_score(candidates, ids[:3])


def test_timeout_before_the_tool_call_falls_back_to_vector_top(server, data_dir, stage1):
    candidates = stage1(QUERY)
    # The server answers long after the turn's budget (60 s ≫ 0.6 s): the order holds on a loaded machine.
    server.script(CHAT, FakeResponse(json=chat_reply("late"), delay=60))
    # 1.2 s in all; turn 1 gets half of it.
    result = run(make_reranker(server, data_dir, total_timeout=1.2), QUERY, candidates)
    assert result.fallback == "turn_timeout"
    assert [s.id for s in result.selected] == vector_top(candidates)
    trace = assert_clean_trace(result, 1)
    assert "did not answer within" in trace["turns"][0]["error"] and trace["turns"][0]["response"] is None
    assert trace["turns"][0]["request"]["tool_choice"]["type"] == "function"


def test_total_timeout_is_timeout_not_turn_timeout(server, data_dir, stage1):
    candidates = stage1(QUERY)
    server.script(CHAT, FakeResponse(json=chat_reply("late"), delay=60))
    result = run(make_reranker(server, data_dir, total_timeout=0.25, turn_timeout=5.0), QUERY, candidates)
    assert result.fallback == "timeout" and [s.id for s in result.selected] == vector_top(candidates)


def test_timeout_after_the_tool_call_keeps_the_requested_ids(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    asked = [ids[12], ids[3], ids[40]]
    server.script(CHAT, load(asked), FakeResponse(json=chat_reply("{}"), delay=60))
    result = run(make_reranker(server, data_dir, total_timeout=1.2), QUERY, candidates)
    assert result.fallback == "turn_timeout"
    assert [s.id for s in result.selected] == by_score(candidates, asked)
    assert result.tool_calls == [asked]
    assert_protocol(server, 2)
    assert_clean_trace(result, 2)


def test_401_is_llm_error_and_the_key_stays_out(server, data_dir, stage1):
    candidates = stage1(QUERY)
    server.script(CHAT, FakeResponse(status=401, json={"error": {"message": f"Invalid key {KEY}"}}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback == "llm_error" and [s.id for s in result.selected] == vector_top(candidates)
    assert "did not accept the API key" in result.report["error"]
    trace = assert_clean_trace(result, 1)
    assert trace["turns"][0]["error"] == result.report["error"]
    assert len(bodies(server)) == 1


def test_429_with_retry_after_then_success(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, FakeResponse(status=429, json={"error": {"message": "slow down"}},
                                     headers={"Retry-After": "0.2"}),
                  load(ids[:5]), answer({"topic_ids": [f"Topic:{ids[0]}"]}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback is None and [s.id for s in result.selected] == [ids[0]]
    assert result.selected[0].reason == "selected by the model"
    trace = assert_clean_trace(result, 2)
    assert trace["turns"][0]["attempts"] == 2 and result.report["timings_ms"]["turn_1"] >= 200
    assert len(bodies(server)) == 3


def test_500s_exhausting_retries_is_llm_error(server, data_dir, stage1):
    candidates = stage1(QUERY)
    server.script(CHAT, *[FakeResponse(status=500, json={"error": {"message": "boom"}})] * 3)
    result = run(make_reranker(server, data_dir, max_retries=2), QUERY, candidates)
    assert result.fallback == "llm_error" and "after 3 attempts" in result.report["error"]
    assert [s.id for s in result.selected] == vector_top(candidates)
    assert len(bodies(server)) == 3
    assert_clean_trace(result, 1)


def test_more_tool_calls_than_allowed(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load([ids[5], ids[6]], "c1"), load([ids[6], ids[7]], "c2"), load([ids[8]], "c3"))
    result = run(make_reranker(server, data_dir, max_tool_calls=2), QUERY, candidates)
    assert result.fallback == "max_tool_calls"
    assert result.tool_calls == [[ids[5], ids[6]], [ids[6], ids[7]], [ids[8]]]
    assert result.report["requested_ids"] == [ids[5], ids[6], ids[7], ids[8]]  # accumulated, de-duplicated
    assert [s.id for s in result.selected] == by_score(candidates, [ids[5], ids[6], ids[7], ids[8]])
    sent = assert_protocol(server, 3)
    assert sent[2]["messages"][-1]["content"].endswith("That was the last allowed call: now reply with the final JSON.")
    assert_clean_trace(result, 3)


def test_a_second_call_within_the_limit_is_answered(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load([ids[0]], "c1"), load([ids[1]], "c2", key="ids"), answer({"topic_ids": [ids[1]]}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback is None and result.tool_calls == [[ids[0]], [ids[1]]]
    sent = assert_protocol(server, 3)
    assert [m.get("tool_call_id") for m in sent[2]["messages"] if m["role"] == "tool"] == ["c1", "c2"]


def test_empty_tool_call_gets_an_error_message_not_a_crash(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load([], "c1"), load([ids[0], ids[1]], "c2"), answer({"topic_ids": [ids[1]]}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback is None and [s.id for s in result.selected] == [ids[1]]
    assert result.tool_calls == [[], [ids[0], ids[1]]]
    error = bodies(server)[1]["messages"][-1]
    assert error["role"] == "tool" and error["tool_call_id"] == "c1" and error["content"].startswith("Error: topic_ids")
    assert result.trace["tool_calls"][0]["error"].startswith("Error: topic_ids is empty")


def test_unknown_tool_and_unknown_ids_are_answered_and_skipped(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, FakeResponse(json=chat_reply(tool_calls=[
        tool_call("get_topics_content", {"topic_ids": [ids[0], 987654, f"Topic:{ids[1]}"]}, "c1"),
        tool_call("search_web", {"q": "zeppelin"}, "c2")])), answer({"topic_ids": [ids[0]]}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback is None
    tool_messages = [m for m in bodies(server)[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["c1", "c2"]
    assert "Not among the candidates (skipped): 987654" in tool_messages[0]["content"]
    assert tool_messages[0]["content"].count("=== Topic ") == 2
    assert "no tool named search_web" in tool_messages[1]["content"]
    assert result.report["requested_ids"] == [ids[0], ids[1]]


def test_ids_not_among_the_candidates_are_dropped(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load(ids[:4]), answer({"topic_ids": [
        {"id": "Topic:99999", "reason": "made up"}, {"id": ids[1], "reason": "real"},
        {"id": ids[1], "reason": "again"}, {"id": "Person:424242", "reason": "nobody"}]}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback is None and [(s.id, s.reason) for s in result.selected] == [(ids[1], "real")]
    assert result.trace["dropped"]["hallucinated"] == ["Topic:99999", "Person:424242"]
    assert result.trace["dropped"]["duplicate"] == [f"Topic:{ids[1]}"]


def test_all_ids_hallucinated(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load([ids[2], ids[0]]), answer({"topic_ids": [{"id": "Topic:99999", "reason": "x"}]}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback == "all_hallucinated" and result.report["failed"] is True
    assert [s.id for s in result.selected] == by_score(candidates, [ids[2], ids[0]])


@pytest.mark.parametrize("reply", [{"topic_ids": [], "people_ids": [], "artifact_ids": []}, {}, {"topics": []}, []])
def test_an_empty_selection_is_model_empty_not_a_failure(server, data_dir, stage1, reply):
    candidates = stage1(QUERY)
    server.script(CHAT, load(topic_ids(candidates)[:5]), answer(reply))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback == "model_empty" and result.selected == []
    assert result.report["failed"] is False and result.report["kept"] == 0
    assert_protocol(server, 2)
    assert_clean_trace(result, 2)


def test_limits_truncate_the_answer(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load(ids[:10]), answer({"topic_ids": ids[:10]}))
    result = run(make_reranker(server, data_dir, max_topics=3), QUERY, candidates)
    assert [s.id for s in result.selected] == ids[:3]
    assert result.trace["dropped"]["over_limit"] == [f"Topic:{i}" for i in ids[3:10]]


def test_fallbacks_never_carry_people_or_artifacts(server, data_dir, stage1):
    candidates = stage1(QUERY)
    assert {c.kind for c in candidates} >= {"topic", "person"}
    server.script(CHAT, FakeResponse(status=403, json={"error": {"message": "no"}}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.fallback == "llm_error" and {s.kind for s in result.selected} == {"topic"}


def test_usage_cost_is_summed_over_turns(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    usage = {"prompt_tokens": 3000, "completion_tokens": 50, "total_tokens": 3050, "cost": 0.001}
    first = chat_reply(tool_calls=[tool_call("get_topics_content", {"topic_ids": ids[:2]})], usage=usage)
    server.script(CHAT, FakeResponse(json=first),
                  answer({"topic_ids": [ids[0]]}, usage={**usage, "cost": 0.002}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert result.usage == {"prompt_tokens": 6000, "completion_tokens": 100, "cost": pytest.approx(0.003)}
    assert result.report["usage"] == result.trace["usage"] == result.usage


def test_cancellation_propagates(server, data_dir, stage1):
    candidates = stage1(QUERY)
    server.script(CHAT, FakeResponse(json=chat_reply("late"), delay=60))
    reranker = make_reranker(server, data_dir)

    async def go():
        async with reranker.client:
            task = asyncio.create_task(reranker.arerank(QUERY, candidates))
            await asyncio.sleep(0.1)
            task.cancel()
            await task

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(go())


def test_no_candidates_means_no_call(server, data_dir):
    result = run(make_reranker(server, data_dir), QUERY, [])
    assert result.selected == [] and result.fallback is None and bodies(server) == []
    assert result.report["turns"] == 0 and result.trace["turns"] == []


def test_people_only_is_one_turn_without_tools(server, data_dir, stage1):
    people = [c for c in stage1(QUERY) if c.kind == "person"]
    server.script(CHAT, answer({"people_ids": [{"id": f"Person:{people[0].id}", "reason": "the one"}]}))
    result = run(make_reranker(server, data_dir), QUERY, people)
    assert result.fallback is None and [(s.kind, s.id) for s in result.selected] == [("person", people[0].id)]
    sent = bodies(server)
    assert len(sent) == 1 and "tools" not in sent[0] and "tool_choice" not in sent[0]
    assert sent[0]["response_format"] == {"type": "json_object"}
    assert "<people_candidates>" in sent[0]["messages"][1]["content"]
    assert "<topic_candidates>" not in sent[0]["messages"][1]["content"]


def test_every_fallback_reason_is_documented():
    assert FALLBACK_REASONS == ("llm_error", "timeout", "turn_timeout", "empty_response", "protocol_violation",
                                "parse_error", "all_hallucinated", "max_tool_calls")


def test_trace_is_json(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load(ids[:2]), answer({"topic_ids": [ids[0]]}))
    result = run(make_reranker(server, data_dir), QUERY, candidates)
    assert json.loads(json.dumps(result.trace))["selected"][0]["id"] == ids[0]


def test_without_tool_calls_allowed_turn_1_asks_for_json_directly(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, answer({"topic_ids": [ids[7]]}))
    result = run(make_reranker(server, data_dir, max_tool_calls=0), QUERY, candidates)
    assert result.fallback is None and [s.id for s in result.selected] == [ids[7]]
    sent = bodies(server)
    assert "tools" not in sent[0] and sent[0]["response_format"] == {"type": "json_object"}
    assert "get_topics_content" not in sent[0]["messages"][0]["content"]


def test_settings_defaults_and_checks():
    from engine.errors import EngineError
    from engine.rerank.flash import FlashSettings, FlashSettingsError
    settings = FlashSettings()
    assert settings.per_turn_timeout == 15.0 and settings.load_range(50) == (5, 25) and settings.load_range(3) == (3, 3)
    assert FlashSettings(turn_timeout=30).per_turn_timeout == 30
    with pytest.raises(FlashSettingsError) as caught:
        FlashSettings(total_timeout=0)
    assert isinstance(caught.value, EngineError)


def test_the_read_budget_bounds_every_read_together_not_each_one(server, data_dir, stage1):
    """Every read stays in the conversation sent with the next turn: with the budget per read
    (and only the logs counted in it, not each topic's header and theme), three reads beside a
    local server's turn 1 reached ~9K real tokens, past its 8K context. The reads now share the
    budget, headers included; what does not fit is named as not loaded, for want of room."""
    from engine.text.tokens import estimate_tokens

    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load(ids[0:4], "c1"), load(ids[4:8], "c2"), load(ids[8:12], "c3"),
                  answer({"topic_ids": [ids[0]]}))
    budget = 600
    result = run(make_reranker(server, data_dir, max_tool_calls=3, read_budget_tokens=budget), QUERY, candidates)

    assert result.fallback is None and len(result.tool_calls) == 3
    reads = [m["content"] for m in bodies(server)[3]["messages"] if m["role"] == "tool"]
    assert len(reads) == 3
    # The block's tags and the "not loaded" line are outside the budget: a few dozen tokens a read.
    assert sum(estimate_tokens(r) for r in reads) <= budget + 3 * 60, [estimate_tokens(r) for r in reads]
    records = result.trace["tool_calls"]
    assert records[0]["loaded"] and records[2]["no_room"]  # the first read got room, the last had none left
    assert f"{records[2]['no_room'][-1]}" in reads[2].split("no room left")[1]
    shown = [r["loaded"] for r in records]
    assert all(set(s) | set(r["no_room"]) == set(r["topic_ids"]) for s, r in zip(shown, records, strict=True))
