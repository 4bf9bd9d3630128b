"""What the search view shows, computed from the frozen candidates and the settings.

No widgets here and no engine logic either: the engine's rerankers and threshold filter are
called as they are; this module only shapes their results for the table, chart and cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from PySide6.QtCore import QCoreApplication

from engine.api import (
    PRESETS,
    CrossEncoderReport,
    Flashback,
    SearchRequest,
    SearchResult,
    Stage1Result,
    StageCounts,
    ThresholdReport,
    Timings,
    make_reranker,
)
from ui.i18n import engine_words
from ui.search import cross_encoder_view
from ui.search.cards import CardData
from ui.search.reasons import fallback_name, selection_reason
from ui.search.score_chart import ChartData, ChartPoint
from ui.search.settings_model import SearchSettings

translate = QCoreApplication.translate  # lupdate reads translate("SearchPanel", "…") calls


@dataclass
class SearchState:
    stage1: Stage1Result | None = None  # the frozen candidates
    base: SearchResult | None = None  # what the worker's search gave (recorded for threshold / vector)
    outcome: SearchResult | None = None  # what is shown now
    flash: SearchResult | None = None  # the last Flash run on these candidates
    cross: SearchResult | None = None  # the cross-encoder's run on them (its scores; the sliders re-cut)
    ask: SearchResult | None = None  # an Ask run's fused candidates and its reranker's selection


def ask_state(outcome, retrieval) -> SearchState | None:
    """What the candidates and cards show after an Ask run: its fused candidates (as stage 1)
    and its reranker's selection; None when the run found nothing to show (a failed search)."""
    if outcome.selection is None:
        return None
    timings = outcome.timings_ms or {}
    search_ms, rerank_ms = float(timings.get("search", 0.0)), float(timings.get("rerank", 0.0))
    stage1 = Stage1Result(outcome.question, list(outcome.candidates), {"total": search_ms}, settings=retrieval)
    shown = SearchResult(SearchRequest(outcome.question, retrieval, frozen=stage1), stage1, outcome.selection,
                         Timings(search_ms, rerank_ms, search_ms + rerank_ms), run_id=outcome.run_id)
    return SearchState(stage1=stage1, ask=shown)


def search_request(query: str, settings: SearchSettings) -> SearchRequest:
    """The window's search as the pipeline takes it. Threshold and vector-only runs are recorded
    here, once per search (not per slider step); Flash and the cross-encoder (network calls, on
    the qasync loop, started by the person) record their own runs on these frozen candidates."""
    local = settings.mode not in ("flash", "cross-encoder")
    return SearchRequest(query, settings.retrieval(), _local_reranker(settings) if local else None,
                         threshold=settings.threshold_settings(), record=local, client="window")


def stage1_work(service: Flashback, query: str, settings: SearchSettings) -> tuple[Stage1Result | None, object]:
    """Worker side of a search: (stage 1, the pipeline's result) or (None, the exception). The
    exception is returned, not raised, so the GUI gets exactly one signal per search (see
    SearchPanel.search)."""
    try:
        outcome = service.search.search_sync(search_request(query, settings))
    except Exception as error:  # shown in plain words by the panel
        return None, error
    return outcome.stage1, outcome


def _local_reranker(settings: SearchSettings):
    return make_reranker("threshold" if settings.mode == "threshold" else "none", settings.threshold_settings())


def local_rerank(state: SearchState, settings: SearchSettings) -> SearchResult | None:
    """The threshold / vector-only result for the frozen candidates, instantly (GUI thread): the
    worker's result re-cut (itself, with its run id, at the settings it ran with), or after an Ask
    run, its fused candidates re-cut."""
    frozen = state.base or state.ask
    return frozen.recut(_local_reranker(settings)) if frozen is not None else None


def shown_candidates(state: SearchState) -> list:
    """The candidates the shown result chose from: stage 1's, or, after a Flash run that also
    searched a rewritten query, both searches fused (`outcome.stage1`)."""
    stage1 = state.outcome.stage1 if state.outcome is not None else state.stage1
    return stage1.candidates if stage1 is not None else []


