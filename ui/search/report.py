"""The stage report (what each stage removed; the cross-encoder's scores and fallback; Flash's tool
calls, fallback and what the cross-encoder left it) and the status line."""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QLabel, QWidget

from engine.api import Message, RerankResult
from ui.i18n import engine_words
from ui.search.reasons import fallback_explained, fallback_name


class StageReport(QLabel):
    """Rich text built from `RerankResult.report` exactly as the reranker filled it."""

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

    def show_result(self, result: RerankResult) -> None:
        report = result.report or {}
        if result.reranker == "threshold":
            self.setText(self._threshold(report))
        elif result.reranker == "flash":
            self.setText(self._flash(result, report))
        elif result.reranker == "cross-encoder":
            self.setText(self._cross_encoder(result, report))
        else:
            self.setText(self.tr("<b>Vector only</b>: {0} topics retrieved, all kept.").format(
                report.get("retrieved", 0)))

    def _threshold(self, report: dict) -> str:
        settings = report.get("settings", {})
        lines = [self.tr("<b>Threshold</b> — topics: {0} retrieved → <b>{1}</b> removed by threshold (&lt; {2:.2f})"
                         " → <b>{3}</b> removed by gap (&gt; {4:.2f}) → <b>{5}</b> over top-K ({6}) → "
                         "<b>{7} kept</b>").format(
            report.get("retrieved", 0), report.get("removed_by_threshold", 0), settings.get("threshold", 0.0),
            report.get("removed_by_gap", 0), settings.get("gap", 0.0), report.get("removed_by_top_k", 0),
            settings.get("top_k", 0), report.get("kept", 0))]
        by_kind = report.get("by_kind", {})
        others = []
        for kind, label in (("person", self.tr("people")), ("artifact", self.tr("attachments"))):
            counts = by_kind.get(kind)
            if counts and counts.get("retrieved"):
                others.append(self.tr("{0}: {1} retrieved, {2} kept").format(label, counts["retrieved"],
                                                                            counts.get("kept", 0)))
        if others:
            lines.append(" · ".join(others))
        return "<br>".join(lines)

    def _flash(self, result: RerankResult, report: dict) -> str:
        lines = [self.tr("<b>Flash</b> — {0} topics retrieved → <b>{1} kept</b> · {2} turn(s)").format(
            report.get("retrieved", 0), report.get("kept", len(result.selected)), report.get("turns", 0))]
        calls = result.tool_calls or report.get("tool_calls") or []
        if calls:
            lines.append(self.tr("Tool calls:"))
            for number, ids in enumerate(calls, 1):
                shown = ", ".join(str(i) for i in ids) or self.tr("(no ids)")
                lines.append(f"&nbsp;&nbsp;{number}. get_topics_content([{html.escape(shown)}])")
        else:
            lines.append(self.tr("No tool calls."))
        protocol = report.get("protocol")
        if protocol:
            name = self.tr("constrained turns (JSON schema)") if protocol == "constrained" \
                else self.tr("tool calls (forced)")
            note = result.message("protocol_note")
            why = engine_words(note) if note is not None else report.get("protocol_note") or ""
            lines.append(self.tr("Protocol: {0}").format(html.escape(name))
                         + (f" <span style='color:palette(placeholder-text)'>— {html.escape(why)}</span>"
                            if why else ""))
        fallback = result.fallback or report.get("fallback")
        if fallback:
            why = fallback_explained(report)  # the reason's sentence and what was kept (issue 23)
            lines.append(self.tr("<span style='color:#b45309'><b>Fallback</b>: {0}</span>").format(
                html.escape(fallback_name(str(fallback)))) + (f" — {html.escape(why)}" if why else ""))
        chain = report.get("chain")
        if isinstance(chain, dict):  # Flash after the cross-encoder (issue 25)
            note = Message.from_json(chain.get("note_message"))
            said = engine_words(note) if note is not None else chain.get("note") or ""
            lines.append(self.tr("<b>Cross-encoder first</b>: {0}").format(html.escape(said)))
        return "<br>".join(lines)

    def _cross_encoder(self, result: RerankResult, report: dict) -> str:
        """What was sent, the cut, and the fallback with its cause (issue 25)."""
        settings = report.get("settings", {})
        if report.get("skipped") or not report.get("sent"):
            lines = [self.tr("<b>Cross-encoder</b> — not asked: {0} topics retrieved → <b>{1} kept</b> in stage 1's "
                             "order").format(report.get("retrieved", 0), report.get("kept", 0))]
        else:
            lines = [self.tr("<b>Cross-encoder</b> — {0} topics retrieved → {1} sent in {2} request(s) → <b>{3}</b> "
                             "below {4:.2f} → <b>{5}</b> over top-K ({6}) → <b>{7} kept</b>").format(
                report.get("retrieved", 0), report.get("sent", 0), report.get("requests", 0),
                report.get("removed_by_threshold", 0), settings.get("threshold", 0.0),
                report.get("removed_by_top_k", 0), settings.get("top_k", 0), report.get("kept", 0))]
        for key in ("note", "error"):
            said = result.message(key)
            text = engine_words(said) if said is not None else report.get(key)
            if text and not (key == "error" and not result.fallback):
                lines.append(html.escape(str(text)))
        if result.fallback:
            lines.insert(1, self.tr("<span style='color:#b45309'><b>Fallback</b>: {0}</span> — stage 1's first "
                                    "topics kept").format(html.escape(fallback_name(result.fallback))))
        return "<br>".join(lines)


def status_text(stage1_ms: float | None, rerank_ms: float | None, reranker: str,
                usage: dict | None) -> str:
    """"Stage 1: 12 ms · Flash: 1.24 s · 1,234 + 56 tokens · cost $0.0012"."""
    parts = [QCoreApplication.translate("SearchPanel", "Stage 1: {0}").format(_duration(stage1_ms))]
    if rerank_ms is not None:
        parts.append(QCoreApplication.translate("SearchPanel", "{0}: {1}").format(reranker, _duration(rerank_ms)))
    if usage and ("prompt_tokens" in usage or "completion_tokens" in usage):
        prompt, completion = usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0
        parts.append(QCoreApplication.translate("SearchPanel", "{0:,} + {1:,} tokens").format(prompt, completion))
    elif usage and usage.get("total_tokens"):  # a rerank API counts one total (the cross-encoder)
        parts.append(QCoreApplication.translate("SearchPanel", "{0:,} tokens").format(int(usage["total_tokens"])))
    if usage and usage.get("cost") is not None:
        parts.append(QCoreApplication.translate("SearchPanel", "cost ${0:.4f}").format(float(usage["cost"])))
    return " · ".join(parts)


def _duration(milliseconds: float | None) -> str:
    if milliseconds is None:
        return "—"
    if milliseconds < 1000:
        return QCoreApplication.translate("SearchPanel", "{0:.0f} ms").format(milliseconds)
    return QCoreApplication.translate("SearchPanel", "{0:.2f} s").format(milliseconds / 1000)
