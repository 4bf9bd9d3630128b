"""Sweep figures equal a brute-force recomputation: the threshold reranker itself run on every
query for every setting, scored by the same definitions one query at a time."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.evaluation.metrics import kept_scores
from engine.evaluation.report import averages, report_threshold, threshold_kept
from engine.evaluation.sweep import GAPS, THRESHOLDS, TOP_KS, SweepData
from engine.rerank.base import Candidate
from engine.rerank.threshold import ThresholdReranker, ThresholdSettings
from tests.engine.evaluation.synthetic import frozen_queries

QUERIES = frozen_queries(60)
DATA = SweepData(QUERIES, budget=6000)


def brute(settings: ThresholdSettings, budget: int = 6000) -> dict[str, float]:
    """Mean kept precision / recall / F1 / recall@budget, through the reranker, query by query."""
    rows = []
    for query in QUERIES:
        if not query.relevant:
            continue
        candidates = [Candidate("topic", t, rank, s, s, chars=c)
                      for rank, (t, s, c) in enumerate(zip(query.topics, query.scores, query.chars, strict=True), 1)]
        kept = ThresholdReranker(settings).rerank_now("q", candidates).selected_ids("topic")
        precision, recall, f1 = kept_scores(kept, query.relevant)
        size, in_budget = 0, []
        by_id = {c.id: c for c in candidates}
        for topic in sorted(query.topics, key=lambda t: -by_id[t].score):  # the context fills in score order
            size += by_id[topic].chars
            if size > budget:
                break
            in_budget.append(topic)
        fitting = [t for t in kept if t in in_budget]
        rows.append((precision, recall, f1, len(set(fitting) & query.relevant) / len(query.relevant)))
    return dict(zip(("kept_precision", "kept_recall", "kept_f1", "recall@budget"), np.mean(rows, axis=0),
                    strict=True))


@pytest.mark.parametrize("axis", ["threshold", "gap", "top_k"])
def test_every_sweep_point_equals_the_reranker(axis):
    current = ThresholdSettings(0.5, 0.15, 3)
    sweep = DATA.sweep(axis, current)
    values = {"threshold": THRESHOLDS, "gap": GAPS, "top_k": TOP_KS}[axis]
    assert list(sweep["values"]) == list(values)
    for position, value in enumerate(values):
        settings = ThresholdSettings(**{**current.__dict__, axis: value.item()})
        expected = brute(settings)
        for name, figure in expected.items():
            assert sweep[name][position] == pytest.approx(figure, abs=1e-12), (axis, value, name)


def test_the_grid_and_the_table_agree_with_the_reranker():
    thresholds, gaps, top_ks = np.array([0.3, 0.5, 0.62]), np.array([0.02, 0.1, 0.33]), np.array([1, 4, 10])
    grid = DATA.grid(thresholds, gaps, top_ks).means()
    for (i, t), (j, g), (k, top) in itertools.product(*(enumerate(v) for v in (thresholds, gaps, top_ks))):
        settings = ThresholdSettings(float(t), float(g), int(top))
        expected = brute(settings)
        assert grid["kept_f1"][i, j, k] == pytest.approx(expected["kept_f1"], abs=1e-12)
        table = averages(report_threshold(QUERIES, settings, budget=6000))
        for name in ("kept_precision", "kept_recall", "kept_f1"):
            assert table[name] == pytest.approx(expected[name], abs=1e-12)


def test_kept_prefix_is_what_the_reranker_keeps():
    settings = ThresholdSettings(0.45, 0.05, 4)
    counts = DATA.kept_counts(settings)
    for count, query in zip(counts, DATA.queries, strict=True):
        assert count == len(threshold_kept(query, settings))


def test_nothing_kept_means_precision_zero_and_unscorable_queries_stay_out():
    figures = DATA.at(ThresholdSettings(0.99, 0.5, 10))
    assert np.all(figures.precision[figures.kept == 0] == 0.0)
    reports = report_threshold(QUERIES, ThresholdSettings())
    unscored = [r for r in reports if r.kept_f1 is None]
    assert unscored and all(not r.frozen.relevant for r in unscored)
    assert averages(reports)["queries"] == len(DATA) == len(QUERIES) - len(unscored)


def test_an_empty_set_sweeps_to_zeros():
    empty = SweepData([])
    sweep = empty.sweep("threshold", ThresholdSettings())
    assert len(empty) == 0 and not np.any(sweep["kept_f1"])
