"""One bounded model call per step, JSON under a schema or free text, never an exception for LLM trouble.

A schema goes the way Flash sends its turns (engine/rerank/flash/protocol.py): as
`response_format: json_schema` where the server turns schemas into a grammar (llama.cpp,
Ollama, LM Studio: "constrained"), or as a forced call of a function whose parameters are
the schema where the server enforces forced calls (OpenAI, OpenRouter: "tools"). Either
way the reply is read leniently (fences, prose around the JSON, a reply cut at its bound)
and a failure comes back as a named reason: timeout, llm_error, empty_response,
protocol_violation, parse_error.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from engine.llm import ChatClient, ChatResult, LLMConnectionError, LLMError, LLMTimeout, OnDelta
from engine.messages import Message, msg
from engine.rerank.flash.errors import AnswerError
from engine.rerank.flash.parser import close_cut_json, extract_json
from engine.rerank.flash.protocol import choose_protocol

CALL_REASONS = ("timeout", "unreachable", "llm_error", "empty_response", "protocol_violation", "parse_error")
# What a tool's parameters may not carry where the provider reads them as Gemini's schema
# subset (OpenRouter's default model): `additionalProperties` and string lengths are unknown
# fields there, and an `enum` of integers is a 400 ("enum: only allowed for STRING type").
# The reply is checked after anyway (every reader keeps only known chats, sources and claims).
_LOOSE_DROP = ("additionalProperties", "minLength", "maxLength")


@dataclass
class CallOutcome:
    value: Any = None  # the parsed JSON (schema calls) or the text (text calls); None on failure
    reason: str | None = None  # one of CALL_REASONS when the call gave nothing usable
    error: str | None = None  # in words (English, for the trace)
    error_message: Message | None = None  # the same as a code, for a note a face renders
    protocol: str = "text"  # constrained | tools | text
    ms: float = 0.0  # the model's time: the HTTP call, retries included
    usage: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)  # request and reply (or error), for the trace
    finish_reason: str | None = None
    raw_text: str = ""  # a schema call's reply as written, kept when it could not be read (a cut reply)

    @property
    def ok(self) -> bool:
        return self.reason is None

    def fail(self, reason: str, error: Message) -> CallOutcome:
        self.reason, self.error, self.error_message = reason, str(error), error
        return self


def call_reason(error: LLMError) -> str:
    """A failed call's reason: a server never reached (refused, no route) is not one that
    answered with an error, and the person is told so (issue 31)."""
    if isinstance(error, LLMTimeout):
        return "timeout"
    return "unreachable" if isinstance(error, LLMConnectionError) else "llm_error"


def schema_protocol(client: ChatClient, model: str | None) -> str:
    """"constrained" where the server enforces a schema as a grammar, else "tools"."""
    return choose_protocol("auto", client, model).protocol


def tool_parameters(schema: Any) -> Any:
    """`schema` as a forced tool's parameters: the fields Gemini refuses left out, an integer
    enum said in the description instead."""
    if isinstance(schema, list):
        return [tool_parameters(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    loose = {key: tool_parameters(value) for key, value in schema.items() if key not in _LOOSE_DROP}
    enum = loose.get("enum")
    if isinstance(enum, list) and enum and not all(isinstance(v, str) for v in enum):
        loose.pop("enum")
        loose["description"] = f"one of {', '.join(map(str, enum[:50]))}"
    return loose


def _usage(result: ChatResult, ms: float) -> dict[str, Any]:
    return {"prompt_tokens": result.usage.prompt_tokens, "completion_tokens": result.usage.completion_tokens,
            "cost": result.usage.cost, "model_ms": round(ms, 2)}


async def _complete(client: ChatClient, messages: list[dict], options: dict[str, Any], *, model: str | None,
                    timeout: float, protocol: str,
                    on_delta: OnDelta | None = None) -> tuple[ChatResult | None, CallOutcome]:
    outcome = CallOutcome(protocol=protocol)
    if timeout <= 0:
        outcome.fail("timeout", msg("ask.call.no_time"))
        outcome.record = {"request": None, "response": None, "error": outcome.error}
        return None, outcome
    started = time.perf_counter()
    try:
        result = await client.complete(messages, model=model, timeout=timeout, on_delta=on_delta, **options)
    except LLMError as exc:
        outcome.ms = (time.perf_counter() - started) * 1000
        outcome.fail(call_reason(exc), exc.message)
        outcome.usage = {"model_ms": round(outcome.ms, 2)}
        outcome.record = {"request": {"intended": True, "model": model, "messages": messages, **options,
                                      "timeout": round(timeout, 3)}, "response": None, "error": str(exc)}
        return None, outcome
    outcome.ms = result.duration_ms
    outcome.usage = _usage(result, result.duration_ms)
    outcome.finish_reason = result.finish_reason
    outcome.record = {"request": dict(result.raw_request), "response": result.raw_response, "error": None,
                      "degraded": list(result.degraded), "model": result.model}
    return result, outcome


async def schema_call(client: ChatClient, messages: list[dict], schema: dict[str, Any], *, name: str,
                      description: str, max_tokens: int, timeout: float, model: str | None = None,
                      on_delta: OnDelta | None = None) -> CallOutcome:
    """A JSON object under `schema` (value: dict), through the server's enforced form."""
    protocol = schema_protocol(client, model)
    if protocol == "constrained":
        options: dict[str, Any] = {"response_format": {"type": "json_schema",
                                                       "json_schema": {"name": name, "schema": schema}}}
    else:
        options = {"tools": [{"type": "function", "function": {"name": name, "description": description,
                                                               "parameters": tool_parameters(schema)}}],
                   "tool_choice": {"type": "function", "function": {"name": name}}}
    result, outcome = await _complete(client, messages, {**options, "max_tokens": max_tokens}, model=model,
                                      timeout=timeout, protocol=protocol, on_delta=on_delta)
    if result is None:
        return outcome
    calls = [c for c in result.tool_calls if c.name == name and c.arguments is not None]
    if calls:
        outcome.value = calls[0].arguments
        return outcome
    text = result.content or ""
    unreadable = [c.arguments_raw for c in result.tool_calls if c.name == name and c.arguments_raw]
    outcome.raw_text = text or (unreadable[0] if unreadable else "")
    if not text.strip():
        if protocol == "tools":
            return outcome.fail("protocol_violation", msg("ask.call.no_call", name=name))
        return outcome.fail("empty_response", msg("ask.call.no_text"))
    closed = close_cut_json(text) if result.finish_reason == "length" else None
    try:
        value = extract_json(closed or text)
    except AnswerError:
        cut = result.finish_reason == "length"
        return outcome.fail("parse_error", msg("ask.call.not_json_cut" if cut else "ask.call.not_json"))
    if not isinstance(value, dict):
        return outcome.fail("parse_error", msg("ask.call.not_an_object"))
    outcome.value = value
    return outcome


async def text_call(client: ChatClient, messages: list[dict], *, max_tokens: int, timeout: float,
                    model: str | None = None, on_delta: OnDelta | None = None) -> CallOutcome:
    """Free text (value: str)."""
    result, outcome = await _complete(client, messages, {"max_tokens": max_tokens}, model=model, timeout=timeout,
                                      protocol="text", on_delta=on_delta)
    if result is None:
        return outcome
    if not (result.content or "").strip():
        return outcome.fail("empty_response", msg("ask.call.no_text"))
    outcome.value = result.content
    return outcome
