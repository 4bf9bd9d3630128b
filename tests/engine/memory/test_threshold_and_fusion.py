"""Seed 001's worked example, the fusion functions and the evaluation metrics."""

from __future__ import annotations

import numpy as np

from engine.evaluation.metrics import evidence_within_budget, ndcg, reciprocal_rank
from engine.rerank.base import Candidate
from engine.rerank.threshold import ThresholdReranker, ThresholdSettings, threshold_filter
from engine.retrieval.fusion import calibrated_fusion, maximal_marginal_relevance, reciprocal_rank_fusion

SEED_SCORES = [0.92, 0.88, 0.85, 0.67, 0.55, 0.52, 0.40, 0.35]


def test_seed_001_worked_example():
    kept, counts = threshold_filter(SEED_SCORES, ThresholdSettings(0.50, 0.15, 3))
    assert kept == [0, 1, 2]
    assert (counts.retrieved, counts.removed_by_threshold, counts.removed_by_gap, counts.kept) == (8, 2, 3, 3)


def test_top_k_cuts_after_gap_and_reranker_reports_per_kind():
    candidates = [Candidate("topic", i, i, s, s) for i, s in enumerate([0.9, 0.85, 0.8, 0.78, 0.2], 1)]
    candidates.append(Candidate("person", 7, 1, 0.95, 0.95))
    result = ThresholdReranker(ThresholdSettings(0.5, 0.15, 2)).rerank_now("q", candidates)
    assert result.selected_ids("topic") == [1, 2] and result.selected_ids("person") == [7]
    assert result.report["removed_by_top_k"] == 2 and result.report["removed_by_threshold"] == 1
    assert "0.90" in result.selected[0].reason


def test_no_candidate_passes():
    kept, counts = threshold_filter([0.3, 0.2], ThresholdSettings())
    assert kept == [] and counts.removed_by_threshold == 2


def test_rrf_rewards_agreement():
    fused = [item for item, _ in reciprocal_rank_fusion([[1, 2, 3], [3, 1, 4]])]
    assert fused[:2] == [1, 3] and set(fused) == {1, 2, 3, 4}


def test_calibrated_fusion_sums_both_scales_and_keeps_a_far_lead():
    # The vector side barely prefers 1 over 2; BM25 strongly prefers 2 (a rare name): 2 wins overall.
    similarity = {1: 0.50, 2: 0.49, 3: 0.10}
    fused = dict(calibrated_fusion(similarity, [(2, 0.9), (1, 0.1)], 0.3))
    assert fused[2] > fused[1] > fused[3]
    assert abs(fused[2] - (0.7 * 0.49 + 0.3 * 0.9)) < 1e-9 and abs(fused[3] - 0.07) < 1e-9
    assert calibrated_fusion({}, [], 0.3) == []


def test_calibrated_fusion_without_lexical_hits_is_the_similarity():
    # No query word is in the store (a typo): BM25 has no say, the n-gram vectors still rank.
    assert calibrated_fusion({1: 0.4, 2: 0.8}, [], 0.9) == [(2, 0.8), (1, 0.4)]


def test_mmr_skips_a_duplicate():
    vectors = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    assert maximal_marginal_relevance([0.9, 0.89, 0.5], vectors, 3, 0.5)[:2] == [0, 2]


def test_metrics():
    assert reciprocal_rank([5, 6, 7], frozenset({7})) == 1 / 3
    assert ndcg([1, 2], frozenset({1}), 10) == 1.0
    sizes = {1: 5000, 2: 4000, 3: 100}
    # Topic 2 does not fit after topic 1: the budget stops there (topics are taken whole).
    assert evidence_within_budget([1, 2, 3], (2, 3), sizes, 8000) == 0.0
    assert evidence_within_budget([3, 2], (2, 3), sizes, 8000) == 1.0
