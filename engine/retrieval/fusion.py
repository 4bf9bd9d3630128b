"""Combining and diversifying rankings: calibrated score fusion, reciprocal rank fusion, maximal marginal relevance."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

RRF_K = 60  # Cormack et al. 2009; seed 002


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse rankings of ids (best first) by Σ 1/(k + rank); ties keep first-seen order."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def calibrated_fusion(similarity: Mapping[int, float], lexical: Sequence[tuple[int, float]],
                      lexical_weight: float) -> list[tuple[int, float]]:
    """(id, fused score) best first: (1 − w)·similarity + w·lexical relevance, both in [0, 1].

    Both sides are already on absolute scales (`Calibration.score`, `lexical_relevance`),
    so the sum is one too: the score that ranks is the score shown and thresholded, and a
    topic far ahead on BM25 stays far ahead. An id BM25 did not return scores 0 on that
    side. When BM25 returned nothing at all (no query word is in the store) the lexical
    side has no say and the similarity alone counts, so a misspelt query still finds
    what the character n-grams match. `similarity` must cover every id of `lexical`.
    """
    if not lexical:
        return sorted(similarity.items(), key=lambda pair: -pair[1])
    lexical_scores = dict(lexical)
    fused = {item: (1 - lexical_weight) * score + lexical_weight * lexical_scores.get(item, 0.0)
             for item, score in similarity.items()}
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
