"""The request body of one call, and how it is weakened when a server rejects a feature.

Providers differ in what they accept (see `presets.py`). Rather than fail every call, a
400/404/422 that names `tool_choice`, `response_format`, reasoning, the reply bound or
streaming drops or weakens that one feature and the call is sent again; a forced tool_choice steps down
function → "required" → "auto", the bound is renamed (max_tokens ↔ max_completion_tokens)
before it is dropped. A 5xx that names one of them is treated the same way (llama-cpp-python
answers a request it cannot validate with a 500): each feature at most once per level.
What was weakened ends up in `ChatResult.degraded`, and
what the server refused in `learned`, which the client stores only once a weakened
request has succeeded (so a 400 caused by something else teaches nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.llm.capabilities import TOKEN_FIELDS, TOOL_CHOICE_LEVELS, EndpointCapabilities
from engine.llm.presets import Preset

# Words in an error message that blame one feature. Checked in this order when several
# are named (e.g. Gemini's "tool_choice cannot be combined with response_format"): the
# least useful feature goes first, the forced tool call (the reranker's protocol) last.
BLAME_KEYWORDS: dict[str, tuple[str, ...]] = {
    # Not a bare "stream": OpenRouter's 5xx messages say "upstream", which blames nothing.
    "stream": ("stream_options", "streaming", "'stream'", '"stream"', "stream is", "stream must", "stream not"),
    "reasoning": ("reasoning", "thinking"),
    "response_format": ("response_format", "response format", "json_object", "json mode", "json_schema",
                        "response_mime_type"),
    "max_tokens": ("max_tokens", "max_completion_tokens", "max tokens", "maxtokens", "max_output_tokens"),
    "tool_choice": ("tool_choice", "tool choice", "toolchoice", "tool_config", "function_calling_config"),
}


def _weakest(*levels: str) -> str:
    return max(levels, key=TOOL_CHOICE_LEVELS.index)


class RequestPlan:
    def __init__(self, *, preset: Preset, caps: EndpointCapabilities, model: str, messages: list[dict],
                 tools: list[dict] | None, tool_choice: str | dict | None, response_format: dict | None,
                 reasoning_effort: str | None, extra_body: Mapping[str, Any] | None = None,
                 max_tokens: int | None = None, stream: bool = False) -> None:
        self.preset = preset
        self.model = model
        self.messages = messages
        self.tools = tools
        self.tool_choice = tool_choice
        self.response_format = response_format
        self.reasoning_effort = reasoning_effort
        self.extra_body = dict(extra_body or {})

        self.requested_level = _forced_level(tool_choice)
        self.omit_tool_choice = self.requested_level is not None and not preset.tool_choice
        self.level = self.requested_level
        if self.level is not None:
            if not preset.named_tool_choice:
                self.level = _weakest(self.level, "required")
            self.level = _weakest(self.level, caps.tool_choice)

        self.rf_type = response_format.get("type") if isinstance(response_format, dict) else None
        # A JSON schema goes as OpenAI's `json_schema`, or as `json_object` + `schema` where
        # that is the server's form (llama-cpp-python accepts only it; llama-server both) or
        # the endpoint refused `json_schema` before.
        self.schema_as_object = self.rf_type == "json_schema" and (
            preset.schema_as_json_object or "json_schema" in caps.rejected_response_formats)
        self.send_response_format = (
            response_format is not None
            and not (self.rf_type == "json_object" and not preset.json_object)
            and self._rf_sent_type() not in caps.rejected_response_formats
        )
        self.send_reasoning = reasoning_effort is not None and preset.reasoning != "none" and caps.reasoning
        self.max_tokens = max_tokens
        self.requested_stream = stream
        self.stream = stream  # streaming is for the person watching: a server that refuses it answers whole
        self.requested_token_field = caps.token_field or preset.token_field
        self.token_field: str | None = self.requested_token_field if caps.max_tokens else None
        self.learned: dict[str, Any] = {}  # keyword arguments for CapabilityMemory.learn
        self.rejections: list[str] = []  # "tool_choice (400)": what the server refused, for notes

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {**self.extra_body, "model": self.model, "messages": self.messages}
        if self.tools is not None:
            body["tools"] = self.tools
        if self.tool_choice is not None and not self.omit_tool_choice:
            body["tool_choice"] = self._tool_choice_value()
        if self.send_response_format:
            body["response_format"] = self._response_format_value()
        if self.send_reasoning:
            if self.preset.reasoning == "openrouter":
                body["reasoning"] = {"effort": self.reasoning_effort}
            else:
                body["reasoning_effort"] = self.reasoning_effort
        if self.preset.usage_include:
            body["usage"] = {"include": True}
        if self.max_tokens is not None and self.token_field is not None:
            body[self.token_field] = self.max_tokens
        if self.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}  # the tokens and cost, in the last event
        return body

    def degraded(self) -> list[str]:
        dropped = []
        if self.requested_level is not None:
            if self.omit_tool_choice:
                dropped.append("tool_choice:omitted")
            elif self.level != self.requested_level:
                dropped.append(f"tool_choice:{self.level}")
        if self.response_format is not None and not self.send_response_format:
            dropped.append("response_format")
        elif self.schema_as_object:
            dropped.append("response_format:json_object+schema")
        if self.reasoning_effort is not None and not self.send_reasoning:
            dropped.append("reasoning")
        if self.max_tokens is not None and self.token_field != self.requested_token_field:
            dropped.append(f"max_tokens:{self.token_field}" if self.token_field else "max_tokens")
        if self.requested_stream and not self.stream:
            dropped.append("stream")
        return dropped

    def degrade(self, status: int, message: str) -> str | None:
        """Weaken the feature this rejection blames; the feature's name, or None if none fits.

        For a 5xx only a message that names the feature counts: a bare server error is the
        server's trouble (retried), not the request's.
        """
        text = message.lower()
        active = [f for f in BLAME_KEYWORDS if self._active(f)]
        blamed = next((f for f in active if any(k in text for k in BLAME_KEYWORDS[f])), None)
        # A bare 400 while a tool call is forced: forcing is the usual culprit (the brief
        # that local servers give is often just "Bad Request"). Not when the message is
        # about tools themselves ("model does not support tools"): weakening cannot help.
        if blamed is None and status == 400 and "tool_choice" in active and "tool" not in text:
            blamed = "tool_choice"
        if blamed is not None:
            self.rejections.append(f"{blamed} ({status})")
        if blamed == "tool_choice":
            assert self.level is not None
            self.level = TOOL_CHOICE_LEVELS[TOOL_CHOICE_LEVELS.index(self.level) + 1]
            self.learned["tool_choice"] = self.level
        elif blamed == "response_format":
            refused = self.learned.get("rejected_response_format", ())
            self.learned["rejected_response_format"] = (*refused, self._rf_sent_type() or "unknown")
            if self.rf_type == "json_schema" and not self.schema_as_object:
                self.schema_as_object = True  # the same schema in the other documented form first
            else:
                self.send_response_format = False
        elif blamed == "stream":
            self.stream = False
        elif blamed == "reasoning":
            self.send_reasoning = False
            self.learned["reasoning_rejected"] = True
        elif blamed == "max_tokens":
            other = next(f for f in TOKEN_FIELDS if f != self.token_field)
            if self.token_field == self.requested_token_field and other != self.requested_token_field:
                self.token_field = other  # the other documented name first
                self.learned["token_field"] = other
            else:  # both names refused: an unbounded reply beats no reply
                self.token_field = None
                self.learned.pop("token_field", None)
                self.learned["max_tokens_rejected"] = True
        return blamed

    def _active(self, feature: str) -> bool:
        if feature == "tool_choice":
            return not self.omit_tool_choice and self.level in ("function", "required")
        if feature == "response_format":
            return self.send_response_format
        if feature == "max_tokens":
            return self.max_tokens is not None and self.token_field is not None
        if feature == "stream":
            return self.stream
        return self.send_reasoning

    def _rf_sent_type(self) -> str | None:
        return "json_object_schema" if self.schema_as_object else self.rf_type

    def _response_format_value(self) -> dict | None:
        if self.schema_as_object and isinstance(self.response_format, dict):
            inner = self.response_format.get("json_schema") or {}
            return {"type": "json_object", "schema": inner.get("schema", {})}
        return self.response_format

    def _tool_choice_value(self) -> str | dict:
        if self.level is None or self.level == self.requested_level:
            return self.tool_choice  # type: ignore[return-value]  # as the caller gave it
        return self.level


def _forced_level(tool_choice: str | dict | None) -> str | None:
    if isinstance(tool_choice, dict) and tool_choice.get("type") == "function":
        return "function"
    if tool_choice == "required":
        return "required"
    return None
