"""The record of one run: turns, tool calls, usage and time, ready to store as JSON.

The API key must never reach a trace. ChatResult.raw_request holds no headers, but a key
can still come back inside a server's error text or an echoed body, so every string of the
finished trace is scrubbed, keys of dicts included (`engine.scrub`, in run.py).
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from engine.llm import ChatResult, Usage


class RunRecorder:
    """Collects what happens during `arerank`: one entry per LLM call, and the clock."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.http_s = 0.0  # time spent awaiting ChatClient.complete
        self.turns: list[dict[str, Any]] = []
        self.tool_calls: list[dict[str, Any]] = []
        self.reasoning: list[dict[str, Any]] = []
        self.degraded: list[str] = []
        self.prompt_tokens = self.completion_tokens = 0
        self.cost: float | None = None
        self.timings_ms: dict[str, float] = {}

    def add_usage(self, usage: Usage) -> None:
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        if usage.cost is not None:
            self.cost = (self.cost or 0.0) + usage.cost

    def call(self, label: str, seconds: float, *, result: ChatResult | None = None,
             intended: dict[str, Any] | None = None, error: str | None = None) -> dict[str, Any]:
        """Record one LLM call (`label` "turn_1", "contextualize"); returns its trace entry."""
        self.http_s += seconds
        duration_ms = round(seconds * 1000, 2)
        self.timings_ms[label] = duration_ms
        if result is not None:
            request = dict(result.raw_request)
            # The body holds the live message list, which grows on later turns: copy it now.
            if isinstance(request.get("messages"), list):
                request["messages"] = list(request["messages"])
            self.add_usage(result.usage)
            self.degraded.extend(d for d in result.degraded if d not in self.degraded)
            if result.reasoning:
                self.reasoning.append({"turn": label, "text": result.reasoning})
            entry = {"turn": label, "request": request, "response": result.raw_response, "duration_ms": duration_ms,
                     "usage": asdict(result.usage), "degraded": list(result.degraded), "error": None,
                     "attempts": result.attempts, "model": result.model}
        else:
            # A failed call has no ChatResult: keep what was asked for (marked as such).
            entry = {"turn": label, "request": {"intended": True, **(intended or {})}, "response": None,
                     "duration_ms": duration_ms, "usage": None, "degraded": [], "error": error}
        return entry

    @property
    def usage(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost": round(self.cost, 8) if self.cost is not None else None}

    def finish(self) -> dict[str, float]:
        """Total, overhead (total minus awaiting HTTP) and each call's time, in ms."""
        total = time.perf_counter() - self.started
        timings = dict(self.timings_ms)
        timings["total"] = round(total * 1000, 2)
        timings["overhead"] = round(max(0.0, total - self.http_s) * 1000, 2)
        return timings
