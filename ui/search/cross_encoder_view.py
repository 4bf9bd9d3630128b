"""What the search view shows of a cross-encoder run (issue 25): its own cut moved by the
sliders, its scores on the chart, and the scores Flash read when chained.

The server's scores come back once per search (`CrossEncoderReport.scores`, best first, every topic
sent). Score ≥ and top-K only choose among them, so moving those sliders re-cuts the scores
already here, at once and without a request, as the threshold sliders re-filter stage 1's
scores; the selections keep the engine's own reasons (message codes, rendered in the window's
language). Where the cross-encoder was not asked or fell back, its top-K cuts stage 1's
order, as the reranker itself does.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from engine.api import CrossEncoderReport, FlashReport, ScoredTopic, SearchResult, msg
from ui.i18n import engine_words
from ui.search.score_chart import ChartData, ChartPoint

NAME = "cross-encoder"  # RerankResult.reranker of a cross-encoder run
translate = QCoreApplication.translate  # lupdate reads translate("SearchPanel", "…") calls


def recut(outcome: SearchResult | None, threshold: float, top_k: int) -> SearchResult | None:
    """`outcome` with its topics chosen again at `threshold` and `top_k` (the engine's
    `SearchResult.recut_scores`); anything but a cross-encoder run as it is."""
    if outcome is None or outcome.result.reranker != NAME:
        return outcome
    return outcome.recut_scores(threshold, top_k)


def scored(outcome: SearchResult | None) -> tuple[ScoredTopic, ...]:
    """The cross-encoder's scores of a run (best first), or () when it was not asked or fell back."""
    report = outcome.report if outcome is not None else None
    if not isinstance(report, CrossEncoderReport) or report.fallback:
        return ()
    return report.scores


def chart_data(outcome: SearchResult | None, stage1_points: list[ChartPoint], threshold: float) -> ChartData:
    """The cross-encoder's scores as bars with its threshold line; stage 1's when it gave none."""
    scores = scored(outcome)
    if not scores:
        why = _unscored_caption(outcome)
        return ChartData(stage1_points, caption=why)
    kept = set(outcome.result.selected_ids("topic")) if outcome is not None else set()
    label = translate("SearchPanel", "Topic {0} · stage-1 rank {1}")
    points = [ChartPoint(entry.score, entry.id in kept, label.format(entry.id, entry.stage1_rank))
              for entry in scores]
    return ChartData(points, threshold, None, translate("SearchPanel", "Cross-encoder scores"),
                     above_label=translate("SearchPanel", "cut by top-K"))


def _unscored_caption(outcome: SearchResult | None) -> str:
    if outcome is None:
        return translate("SearchPanel", "Topic scores (the cross-encoder is scoring them…)")
    if outcome.result.fallback:
        return translate("SearchPanel", "Topic scores (stage 1: the cross-encoder fell back)")
    return translate("SearchPanel", "Topic scores (stage 1: the cross-encoder was not asked)")


def chain_scores(outcome: SearchResult | None) -> dict[int, str]:
    """Chained Flash: topic id → "cross-encoder score 0.83", for the topics the cross-encoder scored."""
    report = outcome.report if outcome is not None else None
    if not isinstance(report, FlashReport) or report.chain is None:
        return {}
    return {entry.id: engine_words(msg("rerank.cross_encoder.reason", score=entry.score))
            for entry in report.chain.scores}
