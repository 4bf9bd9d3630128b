"""The Ask flow's tests: the bundled demo built once into a real store, and a scripted model.

`ScriptedModel` answers the scripted server's chat requests by what each asks for: the
plan (a schema with "queries"), the answer (a schema with "claims", or free text when no
schema is sent), the verify call ("verdicts"); Flash's turns go to a `LocalServerModel`. A
schema request on a llama.cpp endpoint arrives as `json_object` + `schema`, on OpenRouter as
a forced tool call: both are read, so one script serves every preset.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import resources
from engine.api import Flashback
from engine.ask import AskDeps, AskSettings, ask, store_profile
from engine.http_retry import RetryPolicy
from engine.llm import ChatClient, Endpoint
from engine.rerank.threshold import ThresholdReranker
from engine.store.database import connect, db_path
from tests.fake_openai import FakeOpenAI, FakeResponse, LocalServerModel, RecordedRequest, chat_reply, tool_call

KEY = "sk-or-v1-ASK-SECRET-key-0123456789abcdef"
CHAT = "/v1/chat/completions"
NOW = datetime(2025, 11, 20, 12, 0, tzinfo=UTC)
FAST_RETRY = RetryPolicy(max_retries=1, initial_backoff=0.01, max_backoff=0.02)


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ask-store")
    service = Flashback(root / "data")
    service.imports.import_path(resources.demo_export())
    assert service.memory.build().topics_created > 50
    return root / "data"


@pytest.fixture(scope="session")
def service(data_dir) -> Flashback:
    return Flashback(data_dir)


@pytest.fixture(scope="session")
def _shared_server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def server(_shared_server):
    _shared_server.reset()
    yield _shared_server
    _shared_server.reset()


def schema_of(body: dict) -> tuple[str | None, dict | None]:
    """(name, schema) of a schema request in any form; (None, None) for a free-text request."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return fmt["json_schema"].get("name"), fmt["json_schema"]["schema"]
    if fmt.get("type") == "json_object" and "schema" in fmt:
        return None, fmt["schema"]
    if body.get("tools") and isinstance(body.get("tool_choice"), dict):
        function = body["tools"][0]["function"]
        return function["name"], function["parameters"]
    return None, None


def kind_of(body: dict) -> str:
    _, schema = schema_of(body)
    keys = set((schema or {}).get("properties", {}))
    if "queries" in keys:
        return "plan"
    if "claims" in keys:
        return "answer"
    if "verdicts" in keys:
        return "verify"
    if schema is not None or body.get("tools"):
        return "flash"
    return "answer"  # free text: the answer in text form


class ScriptedModel:
    """Replies per kind of request; a list is used in order (the last one repeats).
    A value may be a FakeResponse (a 500, a delay) or a callable of the request."""

    def __init__(self, plan: Any = None, answer: Any = None, verify: Any = None,
                 flash: Callable[[RecordedRequest], FakeResponse] | None = None) -> None:
        self.replies = {"plan": plan, "answer": answer, "verify": verify}
        self.flash = flash or LocalServerModel()
        self.seen: list[str] = []

    def __call__(self, request: RecordedRequest) -> FakeResponse:
        kind = kind_of(request.body)
        self.seen.append(kind)
        if kind == "flash":
            return self.flash(request)
        reply = self.replies[kind]
        if isinstance(reply, list):
            reply = reply.pop(0) if len(reply) > 1 else reply[0]
        if callable(reply) and not isinstance(reply, FakeResponse):
            reply = reply(request)
        if isinstance(reply, FakeResponse):
            return reply
        return respond(request.body, reply)


def respond(body: dict, value: Any) -> FakeResponse:
    """`value` (a dict for a schema request, a str for text) in the form the request asked for."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if body.get("tools") and isinstance(body.get("tool_choice"), dict):
        name = body["tools"][0]["function"]["name"]
        return FakeResponse(json=chat_reply(tool_calls=[tool_call(name, text)]))
    return FakeResponse(json=chat_reply(text))


def make_deps(service: Flashback, data_dir: Path, client: ChatClient | None, reranker=None,
              **overrides) -> AskDeps:
    connection = connect(db_path(data_dir))
    try:
        chats, languages = store_profile(connection)
    finally:
        connection.close()
    options = {"stage1": service.search.candidates, "reranker": reranker or ThresholdReranker(),
               "connect": lambda: connect(db_path(data_dir)), "embedder": service.memory.embedder(), "client": client,
               "chats": chats, "languages": languages, **overrides}
    return AskDeps(**options)


def endpoint(server: FakeOpenAI, preset: str = "llamacpp", key: str | None = KEY) -> Endpoint:
    return Endpoint(base_url=server.base_url, api_key=key, model="test/ask", preset=preset)


def run_ask(question: str, service, data_dir, server: FakeOpenAI | None, *, preset: str = "llamacpp",
            settings: AskSettings | None = None, reranker=None, cancel=None, on_step=None, on_answer_text=None,
            now: datetime = NOW, **overrides):
    """`ask()` on its own event loop, with a client on `server` (None: no model configured)."""
    async def go():
        if server is None:
            deps = make_deps(service, data_dir, None, reranker, **overrides)
            return await ask(question, deps, settings, now=now, cancel=cancel, on_step=on_step,
                             on_answer_text=on_answer_text)
        async with ChatClient(endpoint(server, preset), retry=FAST_RETRY) as client:
            deps = make_deps(service, data_dir, client, reranker, **overrides)
            return await ask(question, deps, settings, now=now, cancel=cancel, on_step=on_step,
                             on_answer_text=on_answer_text)
    return asyncio.run(go())


def bodies(server: FakeOpenAI) -> list[dict]:
    return [r.body for r in server.requests_to(CHAT)]


def message_id(data_dir: Path, text: str) -> int:
    connection = connect(db_path(data_dir))
    try:
        return connection.execute("SELECT id FROM message WHERE text LIKE ?", (f"%{text}%",)).fetchone()[0]
    finally:
        connection.close()


def numbers_citing(outcome, message: int) -> list[int]:
    """The source numbers whose messages include `message`."""
    return [s.number for s in outcome.sources if message in s.message_ids]


def source_number(body: dict, needle: str) -> int | None:
    """The [n] of the source in the answer prompt that holds `needle`."""
    prompt = body["messages"][-1]["content"]
    for block in prompt.split("\n\n"):
        match = re.match(r"\[(\d+)\] ", block)
        if match and needle in block:
            return int(match.group(1))
    return None


def citing(*claims: tuple[str, str], not_found: bool = False) -> Callable[[RecordedRequest], FakeResponse]:
    """A schema answer whose claims cite the sources holding each needle: (claim text, needle)."""
    def reply(request: RecordedRequest) -> FakeResponse:
        entries = [{"text": text, "citations": [source_number(request.body, needle) or 1]} for text, needle in claims]
        return respond(request.body, {"claims": entries, "not_found": not_found})
    return reply


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "real_llama: runs against a real local llama.cpp server "
                                       "(bench/llama_server.py builds the cache; skipped without it)")
