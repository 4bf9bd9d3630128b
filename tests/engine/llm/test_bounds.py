"""Reply bounds on every call, 5xx that blame a request field, and the tool-call message shape."""

from __future__ import annotations

import pytest

from engine.llm import CapabilityMemory, LLMBadRequest
from engine.llm.capabilities import endpoint_key
from engine.llm.presets import Endpoint
from tests.engine.llm.conftest import CHAT, FORCED, TOOLS, make_client
from tests.engine.llm.test_degrade import OK, run_calls, sent
from tests.fake_openai import FakeResponse, RecordedRequest, chat_reply, tool_call

PYDANTIC_500 = ("1 validation error for CreateChatCompletionRequest messages.2.content Input should be a valid "
                "string [type=string_type, input_value=None]")


@pytest.mark.parametrize(("preset", "field"), [("openrouter", "max_tokens"), ("openai", "max_completion_tokens"),
                                              ("ollama", "max_tokens"), ("llamacpp", "max_tokens"),
                                              ("lmstudio", "max_tokens"), ("custom", "max_tokens")])
def test_max_tokens_goes_under_the_presets_name(server, preset, field):
    server.handle(CHAT, lambda r: FakeResponse(json=OK))
    run_calls(make_client(server, preset=preset), {"max_tokens": 300})
    (body,) = [r.body for r in server.requests_to(CHAT)]
    assert body[field] == 300 and len({"max_tokens", "max_completion_tokens"} & set(body)) == 1


def test_a_5xx_naming_a_field_degrades_once_and_is_remembered(server):
    def handler(request: RecordedRequest) -> FakeResponse:
        if "max_tokens" in request.body:
            return FakeResponse(status=500, json={"error": {"message": "Unsupported parameter: 'max_tokens'"}})
        return FakeResponse(json=OK)
    server.handle(CHAT, handler)
    memory = CapabilityMemory()
    first, second = run_calls(make_client(server, preset="custom", memory=memory), {"max_tokens": 50},
                              {"max_tokens": 50})
    # Renamed, not retried as a transient error; the second call goes straight to the new name.
    assert sent(server, "max_completion_tokens") == ["<absent>", 50, 50]
    assert first.attempts == 2 and second.attempts == 1
    assert first.rejected == ["max_tokens (500)"] and first.degraded == ["max_tokens:max_completion_tokens"]
    assert memory.get(endpoint_key(server.base_url, "test/model")).token_field == "max_completion_tokens"


def test_a_bound_refused_under_both_names_is_dropped(server):
    def handler(request: RecordedRequest) -> FakeResponse:
        if {"max_tokens", "max_completion_tokens"} & set(request.body):
            return FakeResponse(status=400, json={"error": {"message": "max_tokens is not allowed here"}})
        return FakeResponse(json=OK)
    server.handle(CHAT, handler)
    (result,) = run_calls(make_client(server, preset="custom"), {"max_tokens": 50})
    assert result.attempts == 3 and result.degraded == ["max_tokens"]


def test_a_validation_500_is_not_retried_as_transient(server):
    server.handle(CHAT, lambda r: FakeResponse(status=500, json={"error": {"message": PYDANTIC_500}}))
    with pytest.raises(LLMBadRequest) as caught:
        run_calls(make_client(server, preset="llamacpp"), {"max_tokens": 50})
    assert len(server.requests_to(CHAT)) == 1 and "could not read the request (500" in str(caught.value)
    assert "Try again later" not in str(caught.value)


def test_a_bare_500_is_still_retried(server):
    server.script(CHAT, FakeResponse(status=500, json={"error": {"message": "slot unavailable"}}),
                  FakeResponse(json=OK))
    (result,) = run_calls(make_client(server), {"max_tokens": 50})
    assert result.attempts == 2 and result.rejected == []


def test_the_assistant_tool_call_message_carries_empty_content(server):
    server.handle(CHAT, lambda r: FakeResponse(json=chat_reply(tool_calls=[tool_call("get_topics_content",
                                                                                     {"topic_ids": [1]})])))
    (result,) = run_calls(make_client(server), {"tools": TOOLS, "tool_choice": FORCED})
    message = result.as_message()
    assert message["content"] == "" and message["tool_calls"][0]["function"]["name"] == "get_topics_content"


@pytest.mark.parametrize(("url", "preset", "local"), [
    ("http://127.0.0.1:8080/v1", "custom", True), ("http://192.168.1.5:1234/v1", "custom", True),
    ("http://gpu-box.local:8000/v1", "custom", True), ("https://api.example.com/v1", "custom", False),
    ("http://127.0.0.1:9/v1", "openrouter", False), ("", "ollama", True), ("", "llamacpp", True),
    ("", "openai", False)])
def test_which_endpoints_get_local_budgets(url, preset, local):
    assert Endpoint.from_preset(preset, base_url=url).is_local is local


def test_memory_reads_version_1_files(tmp_path):
    path = tmp_path / "capabilities.json"
    path.write_text('{"version": 1, "endpoints": {"u|m": {"tool_choice": "required", "reasoning": false}}}')
    caps = CapabilityMemory(path).get("u|m")
    assert caps.tool_choice == "required" and caps.reasoning is False and caps.flash_protocol is None
    memory = CapabilityMemory(path)
    memory.learn_protocol("u|m", "constrained", "the server ignored the forced call")
    again = CapabilityMemory(path).get("u|m")
    assert again.flash_protocol == "constrained" and again.protocol_evidence.startswith("the server ignored")


def test_learned_evidence_keeps_its_code_on_disk(tmp_path):
    """Issue 22: the evidence that chose Flash's protocol is a code, so the Russian window says it
    in Russian after a restart; the English text stays beside it for older readers."""
    from engine.messages import msg

    path = tmp_path / "capabilities.json"
    evidence = msg("rerank.flash.forced_ignored", tool="get_topics_content")
    CapabilityMemory(path).learn_protocol("u|m", "constrained", evidence)
    again = CapabilityMemory(path).get("u|m")
    assert again.protocol_evidence_message == evidence
    assert again.protocol_evidence == str(evidence)
    assert again.protocol_evidence_message.render("ru") != again.protocol_evidence
