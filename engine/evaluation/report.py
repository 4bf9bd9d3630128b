"""Per-query and average figures of one setting over frozen queries: the Evaluate view's table.

Definitions (docs/evaluation.md, the view's help): relevant = the topics holding a message
labelled relevant; kept precision = |kept ∩ relevant| / |kept| (0 when nothing is kept);
kept recall = |kept ∩ relevant| / |relevant|; F1 per query; stage-1 recall@k = the share
of relevant topics among the first k stage-1 candidates; evidence@budget = the share of
relevant messages inside the topics taken whole, kept ones first then the other
candidates in stage-1 order, until `budget` characters are full (as `flashback eval`).
Means are over the queries with at least one relevant topic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.evaluation.frozen import FrozenQuery
from engine.evaluation.metrics import evidence_within_budget, kept_scores
from engine.evaluation.sweep import DEFAULT_BUDGET
from engine.rerank.threshold import ThresholdSettings, threshold_filter

STAGE1_K = 10
AVERAGED = ("stage1_recall", "kept_precision", "kept_recall", "kept_f1", "evidence")


@dataclass(frozen=True)
class QueryReport:
    frozen: FrozenQuery
    kept: tuple[int, ...]  # topic ids the reranker kept, best first
    kept_precision: float | None  # None: the query has no relevant topic, so it is not scored
    kept_recall: float | None
    kept_f1: float | None
    stage1_recall: float | None
    evidence: float | None


def threshold_kept(frozen: FrozenQuery, settings: ThresholdSettings) -> tuple[int, ...]:
    """What the threshold reranker keeps of this query's topics (its own filter, as in the search view)."""
    order, scores = frozen.by_score
    kept, _counts = threshold_filter(list(scores), settings)
    return tuple(frozen.topics[order[i]] for i in kept)


def score_kept(frozen: FrozenQuery, kept: Sequence[int], k: int = STAGE1_K,
               budget: int = DEFAULT_BUDGET) -> QueryReport:
    kept = tuple(kept)
    if not frozen.scorable:
        return QueryReport(frozen, kept, None, None, None, None, None)
    precision, recall, f1 = kept_scores(kept, frozen.relevant)
    stage1 = len(set(frozen.topics[:k]) & frozen.relevant) / len(frozen.relevant)
    ranking = list(dict.fromkeys(kept + frozen.topics))
    sizes = dict(zip(frozen.topics, frozen.chars, strict=True))
    evidence = evidence_within_budget(ranking, frozen.evidence, sizes, budget)
    return QueryReport(frozen, kept, precision, recall, f1, stage1, evidence)


def report_threshold(queries: Iterable[FrozenQuery], settings: ThresholdSettings, k: int = STAGE1_K,
                     budget: int = DEFAULT_BUDGET) -> list[QueryReport]:
    return [score_kept(q, threshold_kept(q, settings), k, budget) for q in queries]


def report_keep_all(queries: Iterable[FrozenQuery], k: int = STAGE1_K,
                    budget: int = DEFAULT_BUDGET) -> list[QueryReport]:
    """The vector-only mode: every candidate is kept."""
    return [score_kept(q, q.topics, k, budget) for q in queries]


def averages(reports: Sequence[QueryReport]) -> dict[str, float]:
    scored = [r for r in reports if r.kept_f1 is not None]
    means = {name: (sum(getattr(r, name) for r in scored) / len(scored) if scored else 0.0) for name in AVERAGED}
    means["kept_topics"] = sum(len(r.kept) for r in scored) / len(scored) if scored else 0.0
    means["queries"] = len(scored)
    means["unscored"] = len(reports) - len(scored)
    return means
