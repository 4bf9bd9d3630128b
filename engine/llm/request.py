"""The request body of one call, and how it is weakened when a server rejects a feature.

Providers differ in what they accept (see `presets.py`). Rather than fail every call, a
400/404/422 that names `tool_choice`, `response_format` or reasoning drops or weakens
that one feature and the call is sent again; a forced tool_choice steps down
function → "required" → "auto". What was weakened ends up in `ChatResult.degraded`, and
what the server refused in `learned`, which the client stores only once a weakened
request has succeeded (so a 400 caused by something else teaches nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.llm.capabilities import TOOL_CHOICE_LEVELS, EndpointCapabilities
from engine.llm.presets import Preset

# Words in an error message that blame one feature. Checked in this order when several
# are named (e.g. Gemini's "tool_choice cannot be combined with response_format"): the
# least useful feature goes first, the forced tool call (the reranker's protocol) last.
BLAME_KEYWORDS: dict[str, tuple[str, ...]] = {
    "reasoning": ("reasoning", "thinking"),
    "response_format": ("response_format", "response format", "json_object", "json mode", "json_schema",
                        "response_mime_type"),
    "tool_choice": ("tool_choice", "tool choice", "toolchoice", "tool_config", "function_calling_config"),
}


def _weakest(*levels: str) -> str:
    return max(levels, key=TOOL_CHOICE_LEVELS.index)


class RequestPlan:
    def __init__(self, *, preset: Preset, caps: EndpointCapabilities, model: str, messages: list[dict],
                 tools: list[dict] | None, tool_choice: str | dict | None, response_format: dict | None,
                 reasoning_effort: str | None, extra_body: Mapping[str, Any] | None = None) -> None:
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
        self.send_response_format = (
            response_format is not None
            and not (self.rf_type == "json_object" and not preset.json_object)
            and self.rf_type not in caps.rejected_response_formats
        )
        self.send_reasoning = reasoning_effort is not None and preset.reasoning != "none" and caps.reasoning
        self.learned: dict[str, Any] = {}  # keyword arguments for CapabilityMemory.learn

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {**self.extra_body, "model": self.model, "messages": self.messages}
        if self.tools is not None:
            body["tools"] = self.tools
        if self.tool_choice is not None and not self.omit_tool_choice:
            body["tool_choice"] = self._tool_choice_value()
        if self.send_response_format:
            body["response_format"] = self.response_format
        if self.send_reasoning:
            if self.preset.reasoning == "openrouter":
                body["reasoning"] = {"effort": self.reasoning_effort}
            else:
                body["reasoning_effort"] = self.reasoning_effort
        if self.preset.usage_include:
            body["usage"] = {"include": True}
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
        if self.reasoning_effort is not None and not self.send_reasoning:
            dropped.append("reasoning")
        return dropped

    def degrade(self, status: int, message: str) -> str | None:
        """Weaken the feature this rejection blames; the feature's name, or None if none fits."""
        text = message.lower()
        active = [f for f in BLAME_KEYWORDS if self._active(f)]
        blamed = next((f for f in active if any(k in text for k in BLAME_KEYWORDS[f])), None)
        # A bare 400 while a tool call is forced: forcing is the usual culprit (the brief
        # that local servers give is often just "Bad Request"). Not when the message is
        # about tools themselves ("model does not support tools"): weakening cannot help.
        if blamed is None and status == 400 and "tool_choice" in active and "tool" not in text:
            blamed = "tool_choice"
        if blamed == "tool_choice":
            assert self.level is not None
            self.level = TOOL_CHOICE_LEVELS[TOOL_CHOICE_LEVELS.index(self.level) + 1]
            self.learned["tool_choice"] = self.level
        elif blamed == "response_format":
            self.send_response_format = False
            self.learned["rejected_response_format"] = self.rf_type or "unknown"
        elif blamed == "reasoning":
            self.send_reasoning = False
            self.learned["reasoning_rejected"] = True
        return blamed

    def _active(self, feature: str) -> bool:
        if feature == "tool_choice":
            return not self.omit_tool_choice and self.level in ("function", "required")
        if feature == "response_format":
            return self.send_response_format
        return self.send_reasoning

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
