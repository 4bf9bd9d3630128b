"""Why the threshold reranker kept a candidate, in the UI's language.

The engine writes its reasons in English ("score 0.66 ≥ 0.50, 0.09 below the previous …",
engine/rerank/threshold.py) for the CLI, the traces and the exports. The window says the
same thing from the same numbers (the candidate's score, the threshold and gap the run
used, the score of the kind's previous selection) through tr(), so a Russian window reads
Russian. Flash's reasons are the model's own words and are shown as they are.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

translate = QCoreApplication.translate  # lupdate reads translate("SearchPanel", "…") calls


def threshold_reason(score: float, threshold: float, previous: float | None = None, gap: float = 0.0) -> str:
    if previous is None:
        return translate("SearchPanel", "score {0:.2f} ≥ {1:.2f}").format(score, threshold)
    return translate("SearchPanel", "score {0:.2f} ≥ {1:.2f}, {2:.2f} below the previous (gap limit {3:.2f})").format(
        score, threshold, previous - score, gap)


def threshold_reasons(selected: list[tuple[str, int]], scores: dict[tuple[str, int], float],
                      settings: dict) -> list[str | None]:
    """One reason per (kind, id) in `selected` (the reranker's order: each kind best first), or
    None where the score is unknown (the caller keeps the engine's text). `settings` is the
    run's own {"threshold", "gap"}, not the sliders' current values."""
    threshold, gap = float(settings.get("threshold", 0.0)), float(settings.get("gap", 0.0))
    previous: dict[str, float] = {}
    reasons: list[str | None] = []
    for kind, id_ in selected:
        score = scores.get((kind, id_))
        if score is None:
            reasons.append(None)
            continue
        reasons.append(threshold_reason(score, threshold, previous.get(kind), gap))
        previous[kind] = score
    return reasons
