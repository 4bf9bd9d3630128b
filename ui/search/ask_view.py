"""The Ask mode's answer, above the candidates and cards: progress per step with Cancel, the plan
as editable chips, and the answer with its [n] links, marked claims and numbered sources."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from engine.api import AskOutcome, DateRange, Plan
from ui.search.answer_document import cited_number, write_outcome, write_text
from ui.search.ask_words import STEP_ORDER, step_name, step_tip, unreachable_sentence
from ui.search.plan_chips import PlanChips

DONE, FELL_BACK, SKIPPED = "#2e7d4f", "#b26a00", "#8a94a3"


def plan_of(data: dict) -> Plan:
    """A Plan from its `as_dict()` (the plan step's record, shown before the run ends)."""
    dates = data.get("date_range")
    date_range = DateRange(**{k: v for k, v in dates.items() if k != "label"}) if isinstance(dates, dict) else None
    return Plan(list(data.get("subqueries") or []), date_range, list(data.get("chats") or []),
                list(data.get("people") or []), str(data.get("source") or "model"), data.get("fallback"))


class AskView(QFrame):
    cite_activated = Signal(object)  # the cited Source
    cancel_requested = Signal()
    rerun_requested = Signal(object)  # the edited Plan

    def __init__(self, chat_names, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("askView")
        self.setStyleSheet("#askView { border: 1px solid #cfd6de; border-radius: 6px; background: palette(base); }")
        self.outcome: AskOutcome | None = None  # the AskOutcome shown (or the partial one of a cancelled run)
        self.records: list = []  # the steps reported so far
        self.running = False
        self._answer_text = ""  # the text `on_answer_text` gave, until the outcome replaces it
        self.steps = QLabel()
        self.steps.setTextFormat(Qt.TextFormat.RichText)
        self.busy = QProgressBar(textVisible=False)
        self.busy.setMaximumSize(120, 14)
        self.busy.setRange(0, 0)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop this question; what was found so far stays"))
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.plan_chips = PlanChips(chat_names, self)
        self.plan_chips.rerun_requested.connect(self.rerun_requested)
        self.answer = QTextBrowser()
        self.answer.setOpenLinks(False)
        self.answer.setFrameShape(QFrame.Shape.NoFrame)
        self.answer.anchorClicked.connect(self._on_anchor)
        self.answer.setPlaceholderText(self.tr("Ask a question: the answer, with the messages it cites, shows here."))
        self.note = QLabel(wordWrap=True)
        self.note.setStyleSheet("color: #6b7280;")
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note.hide()
        top = QHBoxLayout()
        top.addWidget(self.steps, 1)
        top.addWidget(self.busy)
        top.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.plan_chips)
        layout.addWidget(self.answer, 1)
        layout.addWidget(self.note)
        self.plan_chips.hide()
        self._set_running(False)
        self._show_steps()

    # -- a run --------------------------------------------------------------------------------
    def start(self, plan: Plan | None = None) -> None:
        """A new question: the steps reset, the plan shown when the person gave it."""
        self.outcome, self.records = None, []
        self.answer.setPlainText(self.tr("Planning the searches…") if plan is None else self.tr("Searching…"))
        self.note.hide()
        if plan is not None:
            self.plan_chips.set_plan(plan)
        self.plan_chips.setVisible(plan is not None)
        self._set_running(True)
        self._show_steps()

    def show_step(self, record) -> None:
        self.records.append(record)
        if record.name == "plan" and isinstance(record.detail.get("plan"), dict):
            self.plan_chips.set_plan(plan_of(record.detail["plan"]))
            self.plan_chips.show()
        waiting = {"plan": self.tr("Searching…"), "search": self.tr("Choosing among the topics found…"),
                   "rerank": self.tr("Reading the messages…"), "compose": self.tr("Writing the answer…"),
                   "answer": self.tr("Checking the answer against the messages…")}
        if record.name in waiting and not self._answer_text:
            self.answer.setPlainText(waiting[record.name])
        self._show_steps()

    def show_text(self, text: str) -> None:
        """The answer's text as the engine gave it, before the run is recorded."""
        self._answer_text = text
        write_text(self.answer.document(), text)

    def show_outcome(self, outcome, missing_model: str | None, reason: str, note: str = "") -> None:
        self.outcome = outcome
        self.records = list(outcome.steps)
        self.plan_chips.set_plan(outcome.plan)
        self.plan_chips.show()
        if outcome.fallback == "answer_unreachable":  # the server named, not "no answer (unreachable)"
            reason = unreachable_sentence(outcome) or reason
        write_outcome(self.answer.document(), outcome, missing_model, reason)
        self.note.setText(note)
        self.note.setVisible(bool(note))
        self._set_running(False)
        self._show_steps()

    def show_stopped(self, partial, text: str) -> None:
        """Cancelled or failed: what was found so far (a cancelled run's partial outcome), and why it stopped."""
        self._set_running(False)
        if partial is not None and partial.sources:
            self.outcome = partial
            write_outcome(self.answer.document(), partial, None, text)
        else:
            self.answer.setPlainText(text)
        self._show_steps()

    # -- showing --------------------------------------------------------------------------------
    def _set_running(self, running: bool) -> None:
        self.running = running
        if running:
            self._answer_text = ""
        self.busy.setVisible(running)
        self.cancel_button.setVisible(running)
        self.plan_chips.rerun_button.setVisible(not running)

    def _show_steps(self) -> None:
        done = {r.name: r for r in self.records}
        names = list(STEP_ORDER) + (["refine"] if "refine" in done else [])
        current = next((n for n in names if n not in done), None) if self.running else None
        parts, tips = [], []
        for name in names:
            record = done.get(name)
            label = html.escape(step_name(name))
            if record is None:
                parts.append(f"<b>{label}…</b>" if name == current else f"<span style='color:{SKIPPED}'>{label}</span>")
                continue
            tips.append(f"{step_name(name)}: {step_tip(record)}")
            if record.fallback == "no_model" or (record.fallback == "off" and record.ok):
                parts.append(f"<span style='color:{SKIPPED}'>○ {label}</span>")
            elif record.ok and not record.fallback:
                parts.append(f"<span style='color:{DONE}'>✓ {label}</span>")
            else:
                parts.append(f"<span style='color:{FELL_BACK}'>⚠ {label}</span>")
        self.steps.setText(" &nbsp;›&nbsp; ".join(parts))
        self.steps.setToolTip("\n".join(tips))

    def _on_anchor(self, url: QUrl) -> None:
        number = cited_number(url.toString())
        sources = self.outcome.sources if self.outcome is not None else []
        source = next((s for s in sources if s.number == number), None)
        if source is not None:
            self.cite_activated.emit(source)
