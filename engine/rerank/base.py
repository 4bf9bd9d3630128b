"""What every reranker takes and returns, so the CLI, the window and the evaluation treat them alike.

A reranker receives stage 1's candidates (already ranked, scores calibrated) and returns
the ones it keeps, each with a reason, plus a stage report the UI shows as-is. Rerankers
are coroutines: the LLM reranker waits on the network, and the GUI runs them on its qasync
loop; the threshold reranker simply never awaits.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.messages import Message, msg
from engine.retrieval.candidate import KINDS, Candidate, CandidateKind

if TYPE_CHECKING:  # the flash package and the threshold filter import this module
    from engine.rerank.flash.contextualize import QueryRewrite
    from engine.rerank.threshold import ThresholdSettings

__all__ = ["FALLBACK_REASONS", "KINDS", "MODEL_EMPTY", "Candidate", "KeepAllReranker", "Reranker", "RerankResult",
           "Selection", "fallback_message"]
# Candidate and KINDS are stage 1's (engine.retrieval.candidate), what a reranker takes


# Why an LLM reranker did not give its own selection (NOTES.md names), and the one outcome
# reported like them that is not a failure: a valid "nothing relevant" answer. One list for
# the rerankers that produce them and the run metrics that count them.
FALLBACK_REASONS = ("llm_error", "timeout", "turn_timeout", "empty_response", "protocol_violation", "parse_error",
                    "all_hallucinated", "max_tool_calls")
MODEL_EMPTY = "model_empty"
# Each of them in words, for a face (English keeps the name itself: the CLI, the traces and
# the run metrics count by it).
_FALLBACK_MESSAGES = {
    "llm_error": msg("rerank.fallback.llm_error"), "timeout": msg("rerank.fallback.timeout"),
    "unreachable": msg("rerank.fallback.unreachable"),  # Ask's calls: a server never reached (issue 31)
    "turn_timeout": msg("rerank.fallback.turn_timeout"), "empty_response": msg("rerank.fallback.empty_response"),
    "protocol_violation": msg("rerank.fallback.protocol_violation"),
    "parse_error": msg("rerank.fallback.parse_error"), "all_hallucinated": msg("rerank.fallback.all_hallucinated"),
    "max_tool_calls": msg("rerank.fallback.max_tool_calls"), MODEL_EMPTY: msg("rerank.fallback.model_empty"),
    # the cross-encoder's own (engine/rerank/cross_encoder/errors.py); it shares timeout and parse_error
    "endpoint_error": msg("rerank.cross_encoder.fallback.endpoint_error"),
    "missing_scores": msg("rerank.cross_encoder.fallback.missing_scores"),
}


def fallback_message(reason: str) -> Message:
    """Why a reranker fell back (a FALLBACK_REASONS name, or model_empty), as a message."""
    return _FALLBACK_MESSAGES.get(reason) or Message("error.text", {"text": reason})


@dataclass(frozen=True)
class Selection:
    kind: CandidateKind
    id: int
    reason: str  # English: the CLI, the traces and the exports show it
    excerpt: str | None = None
    # The reason as a code when the engine wrote it (a threshold cut, a fallback), for a face to
    # say in its language; None when the reason is a model's own words.
    reason_message: Message | None = field(default=None, compare=False)

    @classmethod
    def because(cls, kind: CandidateKind, id: int, message: Message, excerpt: str | None = None) -> Selection:
        return cls(kind, id, str(message), excerpt, message)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Selection:
        """A selection as `as_dict` stored it (a recorded run); older records have no reason_message."""
        kind: CandidateKind = data["kind"] if data.get("kind") in KINDS else "topic"
        return cls(kind, int(data.get("id") or 0), str(data.get("reason") or ""),
                   data.get("excerpt"), Message.from_json(data.get("reason_message")))

    def reason_in(self, language: str) -> str:
        return self.reason_message.render(language) if self.reason_message is not None else self.reason

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "id": self.id, "reason": self.reason, "excerpt": self.excerpt}
        if self.reason_message is not None:
            data["reason_message"] = self.reason_message.to_json()
        return data


@dataclass
class RerankResult:
    reranker: str
    selected: list[Selection]
    report: dict[str, Any] = field(default_factory=dict)
    fallback: str | None = None  # why the reranker fell back (LLM rerankers), else None
    tool_calls: list[list[int]] = field(default_factory=list)  # ids requested per tool call (LLM)
    usage: dict[str, Any] | None = None  # prompt_tokens, completion_tokens, cost (LLM)
    trace: dict[str, Any] | None = None  # the whole run, JSON-able, secrets scrubbed (LLM)

    def selected_ids(self, kind: CandidateKind = "topic") -> list[int]:
        return [s.id for s in self.selected if s.kind == kind]

    def message(self, key: str) -> Message | None:
        """A report text as its code ("note", "error", "protocol_note"): the reranker stores each
        beside its English text under `<key>_message`; None when there is none."""
        return Message.from_json(self.report.get(f"{key}_message"))


class Reranker(ABC):
    name: str
    # Declared so callers need no getattr probes: the dataclass of settings the run records
    # (None for keep-all), and the key an LLM reranker sends, to scrub from its trace.
    settings: Any = None
    api_key: str | None = None
    # True for a reranker that never awaits (threshold, keep-all): its blocking form finishes
    # the coroutine in place, without starting an event loop (or importing asyncio: ~30 ms of a
    # cold `flashback search`).
    instant: bool = False
    # The kinds this reranker judges. The search pipeline cuts the others by the person's
    # threshold settings (engine/api/search.py): Flash reads no unbuilt messages.
    reads: tuple[CandidateKind, ...] = KINDS
    # The person's threshold settings, where the face gave them: what an LLM reranker's fallback
    # keeps, and how the kinds it does not read are cut (engine.rerank.threshold.keep_unread).
    threshold: ThresholdSettings | None = None

    @property
    def rewrites(self) -> bool:
        """True when this reranker may restate the query first (it has a chat model)."""
        return type(self).arewrite is not Reranker.arewrite

    @abstractmethod
    async def arerank(self, query: str, candidates: list[Candidate],
                      rewrite: QueryRewrite | None = None) -> RerankResult:
        """Choose among `candidates` (every kind, in stage-1 order) for `query`.

        `rewrite` is the contextualized query stage 1 also searched with (see `arewrite`);
        rerankers that do not read queries ignore it.
        """

    def rerank_now(self, query: str, candidates: list[Candidate]) -> RerankResult:
        """Finish a reranker that never awaits (threshold, keep-all) here and now, without an
        event loop: the window re-filters on the GUI thread, where qasync's loop already runs
        (so `asyncio.run` cannot), and a task would make a slider step wait for a loop turn."""
        return self._finish_now(self.arerank(query, candidates))

    def _finish_now(self, coroutine: Coroutine[Any, Any, RerankResult]) -> RerankResult:
        try:
            coroutine.send(None)
        except StopIteration as done:
            return done.value
        coroutine.close()
        raise RuntimeError(f"the {self.name} reranker waits on something: run it on the event loop instead")

    async def arewrite(self, query: str) -> QueryRewrite | None:
        """Seed 000 step 1, before stage 1: the query restated from the conversation, or None
        when this reranker has no model or no conversation to restate it with (no call made)."""
        return None


class KeepAllReranker(Reranker):
    """`--reranker none`: stage 1 is the answer; every candidate is kept in order."""

    name = "none"
    instant = True

    async def arerank(self, query: str, candidates: list[Candidate],
                      rewrite: QueryRewrite | None = None) -> RerankResult:
        selected = [Selection.because(c.kind, c.id, vector_reason(c)) for c in candidates]
        counts = {kind: sum(1 for c in candidates if c.kind == kind) for kind in KINDS}
        return RerankResult(self.name, selected, {"retrieved": counts["topic"], "kept": counts["topic"]})


def vector_reason(candidate: Candidate) -> Message:
    """"vector rank 3, score 0.52": where stage 1 put a candidate."""
    return msg("rerank.reason.vector", rank=int(candidate.rank), score=float(candidate.score))
