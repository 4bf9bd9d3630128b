"""Constrained turns, the switch on evidence, per-preset request shapes, and truthful notes.

The scripted servers behave as the real ones were measured (docs/llm_servers.md):
`LocalServerModel()` is llama-server (no forced call enforced, schemas always obeyed),
`LocalServerModel({"named"}, null_content_500=True)` is llama-cpp-python's server.
"""

from __future__ import annotations

import json

import pytest

from engine.http_retry import RetryPolicy
from engine.llm import CapabilityMemory, ChatClient, Endpoint
from engine.rerank.flash import MODEL_EMPTY, FlashReranker, FlashSettings, store_topic_source
from engine.store.database import connect, db_path
from tests.engine.rerank.conftest import CHAT, KEY, NOW, answer, bodies, load, make_reranker, run, topic_ids
from tests.fake_openai import FakeResponse, LocalServerModel, chat_reply

QUERY = "Zeppelin budget and the hangar lease"
PROSE = FakeResponse(json=chat_reply("Sure! The most relevant topics are about the budget."))

FAST_RETRY = RetryPolicy(initial_backoff=0.01, max_backoff=0.05, max_retries=2)


def reranker_on(server, data_dir, preset: str, memory: CapabilityMemory | None = None, **settings) -> FlashReranker:
    endpoint = Endpoint(base_url=server.base_url, api_key=KEY, model="test/flash", preset=preset)
    client = ChatClient(endpoint, capabilities=memory, retry=FAST_RETRY)
    flash = FlashSettings(model="test/flash", **settings)
    return FlashReranker(client, store_topic_source(lambda: connect(db_path(data_dir))), flash, now=lambda: NOW)


def schema_of(body: dict) -> dict:
    """The JSON schema of a request, in either form (OpenAI's json_schema, llama.cpp's json_object + schema)."""
    fmt = body["response_format"]
    if fmt["type"] == "json_object":
        return fmt["schema"]
    assert fmt["type"] == "json_schema"
    return fmt["json_schema"]["schema"]


