"""Kept precision / recall / F1 of the threshold reranker over frozen candidates, for any settings.

The threshold reranker (engine/rerank/threshold.py) keeps a *prefix* of a query's topics
sorted by score: those ≥ the threshold, up to the first drop larger than the gap, at most
top-K. So for settings (t, g, k) a query keeps m = min(#scores ≥ t, first big gap, k)
topics, and its hits are a cumulative count at m. With every query's scores padded into
one matrix, a whole sweep (every threshold on the slider, every gap, every K) is a few
numpy operations: no search and no reranker call, which is what lets the chart follow a
slider. `tests/engine/evaluation/test_sweep.py` checks every figure against the reranker itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.evaluation.frozen import FrozenQuery
from engine.rerank.threshold import ThresholdSettings

GAP_EPSILON = 1e-9  # the reranker's own tolerance on "drop larger than the gap"
THRESHOLDS = np.round(np.arange(0.10, 0.9001, 0.01), 2)  # the slider's range (ui/search/settings_model.py)
GAPS = np.round(np.arange(0.02, 0.5001, 0.01), 2)
TOP_KS = np.arange(1, 11)
DEFAULT_BUDGET = 8000  # characters, as evidence@8000 in `flashback eval`


@dataclass(frozen=True)
class Figures:
    """Per-query arrays (shape: queries × …) for some settings; `means` averages them."""

    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    recall_budget: np.ndarray  # kept recall counting only the kept topics that fit the budget whole
    kept: np.ndarray  # topics kept

    def means(self) -> dict[str, np.ndarray | float]:
        if not len(self.precision):
            zero = np.zeros(self.precision.shape[1:])
            return {"kept_precision": zero, "kept_recall": zero, "kept_f1": zero, "recall@budget": zero}
        return {"kept_precision": self.precision.mean(0), "kept_recall": self.recall.mean(0),
                "kept_f1": self.f1.mean(0), "recall@budget": self.recall_budget.mean(0)}


class SweepData:
    """The scorable queries' frozen topic scores as padded matrices (built once per freeze)."""

    def __init__(self, queries: Sequence[FrozenQuery], budget: int = DEFAULT_BUDGET) -> None:
        self.queries = [q for q in queries if q.scorable]
        self.budget = budget
        count = len(self.queries)
        width = max(1, max((len(q.scores) for q in self.queries), default=0))  # argmax needs a column
        self.scores = np.full((count, width), -np.inf)
        self.gaps = np.full((count, width), -np.inf)  # gaps[:, i] = drop from i-1 to i; column 0 unused
        self.hits = np.zeros((count, width + 1), dtype=np.int32)  # relevant among the first m, by m
        self.lengths = np.zeros(count, dtype=np.int64)
        self.fits = np.zeros(count, dtype=np.int64)  # how many leading topics fit the budget whole
        self.relevant = np.ones(count)
        for row, query in enumerate(self.queries):
            order = np.argsort(-np.asarray(query.scores, dtype=float), kind="stable")  # as the reranker sorts
            scores = np.asarray(query.scores, dtype=float)[order]
            n = len(scores)
            self.scores[row, :n] = scores
            if n > 1:
                self.gaps[row, 1:n] = scores[:-1] - scores[1:]
            is_relevant = np.array([query.topics[i] in query.relevant for i in order], dtype=np.int32)
            self.hits[row, 1:n + 1] = np.cumsum(is_relevant)
            self.hits[row, n + 1:] = self.hits[row, n]
            sizes = np.cumsum(np.asarray(query.chars, dtype=np.int64)[order])
            self.fits[row] = int(np.searchsorted(sizes, budget, side="right"))
            self.lengths[row] = n
            self.relevant[row] = len(query.relevant)

    def __len__(self) -> int:
        return len(self.queries)

    # -- the three cuts -----------------------------------------------------------------
    def above(self, thresholds: np.ndarray) -> np.ndarray:
        """queries × thresholds: how many scores are ≥ each threshold."""
        return (self.scores[:, :, None] >= np.asarray(thresholds, dtype=float)[None, None, :]).sum(1)

    def first_big_gap(self, gaps: np.ndarray) -> np.ndarray:
        """queries × gaps: the index of the first drop larger than the gap (the list's length if none)."""
        big = self.gaps[:, :, None] > np.asarray(gaps, dtype=float)[None, None, :] + GAP_EPSILON
        return np.where(big.any(1), big.argmax(1), self.lengths[:, None])

    def figures(self, kept: np.ndarray) -> Figures:
        """Scores of keeping the first `kept` topics (an int array whose first axis is the queries)."""
        kept = np.asarray(kept)
        rows = np.arange(len(self)).reshape((-1,) + (1,) * (kept.ndim - 1))
        hits = self.hits[rows, kept].astype(float)
        relevant = self.relevant.reshape(rows.shape)
        precision = np.divide(hits, kept, out=np.zeros_like(hits), where=kept > 0)
        recall = hits / relevant
        total = precision + recall
        f1 = np.divide(2 * precision * recall, total, out=np.zeros_like(hits), where=total > 0)
        in_budget = np.minimum(kept, self.fits.reshape(rows.shape))
        recall_budget = self.hits[rows, in_budget] / relevant
        return Figures(precision, recall, f1, recall_budget, kept)

    def kept_counts(self, settings: ThresholdSettings) -> np.ndarray:
        above = self.above(np.array([settings.threshold]))[:, 0]
        return np.minimum(np.minimum(above, self.first_big_gap(np.array([settings.gap]))[:, 0]),
                          max(0, settings.top_k))

    def at(self, settings: ThresholdSettings) -> Figures:
        return self.figures(self.kept_counts(settings))

    # -- sweeps: one axis moves, the other two stay at `settings` ------------------------
    def sweep(self, axis: str, settings: ThresholdSettings, values: np.ndarray | None = None) -> dict:
        """{"values": x, "kept_precision": means, …} as `axis` (threshold | gap | top_k) runs over `values`."""
        if axis == "threshold":
            values = THRESHOLDS if values is None else np.asarray(values, dtype=float)
            kept = np.minimum(np.minimum(self.above(values), self.first_big_gap(np.array([settings.gap]))),
                              max(0, settings.top_k))
        elif axis == "gap":
            values = GAPS if values is None else np.asarray(values, dtype=float)
            kept = np.minimum(np.minimum(self.above(np.array([settings.threshold])), self.first_big_gap(values)),
                              max(0, settings.top_k))
        elif axis == "top_k":
            values = TOP_KS if values is None else np.asarray(values, dtype=int)
            base = np.minimum(self.above(np.array([settings.threshold])),
                              self.first_big_gap(np.array([settings.gap])))
            kept = np.minimum(base, np.maximum(values, 0)[None, :])
        else:
            raise ValueError(f"unknown sweep axis {axis!r}")
        return {"values": values, **self.figures(kept).means()}

    def grid(self, thresholds: np.ndarray, gaps: np.ndarray, top_ks: np.ndarray) -> Figures:
        """Every combination at once: arrays of queries × thresholds × gaps × top-Ks (the tuner's search)."""
        above = self.above(thresholds)[:, :, None, None]
        big = self.first_big_gap(gaps)[:, None, :, None]
        kept = np.minimum(np.minimum(above, big), np.asarray(top_ks)[None, None, None, :]).astype(np.int32)
        return self.figures(kept)
