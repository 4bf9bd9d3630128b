"""Streamed completions (`on_delta`): real server-sent events from FakeOpenAI, read back into
the same ChatResult a whole reply gives, with what the reply says so far told as it grows."""

from __future__ import annotations

import asyncio

import pytest

from engine.llm import ChatClient, LLMResponseError, LLMTimeout, StreamDelta
from tests.engine.llm.conftest import CHAT, FORCED, TOOLS, USER, make_client
from tests.fake_openai import FakeResponse, chat_reply, tool_call

USAGE = {"prompt_tokens": 321, "completion_tokens": 45, "total_tokens": 366, "cost": 0.0007}


def streamed(client: ChatClient, **kwargs) -> tuple[object, list[StreamDelta]]:
    seen: list[StreamDelta] = []

    async def go():
        async with client:
            return await client.complete(USER, on_delta=seen.append, **kwargs)
    return asyncio.run(go()), seen


def test_content_arrives_in_pieces_and_the_result_is_the_whole_reply(server):
    text = "Mom's appointment with the cardiologist is on Tuesday at 10. [2]"
    server.script(CHAT, FakeResponse(json=chat_reply(text, usage=USAGE), piece_chars=5))
    result, seen = streamed(make_client(server))

    assert result.content == text and result.finish_reason == "stop"
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.cost) == (321, 45, 0.0007)
    assert len(seen) == len(text) // 5 + 1  # one delta per piece, each the text so far
    assert [d.content for d in seen] == [text[:end] for end in range(5, len(text), 5)] + [text]
    sent = server.requests_to(CHAT)[0].body
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert result.raw_response["streamed"] is True and result.degraded == []


def test_a_tool_calls_arguments_stream_and_parse_whole(server):
    arguments = {"claims": [{"text": "It is on Tuesday.", "citations": [2]}], "not_found": False}
    server.script(CHAT, FakeResponse(json=chat_reply(tool_calls=[tool_call("answer", arguments, "call_7")])))
    result, seen = streamed(make_client(server), tools=TOOLS, tool_choice=FORCED)

    assert [(c.id, c.name, c.arguments) for c in result.tool_calls] == [("call_7", "answer", arguments)]
    assert result.finish_reason == "tool_calls"
    assert seen and seen[-1].content == "" and '"text": "It is on Tuesday."' in seen[-1].arguments
    assert all(len(a.arguments) < len(b.arguments) for a, b in zip(seen, seen[1:], strict=False))


def test_a_server_that_ignores_stream_answers_whole(server):
    server.script(CHAT, FakeResponse(json=chat_reply("whole"), stream=False))
    result, seen = streamed(make_client(server))
    assert result.content == "whole" and seen == []


def test_a_server_that_refuses_streaming_is_asked_again_without_it(server):
    server.script(CHAT, FakeResponse(status=400, json={"error": {"message": "streaming is not supported"}}),
                  FakeResponse(json=chat_reply("answered whole")))
    result, seen = streamed(make_client(server))

    assert result.content == "answered whole" and seen == []
    first, second = (r.body for r in server.requests_to(CHAT))
    assert first["stream"] is True and "stream" not in second and "stream_options" not in second
    assert result.degraded == ["stream"]


def test_an_upstream_error_is_not_blamed_on_streaming(server):
    """OpenRouter's 502 says "upstream": that is retried as the server's trouble, still streamed."""
    server.script(CHAT, FakeResponse(status=502, json={"error": {"message": "upstream provider error"}}),
                  FakeResponse(json=chat_reply("second try")))
    result, seen = streamed(make_client(server))
    assert result.content == "second try" and result.attempts == 2 and result.degraded == []
    assert all(r.body["stream"] is True for r in server.requests_to(CHAT))
    assert seen[-1].content == "second try"


def test_an_error_event_after_the_stream_started_is_a_typed_error(server):
    body = chat_reply("partial")
    body["error"] = {"code": 400, "message": "content filtered by the provider"}
    server.script(CHAT, FakeResponse(json=body))
    with pytest.raises(LLMResponseError) as caught:
        streamed(make_client(server, max_retries=0))
    assert "content filtered" in str(caught.value)


def test_a_slow_stream_ends_at_the_calls_deadline_with_what_was_said_so_far_told(server):
    server.script(CHAT, FakeResponse(json=chat_reply("one two three four five six seven"), piece_chars=4,
                                     event_delay=0.15))
    seen: list[StreamDelta] = []

    async def go():
        async with make_client(server, max_retries=0) as client:
            return await client.complete(USER, on_delta=seen.append, timeout=0.5)
    with pytest.raises(LLMTimeout):
        asyncio.run(go())
    assert 1 <= len(seen) < 8 and "one two three four five six seven".startswith(seen[-1].content)