def test_llamacpp_runs_constrained_turns_with_enum_ids(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.handle(CHAT, LocalServerModel())
    result = run(reranker_on(server, data_dir, "llamacpp"), QUERY, candidates)

    assert result.fallback is None and result.report["protocol"] == "constrained"
    assert result.report["degraded"] == ["response_format:json_object+schema", "reasoning"]
    assert "llama.cpp server" in result.report["protocol_note"] and result.report["protocol_switch"] is None
    first, second = bodies(server)
    assert "tools" not in first and "tool_choice" not in first
    assert first["response_format"]["type"] == "json_object"  # the schema form both llama.cpp servers accept
    read = schema_of(first)["properties"]["topic_ids"]
    # Local budgets: 25 topics shown (a small model's context), at most 12 to read, short replies.
    assert read["items"]["enum"] == ids[:25] and read["minItems"] == 1 and read["maxItems"] == 12
    assert first["max_tokens"] == 384 and second["max_tokens"] == 1536
    selection = schema_of(second)
    assert set(selection["required"]) == {"topic_ids", "people_ids", "artifact_ids"}
    topic_entry = selection["properties"]["topic_ids"]
    assert topic_entry["maxItems"] == 5 and topic_entry["items"]["properties"]["id"]["enum"] == ids[:25]
    assert topic_entry["items"]["properties"]["reason"]["maxLength"] == 160
    people = [c.id for c in candidates if c.kind == "person"][:8]
    assert selection["properties"]["people_ids"]["items"]["properties"]["id"]["enum"] == people
    # The read is answered as a tool result would be, in a user message after the model's JSON.
    roles = [m["role"] for m in second["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert json.loads(second["messages"][2]["content"]) == {"topic_ids": ids[:3]}
    assert second["messages"][3]["content"].startswith("<topic_content>\n=== Topic ")
    assert "ONE call to get_topics_content" not in first["messages"][0]["content"]
    assert result.tool_calls == [ids[:3]] and result.trace["tool_calls"][0]["name"] == "response_format"
    assert [s.id for s in result.selected if s.kind == "topic"] == ids[:2]
    assert result.trace["protocol"]["protocol"] == "constrained"
    assert all(turn["protocol"] == "constrained" for turn in result.trace["turns"])


def test_ignored_forced_call_switches_to_constrained_and_is_remembered(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    memory = CapabilityMemory()
    server.handle(CHAT, LocalServerModel())  # a custom server that accepts tools but forces nothing
    result = run(reranker_on(server, data_dir, "custom", memory), QUERY, candidates)
    assert result.fallback is None and result.report["protocol"] == "constrained"
    switch = result.report["protocol_switch"]
    assert switch["from"] == "tools" and "the server ignored the forced call" in switch["evidence"]
    sent = bodies(server)
    assert len(sent) == 3 and sent[0]["tool_choice"]["function"]["name"] == "get_topics_content"
    assert schema_of(sent[1])["properties"]["topic_ids"]["items"]["enum"] == ids[:25]  # a local custom server
    assert [t["turn"] for t in result.trace["turns"]] == ["turn_1", "turn_2", "turn_3"]

    server.requests.clear()  # the next search goes straight to constrained turns
    again = run(reranker_on(server, data_dir, "custom", memory), QUERY, candidates)
    assert len(bodies(server)) == 2 and "tools" not in bodies(server)[0]
    assert again.report["protocol_note"].startswith("constrained (learned: the server ignored the forced call")


def test_rejected_is_not_reported_as_ignored(server, data_dir, stage1):
    candidates = stage1(QUERY)

    def rejects_named(request):
        if isinstance(request.body.get("tool_choice"), dict):
            return FakeResponse(status=400, json={"error": {"message": "tool_choice must be a string"}})
        return PROSE
    server.handle(CHAT, rejects_named)
    result = run(reranker_on(server, data_dir, "custom", protocol="tools"), QUERY, candidates)
    assert result.fallback == "protocol_violation"
    assert "the server rejected the forced call (tool_choice (400))" in result.report["error"]
    assert "ignored" not in result.report["error"]


def test_llama_cpp_python_with_the_seeds_protocol_completes(server, data_dir, stage1):
    # A named tool_choice is enforced there; the assistant message must carry "" (null → 500).
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.handle(CHAT, LocalServerModel(frozenset({"named"}), null_content_500=True))
    result = run(reranker_on(server, data_dir, "custom", protocol="tools"), QUERY, candidates)
    assert result.fallback is None and result.tool_calls == [ids[:3]]
    first, second = bodies(server)
    assert second["messages"][2]["content"] == "" and second["messages"][2]["tool_calls"]
    assert "tool_choice" not in second and second["response_format"] == {"type": "json_object"}


def test_server_that_rejects_json_schema_teaches_tools(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    memory = CapabilityMemory()

    def no_schema(request):
        if "response_format" in request.body:
            return FakeResponse(status=400, json={"error": {"message": "response_format json_schema unsupported"}})
        if "=== Topic" not in request.body["messages"][-1]["content"]:
            return FakeResponse(json=chat_reply(json.dumps({"topic_ids": ids[:2]})))
        return FakeResponse(json=chat_reply(json.dumps({"topic_ids": [{"id": ids[1], "reason": "lease"}]})))
    server.handle(CHAT, no_schema)
    result = run(reranker_on(server, data_dir, "lmstudio", memory), QUERY, candidates)
    assert result.report["protocol"] == "constrained" and [s.id for s in result.selected] == [ids[1]]
    assert "response_format" in result.report["degraded"]
    # Both schema forms were tried once (json_schema, then json_object + schema), then dropped.
    forms = [b.get("response_format", {}).get("type") for b in bodies(server)]
    assert forms == ["json_schema", "json_object", None, None]
    caps = memory.get(f"{server.base_url}|test/flash")
    assert caps.flash_protocol == "tools" and "rejected response_format" in caps.protocol_evidence


def test_llama_cpp_python_refusing_json_schema_gets_the_json_object_form(server, data_dir, stage1):
    # A custom endpoint (OpenAI's schema form first) on llama-cpp-python: one 500 that names
    # response_format, then json_object + schema, remembered for every later call.
    candidates = stage1(QUERY)
    memory = CapabilityMemory()
    server.handle(CHAT, LocalServerModel(frozenset({"named"}), json_schema_500=True))
    result = run(reranker_on(server, data_dir, "custom", memory, protocol="constrained"), QUERY, candidates)
    assert result.fallback is None and result.report["protocol"] == "constrained"
    forms = [b["response_format"]["type"] for b in bodies(server)]
    assert forms == ["json_schema", "json_object", "json_object"]
    assert memory.get(f"{server.base_url}|test/flash").flash_protocol is None  # the schema held: nothing to switch


def test_empty_selection_is_an_answer(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, answer({"topic_ids": ids[:2]}), answer({"topic_ids": [], "people_ids": [],
                                                                 "artifact_ids": []}))
    result = run(reranker_on(server, data_dir, "ollama"), QUERY, candidates)
    assert result.fallback == MODEL_EMPTY and result.selected == [] and result.report["failed"] is False


@pytest.mark.parametrize(("preset", "field"), [("openrouter", "max_tokens"), ("openai", "max_completion_tokens"),
                                              ("ollama", "max_tokens"), ("lmstudio", "max_tokens")])
def test_every_request_bounds_its_reply_under_the_presets_name(server, data_dir, stage1, preset, field):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load(ids[:2]) if preset in ("openrouter", "openai") else answer({"topic_ids": ids[:2]}),
                  answer({"topic_ids": [ids[0]]}))
    run(make_reranker(server, data_dir, preset=preset), QUERY, candidates)
    sent = bodies(server)
    assert len(sent) == 2 and all(isinstance(b.get(field), int) for b in sent)
    other = "max_completion_tokens" if field == "max_tokens" else "max_tokens"
    assert all(other not in b for b in sent)
    if preset in ("ollama", "lmstudio"):
        assert all(b["response_format"]["type"] == "json_schema" and "tools" not in b for b in sent)
    if preset == "lmstudio":
        assert all(not isinstance(b.get("tool_choice"), dict) for b in sent)


def test_people_and_artifacts_shown_are_settings(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, load(ids[:1]), answer({}))
    result = run(make_reranker(server, data_dir, people_shown=2, artifacts_shown=0), QUERY, candidates)
    assert result.report["shown"]["person"] == 2 and result.report["shown"]["artifact"] == 0
    user = bodies(server)[0]["messages"][1]["content"]
    assert user.count("[Person:") == 2 and "<artifact_candidates>" not in user


def test_server_killed_mid_turn_falls_back_to_topics_only(server, data_dir, stage1):
    candidates = stage1(QUERY)
    ids = topic_ids(candidates)
    server.script(CHAT, answer({"topic_ids": ids[4:6]}), FakeResponse(drop=True), FakeResponse(drop=True),
                  FakeResponse(drop=True))
    result = run(reranker_on(server, data_dir, "llamacpp"), QUERY, candidates)
    assert result.fallback == "llm_error" and all(s.kind == "topic" for s in result.selected)
    assert sorted(s.id for s in result.selected) == sorted(ids[4:6])
