"""What each reranker reports about a search, as typed records the faces read (issue 31).

The rerankers keep writing their report as a JSON-able dict (`RerankResult.report`: the traces
store it as written, and `flashback search --json` prints it); the faces read it through
`SearchResult.report`, one of the records below, discriminated by `reranker`:

    match outcome.report:
        case ThresholdReport() as report: ...
        case FlashReport() as report: ...
        case CrossEncoderReport() as report: ...
        case KeepAllReport() as report: ...
        case unreachable: assert_never(unreachable)

so a fifth reranker fails type-checking wherever a face does not say what it shows of it.
engine/api/report_reading.py builds them from a `RerankResult`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from engine.messages import Message
from engine.rerank.cross_encoder.settings import CrossEncoderSettings
from engine.rerank.threshold import ThresholdSettings
from engine.retrieval.candidate import CandidateKind


@dataclass(frozen=True)
class StageCounts:
    """What each cut removed from one kind of candidate, and what it kept. A reranker that has no
    such cut (Flash has no gap) leaves it at 0."""

    retrieved: int = 0
    removed_by_threshold: int = 0
    removed_by_gap: int = 0
    removed_by_top_k: int = 0
    kept: int = 0


@dataclass(frozen=True)
class Usage:
    """What a run spent, as its server reported it; None where the server did not say. A chat
    model counts prompt and completion tokens; a rerank API one total (and search units)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    search_units: float | None = None
    cost: float | None = None  # USD (OpenRouter's credits), where the provider says

    @property
    def counts_turns(self) -> bool:
        """True when the server counted prompt and completion tokens apart (a chat model)."""
        return self.prompt_tokens is not None or self.completion_tokens is not None


@dataclass(frozen=True)
class ScoredTopic:
    """One topic the cross-encoder scored: its probability (and the server's raw score, where
    the report kept it), and where stage 1 had put it."""

    id: int
    score: float
    stage1_rank: int
    raw: float | None = None


@dataclass(frozen=True)
class ChainInfo:
    """Flash after the cross-encoder: how many topics it narrowed Flash's read to, and why not
    when it did not (skipped, or its fallback)."""

    before: int
    after: int
    sent: int
    note: Message | None = None
    skipped: str | None = None
    fallback: str | None = None
    error: Message | None = None
    scores: tuple[ScoredTopic, ...] = ()
    kept_ids: tuple[int, ...] = ()
    usage: Usage | None = None
    total_ms: float = 0.0


@dataclass(frozen=True)
class EndpointLabel:
    """The rerank server a cross-encoder run asked: its preset, how it is named, its model."""

    preset: str = ""
    label: str = ""
    model: str = ""
    local: bool = False


@dataclass(frozen=True)
class ThresholdReport:
    """`--reranker threshold`: seed 001's cuts per kind; `topics` is the topic column."""

    reranker: Literal["threshold"]
    topics: StageCounts
    by_kind: dict[CandidateKind, StageCounts]
    settings: ThresholdSettings
    usage: Usage | None = None  # never any: every variant has the field, for the status line


@dataclass(frozen=True)
class KeepAllReport:
    """`--reranker none`: stage 1's candidates, every one kept."""

    reranker: Literal["none"]
    topics: StageCounts
    usage: Usage | None = None


@dataclass(frozen=True)
class FlashReport:
    """The LLM reranker: its turns and tool calls, its protocol, what it spent, and (when it fell
    back) why and what was kept instead; `chain` when the cross-encoder narrowed its read first."""

    reranker: Literal["flash"]
    topics: StageCounts  # retrieved and kept; Flash has no cuts of its own
    kept_by_kind: dict[CandidateKind, int]
    turns: int
    tool_calls: tuple[tuple[int, ...], ...]
    fallback: str | None
    error: Message | None  # why it fell back, in words (the server's, or the reranker's)
    note: Message | None
    fallback_kept: Message | None  # the rule the kept topics came by, after a fallback
    protocol: str | None  # "tools" | "constrained"; None before any turn
    protocol_note: Message | None
    model: str
    usage: Usage | None
    timings_ms: dict[str, float] = field(default_factory=dict)  # "total", "overhead", each turn
    chain: ChainInfo | None = None


@dataclass(frozen=True)
class CrossEncoderReport:
    """The cross-encoder: what was sent, its scores (best first), its own threshold and top-K cut,
    and when it was not asked (`skipped`) or fell back, why."""

    reranker: Literal["cross-encoder"]
    topics: StageCounts
    by_kind: dict[CandidateKind, StageCounts]
    settings: CrossEncoderSettings
    endpoint: EndpointLabel
    sent: int
    not_sent: int
    batches: int
    requests: int
    scores: tuple[ScoredTopic, ...]
    skipped: str | None  # "small", "apart" or "small_apart": the seed's conditions held
    fallback: str | None
    error: Message | None
    note: Message | None
    usage: Usage | None
    total_ms: float = 0.0


RerankReport = ThresholdReport | KeepAllReport | FlashReport | CrossEncoderReport
