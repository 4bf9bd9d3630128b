"""Seed 001's two-stage filter: similarity threshold, then a score-gap cut, then a final top-K.

Applied to each kind of candidate on its own (topics, people and artifacts have
different score ranges and none should crowd out another). The report counts what each
stage removed, as in the seed's "Stage 1 vs Stage 2" panel; the top-level numbers are the
topics', the per-kind ones are under `by_kind`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.messages import Message, msg
from engine.rerank.base import KINDS, Candidate, Reranker, RerankResult, Selection


@dataclass(frozen=True)
class ThresholdSettings:
    threshold: float = 0.50  # keep similarity ≥ this
    gap: float = 0.15  # cut everything after the first drop larger than this
    top_k: int = 3  # then keep at most this many


@dataclass(frozen=True)
class StageCounts:
    retrieved: int
    removed_by_threshold: int
    removed_by_gap: int
    removed_by_top_k: int
    kept: int


def threshold_filter(scores: list[float], settings: ThresholdSettings) -> tuple[list[int], StageCounts]:
    """Indices (into `scores`, sorted best first) that survive, and what each stage removed."""
    above = [i for i, score in enumerate(scores) if score >= settings.threshold]
    after_gap = above[:1]
    for previous, current in zip(above, above[1:], strict=False):
        if scores[previous] - scores[current] > settings.gap + 1e-9:
            break
        after_gap.append(current)
    kept = after_gap[: max(0, settings.top_k)]
    counts = StageCounts(
        retrieved=len(scores),
        removed_by_threshold=len(scores) - len(above),
        removed_by_gap=len(above) - len(after_gap),
        removed_by_top_k=len(after_gap) - len(kept),
        kept=len(kept),
    )
    return kept, counts


class ThresholdReranker(Reranker):
    name = "threshold"
    instant = True

    def __init__(self, settings: ThresholdSettings | None = None) -> None:
        self.settings = settings or ThresholdSettings()

    async def arerank(self, query: str, candidates: list[Candidate], rewrite=None) -> RerankResult:
        selected: list[Selection] = []
        by_kind: dict[str, dict[str, int]] = {}
        for kind in KINDS:
            group = sorted((c for c in candidates if c.kind == kind), key=lambda c: -c.score)
            kept, counts = threshold_filter([c.score for c in group], self.settings)
            by_kind[kind] = counts.__dict__
            for position, index in enumerate(kept):
                candidate = group[index]
                score, threshold = float(candidate.score), float(self.settings.threshold)
                if position:
                    drop = float(group[kept[position - 1]].score) - score
                    why = msg("rerank.threshold.reason_gap", score=score, threshold=threshold, drop=drop,
                              gap=float(self.settings.gap))
                else:
                    why = msg("rerank.threshold.reason", score=score, threshold=threshold)
                selected.append(Selection.because(kind, candidate.id, why))
        report: dict[str, object] = dict(by_kind["topic"])
        report["settings"] = self.settings.__dict__
        report["by_kind"] = by_kind
        return RerankResult(self.name, selected, report)


def keep_unread(candidates: list[Candidate], reranker: Reranker, result: RerankResult,
                threshold: ThresholdSettings | None) -> tuple[RerankResult, Message | None]:
    """Candidates of a kind `reranker` does not read (Flash reads no unbuilt messages) cut by the
    person's threshold settings, each with a reason saying so; without threshold settings they are
    refused and the returned note says why (issue 31: they were dropped silently). The search
    pipeline and Ask's rerank step both call this."""
    chosen = {(s.kind, s.id) for s in result.selected}
    unread = [c for c in candidates if c.kind not in reranker.reads and (c.kind, c.id) not in chosen]
    if not unread:
        return result, None
    if threshold is None:
        return result, msg("search.unbuilt_not_read", count=len(unread), reranker=reranker.name)
    kept = ThresholdReranker(threshold).rerank_now("", unread).selected
    extra = [Selection.because(s.kind, s.id, msg("rerank.reason.unbuilt", reranker=reranker.name,
                                                 reason=s.reason_message or s.reason)) for s in kept]
    return replace(result, selected=[*result.selected, *extra]), None
