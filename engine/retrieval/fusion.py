"""Combining and diversifying rankings: calibrated score fusion, reciprocal rank fusion, maximal marginal relevance.

How much BM25 counts depends on the embedder (`lexical_weight_for`), and, for a multilingual
model, on whether BM25 could have matched a topic at all (`script_overlap`): an English
question shares no letters with a Russian chat, so BM25's 0 there says nothing, and the
topic is scored by the vectors alone instead of losing the lexical share of its score.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from engine.embeddings.base import Embedder

RRF_K = 60  # Cormack et al. 2009; seed 002
# BM25's share in score fusion when the settings leave it open. With the built-in embedder
# both sides are lexical and stemmed BM25 is the better one: on LoCoMo recall@5 was 0.907
# at 0.5, 0.917 at 0.7, 0.916 at 0.8, 0.924 at 0.9 and 0.917 with BM25 alone (evidence@8000
# 0.781 … 0.815); the hashed vectors still add candidates BM25 misses and break its ties.
LEXICAL_WEIGHT_BUILTIN = 0.9
# The local multilingual model, on LoCoMo dev (760 questions, docs/benchmarks.md "A local multilingual
# model"): recall@5 / evidence@8000 0.903/0.789 at 0.3, 0.922/0.826 at 0.5, 0.937/0.841 at 0.7,
# 0.933/0.834 at 0.9. 0.7 rather than 0.9 (within noise there) because a mixed-language store
# needs the vectors' share: English questions over the demo's Russian chats 0.781 at 0.7, 0.750 at 0.9.
LEXICAL_WEIGHT_LOCAL = 0.7
# An API model brings meaning that words miss, so its side keeps an even share (not measured
# here: no key offline).
LEXICAL_WEIGHT_OTHER = 0.5


def lexical_weight_for(embedder: Embedder) -> float:
    from engine.embeddings.builtin import BuiltinEmbedder  # here, not at import: fusion is plain arithmetic

    if isinstance(embedder, BuiltinEmbedder):
        return LEXICAL_WEIGHT_BUILTIN
    if embedder.multilingual:
        return LEXICAL_WEIGHT_LOCAL
    return LEXICAL_WEIGHT_OTHER


def script_shares(text: str) -> dict[str, float]:
    """Share of the letters of `text` per script ("LATIN", "CYRILLIC", …); {} without letters."""
    counts: dict[str, int] = {}
    for char in text:
        if char.isalpha():
            script = unicodedata.name(char, "OTHER ").split(" ", 1)[0]
            counts[script] = counts.get(script, 0) + 1
    total = sum(counts.values())
    return {script: count / total for script, count in counts.items()} if total else {}


def script_overlap(query: Mapping[str, float], text: str) -> float:
    """The chance that a letter of the query and a letter of `text` share a script: 1.0 for
    two English texts, 0.0 for English against Russian, 0.5 for English against a chat
    half in each. Texts without letters (or a query without) count as fully visible."""
    shares = script_shares(text)
    if not query or not shares:
        return 1.0
    return sum(share * shares.get(script, 0.0) for script, share in query.items())


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse rankings of ids (best first) by Σ 1/(k + rank); ties keep first-seen order."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def calibrated_fusion(similarity: Mapping[int, float], lexical: Sequence[tuple[int, float]],
                      lexical_weight: float, reach: Mapping[int, float] | None = None) -> list[tuple[int, float]]:
    """(id, fused score) best first: (1 − w)·similarity + w·lexical relevance, both in [0, 1].

    Both sides are already on absolute scales (`Calibration.score`, `lexical_relevance`),
    so the sum is one too: the score that ranks is the score shown and thresholded, and a
    topic far ahead on BM25 stays far ahead. An id BM25 did not return scores 0 on that
    side. When BM25 returned nothing at all (no query word is in the store) the lexical
    side has no say and the similarity alone counts, so a misspelt query still finds
    what the character n-grams match. `similarity` must cover every id of `lexical`.

    `reach` (id → [0, 1], missing: 1) scales BM25's weight per topic by how much of it BM25
    could match at all (`script_overlap`); at 0 the topic is scored by its similarity alone.
    """
    if not lexical:
        return sorted(similarity.items(), key=lambda pair: -pair[1])
    lexical_scores = dict(lexical)
    reach = reach or {}
    fused = {}
    for item, score in similarity.items():
        weight = lexical_weight * reach.get(item, 1.0)
        fused[item] = (1 - weight) * score + weight * lexical_scores.get(item, 0.0)
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
