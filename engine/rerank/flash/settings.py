"""What the agentic reranker can be told, and the limits derived from it (NOTES.md values).

Budgets (time, reply tokens, how much a read may load) depend on where the model runs: a
cloud model answers a 4K-token prompt in a few seconds, a CPU model in tens of seconds and
with an 8K context. Those fields default to None, meaning "the endpoint's default"
(`CLOUD` / `LOCAL` below); `resolved(local)` fills them in before a run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, TypeVar

from engine.messages import msg
from engine.rerank.flash.errors import FlashSettingsError

_T = TypeVar("_T")

PROMPT_LANGUAGES = ("auto", "en", "ru")
PROTOCOLS = ("auto", "tools", "constrained")
EXCERPT_MIN_CHARS = 25_000  # seed 000 v0.4.2: only topics above this get an excerpt
MIN_TO_INSPECT = 5  # the reference prompt's "mark at least 5" before loading
PEOPLE_SHOWN = 20  # stage 1 keeps at most 20 people (NOTES.md); more would only cost tokens
ARTIFACTS_SHOWN = 20


@dataclass(frozen=True)
class Budgets:
    """Per-endpoint defaults of the fields left None in FlashSettings."""

    total_timeout: float
    rewrite_timeout: float
    max_tokens_rewrite: int  # one line of query (plus a reasoning model's thinking in the cloud)
    max_tokens_read: int  # turn 1: a read request (≤ 25 ids) plus room for a reasoning model's thinking
    max_tokens_answer: int  # the selection: ≤ 25 entries with short reasons
    read_budget_tokens: int  # what the reads, all of them, may load into the conversation
    prompt_budget_tokens: int  # turn 1's prompt; summaries are shortened to fit
    max_candidates: int  # topic candidates shown
    people_shown: int
    artifacts_shown: int


# Cloud: reasoning models count their thinking in the reply bound, so the bounds are roomy;
# they exist to stop a runaway reply, not to shape a normal one.
# Prompt and read budgets are in estimated tokens (engine/text/tokens.py, close to o200k);
# they were set under an earlier estimate that ran ~30 % low on prompts, and are scaled so
# that the same real sizes are sent (cloud turn 1 ≈ 5,500 tokens for 50 candidates).
CLOUD = Budgets(total_timeout=60.0, rewrite_timeout=10.0, max_tokens_rewrite=1_024, max_tokens_read=2_048,
                max_tokens_answer=4_096, read_budget_tokens=84_000, prompt_budget_tokens=5_500,
                max_candidates=50, people_shown=PEOPLE_SHOWN, artifacts_shown=ARTIFACTS_SHOWN)
# Local (CPU, 8K context as llama.cpp is usually started): measured on SmolLM2-135M with
# 2 cores (docs/llm_servers.md). A small model's tokenizer counts ~1.5× our estimate on chat
# text (digits, dates, Cyrillic: 10.6K chars were 6,033 tokens), and prompt processing
# runs ~100-200 tokens/s: 25 topics and a 2K-estimate prompt (~3K real) + a read of
# ~2K real + the answer's 1.5K stay under 8K, and turn 1 under a minute.
LOCAL = Budgets(total_timeout=180.0, rewrite_timeout=30.0, max_tokens_rewrite=96, max_tokens_read=384,
                max_tokens_answer=1_536, read_budget_tokens=1_400, prompt_budget_tokens=2_000,
                max_candidates=25, people_shown=8, artifacts_shown=8)
EXCERPT_ANSWER_TOKENS = 8_192  # excerpts quote whole messages: the answer needs room


@dataclass(frozen=True)
class FlashSettings:
    model: str = "google/gemini-3-flash-preview"
    max_tool_calls: int = 3
    total_timeout: float | None = None  # None → 60 s (cloud) / 180 s (local server)
    turn_timeout: float | None = None  # None → turn 1: total × turn1_share; later: total / (max_tool_calls + 1)
    turn1_share: float = 0.5  # turn 1 reads the whole candidate list: the longest prompt
    reasoning_effort: str | None = "low"  # None | "minimal" | "low" | "medium" | "high"
    max_topics: int = 5
    max_people: int = 10
    max_artifacts: int = 10
    max_candidates: int | None = None  # topic candidates shown in turn 1; None → 50 (cloud) / 25 (local)
    people_shown: int | None = None  # person candidates shown (laplaced: they flooded the prompt); 20 / 8
    artifacts_shown: int | None = None  # 20 / 8
    excerpts: bool = False  # seed 000 excerpts for topics > 25,000 chars
    # Seed 000 step 1: with recent messages, rewrite the query first (one short call). Off
    # only when asked: without recent messages it costs nothing.
    contextualize_query: bool = True
    rewrite_timeout: float | None = None  # None → 10 s (cloud) / 30 s (local)
    max_tokens_rewrite: int | None = None  # the rewrite's reply bound
    max_tokens_read: int | None = None  # turn 1's reply bound; None → the endpoint's default
    max_tokens_answer: int | None = None  # the selection's reply bound
    read_budget_tokens: int | None = None  # topic text the reads may load, all of them together
    prompt_budget_tokens: int | None = None
    # "tools": the seeds' forced get_topics_content; "constrained": both turns through a
    # JSON schema; "auto": what the endpoint is known to need, else its preset's choice.
    protocol: str = "auto"
    prompt_language: str = "auto"  # "auto" (Russian when the query is mostly Cyrillic) | "en" | "ru"

    def __post_init__(self) -> None:
        # Frozen settings come from the UI and the CLI: a bad value is a programming error
        # there, caught here once rather than as a strange prompt later.
        if self.prompt_language not in PROMPT_LANGUAGES:
            raise FlashSettingsError(msg("rerank.flash.settings.not_one_of", name="prompt_language",
                                         choices=str(PROMPT_LANGUAGES), value=repr(self.prompt_language)))
        if self.protocol not in PROTOCOLS:
            raise FlashSettingsError(msg("rerank.flash.settings.not_one_of", name="protocol", choices=str(PROTOCOLS),
                                         value=repr(self.protocol)))
        if self.max_tool_calls < 0 or (self.total_timeout is not None and self.total_timeout <= 0):
            raise FlashSettingsError(msg("rerank.flash.settings.calls_and_total"))
        if self.turn_timeout is not None and self.turn_timeout <= 0:
            raise FlashSettingsError(msg("rerank.flash.settings.turn_timeout"))
        if not 0 < self.turn1_share <= 1:
            raise FlashSettingsError(msg("rerank.flash.settings.turn1_share"))
        if any(v is not None and v < 0 for v in (self.max_candidates, self.people_shown, self.artifacts_shown)):
            raise FlashSettingsError(msg("rerank.flash.settings.shown_counts"))
        positive = ("rewrite_timeout", "max_tokens_rewrite", "max_tokens_read", "max_tokens_answer",
                    "read_budget_tokens", "prompt_budget_tokens")
        bad = [name for name in positive if getattr(self, name) is not None and getattr(self, name) <= 0]
        if bad:
            raise FlashSettingsError(msg("rerank.flash.settings.positive", names=", ".join(bad)))

    def resolved(self, local: bool) -> FlashSettings:
        """A copy with every None budget set to the cloud or local default."""
        budgets = LOCAL if local else CLOUD
        answer = budgets.max_tokens_answer if not self.excerpts else max(budgets.max_tokens_answer,
                                                                          EXCERPT_ANSWER_TOKENS)
        return replace(
            self, total_timeout=_or(self.total_timeout, budgets.total_timeout),
            rewrite_timeout=_or(self.rewrite_timeout, budgets.rewrite_timeout),
            max_tokens_rewrite=_or(self.max_tokens_rewrite, budgets.max_tokens_rewrite),
            max_tokens_read=_or(self.max_tokens_read, budgets.max_tokens_read),
            max_tokens_answer=_or(self.max_tokens_answer, answer),
            read_budget_tokens=_or(self.read_budget_tokens, budgets.read_budget_tokens),
            prompt_budget_tokens=_or(self.prompt_budget_tokens, budgets.prompt_budget_tokens),
            max_candidates=_or(self.max_candidates, budgets.max_candidates),
            people_shown=_or(self.people_shown, budgets.people_shown),
            artifacts_shown=_or(self.artifacts_shown, budgets.artifacts_shown))

    @property
    def total(self) -> float:
        return self.total_timeout if self.total_timeout is not None else CLOUD.total_timeout

    @property
    def per_turn_timeout(self) -> float:
        """A later turn's limit (turn 1's is `first_turn_timeout`)."""
        if self.turn_timeout is not None:
            return self.turn_timeout
        return self.total / (self.max_tool_calls + 1)

    @property
    def first_turn_timeout(self) -> float:
        if self.turn_timeout is not None:
            return self.turn_timeout
        return self.total * self.turn1_share

    def load_range(self, shown_topics: int) -> tuple[int, int]:
        """How many topics the prompt asks the model to load: (at least, at most).

        The reference's max(candidates / 2, max_topics × 2) = 25 for 50 candidates, never
        more than are shown; the minimum is 5, never more than the maximum.
        """
        candidates = self.max_candidates if self.max_candidates is not None else CLOUD.max_candidates
        most = min(max(candidates // 2, self.max_topics * 2), shown_topics)
        return min(MIN_TO_INSPECT, most), most

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _or(value: _T | None, default: _T) -> _T:
    """`value`, or `default` when it is None (a budget left to the endpoint)."""
    return value if value is not None else default