def chart_data(state: SearchState, settings: SearchSettings) -> ChartData:
    """Topic scores best first; the threshold line and the gap cut when the threshold reranker is on."""
    if state.stage1 is None:
        return ChartData()
    topics = sorted((c for c in shown_candidates(state) if c.kind == "topic"), key=lambda c: -c.score)
    outcome = state.outcome
    kept = {s.id for s in outcome.result.selected if s.kind == "topic"} if outcome else set()
    label = translate("SearchPanel", "Topic {0} · stage-1 rank {1}")
    points = [ChartPoint(c.score, c.id in kept, label.format(c.id, c.rank)) for c in topics]
    if settings.mode == "flash":
        return ChartData(points, caption=translate("SearchPanel", "Topic scores (kept by Flash)"))
    if settings.mode == "cross-encoder":
        return cross_encoder_view.chart_data(outcome, points, settings.ce_threshold)
    if settings.mode != "threshold":
        return ChartData(points, caption=translate("SearchPanel", "Topic scores"))
    report = outcome.report if outcome is not None else None
    counts = report.topics if isinstance(report, ThresholdReport) else StageCounts(retrieved=len(topics))
    above = counts.retrieved - counts.removed_by_threshold
    gap_cut = above - counts.removed_by_gap if counts.removed_by_gap else None
    return ChartData(points, settings.threshold, gap_cut, translate("SearchPanel", "Topic scores"))


def selection_cards(state: SearchState, settings: SearchSettings) -> tuple[list[CardData], str]:
    """Cards in selection order, and what to say when there are none."""
    if state.stage1 is None:
        return [], translate("SearchPanel", "Selections appear here after a search.")
    outcome = state.outcome
    if outcome is None and settings.mode == "cross-encoder":
        return [], translate("SearchPanel", "The cross-encoder's choice appears here once its scores are back.")
    if outcome is None:
        return [], translate("SearchPanel", "Press “Run Flash” to let the LLM choose among the candidates.")
    by_key = {(c.kind, c.id): c for c in shown_candidates(state)}
    chained = cross_encoder_view.chain_scores(outcome)  # Flash after the cross-encoder: its scores
    selected = outcome.result.selected
    cards = []
    for selection in selected:
        reason = selection_reason(selection)  # the engine's code in the window's language, or the model's words
        candidate = by_key.get((selection.kind, selection.id))
        cards.append(CardData(selection.kind, selection.id, candidate.summary if candidate else "",
                              reason, selection.excerpt, candidate.date if candidate else None,
                              candidate.chat if candidate else None,
                              chained.get(selection.id) if selection.kind == "topic" else None))
    if cards:
        return cards, ""
    if outcome.result.reranker == "threshold":
        return [], translate("SearchPanel", "Nothing passed the threshold. Lower the similarity or widen the gap.")
    if outcome.result.reranker == cross_encoder_view.NAME:
        report = outcome.report
        note = report.note if isinstance(report, CrossEncoderReport) else None
        return [], engine_words(note) if note is not None else translate("SearchPanel", "Nothing was kept.")
    if outcome.result.fallback:
        return [], translate("SearchPanel", "Flash kept nothing ({0}).").format(fallback_name(outcome.result.fallback))
    return [], translate("SearchPanel", "Nothing was kept.")


def flash_hint(state: SearchState, settings: SearchSettings, keys) -> tuple[str, bool]:
    """What the Run Flash button will do (and what it costs), or why it cannot run yet."""
    preset = PRESETS[settings.preset]
    label = engine_words(preset.label_message())  # "the LLM server" is words: in the window's language
    model = settings.model.strip()
    if settings.preset == "custom" and not settings.base_url.strip():
        return translate("SearchPanel", "Enter the server's URL in Settings → Flash to use a custom endpoint."), True
    if not model:
        return translate("SearchPanel", "Choose a model in Settings → Flash."), True
    if preset.needs_key and not (keys is not None and keys.get(settings.preset)):
        env = " or ".join(getattr(keys, "env_vars", lambda _p: ("FLASHBACK_API_KEY",))(settings.preset))
        text = translate("SearchPanel", "No API key for {0}: add one in the API key dialog, or set {1}.")
        return text.format(label, env), True
    if state.stage1 is None or not state.stage1.candidates:
        return translate("SearchPanel", "Search first; Flash then chooses among the candidates."), True
    if preset.needs_key:
        text = translate("SearchPanel", "Costs one paid API call to {0} ({1}), up to {2} tool turns.")
        return text.format(label, model, settings.max_tool_calls), False
    url = settings.effective_url()
    if urlsplit(url).hostname in ("localhost", "127.0.0.1", "::1"):
        text = translate("SearchPanel", "Runs on {0} at {1} ({2}): local, no cost.")
    else:
        text = translate("SearchPanel", "Sends the candidates to {0} at {1} ({2}), up to {3} tool turns.")
    return text.format(label, url, model, settings.max_tool_calls), False
