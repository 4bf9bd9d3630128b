"""Ranking metrics over topics, as issue 3 defines them (binary relevance).

A query's relevant topics are those holding at least one relevant message; its evidence
is the set of relevant messages. Rankings are lists of topic ids, best first.

The kept set (what a reranker selected) is scored as issue 14 defines it: kept precision =
|kept ∩ relevant| / |kept| (0 when nothing is kept), kept recall = |kept ∩ relevant| /
|relevant|, F1 per query; means over the queries that have at least one relevant topic
(a query whose labels are all "not relevant" cannot be scored and is left out).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

METRIC_KEYS = (
    "recall@1_any", "recall@5_any", "recall@10_any", "recall@5_all", "mrr", "ndcg@10",
    "evidence@8000", "evidence@32000", "topic_chars_mean", "topic_chars_p90",
    "latency_ms_p50", "latency_ms_p95", "queries", "kept_precision", "kept_recall", "kept_f1",
)
EVIDENCE_BUDGETS = (8000, 32000)


@dataclass(frozen=True)
class QueryOutcome:
    """What one query produced and what it should have produced."""

    category: str
    ranking: list[int]  # topic ids, best first
    relevant_topics: frozenset[int]
    evidence_topics: tuple[int | None, ...]  # the topic of each relevant message (None: in no topic)
    latency_ms: float
    kept: tuple[int, ...] | None = None  # the reranker's topics; None: every candidate (no reranker)


def recall_any(ranking: Sequence[int], relevant: frozenset[int], k: int) -> float:
    return float(any(t in relevant for t in ranking[:k]))


def recall_all(ranking: Sequence[int], relevant: frozenset[int], k: int) -> float:
    return float(bool(relevant) and relevant <= set(ranking[:k]))


def reciprocal_rank(ranking: Sequence[int], relevant: frozenset[int]) -> float:
    for position, topic in enumerate(ranking, 1):
        if topic in relevant:
            return 1.0 / position
    return 0.0


def ndcg(ranking: Sequence[int], relevant: frozenset[int], k: int) -> float:
    gains = sum(1.0 / math.log2(position + 1) for position, t in enumerate(ranking[:k], 1) if t in relevant)
    ideal = sum(1.0 / math.log2(position + 1) for position in range(1, min(len(relevant), k) + 1))
    return gains / ideal if ideal else 0.0


def evidence_within_budget(ranking: Sequence[int], evidence_topics: Sequence[int | None],
                           topic_chars: dict[int, int], budget: int) -> float:
    """Share of relevant messages inside the topics taken whole, in rank order, within `budget` chars."""
    if not evidence_topics:
        return 0.0
    taken: set[int] = set()
    total = 0
    for topic in ranking:
        size = topic_chars.get(topic, 0)
        if total + size > budget:
            break  # the context is full: the next topic does not fit whole
        total += size
        taken.add(topic)
    return sum(1 for t in evidence_topics if t in taken) / len(evidence_topics)


def kept_scores(kept: Iterable[int], relevant: frozenset[int]) -> tuple[float, float, float]:
    """(precision, recall, F1) of one query's kept topics against its relevant ones."""
    kept = set(kept)
    hits = len(kept & relevant)
    precision = hits / len(kept) if kept else 0.0
    recall = hits / len(relevant) if relevant else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def percentile(values: Iterable[float], q: float) -> float:
    array = np.asarray(list(values), dtype=float)
    return float(np.percentile(array, q)) if array.size else 0.0


def summarise(outcomes: Sequence[QueryOutcome], topic_chars: dict[int, int]) -> dict[str, float]:
    """The metrics object of `flashback eval --json` for a set of query outcomes."""
    n = len(outcomes)

    def mean(values: Iterable[float]) -> float:
        values = list(values)
        return round(sum(values) / len(values), 4) if values else 0.0

    sizes = list(topic_chars.values())
    metrics = {
        "recall@1_any": mean(recall_any(o.ranking, o.relevant_topics, 1) for o in outcomes),
        "recall@5_any": mean(recall_any(o.ranking, o.relevant_topics, 5) for o in outcomes),
        "recall@10_any": mean(recall_any(o.ranking, o.relevant_topics, 10) for o in outcomes),
        "recall@5_all": mean(recall_all(o.ranking, o.relevant_topics, 5) for o in outcomes),
        "mrr": mean(reciprocal_rank(o.ranking, o.relevant_topics) for o in outcomes),
        "ndcg@10": mean(ndcg(o.ranking, o.relevant_topics, 10) for o in outcomes),
    }
    for budget in EVIDENCE_BUDGETS:
        metrics[f"evidence@{budget}"] = mean(
            evidence_within_budget(o.ranking, o.evidence_topics, topic_chars, budget) for o in outcomes)
    metrics["topic_chars_mean"] = round(float(np.mean(sizes)), 1) if sizes else 0.0
    metrics["topic_chars_p90"] = round(percentile(sizes, 90), 1)
    metrics["latency_ms_p50"] = round(percentile((o.latency_ms for o in outcomes), 50), 2)
    metrics["latency_ms_p95"] = round(percentile((o.latency_ms for o in outcomes), 95), 2)
    metrics["queries"] = n
    scored = [kept_scores(o.ranking if o.kept is None else o.kept, o.relevant_topics)
              for o in outcomes if o.relevant_topics]
    for position, name in enumerate(("kept_precision", "kept_recall", "kept_f1")):
        metrics[name] = mean(s[position] for s in scored)
    return metrics
