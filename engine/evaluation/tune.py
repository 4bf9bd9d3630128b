"""Auto-tune the threshold reranker (threshold, gap, top-K; the lexical weight if it pays) with
k-fold cross-validation, so the score shown is the one expected on queries it was not tuned on.

The search is exhaustive over the sliders' grid (41 thresholds × 25 gaps × 10 K) on the
frozen candidates (engine/evaluation/sweep.py): each query's objective for every setting,
then per fold the setting with the best mean on the other folds, scored on the held-out
one. Ties (common: gaps that never cut once K is small) go to the setting nearest the
current one, so nothing moves that the data did not ask to move. The lexical weight
changes the candidates themselves, so each weight is one more frozen stage 1; it is
adopted only when its cross-validated gain over the default weight exceeds two standard
errors of the paired per-query difference (the dev slice's noise, not its luck).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.evaluation.frozen import FrozenQuery
from engine.evaluation.sweep import DEFAULT_BUDGET, Figures, SweepData
from engine.messages import msg
from engine.rerank.threshold import ThresholdSettings

OBJECTIVES = ("f1", "recall@budget")
GRID_THRESHOLDS = np.round(np.arange(0.10, 0.9001, 0.02), 2)
GRID_GAPS = np.round(np.arange(0.02, 0.5001, 0.02), 2)
GRID_TOP_KS = np.arange(1, 11)
SPANS = (0.80, 0.48, 9.0)  # each axis's range: distances to the current setting are in these units
# A lexical weight is adopted when its cross-validated gain exceeds this many standard errors
# of the paired per-query difference (≈ 95 % one-sided): the dev slice's 760 questions give
# a kept F1 a standard error near 0.01, and a gain inside that is luck of the split.
NOISE_SES = 2.0


@dataclass(frozen=True)
class Tuned:
    settings: ThresholdSettings
    lexical_weight: float | None  # None: the embedder's default (not tuned, or it did not pay)


@dataclass
class TuneResult:
    objective: str
    budget: int
    tuned: Tuned
    before: dict
    after: dict
    cross_validated: dict
    folds: int
    noise: dict = field(default_factory=dict)  # standard errors: is the gain more than luck?

    def as_dict(self) -> dict:
        s = self.tuned.settings
        return {"objective": self.objective,
                "settings": {"threshold": s.threshold, "gap": s.gap, "top_k": s.top_k,
                             "lexical_weight": self.tuned.lexical_weight},
                "before": self.before, "after": self.after, "cross_validated": self.cross_validated,
                "folds": self.folds, "budget": self.budget, "noise": self.noise}


def metrics_of(figures: Figures) -> dict:
    n = len(figures.precision)
    mean = (lambda a: round(float(np.mean(a)), 4)) if n else (lambda a: 0.0)
    return {"kept_precision": mean(figures.precision), "kept_recall": mean(figures.recall),
            "kept_f1": mean(figures.f1), "recall@budget": mean(figures.recall_budget),
            "kept_topics": mean(figures.kept), "queries": n}


def _objective(figures: Figures, objective: str) -> np.ndarray:
    return (figures.f1 if objective == "f1" else figures.recall_budget).astype(np.float32)


def objective_grid(data: SweepData, objective: str) -> np.ndarray:
    """queries × thresholds × gaps × Ks: each query's objective at every grid setting."""
    out = np.zeros((len(data), len(GRID_THRESHOLDS), len(GRID_GAPS), len(GRID_TOP_KS)), dtype=np.float32)
    big = data.first_big_gap(GRID_GAPS)  # queries × gaps
    for column, above in enumerate(data.above(GRID_THRESHOLDS).T):  # one threshold at a time: bounded memory
        kept = np.minimum(np.minimum(above[:, None, None], big[:, :, None]), GRID_TOP_KS[None, None, :])
        out[:, column] = _objective(data.figures(kept), objective)
    return out


def _best(means: np.ndarray, current: ThresholdSettings) -> tuple[int, int, int]:
    """The grid index of the best mean; ties to the setting nearest `current`."""
    top = np.argwhere(np.isclose(means, means.max(), rtol=0, atol=1e-7))
    distance = (np.abs(GRID_THRESHOLDS[top[:, 0]] - current.threshold) / SPANS[0]
                + np.abs(GRID_GAPS[top[:, 1]] - current.gap) / SPANS[1]
                + np.abs(GRID_TOP_KS[top[:, 2]] - current.top_k) / SPANS[2])
    threshold, gap, top_k = (int(i) for i in top[int(np.argmin(distance))])  # the grid's three axes
    return threshold, gap, top_k


def _settings(index: tuple[int, int, int]) -> ThresholdSettings:
    t, g, k = index
    return ThresholdSettings(float(GRID_THRESHOLDS[t]), float(GRID_GAPS[g]), int(GRID_TOP_KS[k]))


def fold_of(count: int, folds: int, seed: int = 0) -> np.ndarray:
    """Each query's fold (0 … folds-1), shuffled with a fixed seed: the same split every run."""
    order = np.random.default_rng(seed).permutation(count)
    assignment = np.empty(count, dtype=int)
    assignment[order] = np.arange(count) % folds
    return assignment


