"""What the agentic reranker can be told, and the limits derived from it (NOTES.md values)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from engine.rerank.flash.errors import FlashSettingsError

PROMPT_LANGUAGES = ("auto", "en", "ru")
EXCERPT_MIN_CHARS = 25_000  # seed 000 v0.4.2: only topics above this get an excerpt
MIN_TO_INSPECT = 5  # the reference prompt's "mark at least 5" before loading
PEOPLE_SHOWN = 20  # stage 1 keeps at most 20 people (NOTES.md); more would only cost tokens
ARTIFACTS_SHOWN = 20


@dataclass(frozen=True)
class FlashSettings:
    model: str = "google/gemini-3-flash-preview"
    max_tool_calls: int = 3
    total_timeout: float = 60.0
    turn_timeout: float | None = None  # None → total_timeout / (max_tool_calls + 1)
    reasoning_effort: str | None = "low"  # None | "minimal" | "low" | "medium" | "high"
    max_topics: int = 5
    max_people: int = 10
    max_artifacts: int = 10
    max_candidates: int = 50  # topic candidates shown in turn 1
    excerpts: bool = False  # seed 000 excerpts for topics > 25,000 chars
    contextualize_query: bool = False  # enrich the query from recent messages first
    prompt_language: str = "auto"  # "auto" (Russian when the query is mostly Cyrillic) | "en" | "ru"

    def __post_init__(self) -> None:
        # Frozen settings come from the UI and the CLI: a bad value is a programming error
        # there, caught here once rather than as a strange prompt later.
        if self.prompt_language not in PROMPT_LANGUAGES:
            raise FlashSettingsError(f"prompt_language must be one of {PROMPT_LANGUAGES}, not {self.prompt_language!r}")
        if self.max_tool_calls < 0 or self.total_timeout <= 0:
            raise FlashSettingsError("max_tool_calls must be ≥ 0 and total_timeout > 0")
        if self.turn_timeout is not None and self.turn_timeout <= 0:
            raise FlashSettingsError("turn_timeout must be > 0 (or None for total_timeout / (max_tool_calls + 1))")

    @property
    def per_turn_timeout(self) -> float:
        if self.turn_timeout is not None:
            return self.turn_timeout
        return self.total_timeout / (self.max_tool_calls + 1)

    def load_range(self, shown_topics: int) -> tuple[int, int]:
        """How many topics the prompt asks the model to load: (at least, at most).

        The reference's max(candidates / 2, max_topics × 2) = 25 for 50 candidates, never
        more than are shown; the minimum is 5, never more than the maximum.
        """
        most = min(max(self.max_candidates // 2, self.max_topics * 2), shown_topics)
        return min(MIN_TO_INSPECT, most), most

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
