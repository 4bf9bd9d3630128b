"""Endpoint presets: where each provider lives and which request shape it accepts.

No real endpoint is reachable from the build machine, so every flag below comes from the
provider's public documentation (or its source / bug tracker where the docs are silent);
the source is named next to each preset. Flags only set the *first* request's shape; a
server that still rejects a feature is handled by degrading (see `request.py`) and the
result is remembered per endpoint (`capabilities.py`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from engine.messages import Message

ReasoningStyle = Literal["openrouter", "openai", "none"]
# How the Flash reranker runs its two turns on this server (engine/rerank/flash/protocol.py):
# "tools" = the seeds' forced get_topics_content call; "constrained" = both turns asked
# through response_format json_schema, for servers that enforce schemas (a grammar) but
# not a forced tool call.
FlashProtocol = Literal["tools", "constrained"]


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    label: str  # how messages name the server: "Could not reach Ollama at ..."
    base_url: str
    default_model: str
    needs_key: bool
    # How `reasoning_effort` is sent: OpenRouter `reasoning: {"effort": e}`, OpenAI
    # `reasoning_effort: e`, or not at all (reported in `ChatResult.degraded`).
    reasoning: ReasoningStyle
    tool_choice: bool = True  # the server honours `tool_choice` at all
    named_tool_choice: bool = True  # ... including {"type": "function", "function": {...}}
    json_object: bool = True  # accepts response_format {"type": "json_object"}
    # OpenRouter: ask for usage accounting (usage.cost, reasoning tokens) in the body.
    usage_include: bool = False
    # Where the reply bound goes: OpenAI's reasoning models refuse `max_tokens` and want
    # `max_completion_tokens`; every other server here documents `max_tokens`.
    token_field: str = "max_tokens"
    # The server forces a named or "required" tool call; when it does not (or is not known
    # to), Flash uses constrained turns. Learned evidence overrides this per endpoint.
    flash_protocol: FlashProtocol = "tools"
    # Runs on the user's machine: CPU-speed budgets, one build request at a time.
    local: bool = False
    # Send a JSON schema as `{"type": "json_object", "schema": …}` instead of OpenAI's
    # `{"type": "json_schema", "json_schema": {"schema": …}}`.
    schema_as_json_object: bool = False

    def label_message(self) -> Message:
        """`label` as a code, for a face to say in its language ("the LLM server" is words, not a name)."""
        return Message(f"llm.preset.{self.name}", {"label": self.label})


# OpenRouter
# - Reasoning: docs "Reasoning Tokens" (openrouter.ai/docs/use-cases/reasoning-tokens):
#   `reasoning: {"effort": "high"|"medium"|"low"|...}`; the reply carries `message.reasoning`.
# - Usage: docs "Usage Accounting": usage (tokens, `cost` in credits, reasoning tokens in
#   `completion_tokens_details`) is now in every response and `usage: {include: true}` is
#   "deprecated and has no effect". Sent anyway: harmless there, and older deployments and
#   proxies (e.g. lean-ctx's usage_accounting notes) still key `usage.cost` on it.
# - Errors: docs "Errors and Debugging": `{"error": {"code", "message", "metadata"}}`; once
#   generation has started the status is 200 and the error is in the body; 402 = no
#   credits; Retry-After may come with 429/503.
# - tool_choice: SDK docs "ToolChoiceSupport" list auto/none/required/named function per
#   model endpoint; "Structured Outputs" supports `response_format` per model. Gemini cannot
#   combine a forced tool_choice with json_object (seed 000), which the reranker avoids.
# - Attribution: docs "App Attribution": optional `HTTP-Referer` and `X-OpenRouter-Title`
#   (`X-Title` still accepted); opt-in here via `openrouter_attribution`.
OPENROUTER = Preset(
    name="openrouter", label="OpenRouter", base_url="https://openrouter.ai/api/v1",
    default_model="google/gemini-3-flash-preview", needs_key=True, reasoning="openrouter",
    usage_include=True,
)

# OpenAI: API reference (chat/create): tool_choice none/auto/required/named function (the
# model "must call" it: enforced, so the seeds' protocol), `max_completion_tokens` (`max_tokens`
# is "deprecated in favor of max_completion_tokens, and is not compatible with o-series models"),
# response_format text/json_object/json_schema, `reasoning_effort` for reasoning models
# (none/minimal/low/medium/high/xhigh depending on model; others reject it with a 400,
# which degrading handles). No `usage` request field: unknown top-level fields are a 400.
OPENAI = Preset(
    name="openai", label="OpenAI", base_url="https://api.openai.com/v1",
    default_model="gpt-5-mini", needs_key=True, reasoning="openai", token_field="max_completion_tokens",
)

# Ollama: docs "OpenAI compatibility" (docs.ollama.com/api/openai-compatibility, repo
# docs/api/openai-compatibility.mdx): supports `response_format` (JSON mode), `tools`,
# `reasoning_effort` / `reasoning.effort` ("high"/"medium"/"low"/"none"); `tool_choice` is
# listed as NOT supported, so it is left out and reported as degraded. The key is
# "required but ignored" by OpenAI SDKs; we simply send no Authorization header.
# Nothing forces a tool call, but structured outputs (docs "Structured outputs": a JSON
# schema in `format`, `response_format` json_schema on /v1) constrain decoding: constrained
# turns. `max_tokens` is listed as supported.
OLLAMA = Preset(
    name="ollama", label="Ollama", base_url="http://localhost:11434/v1",
    default_model="qwen3:8b", needs_key=False, reasoning="openai", tool_choice=False,
    flash_protocol="constrained", local=True,
)

# llama.cpp server: tools/server/README.md: `response_format` supports `{"type":
# "json_object"}` and JSON schemas; tools need `--jinja`. common/chat.cpp
# `common_chat_tool_choice_parse_oaicompat` only knows "auto"/"none"/"required"; a named
# object is not parsed and is silently treated as "auto" (also noted by the
# langchain-llama-cpp PyPI page), so a forced function is sent as "required". Reasoning is
# a server flag (`--reasoning-format`, `chat_template_kwargs`), not a request field.
# Measured (docs/llm_servers.md): llama-server accepts "required" but does not enforce it
# (SmolLM2 answered in prose) while `response_format` json_schema is a grammar it always
# enforces; llama-cpp-python's server (same preset) enforces a named tool_choice only.
# Both honour `max_tokens`. So: constrained turns. The schema goes as `json_object` +
# `schema`: the one form both accept (llama-server's README lists it beside `json_schema`;
# llama-cpp-python's ResponseFormat is only 'text' | 'json_object' with an optional schema,
# and `json_schema` is a 500 there, measured).
LLAMA_CPP = Preset(
    name="llamacpp", label="llama.cpp server", base_url="http://localhost:8080/v1",
    default_model="local", needs_key=False, reasoning="none", named_tool_choice=False,
    flash_protocol="constrained", local=True, schema_as_json_object=True,
)

# LM Studio: docs developer/openai-compat (chat-completions, tools, structured-output):
# tools supported; structured output only as `json_schema`: `json_object` is a 400
# "'response_format.type' must be 'json_schema' or 'text'" (bug tracker #189);
# tool_choice only as a string: "Invalid tool_choice type: 'object'. Supported string
# values: none, auto, required" (lmstudio-ai/docs#177). Reasoning effort exists only on
# /v1/responses, so none is sent on chat completions. Its structured output is enforced
# (docs "Structured Output": the schema is applied by grammar / Outlines) while a tool call
# is only what the model chooses to emit: constrained turns.
LM_STUDIO = Preset(
    name="lmstudio", label="LM Studio", base_url="http://localhost:1234/v1",
    default_model="local-model", needs_key=False, reasoning="none",
    named_tool_choice=False, json_object=False, flash_protocol="constrained", local=True,
)

# Any other OpenAI-compatible server: assume the OpenAI request shape, degrade on demand,
# switch Flash to constrained turns the first time a forced call is ignored. It counts as
# local (budgets, build concurrency) when its address is (see `Endpoint.is_local`).
CUSTOM = Preset(
    name="custom", label="the LLM server", base_url="", default_model="",
    needs_key=False, reasoning="openai",
)

PRESETS: dict[str, Preset] = {p.name: p for p in (OPENROUTER, OPENAI, OLLAMA, LLAMA_CPP, LM_STUDIO, CUSTOM)}


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ValueError(f"Unknown LLM preset {name!r}; choose one of: {known}") from None


def openrouter_attribution(app_url: str, title: str = "Flashback") -> dict[str, str]:
    """Optional OpenRouter app-attribution headers; sent only if the user opts in."""
    return {"HTTP-Referer": app_url, "X-OpenRouter-Title": title, "X-Title": title}


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where to send chat completions. Any base URL and model name work with any preset.

    `api_key` is kept out of `repr` so an endpoint can be logged; None or "" means keyless
    (no Authorization header), which local servers accept.
    """

    base_url: str = ""
    api_key: str | None = field(default=None, repr=False)
    model: str = ""
    preset: str = "custom"
    extra_headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_preset(cls, name: str, *, api_key: str | None = None, model: str = "", base_url: str = "",
                    extra_headers: Mapping[str, str] | None = None) -> Endpoint:
        preset = get_preset(name)
        return cls(base_url=base_url or preset.base_url, api_key=api_key, model=model or preset.default_model,
                   preset=name, extra_headers=dict(extra_headers or {}))

    @property
    def spec(self) -> Preset:
        return get_preset(self.preset)

    @property
    def url(self) -> str:
        return (self.base_url or self.spec.base_url).rstrip("/")

    @property
    def default_model(self) -> str:
        return self.model or self.spec.default_model

    @property
    def is_local(self) -> bool:
        """A local preset, or a custom server on this machine or the local network (a cloud
        preset pointed at localhost is a proxy or a test double: it keeps its cloud budgets)."""
        return self.spec.local or (self.preset == "custom" and is_local_url(self.url))


def is_local_url(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host in ("localhost", "host.docker.internal") or host.endswith((".local", ".localhost", ".lan")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local
