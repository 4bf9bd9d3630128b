"""Request shape, reply parsing and error mapping of ChatClient against FakeOpenAI."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine.http_retry import RetryPolicy
from engine.llm import (
    ChatClient,
    Endpoint,
    LLMAuthError,
    LLMBadRequest,
    LLMConnectionError,
    LLMResponseError,
)
from tests.engine.llm.conftest import CHAT, FORCED, KEY, TOOLS, USER, make_client
from tests.fake_openai import FakeResponse, chat_reply, tool_call


def complete(client: ChatClient, **kwargs):
    async def go():
        async with client:
            return await client.complete(USER, **kwargs)
    return asyncio.run(go())


def test_tool_call_is_parsed_and_request_has_openrouter_shape(server):
    server.script(CHAT, FakeResponse(json=chat_reply(tool_calls=[tool_call("get_topics_content",
                                                                           {"topic_ids": [42, 18]}, "call_A")])))
    result = complete(make_client(server), tools=TOOLS, tool_choice=FORCED, reasoning_effort="low")

    assert [(c.id, c.name, c.arguments) for c in result.tool_calls] == [("call_A", "get_topics_content",
                                                                        {"topic_ids": [42, 18]})]
    assert result.finish_reason == "tool_calls"
    assert result.attempts == 1 and result.degraded == []
    sent = server.requests_to(CHAT)[0].body
    assert sent["model"] == "test/model" and sent["messages"] == USER and sent["tools"] == TOOLS
    assert sent["tool_choice"] == FORCED
    assert sent["reasoning"] == {"effort": "low"} and "reasoning_effort" not in sent
    assert sent["usage"] == {"include": True}
    assert result.raw_request == sent
    assert result.as_message()["tool_calls"][0]["id"] == "call_A"


def test_invalid_json_arguments_keep_the_raw_text(server):
    broken = '{"topic_ids": [42, 18'
    server.script(CHAT, FakeResponse(json=chat_reply(tool_calls=[tool_call("get_topics_content", broken)])))
    call = complete(make_client(server), tools=TOOLS).tool_calls[0]
    assert call.arguments is None
    assert call.arguments_raw == broken


def test_usage_with_cost_and_reasoning(server):
    usage = {"prompt_tokens": 3000, "completion_tokens": 120, "total_tokens": 3120, "cost": 0.00042,
             "completion_tokens_details": {"reasoning_tokens": 80}, "prompt_tokens_details": {"cached_tokens": 1024}}
    body = chat_reply('{"topic_ids": []}', usage=usage)
    body["choices"][0]["message"]["reasoning"] = "The user asks about Petrov."
    server.script(CHAT, FakeResponse(json=body))
    result = complete(make_client(server))
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.total_tokens) == (3000, 120, 3120)
    assert result.usage.cost == pytest.approx(0.00042)
    assert result.usage.reasoning_tokens == 80 and result.usage.cached_tokens == 1024
    assert result.reasoning == "The user asks about Petrov."
    assert result.content == '{"topic_ids": []}'


def test_usage_without_cost_is_none(server):
    server.script(CHAT, FakeResponse(json=chat_reply("hi")))
    assert complete(make_client(server, preset="openai")).usage.cost is None


def test_401_is_auth_error_without_retry_and_without_the_key(server):
    # Some servers echo the key they were given; it must not reach the message.
    server.script(CHAT, FakeResponse(status=401, json={"error": {"message": f"Incorrect API key provided: {KEY}"}}))
    with pytest.raises(LLMAuthError) as caught:
        complete(make_client(server))
    assert len(server.requests_to(CHAT)) == 1
    assert KEY not in str(caught.value) and KEY not in (caught.value.server_message or "")
    assert "API key" in str(caught.value)  # what is wrong; where to fix it is each face's hint (issue 31)
    from engine.messages import render

    assert "Settings → API key" in render(caught.value.message, "en", face="window")


def test_402_means_no_credits(server):
    server.script(CHAT, FakeResponse(status=402, json={"error": {"code": 402, "message": "Insufficient credits"}}))
    with pytest.raises(LLMAuthError, match="credits"):
        complete(make_client(server))


def test_404_names_model_and_url(server):
    server.script(CHAT, FakeResponse(status=404, json={"error": {"message": "model not found"}}))
    with pytest.raises(LLMBadRequest) as caught:
        complete(make_client(server))
    assert "test/model" in str(caught.value) and server.base_url in str(caught.value)


def test_200_with_error_object_is_response_error(server):
    server.script(CHAT, FakeResponse(json={"error": {"code": 400, "message": "Provider returned error"}}))
    with pytest.raises(LLMResponseError, match="Provider returned error") as caught:
        complete(make_client(server))
    assert caught.value.error_code == 400
    assert len(server.requests_to(CHAT)) == 1


def test_200_with_retryable_error_object_is_retried(server):
    server.script(CHAT, FakeResponse(json={"error": {"code": 502, "message": "upstream died"}}),
                  FakeResponse(json=chat_reply("ok")))
    result = complete(make_client(server))
    assert result.content == "ok" and result.attempts == 2


@pytest.mark.parametrize("response", [
    FakeResponse(body=b"<html>502 Bad Gateway</html>"),
    FakeResponse(json={"id": "x", "choices": []}),
    FakeResponse(json=[1, 2, 3]),
])
def test_unusable_200_bodies_are_response_errors(server, response):
    server.script(CHAT, response)
    with pytest.raises(LLMResponseError):
        complete(make_client(server))


def test_keyless_ollama_sends_no_authorization_and_omits_tool_choice(server):
    server.script(CHAT, FakeResponse(json=chat_reply("ok")))
    result = complete(make_client(server, preset="ollama", api_key=None), tools=TOOLS, tool_choice=FORCED,
                      reasoning_effort="low")
    request = server.requests_to(CHAT)[0]
    assert "authorization" not in {h.lower() for h in request.headers}
    assert "tool_choice" not in request.body and request.body["tools"] == TOOLS
    assert request.body["reasoning_effort"] == "low" and "usage" not in request.body
    assert result.degraded == ["tool_choice:omitted"]


def test_key_goes_in_the_header_only(server):
    server.script(CHAT, FakeResponse(json=chat_reply("ok")))
    result = complete(make_client(server), tools=TOOLS)
    request = server.requests_to(CHAT)[0]
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert KEY not in json.dumps(result.raw_request) and KEY not in json.dumps(result.raw_response)
    assert not {"headers", "Authorization", "authorization"} & set(result.raw_request)


def test_preset_that_needs_a_key_fails_before_sending(server):
    with pytest.raises(LLMAuthError, match="needs an API key"):
        complete(make_client(server, api_key=None))
    assert server.requests == []


def test_endpoint_repr_hides_the_key():
    assert KEY not in repr(Endpoint.from_preset("openrouter", api_key=KEY))


def test_unreachable_server_is_connection_error_naming_the_url():
    endpoint = Endpoint(base_url="http://127.0.0.1:9/v1", api_key=KEY, model="m", preset="ollama")
    with pytest.raises(LLMConnectionError) as caught:
        complete(ChatClient(endpoint, retry=RetryPolicy(max_retries=1, initial_backoff=0.01)))
    assert "http://127.0.0.1:9/v1" in str(caught.value) and "running" in str(caught.value)
    assert KEY not in str(caught.value)


def test_extra_body_is_merged_but_cannot_replace_model(server):
    server.script(CHAT, FakeResponse(json=chat_reply("ok")))
    complete(make_client(server), extra_body={"temperature": 0, "model": "other", "plugins": [{"id": "x"}]})
    sent = server.requests_to(CHAT)[0].body
    assert sent["temperature"] == 0 and sent["plugins"] == [{"id": "x"}] and sent["model"] == "test/model"


def test_base_url_without_scheme_is_bad_request_at_once():
    client = ChatClient(Endpoint(base_url="localhost:11434/v1", model="m", preset="ollama"))
    with pytest.raises(LLMBadRequest, match="http://"):
        complete(client)
