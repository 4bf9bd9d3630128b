"""Frozen queries made up for the sweep and tuner tests: scores on a 0.01 grid (so ties and
gaps that equal a slider value exactly occur, the cases a vectorised cut gets wrong first)."""

from __future__ import annotations

import numpy as np

from engine.evaluation.frozen import FrozenQuery, Target
from engine.evaluation.qrels import QueryFilters


def frozen_queries(count: int, seed: int = 7, candidates: int = 50) -> list[FrozenQuery]:
    rng = np.random.default_rng(seed)
    queries = []
    for number in range(count):
        n = int(rng.integers(0, candidates + 1))
        topics = tuple(int(t) for t in rng.choice(100_000, size=n, replace=False))
        relevant_share = rng.uniform(0.0, 0.3)
        relevant = {t for t in topics if rng.random() < relevant_share}
        scores = np.round(rng.uniform(0.05, 0.95, size=n), 2)
        # Relevant topics score higher on average: a threshold then means something.
        scores = tuple(float(min(0.99, s + (0.2 if t in relevant else 0.0)))
                       for s, t in zip(scores, topics, strict=True))
        if rng.random() < 0.7:
            relevant.add(int(rng.integers(100_000, 200_000)))  # a relevant topic stage 1 missed
        if number % 10 == 9:
            relevant = set()  # labelled "not relevant" only: listed, never scored
        chars = tuple(int(c) for c in rng.integers(200, 5000, size=n))
        evidence = tuple(sorted(relevant))
        target = Target(f"q{number}", f"query {number}", QueryFilters(), "all", ())
        queries.append(FrozenQuery(target, topics, scores, chars, frozenset(relevant), evidence))
    return queries
