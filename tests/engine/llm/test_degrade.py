"""Degrading rejected features, remembering it per endpoint, and the per-preset shapes."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine.llm import CapabilityMemory, ChatClient, LLMBadRequest
from engine.llm.capabilities import endpoint_key
from tests.engine.llm.conftest import CHAT, FORCED, TOOLS, USER, make_client
from tests.fake_openai import FakeResponse, RecordedRequest, chat_reply, tool_call

JSON_MODE = {"type": "json_object"}
OK = chat_reply(tool_calls=[tool_call("get_topics_content", {"topic_ids": [1]})])


def run_calls(client: ChatClient, *calls: dict):
    async def go():
        async with client:
            return [await client.complete(USER, **kwargs) for kwargs in calls]
    return asyncio.run(go())


def reject(feature_check, message):
    """A handler that answers 400 while `feature_check(body)` holds, else a tool call."""
    def handler(request: RecordedRequest) -> FakeResponse:
        if feature_check(request.body):
            return FakeResponse(status=400, json={"error": {"message": message, "code": 400}})
        return FakeResponse(json=OK)
    return handler


def sent(server, field):
    return [r.body.get(field, "<absent>") for r in server.requests_to(CHAT)]


def test_forced_tool_choice_rejected_steps_down_to_required_and_is_remembered(server):
    server.handle(CHAT, reject(lambda b: isinstance(b.get("tool_choice"), dict),
                               "Invalid tool_choice type: 'object'. Supported string values: none, auto, required"))
    memory = CapabilityMemory()
    first, second = run_calls(make_client(server, memory=memory), {"tools": TOOLS, "tool_choice": FORCED},
                              {"tools": TOOLS, "tool_choice": FORCED})
    assert first.degraded == ["tool_choice:required"] and first.attempts == 2
    assert second.degraded == ["tool_choice:required"] and second.attempts == 1
    assert sent(server, "tool_choice") == [FORCED, "required", "required"]
    assert memory.get(endpoint_key(server.base_url, "test/model")).tool_choice == "required"


def test_bare_400_on_forced_tool_choice_steps_down_to_auto(server):
    server.handle(CHAT, reject(lambda b: b.get("tool_choice") != "auto", "Bad Request"))
    (result,) = run_calls(make_client(server), {"tools": TOOLS, "tool_choice": FORCED})
    assert sent(server, "tool_choice") == [FORCED, "required", "auto"]
    assert result.degraded == ["tool_choice:auto"] and result.tool_calls


def test_unrelated_400_is_bad_request_and_teaches_nothing(server):
    server.handle(CHAT, reject(lambda b: True, "messages[0].content must be a string"))
    memory = CapabilityMemory()
    with pytest.raises(LLMBadRequest, match="must be a string"):
        run_calls(make_client(server, memory=memory), {"tools": TOOLS, "tool_choice": FORCED})
    assert memory.get(endpoint_key(server.base_url, "test/model")).tool_choice == "function"


def test_400_about_tools_themselves_is_not_blamed_on_tool_choice(server):
    server.handle(CHAT, reject(lambda b: True, "model does not support tools"))
    with pytest.raises(LLMBadRequest, match="does not support tools"):
        run_calls(make_client(server), {"tools": TOOLS, "tool_choice": FORCED})
    assert len(server.requests_to(CHAT)) == 1


def test_response_format_rejected_is_dropped_and_remembered(server):
    server.handle(CHAT, reject(lambda b: "response_format" in b,
                               "'response_format.type' must be 'json_schema' or 'text'"))
    first, second = run_calls(make_client(server), {"response_format": JSON_MODE}, {"response_format": JSON_MODE})
    assert sent(server, "response_format") == [JSON_MODE, "<absent>", "<absent>"]
    assert first.degraded == second.degraded == ["response_format"]


def test_reasoning_rejected_is_dropped_and_remembered(server):
    server.handle(CHAT, reject(lambda b: "reasoning_effort" in b,
                               "Unsupported parameter: 'reasoning_effort' is not supported with this model."))
    first, second = run_calls(make_client(server, preset="openai"), {"reasoning_effort": "minimal"},
                              {"reasoning_effort": "minimal"})
    assert sent(server, "reasoning_effort") == ["minimal", "<absent>", "<absent>"]
    assert first.degraded == second.degraded == ["reasoning"]


def test_openrouter_provider_message_in_metadata_raw_is_read(server):
    def handler(request):
        if "response_format" in request.body and "tool_choice" in request.body:
            return FakeResponse(status=400, json={"error": {"code": 400, "message": "Provider returned error",
                                                            "metadata": {"raw": "tool_choice cannot be combined "
                                                                                "with response_format"}}})
        return FakeResponse(json=OK)
    server.handle(CHAT, handler)
    (result,) = run_calls(make_client(server), {"tools": TOOLS, "tool_choice": FORCED, "response_format": JSON_MODE})
    # Both named: the less useful response_format goes first, the forced call survives.
    assert result.degraded == ["response_format"] and sent(server, "tool_choice") == [FORCED, FORCED]


def test_memory_persists_to_json_and_reloads(server, tmp_path):
    path = tmp_path / "llm" / "capabilities.json"
    server.handle(CHAT, reject(lambda b: isinstance(b.get("tool_choice"), dict) or "response_format" in b,
                               "tool_choice object / response_format not supported"))
    run_calls(make_client(server, memory=CapabilityMemory(path)), {"tools": TOOLS, "tool_choice": FORCED},
              {"response_format": JSON_MODE})
    saved = json.loads(path.read_text())["endpoints"][endpoint_key(server.base_url, "test/model")]
    assert saved == {"tool_choice": "required", "rejected_response_formats": ["json_object"], "reasoning": True,
                     "token_field": None, "max_tokens": True, "flash_protocol": None, "protocol_evidence": ""}

    server.requests.clear()
    (result,) = run_calls(make_client(server, memory=CapabilityMemory(path)),
                          {"tools": TOOLS, "tool_choice": FORCED, "response_format": JSON_MODE})
    assert result.attempts == 1 and sent(server, "tool_choice") == ["required"]
    assert sent(server, "response_format") == ["<absent>"]


def test_damaged_memory_file_starts_empty(tmp_path):
    path = tmp_path / "capabilities.json"
    path.write_text("{not json")
    assert CapabilityMemory(path).get("x|y").tool_choice == "function"


def test_llamacpp_and_lmstudio_get_required_without_a_failed_round_trip(server):
    server.handle(CHAT, lambda request: FakeResponse(json=OK))
    (llama,) = run_calls(make_client(server, preset="llamacpp", api_key=None),
                         {"tools": TOOLS, "tool_choice": FORCED, "reasoning_effort": "low"})
    (studio,) = run_calls(make_client(server, preset="lmstudio", api_key=None),
                          {"tools": TOOLS, "tool_choice": FORCED, "response_format": JSON_MODE})
    assert sent(server, "tool_choice") == ["required", "required"]
    assert sent(server, "response_format") == ["<absent>", "<absent>"]
    assert "reasoning_effort" not in server.requests[0].body and "reasoning" not in server.requests[0].body
    assert llama.degraded == ["tool_choice:required", "reasoning"]
    assert studio.degraded == ["tool_choice:required", "response_format"]


def test_openai_shape_sends_reasoning_effort_and_no_usage(server):
    server.handle(CHAT, lambda request: FakeResponse(json=OK))
    (result,) = run_calls(make_client(server, preset="openai"),
                          {"tools": TOOLS, "tool_choice": FORCED, "response_format": JSON_MODE,
                           "reasoning_effort": "low"})
    body = server.requests[0].body
    assert body["reasoning_effort"] == "low" and "reasoning" not in body and "usage" not in body
    assert body["tool_choice"] == FORCED and body["response_format"] == JSON_MODE
    assert result.degraded == []


def test_unforced_tool_choice_passes_through(server):
    server.handle(CHAT, lambda request: FakeResponse(json=OK))
    run_calls(make_client(server, preset="llamacpp", api_key=None), {"tools": TOOLS, "tool_choice": "auto"})
    assert sent(server, "tool_choice") == ["auto"]
