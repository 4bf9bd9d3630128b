"""The chat model the Archivist calls: one blocking call per topic on the user's endpoint.

The reply's schema goes the way Flash and Ask send theirs: as `response_format: json_schema`
where the server turns schemas into a grammar (llama.cpp, Ollama, LM Studio), else as a
forced function call (OpenAI, OpenRouter); which one is the endpoint's learned protocol or
its preset's. The reply is read leniently (a fenced or wrapped object). Any LLM trouble comes
back as a `ModelReply` without a value and with the reason, never as an exception: the run
leaves that topic unread and goes on.
"""

from __future__ import annotations

from typing import Any

from engine.facts.extract import REPLY_TOKENS, ModelReply, schema_options
from engine.llm import ChatClient, Endpoint, LLMError
from engine.topics.agents import AgentLoop, parse_json_object
from engine.topics.errors import AgentError

DEFAULT_TIMEOUT_S = 120.0  # per topic: a long topic is a long prompt for a small local model


class ArchivistModel:
    """`model(system, user, schema) -> ModelReply`; close it (or use `with`) when done."""

    def __init__(self, endpoint: Endpoint, *, timeout: float = DEFAULT_TIMEOUT_S, max_tokens: int = REPLY_TOKENS,
                 **client_options: Any) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.loop = AgentLoop()
        self.client = ChatClient(endpoint, **client_options)
        learned = self.client.capabilities_for(endpoint.default_model).flash_protocol
        self.protocol = learned or self.client.preset.flash_protocol

    def __call__(self, system: str, user: str, schema: dict[str, Any]) -> ModelReply:
        return self.loop.run(self._call(system, user, schema))

    async def _call(self, system: str, user: str, schema: dict[str, Any]) -> ModelReply:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        try:
            result = await self.client.complete(messages, model=self.endpoint.default_model, timeout=self.timeout,
                                                max_tokens=self.max_tokens, **schema_options(self.protocol, schema))
        except LLMError as exc:
            return ModelReply(None, error=str(exc))
        reply = ModelReply(None, result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.cost)
        calls = [c.arguments for c in result.tool_calls if c.name == "archivist" and c.arguments is not None]
        if calls:
            reply.value = calls[0]
            return reply
        try:
            reply.value = parse_json_object(result.content)
        except AgentError as exc:
            reply.error = exc.reason
        return reply

    def close(self) -> None:
        self.loop.close(self.client)

    def __enter__(self) -> ArchivistModel:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
