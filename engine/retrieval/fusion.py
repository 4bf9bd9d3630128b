"""Combining and diversifying rankings: reciprocal rank fusion and maximal marginal relevance."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RRF_K = 60  # Cormack et al. 2009; seed 002


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse rankings of ids (best first) by Σ 1/(k + rank); ties keep first-seen order."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def _min_max(scored: Sequence[tuple[int, float]]) -> dict[int, float]:
    if not scored:
        return {}
    values = [score for _, score in scored]
    low, span = min(values), (max(values) - min(values)) or 1.0
    return {item: (score - low) / span for item, score in scored}


def weighted_score_fusion(dense: Sequence[tuple[int, float]], lexical: Sequence[tuple[int, float]],
                          lexical_weight: float) -> list[tuple[int, float]]:
    """Σ of each side's min-max normalised score, weighted; an id missing on one side gets 0 there.

    Unlike RRF it keeps how far apart the scores are: a topic far ahead on BM25 (a rare
    name, a number) stays far ahead, which measured better on LoCoMo (docs/benchmarks.md).
    """
    dense_norm, lexical_norm = _min_max(dense), _min_max(lexical)
    fused = {item: (1 - lexical_weight) * dense_norm.get(item, 0.0) + lexical_weight * lexical_norm.get(item, 0.0)
             for item in {**dense_norm, **lexical_norm}}
    return sorted(fused.items(), key=lambda pair: -pair[1])


def maximal_marginal_relevance(relevance: Sequence[float], vectors: np.ndarray, count: int,
                               lam: float = 0.5) -> list[int]:
    """Greedy MMR order: indices maximising λ·relevance − (1−λ)·max similarity to those chosen.

    `vectors` are L2-normalised rows aligned with `relevance`.
    """
    n = len(relevance)
    if n == 0:
        return []
    relevance_array = np.asarray(relevance, dtype=np.float32)
    similarity = vectors @ vectors.T
    chosen: list[int] = []
    redundancy = np.full(n, -np.inf, dtype=np.float32)
    available = np.ones(n, dtype=bool)
    for _ in range(min(count, n)):
        penalty = np.where(np.isfinite(redundancy), redundancy, 0.0)
        objective = lam * relevance_array - (1 - lam) * penalty
        objective[~available] = -np.inf
        best = int(np.argmax(objective))
        chosen.append(best)
        available[best] = False
        redundancy = np.maximum(redundancy, similarity[best])
    return chosen
