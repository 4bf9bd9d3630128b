"""What the search view shows of a cross-encoder run (issue 25): its own cut moved by the
sliders, its scores on the chart, and the scores Flash read when chained.

The server's scores come back once per search (`report["scores"]`, best first, every topic
sent). Score ≥ and top-K only choose among them, so moving those sliders re-cuts the scores
already here, at once and without a request, as the threshold sliders re-filter stage 1's
scores; the selections keep the engine's own reasons (message codes, rendered in the window's
language). Where the cross-encoder was not asked or fell back, its top-K cuts stage 1's
order, as the reranker itself does.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QCoreApplication

from engine.api import Message, SearchOutcome, Selection, cross_encoder_fallback_message, msg
from ui.i18n import engine_words
from ui.search.score_chart import ChartData, ChartPoint

NAME = "cross-encoder"  # RerankResult.reranker of a cross-encoder run
translate = QCoreApplication.translate  # lupdate reads translate("SearchPanel", "…") calls


def recut(outcome: SearchOutcome | None, threshold: float, top_k: int) -> SearchOutcome | None:
    """`outcome` with its topics chosen again at `threshold` and `top_k` (the same outcome, its
    run id kept, when they are what it ran with). People and files stay as the run chose them."""
    if outcome is None or outcome.result.reranker != NAME:
        return outcome
    result, report = outcome.result, outcome.result.report or {}
    ran_with = report.get("settings") or {}
    if (ran_with.get("threshold"), ran_with.get("top_k")) == (threshold, top_k):
        return outcome
    topics = sorted((c for c in outcome.stage1.candidates if c.kind == "topic"), key=lambda c: (-c.score, c.rank))
    note = result.message("note")
    removed_threshold = removed_top_k = 0
    scores = report.get("scores") or []
    if result.fallback:  # stage 1's first top-K, each saying which failure
        why = cross_encoder_fallback_message(result.fallback)
        chosen = [Selection.because("topic", c.id, msg("rerank.cross_encoder.fallback_vector", reason=why,
                                                       rank=int(c.rank), score=float(c.score)))
                  for c in topics[:top_k]]
    elif report.get("skipped") or not scores:  # not asked: stage 1 had already chosen
        chosen = [Selection.because("topic", c.id, msg("rerank.reason.vector", rank=int(c.rank), score=float(c.score)))
                  for c in topics[:top_k]]
        if note is not None and "count" in note.params:  # "stage 1's first 5 kept"
            note = Message(note.code, {**note.params, "count": min(top_k, len(topics))})
    else:
        above = [entry for entry in scores if float(entry["score"]) >= threshold]
        removed_threshold, removed_top_k = len(scores) - len(above), max(0, len(above) - top_k)
        chosen = [Selection.because("topic", int(entry["id"]), msg("rerank.cross_encoder.reason",
                                                                   score=float(entry["score"])))
                  for entry in above[:top_k]]
        note = None if above else msg("rerank.cross_encoder.none_above", threshold=float(threshold),
                                      best=float(scores[0]["score"]))
    by_kind = dict(report.get("by_kind") or {})
    by_kind["topic"] = {**(by_kind.get("topic") or {}), "kept": len(chosen)}
    cut: dict[str, Any] = {
        **report, "kept": len(chosen), "kept_by_kind": {**(report.get("kept_by_kind") or {}), "topic": len(chosen)},
        "removed_by_threshold": removed_threshold, "removed_by_top_k": removed_top_k, "by_kind": by_kind,
        "settings": {**ran_with, "threshold": threshold, "top_k": top_k},
        "note": str(note) if note is not None else None, "note_message": note.to_json() if note is not None else None}
    others = [s for s in result.selected if s.kind != "topic"]
    # Not what was recorded: no run id (the recorded one is shown again when the sliders return).
    return dataclasses.replace(outcome, result=dataclasses.replace(result, selected=chosen + others, report=cut),
                               run_id=None)


def scored(outcome: SearchOutcome | None) -> list[dict[str, Any]]:
    """The cross-encoder's scores of a run (best first), or [] when it was not asked or fell back."""
    if outcome is None or outcome.result.reranker != NAME or outcome.result.fallback:
        return []
    return list(outcome.result.report.get("scores") or [])


def chart_data(outcome: SearchOutcome | None, stage1_points: list[ChartPoint], threshold: float) -> ChartData:
    """The cross-encoder's scores as bars with its threshold line; stage 1's when it gave none."""
    scores = scored(outcome)
    if not scores:
        why = _unscored_caption(outcome)
        return ChartData(stage1_points, caption=why)
    kept = set(outcome.result.selected_ids("topic")) if outcome is not None else set()
    label = translate("SearchPanel", "Topic {0} · stage-1 rank {1}")
    points = [ChartPoint(float(entry["score"]), int(entry["id"]) in kept,
                         label.format(entry["id"], entry["stage1_rank"])) for entry in scores]
    return ChartData(points, threshold, None, translate("SearchPanel", "Cross-encoder scores"),
                     above_label=translate("SearchPanel", "cut by top-K"))


def _unscored_caption(outcome: SearchOutcome | None) -> str:
    if outcome is None:
        return translate("SearchPanel", "Topic scores (the cross-encoder is scoring them…)")
    if outcome.result.fallback:
        return translate("SearchPanel", "Topic scores (stage 1: the cross-encoder fell back)")
    return translate("SearchPanel", "Topic scores (stage 1: the cross-encoder was not asked)")


def chain_scores(outcome: SearchOutcome | None) -> dict[int, str]:
    """Chained Flash: topic id → "cross-encoder score 0.83", for the topics the cross-encoder scored."""
    chain = (outcome.result.report or {}).get("chain") if outcome is not None else None
    if not isinstance(chain, dict):
        return {}
    return {int(entry["id"]): engine_words(msg("rerank.cross_encoder.reason", score=float(entry["score"])))
            for entry in chain.get("scores") or []}
