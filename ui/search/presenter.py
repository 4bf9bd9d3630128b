"""What the search view shows, computed from the frozen candidates and the settings.

No widgets here and no engine logic either: the engine's rerankers and threshold filter are
called as they are; this module only shapes their results for the table, chart and cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from PySide6.QtCore import QCoreApplication

from engine.api import PRESETS, Flashback, SearchOutcome, Stage1Result, make_reranker
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
    base: SearchOutcome | None = None  # what the worker recorded with them (threshold / vector)
    outcome: SearchOutcome | None = None  # what is shown now
    flash: SearchOutcome | None = None  # the last Flash run on these candidates
    cross: SearchOutcome | None = None  # the cross-encoder's run on them (its scores; the sliders re-cut)
    ask: SearchOutcome | None = None  # an Ask run's fused candidates and its reranker's selection


def ask_state(outcome, retrieval) -> SearchState | None:
    """What the candidates and cards show after an Ask run: its fused candidates (as stage 1)
    and its reranker's selection; None when the run found nothing to show (a failed search)."""
    if outcome.selection is None:
        return None
    timings = outcome.timings_ms or {}
    stage1 = Stage1Result(outcome.question, list(outcome.candidates), {"total": timings.get("search", 0.0)},
                          settings=retrieval)
    shown = SearchOutcome(stage1, outcome.selection, {"stage1": timings.get("search", 0.0),
                                                      "rerank": timings.get("rerank", 0.0)}, run_id=outcome.run_id)
    return SearchState(stage1=stage1, ask=shown)


def stage1_work(service: Flashback, query: str, settings: SearchSettings) -> tuple[Stage1Result | None, object]:
    """Worker side of a search: (stage 1, its recorded outcome or None) or (None, the exception).

    Threshold and vector-only runs are recorded in the run history here, once per search (not
    per slider step); Flash and the cross-encoder (network calls, on the qasync loop) record their
    own runs. The exception is returned,
    not raised, so the GUI gets exactly one signal per search (see SearchPanel.search)."""
    try:
        if settings.mode in ("flash", "cross-encoder"):
            return service.search.stage1(query, settings.retrieval()), None
        outcome = service.search.run(query, settings.retrieval(), _local_reranker(settings), record=True)
    except Exception as error:  # shown in plain words by the panel
        return None, error
    return outcome.stage1, outcome


def _local_reranker(settings: SearchSettings):
    return make_reranker("threshold" if settings.mode == "threshold" else "none", settings.threshold_settings())


def local_rerank(service: Flashback, state: SearchState, settings: SearchSettings) -> SearchOutcome:
    """The threshold / vector-only result for the frozen candidates, instantly (GUI thread)."""
    reranker = _local_reranker(settings)
    base = state.base
    if base is not None and base.result.reranker == reranker.name and (
            reranker.name == "none" or base.result.report.get("settings") == settings.threshold_settings().__dict__):
        return base  # exactly what the worker recorded: keep it (and its run id)
    assert state.stage1 is not None, "local_rerank is called once stage 1 has frozen the candidates"
    return service.search.rerank_frozen(state.stage1, reranker)


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
    report = outcome.result.report if outcome is not None and outcome.result.reranker == "threshold" else {}
    above = report.get("retrieved", len(topics)) - report.get("removed_by_threshold", 0)
    gap_cut = above - report["removed_by_gap"] if report.get("removed_by_gap") else None
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
        note = outcome.result.message("note")
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