def _cross_validate(grids: Mapping[float | None, np.ndarray], data: Mapping[float | None, SweepData],
                    assignment: np.ndarray, folds: int, current: ThresholdSettings) -> Figures:
    """Held-out figures of every query: tuned on the other folds (weight and thresholds), scored on its own."""
    count = len(assignment)
    held = {name: np.zeros(count) for name in ("precision", "recall", "f1", "recall_budget", "kept")}
    for fold in range(folds):
        train, test = assignment != fold, assignment == fold
        best = max(((grid[train].mean(0).max(), weight) for weight, grid in grids.items()), key=lambda p: p[0])[1]
        settings = _settings(_best(grids[best][train].mean(0), current))
        figures = data[best].at(settings)
        for name in held:
            held[name][test] = getattr(figures, name)[test]
    return Figures(**held)


def _se(values: np.ndarray) -> float:
    return float(np.std(values, ddof=1) / math.sqrt(len(values))) if len(values) > 1 else 0.0


def tune(frozen: Mapping[float | None, Sequence[FrozenQuery]], current: ThresholdSettings,
         objective: str = "f1", budget: int = DEFAULT_BUDGET, folds: int = 5, seed: int = 0,
         default_weight: float | None = None) -> TuneResult:
    """`frozen`: lexical weight → the labelled queries frozen with it (`default_weight` must be a key;
    one key tunes the thresholds alone). Same queries in the same order under every weight."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}")
    data = {weight: SweepData(queries, budget) for weight, queries in frozen.items()}
    base = data[default_weight]
    grids = {weight: objective_grid(d, objective) for weight, d in data.items()}
    count = len(base)
    folds = max(2, min(folds, count)) if count >= 2 else 0

    def choose(weights: Mapping[float | None, np.ndarray]) -> Tuned:
        weight = max(weights, key=lambda w: (weights[w].mean(0).max() if count else 0.0, w == default_weight))
        return Tuned(_settings(_best(weights[weight].mean(0), current)) if count else current, weight)

    tuned = choose({default_weight: grids[default_weight]})
    noise: dict = {}
    cross = base.at(tuned.settings)
    if folds:
        assignment = fold_of(count, folds, seed)
        cross = _cross_validate({default_weight: grids[default_weight]}, data, assignment, folds, current)
        if len(grids) > 1:  # does choosing the lexical weight too pay, out of sample?
            with_weight = _cross_validate(grids, data, assignment, folds, current)
            gain = _objective(with_weight, objective) - _objective(cross, objective)
            noise["lexical_weight_gain"] = round(float(gain.mean()), 4)
            noise["lexical_weight_gain_se"] = round(_se(gain), 4)
            if gain.mean() > NOISE_SES * _se(gain) > 0:
                tuned, cross = choose(grids), with_weight
        before = base.at(current)
        paired = _objective(cross, objective) - _objective(before, objective)
        noise["cross_validated_minus_before"] = round(float(paired.mean()), 4)
        noise["standard_error"] = round(_se(paired), 4)
    else:
        note = msg("evaluation.tune.too_few_queries")
        noise["note"], noise["note_message"] = str(note), note.to_json()
    after = data[tuned.lexical_weight].at(tuned.settings)
    return TuneResult(objective, budget, tuned, metrics_of(base.at(current)), metrics_of(after), metrics_of(cross),
                      folds, noise)


LEXICAL_WEIGHTS = (0.5, 0.7, 1.0)  # tried beside the embedder's default when the lexical weight is tuned


def tune_service(service, targets, retrieval, current: ThresholdSettings, objective: str = "f1",
                 budget: int = DEFAULT_BUDGET, folds: int = 5, lexical: bool = True, seed: int = 0,
                 on_progress=None, cancel=None) -> TuneResult:
    """Freeze stage 1 for `targets` (once per lexical weight tried) and tune (blocking: a worker's job).
    `on_progress(done, total)` counts stage-1 searches. People and files are not searched: the
    figures are over topics, and leaving them out halves the time."""
    from dataclasses import replace

    from engine.evaluation.frozen import freeze_with_service

    weights: list[float | None] = [retrieval.lexical_weight]
    if lexical and retrieval.hybrid and retrieval.fusion == "score":  # the weight means nothing otherwise
        weights += [w for w in LEXICAL_WEIGHTS if w != retrieval.lexical_weight]
    total = len(weights) * len(targets)
    frozen = {}
    for position, weight in enumerate(weights):
        def progress(done: int, _count: int, offset: int = position * len(targets)) -> None:
            if on_progress is not None:
                on_progress(offset + done, total)

        frozen[weight] = freeze_with_service(service, targets,
                                             replace(retrieval, lexical_weight=weight, people=0, artifacts=0),
                                             progress, cancel)
    return tune(frozen, current, objective, budget, folds, seed, default_weight=retrieval.lexical_weight)
