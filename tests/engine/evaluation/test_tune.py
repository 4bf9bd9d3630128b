"""The tuner: an exhaustive grid on frozen candidates, k-fold cross-validation that scores each
query only with settings tuned on the other folds, and a lexical weight adopted only past the noise."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.evaluation.sweep import SweepData
from engine.evaluation.tune import GRID_GAPS, GRID_THRESHOLDS, GRID_TOP_KS, fold_of, tune
from engine.rerank.threshold import ThresholdSettings
from tests.engine.evaluation.synthetic import frozen_queries

CURRENT = ThresholdSettings(0.5, 0.16, 3)  # on the grid, so "after" can be compared with "before"
QUERIES = frozen_queries(80, seed=3)


@pytest.mark.parametrize("objective", ["f1", "recall@budget"])
def test_tuned_settings_are_the_grid_optimum_and_beat_the_current_in_sample(objective):
    result = tune({None: QUERIES}, CURRENT, objective, budget=6000, folds=4)
    shaped = result.as_dict()
    assert set(shaped) >= {"objective", "settings", "before", "after", "cross_validated"}
    assert set(shaped["settings"]) == {"threshold", "gap", "top_k", "lexical_weight"}
    key = "kept_f1" if objective == "f1" else "recall@budget"
    assert shaped["after"][key] >= shaped["before"][key]
    data = SweepData(QUERIES, 6000)
    best = max(float(np.mean(getattr(data.at(ThresholdSettings(float(t), float(g), int(k))),
                                     "f1" if objective == "f1" else "recall_budget")))
               for t in GRID_THRESHOLDS[::4] for g in GRID_GAPS[::4] for k in GRID_TOP_KS)
    assert shaped["after"][key] >= round(best, 4)  # no coarser grid point does better
    assert result.tuned.settings.threshold in GRID_THRESHOLDS and 1 <= result.tuned.settings.top_k <= 10


def test_each_query_is_scored_with_settings_tuned_without_it():
    folds = 4
    result = tune({None: QUERIES}, CURRENT, "f1", folds=folds)
    scorable = [q for q in QUERIES if q.relevant]
    assignment = fold_of(len(scorable), folds)
    held_out_f1 = np.zeros(len(scorable))
    for fold in range(folds):
        train = [q for q, f in zip(scorable, assignment, strict=True) if f != fold]
        test = [q for q, f in zip(scorable, assignment, strict=True) if f == fold]
        chosen = tune({None: train}, CURRENT, "f1", folds=folds).tuned.settings
        held_out_f1[assignment == fold] = SweepData(test).at(chosen).f1
    assert result.cross_validated["kept_f1"] == round(float(held_out_f1.mean()), 4)
    assert result.cross_validated["queries"] == len(scorable) == result.before["queries"]


def test_a_lexical_weight_that_changes_nothing_is_not_adopted():
    result = tune({None: QUERIES, 0.5: QUERIES}, CURRENT, "f1")
    assert result.tuned.lexical_weight is None
    assert result.noise["lexical_weight_gain"] == 0.0


def test_a_lexical_weight_that_ranks_the_evidence_first_is_adopted():
    def perfect(query):  # relevant topics score 0.9, the rest 0.2: any sane cut keeps exactly them
        scores = tuple(0.9 if t in query.relevant else 0.2 for t in query.topics)
        return replace(query, scores=scores)

    result = tune({None: QUERIES, 1.0: [perfect(q) for q in QUERIES]}, CURRENT, "f1")
    assert result.tuned.lexical_weight == 1.0
    assert result.cross_validated["kept_f1"] > result.before["kept_f1"]
    assert result.noise["lexical_weight_gain"] > result.noise["lexical_weight_gain_se"]


def test_too_few_queries_tune_without_cross_validation():
    one = [q for q in QUERIES if q.relevant][:1]
    result = tune({None: one}, CURRENT, "f1")
    assert result.folds == 0 and result.cross_validated["queries"] == 1
    with pytest.raises(ValueError):
        tune({None: QUERIES}, CURRENT, "precision")
