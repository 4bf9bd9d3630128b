"""`flashback mcp` with a chat model: Flash and ask_memory through the scripted OpenAI-compatible
server on 127.0.0.1, the endpoint and model taken from the window's saved settings, the API key
from the server's environment, and the key nowhere in a result, the log, stderr or the store."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from engine.api import Flashback
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply, tool_call
from tests.mcp_client import CLIENT, error_text, session_run, structured, write_window_settings

KEY = "sk-or-v1-mcp-test-key-0123456789abcdef"
CHAT = "/v1/chat/completions"
MODEL = "test/window-model"


def flash_model(request: RecordedRequest) -> FakeResponse:
    """Turn 1 loads the first three topic candidates; turn 2 keeps the first two of them."""
    messages = request.body["messages"]
    shown = [int(i) for i in re.findall(r"\[Topic:(\d+)\]", messages[1]["content"])]
    if not any(m["role"] == "tool" for m in messages):
        return FakeResponse(json=chat_reply(tool_calls=[tool_call("get_topics_content", {"topic_ids": shown[:3]})]))
    answer = {"topic_ids": [{"id": f"Topic:{i}", "reason": f"the model read it ({n})"}
                            for n, i in enumerate(shown[:2])]}
    return FakeResponse(json=chat_reply("```json\n" + json.dumps(answer) + "\n```"))


def _schema(body: dict) -> dict:
    """The JSON schema a request asks for, as a forced tool (OpenRouter) or a response_format."""
    if body.get("tools") and isinstance(body.get("tool_choice"), dict):
        return body["tools"][0]["function"]["parameters"]
    form = body.get("response_format") or {}
    return (form.get("json_schema") or {}).get("schema") or form.get("schema") or {}


def _reply(body: dict, value: dict) -> FakeResponse:
    text = json.dumps(value, ensure_ascii=False)
    if body.get("tools") and isinstance(body.get("tool_choice"), dict):
        return FakeResponse(json=chat_reply(tool_calls=[tool_call(body["tools"][0]["function"]["name"], text)]))
    return FakeResponse(json=chat_reply(text))


def ask_model(request: RecordedRequest) -> FakeResponse:
    """Plan: two sub-queries; answer: one claim citing the source that holds the hotel's name, one
    citing a source that says nothing of the kind (so the verifier has both to judge). Under a
    schema where the endpoint is known to enforce one, else as text with [n] markers."""
    body = request.body
    keys = set(_schema(body).get("properties", {}))
    if "queries" in keys:
        return _reply(body, {"queries": {"en": ["hotel booked in Lisbon"], "ru": ["отель в Лиссабоне"]}, "dates": ""})
    prompt = body["messages"][-1]["content"]
    blocks = [block for block in prompt.split("\n\n") if re.match(r"\[\d+\] ", block)]
    numbers = [int(block[1:block.index("]")]) for block in blocks]
    holding = next((n for n, block in zip(numbers, blocks, strict=True) if "Casa dos Remédios" in block), numbers[0])
    claims = [("You booked Casa dos Remédios in Alfama", holding),
              ("The hotel had a rooftop pool shaped like a guitar", numbers[-1])]
    if "claims" in keys:
        return _reply(body, {"not_found": False, "claims": [{"text": t, "citations": [n]} for t, n in claims]})
    return FakeResponse(json=chat_reply(" ".join(f"{text} [{n}]." for text, n in claims)))


@pytest.fixture(scope="module")
def server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def store(built_demo, server, tmp_path):
    server.reset()
    data = shutil.copytree(built_demo, tmp_path / "data")
    write_window_settings(data, {"preset": "openrouter", "base_url": server.base_url, "model": MODEL,
                                 "max_tool_calls": "2"})
    return data


def leaks(data, tmp_path) -> list[str]:
    """Where the key was found: the log, the server's stderr, the store's files."""
    places = {"log": data / "logs" / "flashback.log", "stderr": tmp_path / "err.log"}
    found = [name for name, path in places.items() if path.exists() and KEY in path.read_text(errors="replace")]
    store_bytes = b"".join(p.read_bytes() for p in data.iterdir() if p.is_file())
    return found + (["store"] if KEY.encode() in store_bytes else [])


def test_flash_search_uses_the_windows_endpoint_and_model(store, server, tmp_path):
    server.handle(CHAT, flash_model)

    async def work(session):
        return await session.call_tool("search_memory", {"query": "hotel in Lisbon", "reranker": "flash"})
    result = session_run(store, tmp_path / "err.log", work, env={"FLASHBACK_API_KEY": KEY})
    found = structured(result)
    assert found["reranker"] == "flash" and found["fallback"] is None
    assert [item["reason"] for item in found["selected"]] == ["the model read it (0)", "the model read it (1)"]
    sent = server.requests_to(CHAT)
    assert {r.body["model"] for r in sent} == {MODEL} and sent[0].headers["Authorization"] == f"Bearer {KEY}"
    run = Flashback(store).runs.get(found["run_id"])
    assert run.reranker == "flash" and run.client == CLIENT and run.settings["reranker"]["max_tool_calls"] == 2
    assert KEY not in json.dumps(found) + result.content[0].text
    assert leaks(store, tmp_path) == []


def test_flash_that_fails_falls_back_and_says_why(store, server, tmp_path):
    server.handle(CHAT, lambda request: FakeResponse(status=401, json={"error": {"message": f"bad key {KEY}"}}))

    async def work(session):
        return await session.call_tool("search_memory", {"query": "hotel in Lisbon", "reranker": "flash"})
    result = session_run(store, tmp_path / "err.log", work, env={"FLASHBACK_API_KEY": KEY})
    found = structured(result)
    assert found["fallback"] == "llm_error" and found["selected"] and found["notes"]
    assert KEY not in json.dumps(found) + result.content[0].text
    assert leaks(store, tmp_path) == []


def test_ask_memory_answers_with_numbered_sources_and_verified_claims(store, server, tmp_path):
    server.handle(CHAT, ask_model)

    async def work(session):
        return structured(await session.call_tool("ask_memory", {"question": "Which hotel did we book in Lisbon?",
                                                                 "chat": "Dan Whitfield"}))
    found = session_run(store, tmp_path / "err.log", work, env={"FLASHBACK_API_KEY": KEY})
    assert found["model"] == MODEL and found["fallback"] is None and found["answer"]
    assert [s["number"] for s in found["sources"]] == list(range(1, len(found["sources"]) + 1))
    assert all(s["chat"] == "Dan Whitfield" for s in found["sources"])
    right, wrong = found["claims"]
    assert right["verified"] is True and wrong["verified"] is False
    assert f"[{right['citations'][0]}]" in found["answer"]
    run = Flashback(store).runs.get(found["run_id"])
    assert run.reranker == "ask" and run.client == CLIENT
    assert KEY not in json.dumps(found) and leaks(store, tmp_path) == []


def test_without_a_key_flash_is_refused_and_ask_gives_the_sources(store, server, tmp_path):
    async def work(session):
        return (error_text(await session.call_tool("search_memory", {"query": "hotel", "reranker": "flash"})),
                structured(await session.call_tool("ask_memory", {"question": "Which hotel did we book?"})))
    refused, asked = session_run(store, tmp_path / "err.log", work)
    assert refused.startswith("No API key for openrouter") and "FLASHBACK_API_KEY" in refused
    assert asked["answer"] is None and asked["sources"] and server.requests_to(CHAT) == []


def test_cross_encoder_search_uses_the_windows_rerank_server(built_demo, tmp_path):
    """search_memory's `cross-encoder`: the rerank server, URL and rules saved in the window's
    Settings → Cross-encoder (a scripted llama.cpp /v1/rerank on 127.0.0.1), recorded as such;
    a custom server without a URL is refused in one sentence, nothing sent."""
    from tests.fake_rerank import FakeRerank

    data = shutil.copytree(built_demo, tmp_path / "data")
    with FakeRerank() as rerank:
        path = rerank.serve("llamacpp", logits=True)
        write_window_settings(data, {"rerank_preset": "llamacpp", "rerank_url": rerank.root, "ce_top_k": "2",
                                     "ce_skip_small": "false", "ce_skip_flat": "false"})

        async def work(session):
            return structured(await session.call_tool("search_memory", {"query": "hotel in Lisbon",
                                                                        "reranker": "cross-encoder"}))
        found = session_run(data, tmp_path / "err.log", work)
        assert found["reranker"] == "cross-encoder" and found["fallback"] is None
        topics = [item for item in found["selected"] if item["kind"] == "topic"]
        assert 1 <= len(topics) <= 2 and all(item["reason"].startswith("cross-encoder score") for item in topics)
        assert len(rerank.requests_to(path)) == 1
        run = Flashback(data).runs.get(found["run_id"])
        assert run.reranker == "cross-encoder" and run.client == CLIENT

        write_window_settings(data, {"rerank_preset": "custom", "rerank_url": ""})

        async def refused(session):
            return error_text(await session.call_tool("search_memory", {"query": "hotel",
                                                                        "reranker": "cross-encoder"}))
        said = session_run(data, tmp_path / "err2.log", refused)
        assert "URL" in said and "Cross-encoder" in said and len(rerank.requests_to(path)) == 1
