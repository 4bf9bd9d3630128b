"""What each endpoint (base URL + model) has been seen to reject, so later calls skip it.

Without this, every reranker turn against a server that rejects a forced `tool_choice`
would pay one failed round trip before degrading. Only rejections are stored, never
successes: an endpoint starts with the preset's shape and can only be narrowed.

The optional JSON file is written atomically (temp file + rename) and read leniently: a
missing or damaged file just means starting from the presets again.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA_VERSION = 1

# Forced tool_choice levels, strongest first: a named function, "required", then "auto".
TOOL_CHOICE_LEVELS = ("function", "required", "auto")


@dataclass
class EndpointCapabilities:
    tool_choice: str = "function"  # the strongest level the endpoint accepts
    rejected_response_formats: set[str] = field(default_factory=set)  # e.g. {"json_object"}
    reasoning: bool = True

    def to_json(self) -> dict:
        return {"tool_choice": self.tool_choice,
                "rejected_response_formats": sorted(self.rejected_response_formats),
                "reasoning": self.reasoning}

    @classmethod
    def from_json(cls, data: dict) -> EndpointCapabilities:
        level = data.get("tool_choice", "function")
        formats = data.get("rejected_response_formats", [])
        return cls(tool_choice=level if level in TOOL_CHOICE_LEVELS else "function",
                   rejected_response_formats={f for f in formats if isinstance(f, str)},
                   reasoning=bool(data.get("reasoning", True)))


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
        if entry is None:
            return EndpointCapabilities()
        return EndpointCapabilities(entry.tool_choice, set(entry.rejected_response_formats), entry.reasoning)

    def learn(self, key: str, *, tool_choice: str | None = None, rejected_response_format: str | None = None,
              reasoning_rejected: bool = False) -> None:
        entry = self._entries.setdefault(key, EndpointCapabilities())
        changed = False
        if tool_choice is not None and _weaker(tool_choice, entry.tool_choice):
            entry.tool_choice, changed = tool_choice, True
        if rejected_response_format and rejected_response_format not in entry.rejected_response_formats:
            entry.rejected_response_formats.add(rejected_response_format)
            changed = True
        if reasoning_rejected and entry.reasoning:
            entry.reasoning, changed = False, True
        if changed:
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
            endpoints = data["endpoints"] if data.get("version") == SCHEMA_VERSION else {}
            self._entries = {k: EndpointCapabilities.from_json(v) for k, v in endpoints.items() if isinstance(v, dict)}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self._entries = {}

    def _save(self) -> None:
        if self.path is None:
            return
        payload = {"version": SCHEMA_VERSION, "endpoints": {k: v.to_json() for k, v in self._entries.items()}}
        tmp: str | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError:
            # A cache: failing to persist it must not fail the LLM call that taught it.
            # The in-memory copy still holds the lesson for this session.
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)


def _weaker(candidate: str, current: str) -> bool:
    return TOOL_CHOICE_LEVELS.index(candidate) > TOOL_CHOICE_LEVELS.index(current)
