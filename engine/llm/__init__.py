"""LLM client for the agentic reranker: OpenAI-compatible chat completions with tools.

    endpoint = Endpoint.from_preset("openrouter", api_key=key)
    async with ChatClient(endpoint) as client:
        result = await client.complete(messages, tools=tools, tool_choice=forced,
                                       reasoning_effort="low", timeout=deadline.turn_timeout(30))
"""

from typing import TYPE_CHECKING

from engine.lazy import lazy_exports

if TYPE_CHECKING:
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
    from engine.llm.stream import OnDelta, StreamDelta
    from engine.llm.types import ChatResult, ToolCall, Usage

# Loaded on first use (PEP 562): presets and endpoints are read by every face's option code, which
# must not bring the HTTP client into a plain search (issue 26: a cold `flashback search`).
_WHERE: dict[str, str] = {name: f"{__name__}.{module}" for module, names in (
    ("capabilities", ("CapabilityMemory", "EndpointCapabilities")),
    ("client", ("ChatClient",)),
    ("errors", ("LLMAuthError", "LLMBadRequest", "LLMCancelled", "LLMConnectionError", "LLMError",
               "LLMRateLimited", "LLMResponseError", "LLMServerError", "LLMTimeout")),
    ("presets", ("Endpoint", "PRESETS", "Preset", "get_preset", "openrouter_attribution")),
    ("retry", ("Deadline",)),
    ("stream", ("OnDelta", "StreamDelta")),
    ("types", ("ChatResult", "ToolCall", "Usage")),
) for name in names}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)


__all__ = [
    "PRESETS", "CapabilityMemory", "ChatClient", "ChatResult", "Deadline", "Endpoint", "EndpointCapabilities",
    "LLMAuthError", "LLMBadRequest", "LLMCancelled", "LLMConnectionError", "LLMError", "LLMRateLimited",
    "LLMResponseError", "LLMServerError", "LLMTimeout", "OnDelta", "Preset", "StreamDelta", "ToolCall", "Usage",
    "get_preset",
    "openrouter_attribution",
]
