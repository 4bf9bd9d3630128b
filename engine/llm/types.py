"""What a chat completion returns, parsed from the OpenAI-compatible JSON body."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine.messages import Message, msg


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments_raw: str  # exactly what the model produced, for traces and error reports
    arguments: dict[str, Any] | None  # None when `arguments_raw` is not a JSON object


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cost: float | None = None  # OpenRouter's `usage.cost` (credits ≈ USD); None elsewhere
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None


@dataclass(slots=True)
class ChatResult:
    """One completed call.

    `degraded` lists what the server was not given although the caller asked for it:
    "tool_choice:required" / "tool_choice:auto" (a forced function was weakened to that),
    "tool_choice:omitted" (the server ignores tool_choice), "response_format", "reasoning",
    "max_tokens:<field>" (the reply bound was sent under another name) or "max_tokens".
    The reranker treats any "tool_choice:*" entry as "forcing was not guaranteed" and
    relies on its protocol-violation check.
    """

    content: str | None
    tool_calls: list[ToolCall]
    usage: Usage
    finish_reason: str | None
    reasoning: str | None
    model: str | None  # the model that actually answered (OpenRouter may route)
    raw_request: dict[str, Any]  # the JSON body of the last attempt; never headers or key
    raw_response: dict[str, Any]
    duration_ms: float
    attempts: int
    degraded: list[str] = field(default_factory=list)
    # What the server refused on the way, as "tool_choice (400)": the difference between a
    # feature the server *rejected* and one it accepted but *ignored* (see the reranker's notes).
    rejected: list[str] = field(default_factory=list)

    def as_message(self) -> dict[str, Any]:
        """The assistant message to append before sending tool results back.

        `content` is "" rather than null when the model only called tools: OpenAI allows
        null, but llama-cpp-python's server answers null with a 500 (pydantic validation),
        and every server accepts the empty string.
        """
        message: dict[str, Any] = {"role": "assistant", "content": self.content or ""}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_raw}}
                for c in self.tool_calls
            ]
        return message


class MalformedCompletion(ValueError):
    """The body parsed as JSON but is not a usable chat completion; the client rewraps it
    (`message` says what is wrong, as a code)."""

    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


def parse_tool_call(raw: Any, index: int) -> ToolCall:
    if not isinstance(raw, dict):
        raise MalformedCompletion(msg("llm.completion.call_not_an_object", index=index))
    given_function = raw.get("function")
    function = given_function if isinstance(given_function, dict) else {}
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise MalformedCompletion(msg("llm.completion.call_without_name", index=index))
    args = function.get("arguments")
    if isinstance(args, dict):  # some local servers send the object itself
        arguments_raw, parsed = json.dumps(args, ensure_ascii=False), args
    else:
        arguments_raw = args if isinstance(args, str) else ""
        try:
            parsed = json.loads(arguments_raw) if arguments_raw.strip() else {}
        except json.JSONDecodeError:
            parsed = None
    # Servers that omit ids still need one: the tool reply must quote it.
    given_id = raw.get("id")
    call_id = given_id if isinstance(given_id, str) and given_id else f"call_{index}"
    return ToolCall(call_id, name, arguments_raw, parsed if isinstance(parsed, dict) else None)


def parse_usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    completion_details = raw.get("completion_tokens_details") or {}
    prompt_details = raw.get("prompt_tokens_details") or {}
    cost = raw.get("cost")
    return Usage(
        prompt_tokens=_int(raw.get("prompt_tokens")),
        completion_tokens=_int(raw.get("completion_tokens")),
        total_tokens=_int(raw.get("total_tokens")),
        cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
        reasoning_tokens=_opt_int(completion_details.get("reasoning_tokens") if isinstance(completion_details, dict)
                                  else None),
        cached_tokens=_opt_int(prompt_details.get("cached_tokens") if isinstance(prompt_details, dict) else None),
    )


def parse_choice(body: dict[str, Any]) -> tuple[str | None, list[ToolCall], str | None, str | None]:
    """(content, tool_calls, finish_reason, reasoning) of the first choice."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedCompletion(msg("llm.completion.no_choices"))
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise MalformedCompletion(msg("llm.completion.no_message"))
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise MalformedCompletion(msg("llm.completion.calls_not_a_list"))
    tool_calls = [parse_tool_call(c, i) for i, c in enumerate(calls)]
    # OpenRouter and Ollama say `reasoning`; llama.cpp, vLLM and DeepSeek `reasoning_content`.
    reasoning = message.get("reasoning") or message.get("reasoning_content")
    finish = choice.get("finish_reason")
    return (_text(message.get("content")), tool_calls, finish if isinstance(finish, str) else None,
            reasoning if isinstance(reasoning, str) else None)


def _text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return str(content)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _opt_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
