"""LLM client for the agentic reranker: OpenAI-compatible chat completions with tools.

    endpoint = Endpoint.from_preset("openrouter", api_key=key)
    async with ChatClient(endpoint) as client:
        result = await client.complete(messages, tools=tools, tool_choice=forced,
                                       reasoning_effort="low", timeout=deadline.turn_timeout(30))
"""

from engine.llm.capabilities import CapabilityMemory, EndpointCapabilities
from engine.llm.client import ChatClient
from engine.llm.errors import (
    LLMAuthError,
    LLMBadRequest,
    LLMCancelled,
    LLMConnectionError,
    LLMError,
    LLMRateLimited,
    LLMResponseError,
    LLMServerError,
    LLMTimeout,
)
from engine.llm.presets import PRESETS, Endpoint, Preset, get_preset, openrouter_attribution
from engine.llm.retry import Deadline
from engine.llm.types import ChatResult, ToolCall, Usage

__all__ = [
    "PRESETS", "CapabilityMemory", "ChatClient", "ChatResult", "Deadline", "Endpoint", "EndpointCapabilities",
    "LLMAuthError", "LLMBadRequest", "LLMCancelled", "LLMConnectionError", "LLMError", "LLMRateLimited",
    "LLMResponseError", "LLMServerError", "LLMTimeout", "Preset", "ToolCall", "Usage", "get_preset",
    "openrouter_attribution",
]
