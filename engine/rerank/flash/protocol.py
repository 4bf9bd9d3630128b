"""Which of Flash's two protocols runs on an endpoint, and the JSON schemas of constrained turns.

* "tools" (seeds 000 v0.4.3): turn 1 forces `get_topics_content`; later turns ask for a
  JSON object. Needs a server that *enforces* the forced call: OpenAI, OpenRouter.
* "constrained": the same two steps through `response_format: json_schema`. Turn 1's
  schema is `{"topic_ids": [...]}` whose items are an `enum` of the candidate topic ids
  (the only kind that can be read), at most the read limit; turn 2's is the selection,
  each kind's ids an `enum` of that kind's candidates, reasons bounded. llama.cpp,
  llama-cpp-python, LM Studio and Ollama turn a schema into a grammar, so even a 135M
  model cannot produce another shape or an id outside the candidates.

The choice: the settings (when not "auto"), else what the endpoint was seen to need
(`CapabilityMemory`, with the evidence), else the preset's documented behaviour
(`engine/llm/presets.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.llm import ChatClient
from engine.messages import Message, msg

REASON_MAX_CHARS = 160  # one sentence: bounded so a small model cannot ramble inside a reason
EXCERPT_MAX_CHARS = 4_000
ANSWER_KEYS = {"topic": "topic_ids", "person": "people_ids", "artifact": "artifact_ids"}


@dataclass(frozen=True)
class ProtocolChoice:
    protocol: str  # "tools" | "constrained"
    source: str  # "settings" | "learned" | "preset"
    note: str  # in words (English), for the trace and the CLI
    message: Message | None = field(default=None, compare=False)  # the note as a code, for the window

    @classmethod
    def said(cls, protocol: str, source: str, message: Message) -> ProtocolChoice:
        return cls(protocol, source, str(message), message)

    def as_dict(self) -> dict[str, str]:
        return {"protocol": self.protocol, "source": self.source, "note": self.note}


def protocol_name(protocol: str) -> Message:
    """"tools" or "constrained" (English keeps the setting's own word)."""
    return msg("rerank.flash.protocol.constrained") if protocol == "constrained" \
        else msg("rerank.flash.protocol.tools")


def choose_protocol(setting: str, client: ChatClient, model: str | None) -> ProtocolChoice:
    if setting in ("tools", "constrained"):
        return ProtocolChoice.said(setting, "settings", msg("rerank.flash.protocol.set",
                                                            protocol=protocol_name(setting)))
    caps = client.capabilities_for(model)
    if caps.flash_protocol:
        evidence = caps.protocol_evidence_message or caps.protocol_evidence or msg("rerank.flash.protocol.earlier_runs")
        return ProtocolChoice.said(caps.flash_protocol, "learned", msg(
            "rerank.flash.protocol.learned", protocol=protocol_name(caps.flash_protocol), evidence=evidence))
    preset = client.preset
    name = protocol_name(preset.flash_protocol)
    if preset.flash_protocol == "tools":
        note = msg("rerank.flash.protocol.preset_tools", protocol=name, preset=preset.label_message())
    else:
        note = msg("rerank.flash.protocol.preset_constrained", protocol=name, preset=preset.label_message())
    return ProtocolChoice.said(preset.flash_protocol, "preset", note)


def read_format(topic_ids: Sequence[int], most: int) -> dict[str, Any]:
    """Turn 1 as a constrained turn: the topic ids to read, 1 to `most` of the candidates."""
    schema = {"type": "object", "properties": {"topic_ids": {
        "type": "array", "items": {"type": "integer", "enum": list(topic_ids)},
        "minItems": 1, "maxItems": max(1, most)}},
        "required": ["topic_ids"], "additionalProperties": False}
    return {"type": "json_schema", "json_schema": {"name": "topics_to_read", "schema": schema}}


def answer_format(allowed: Mapping[str, Sequence[int]], limits: Mapping[str, int],
                  excerpts: bool = False) -> dict[str, Any]:
    """The selection as a constrained turn: per kind with candidates, enum ids and short reasons.

    An empty list is allowed for every kind: "nothing relevant" is an answer.
    """
    properties: dict[str, Any] = {}
    for kind, key in ANSWER_KEYS.items():
        ids = list(allowed.get(kind, ()))
        if not ids or limits.get(kind, 0) <= 0:
            continue
        entry: dict[str, Any] = {"id": {"type": "integer", "enum": ids},
                                 "reason": {"type": "string", "maxLength": REASON_MAX_CHARS}}
        required = ["id", "reason"]
        if excerpts and kind == "topic":
            entry["excerpt"] = {"type": "string", "maxLength": EXCERPT_MAX_CHARS}
        properties[key] = {"type": "array", "maxItems": limits[kind], "items": {
            "type": "object", "properties": entry, "required": required, "additionalProperties": False}}
    schema = {"type": "object", "properties": properties, "required": list(properties),
              "additionalProperties": False}
    return {"type": "json_schema", "json_schema": {"name": "selection", "schema": schema}}
