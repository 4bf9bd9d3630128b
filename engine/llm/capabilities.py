"""What each endpoint (base URL + model) has been seen to reject, so later calls skip it.

Without this, every reranker turn against a server that rejects a forced `tool_choice`
would pay one failed round trip before degrading. Request features are only narrowed,
never widened back: an endpoint starts with the preset's shape. The Flash protocol is the
exception: it is whatever the latest evidence says (a forced call ignored → constrained
turns; a JSON schema rejected → tool calls), with that evidence kept beside it.

The optional JSON file is written atomically (temp file + rename) and read leniently: a
missing or damaged file just means starting from the presets again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from engine.files import private_folder, write_private
from engine.messages import Message

SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)  # version 1 lacks the fields added in 2; their defaults fit
TOKEN_FIELDS = ("max_tokens", "max_completion_tokens")
PROTOCOLS = ("tools", "constrained")

# Forced tool_choice levels, strongest first: a named function, "required", then "auto".
TOOL_CHOICE_LEVELS = ("function", "required", "auto")


@dataclass
class EndpointCapabilities:
    tool_choice: str = "function"  # the strongest level the endpoint accepts
    rejected_response_formats: set[str] = field(default_factory=set)  # e.g. {"json_object"}
    reasoning: bool = True
    token_field: str | None = None  # the reply bound's name when the preset's was rejected
    max_tokens: bool = True  # False: the server rejected the bound under every name
    flash_protocol: str | None = None  # learned: "tools" | "constrained"; None → the preset's
    protocol_evidence: str = ""  # why, in words, for the trace and the window
    protocol_evidence_message: Message | None = None  # the same as a code, for a face in its language

    def to_json(self) -> dict:
        data = {"tool_choice": self.tool_choice,
                "rejected_response_formats": sorted(self.rejected_response_formats),
                "reasoning": self.reasoning, "token_field": self.token_field, "max_tokens": self.max_tokens,
                "flash_protocol": self.flash_protocol, "protocol_evidence": self.protocol_evidence}
        if self.protocol_evidence_message is not None:  # an older file has only the English
            data["protocol_evidence_message"] = self.protocol_evidence_message.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict) -> EndpointCapabilities:
        level = data.get("tool_choice", "function")
        formats = data.get("rejected_response_formats", [])
        field_name = data.get("token_field")
        protocol = data.get("flash_protocol")
        evidence = data.get("protocol_evidence")
        return cls(tool_choice=level if level in TOOL_CHOICE_LEVELS else "function",
                   rejected_response_formats={f for f in formats if isinstance(f, str)},
                   reasoning=bool(data.get("reasoning", True)),
                   token_field=field_name if field_name in TOKEN_FIELDS else None,
                   max_tokens=bool(data.get("max_tokens", True)),
                   flash_protocol=protocol if protocol in PROTOCOLS else None,
                   protocol_evidence=evidence if isinstance(evidence, str) else "",
                   protocol_evidence_message=Message.from_json(data.get("protocol_evidence_message")))

    def copy(self) -> EndpointCapabilities:
        return EndpointCapabilities.from_json(self.to_json())


def endpoint_key(base_url: str, model: str) -> str:
    return f"{base_url.rstrip('/')}|{model}"


class CapabilityMemory:
    """In-memory map endpoint → capabilities, optionally persisted to `path` (JSON).

    Share one instance between clients (or give them the same path) when the app builds
    more than one client for the same endpoint.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._entries: dict[str, EndpointCapabilities] = {}
        if self.path is not None:
            self._load()

    def get(self, key: str) -> EndpointCapabilities:
        """A copy: callers may not change the memory except through `learn`."""
        entry = self._entries.get(key)
        return entry.copy() if entry is not None else EndpointCapabilities()

    def learn(self, key: str, *, tool_choice: str | None = None,
              rejected_response_format: str | tuple[str, ...] | None = None,
              reasoning_rejected: bool = False, token_field: str | None = None,
              max_tokens_rejected: bool = False) -> None:
        entry = self._entries.setdefault(key, EndpointCapabilities())
        changed = False
        if token_field in TOKEN_FIELDS and entry.token_field != token_field:
            entry.token_field, changed = token_field, True
        if max_tokens_rejected and entry.max_tokens:
            entry.max_tokens, changed = False, True
        if tool_choice is not None and _weaker(tool_choice, entry.tool_choice):
            entry.tool_choice, changed = tool_choice, True
        refused = (rejected_response_format,) if isinstance(rejected_response_format, str) else \
            rejected_response_format or ()
        for form in refused:  # e.g. ("json_schema", "json_object_schema"): both forms of a schema refused
            if form not in entry.rejected_response_formats:
                entry.rejected_response_formats.add(form)
                changed = True
        if reasoning_rejected and entry.reasoning:
            entry.reasoning, changed = False, True
        if changed:
            self._save()

    def learn_protocol(self, key: str, protocol: str, evidence: Message | str) -> None:
        """Flash's protocol for this endpoint from now on, and the evidence that chose it (a code
        is kept beside its English text)."""
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown Flash protocol {protocol!r}")
        entry = self._entries.setdefault(key, EndpointCapabilities())
        message = evidence if isinstance(evidence, Message) else None
        if (entry.flash_protocol, entry.protocol_evidence, entry.protocol_evidence_message) != \
                (protocol, str(evidence), message):
            entry.flash_protocol, entry.protocol_evidence, entry.protocol_evidence_message = \
                protocol, str(evidence), message
            self._save()

    def forget(self, key: str | None = None) -> None:
        """Drop what was learned about one endpoint (or all), e.g. after a server upgrade."""
        if key is None:
            self._entries.clear()
        else:
            self._entries.pop(key, None)
        self._save()

    def _load(self) -> None:
        assert self.path is not None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            endpoints = data["endpoints"] if data.get("version") in READABLE_VERSIONS else {}
            self._entries = {k: EndpointCapabilities.from_json(v) for k, v in endpoints.items() if isinstance(v, dict)}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self._entries = {}

    def _save(self) -> None:
        if self.path is None:
            return
        payload = {"version": SCHEMA_VERSION, "endpoints": {k: v.to_json() for k, v in self._entries.items()}}
        try:
            write_private(private_folder(self.path.parent) / self.path.name,
                          json.dumps(payload, indent=1, sort_keys=True))
        except OSError:
            # A cache: failing to persist it must not fail the LLM call that taught it.
            # The in-memory copy still holds the lesson for this session (write_private removes its temp file).
            pass


def _weaker(candidate: str, current: str) -> bool:
    return TOOL_CHOICE_LEVELS.index(candidate) > TOOL_CHOICE_LEVELS.index(current)
