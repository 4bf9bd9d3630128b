"""Every LLM test talks real HTTP to FakeOpenAI on 127.0.0.1 (no patching of the client)."""

from __future__ import annotations

import pytest

from engine.http_retry import RetryPolicy
from engine.llm import CapabilityMemory, ChatClient, Endpoint
from tests.fake_openai import FakeOpenAI

KEY = "sk-or-v1-SECRET-test-key-0123456789"
CHAT = "/v1/chat/completions"
USER = [{"role": "user", "content": "Помнишь Петрова из ProjectX?"}]
TOOLS = [{"type": "function", "function": {
    "name": "get_topics_content", "description": "Load full topics",
    "parameters": {"type": "object", "properties": {"topic_ids": {"type": "array", "items": {"type": "integer"}}},
                   "required": ["topic_ids"]}}}]
FORCED = {"type": "function", "function": {"name": "get_topics_content"}}


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def make_client(server: FakeOpenAI, *, preset: str = "openrouter", api_key: str | None = KEY,
                memory: CapabilityMemory | None = None, **kwargs) -> ChatClient:
    """A client with tiny backoff so retry tests take milliseconds."""
    endpoint = Endpoint(base_url=server.base_url, api_key=api_key, model="test/model", preset=preset)
    kwargs.setdefault("retry", RetryPolicy(max_retries=kwargs.pop("max_retries", 2), initial_backoff=0.01,
                                           max_backoff=0.05))
    return ChatClient(endpoint, capabilities=memory, **kwargs)
