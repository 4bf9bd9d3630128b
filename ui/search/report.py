"""The stage report (what each stage removed; the cross-encoder's scores and fallback; Flash's tool
calls, fallback and what the cross-encoder left it) and the status line."""

from __future__ import annotations

import html
from typing import assert_never

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QLabel, QWidget

from engine.api import (
    CandidateKind,
    CrossEncoderReport,
    FlashReport,
    KeepAllReport,
    SearchResult,
    ThresholdReport,
    Usage,
)
from ui.i18n import engine_words
from ui.search.reasons import fallback_name, fallback_said


class StageReport(QLabel):
    """Rich text built from a search's typed report (`SearchResult.report`), as the reranker filled it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setStyleSheet("QLabel { background: palette(alternate-base); border-radius: 6px; padding: 8px; }")
        self.clear_report()

    def clear_report(self, text: str = "") -> None:
        self.setText(html.escape(text or self.tr("No search yet.")))

    def show_pending_flash(self, retrieved: int) -> None:
        self.setText(self.tr("<b>Flash</b>: {0} topic candidates ready. Press <i>Run Flash</i> to let the "
                             "LLM choose (one paid API call for remote endpoints).").format(retrieved))

    def show_result(self, outcome: SearchResult) -> None:
        report = outcome.report
        match report:
            case ThresholdReport():
                self.setText(self._threshold(report))
            case FlashReport():
                self.setText(self._flash(report))
            case CrossEncoderReport():
                self.setText(self._cross_encoder(report))
            case KeepAllReport():
                self.setText(self.tr("<b>Vector only</b>: {0} topics retrieved, all kept.").format(
                    report.topics.retrieved))
            case unreachable:
                assert_never(unreachable)

    def _threshold(self, report: ThresholdReport) -> str:
        settings, topics = report.settings, report.topics
        lines = [self.tr("<b>Threshold</b> — topics: {0} retrieved → <b>{1}</b> removed by threshold (&lt; {2:.2f})"
                         " → <b>{3}</b> removed by gap (&gt; {4:.2f}) → <b>{5}</b> over top-K ({6}) → "
                         "<b>{7} kept</b>").format(
            topics.retrieved, topics.removed_by_threshold, settings.threshold,
            topics.removed_by_gap, settings.gap, topics.removed_by_top_k,
            settings.top_k, topics.kept)]
        others = []
        kinds: tuple[tuple[CandidateKind, str], ...] = (("person", self.tr("people")),
                                                        ("artifact", self.tr("attachments")))
        for kind, label in kinds:
            counts = report.by_kind.get(kind)
            if counts and counts.retrieved:
                others.append(self.tr("{0}: {1} retrieved, {2} kept").format(label, counts.retrieved, counts.kept))
        if others:
            lines.append(" · ".join(others))
        return "<br>".join(lines)

    def _flash(self, report: FlashReport) -> str:
        lines = [self.tr("<b>Flash</b> — {0} topics retrieved → <b>{1} kept</b> · {2} turn(s)").format(
            report.topics.retrieved, report.topics.kept, report.turns)]
        if report.tool_calls:
            lines.append(self.tr("Tool calls:"))
            for number, ids in enumerate(report.tool_calls, 1):
                shown = ", ".join(str(i) for i in ids) or self.tr("(no ids)")
                lines.append(f"&nbsp;&nbsp;{number}. get_topics_content([{html.escape(shown)}])")
        else:
            lines.append(self.tr("No tool calls."))
        if report.protocol:
            name = self.tr("constrained turns (JSON schema)") if report.protocol == "constrained" \
                else self.tr("tool calls (forced)")
            why = engine_words(report.protocol_note) if report.protocol_note is not None else ""
            lines.append(self.tr("Protocol: {0}").format(html.escape(name))
                         + (f" <span style='color:palette(placeholder-text)'>— {html.escape(why)}</span>"
                            if why else ""))
        if report.fallback:
            # the reason's sentence and what was kept (issue 23)
            why = fallback_said(report.error, report.fallback_kept)
            lines.append(self.tr("<span style='color:#b45309'><b>Fallback</b>: {0}</span>").format(
                html.escape(fallback_name(report.fallback))) + (f" — {html.escape(why)}" if why else ""))
        if report.chain is not None:  # Flash after the cross-encoder (issue 25)
            said = engine_words(report.chain.note) if report.chain.note is not None else ""
            lines.append(self.tr("<b>Cross-encoder first</b>: {0}").format(html.escape(said)))
        return "<br>".join(lines)

    def _cross_encoder(self, report: CrossEncoderReport) -> str:
        """What was sent, the cut, and the fallback with its cause (issue 25)."""
        settings, topics = report.settings, report.topics
        if report.skipped or not report.sent:
            lines = [self.tr("<b>Cross-encoder</b> — not asked: {0} topics retrieved → <b>{1} kept</b> in stage 1's "
                             "order").format(topics.retrieved, topics.kept)]
        else:
            lines = [self.tr("<b>Cross-encoder</b> — {0} topics retrieved → {1} sent in {2} request(s) → <b>{3}</b> "
                             "below {4:.2f} → <b>{5}</b> over top-K ({6}) → <b>{7} kept</b>").format(
                topics.retrieved, report.sent, report.requests,
                topics.removed_by_threshold, settings.threshold,
                topics.removed_by_top_k, settings.top_k, topics.kept)]
        for said in (report.note, report.error if report.fallback else None):
            text = engine_words(said) if said is not None else ""
            if text:
                lines.append(html.escape(text))
        if report.fallback:
            lines.insert(1, self.tr("<span style='color:#b45309'><b>Fallback</b>: {0}</span> — stage 1's first "
                                    "topics kept").format(html.escape(fallback_name(report.fallback))))
        return "<br>".join(lines)


def status_text(stage1_ms: float | None, rerank_ms: float | None, reranker: str,
                usage: Usage | None) -> str:
    """"Stage 1: 12 ms · Flash: 1.24 s · 1,234 + 56 tokens · cost $0.0012"."""
    parts = [QCoreApplication.translate("SearchPanel", "Stage 1: {0}").format(_duration(stage1_ms))]
    if rerank_ms is not None:
        parts.append(QCoreApplication.translate("SearchPanel", "{0}: {1}").format(reranker, _duration(rerank_ms)))
    if usage is not None and usage.counts_turns:
        prompt, completion = usage.prompt_tokens or 0, usage.completion_tokens or 0
        parts.append(QCoreApplication.translate("SearchPanel", "{0:,} + {1:,} tokens").format(prompt, completion))
    elif usage is not None and usage.total_tokens:  # a rerank API counts one total (the cross-encoder)
        parts.append(QCoreApplication.translate("SearchPanel", "{0:,} tokens").format(usage.total_tokens))
    if usage is not None and usage.cost is not None:
        parts.append(QCoreApplication.translate("SearchPanel", "cost ${0:.4f}").format(usage.cost))
    return " · ".join(parts)


def _duration(milliseconds: float | None) -> str:
    if milliseconds is None:
        return "—"
    if milliseconds < 1000:
        return QCoreApplication.translate("SearchPanel", "{0:.0f} ms").format(milliseconds)
    return QCoreApplication.translate("SearchPanel", "{0:.2f} s").format(milliseconds / 1000)
