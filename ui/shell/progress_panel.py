"""A non-modal strip under the main view: what runs, which stage, how far, and Cancel; after a
build with a chat model set, the offer to read facts with its estimate, Read facts or Skip.

Non-modal on purpose: the person can keep browsing and searching what is already built
while an import or a build runs. When the work ends the strip turns into the summary (or
the cancel note) and stays until closed or the next run starts.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QToolButton, QVBoxLayout

from engine.api import Endpoint, ExtractionEstimate, ExtractionReport, msg, names_list, stage_message
from ui.i18n import engine_words
from ui.shell.import_controller import PipelineSummary, Step
from ui.shell.writer_words import writer_words


class ProgressPanel(QFrame):
    cancel_requested = Signal()
    facts_accepted = Signal()  # the person said yes to reading facts
    facts_declined = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("progress_panel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#progress_panel { background: palette(alternate-base); border-radius: 6px; }")
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: 600;")
        self.stage = QLabel()
        self.stage.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(10)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.read_facts_button = QPushButton(engine_words(msg("facts.window.read")))
        self.read_facts_button.setObjectName("read_facts")
        self.read_facts_button.clicked.connect(self.facts_accepted)
        self.skip_facts_button = QPushButton(engine_words(msg("facts.window.skip")))
        self.skip_facts_button.setObjectName("skip_facts")
        self.skip_facts_button.clicked.connect(self.facts_declined)
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setToolTip(self.tr("Close"))
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.hide)

        text = QVBoxLayout()
        text.setSpacing(4)
        text.addWidget(self.title)
        text.addWidget(self.stage)
        text.addWidget(self.bar)
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 10, 10, 10)
        row.addLayout(text, stretch=1)
        row.addWidget(self.read_facts_button, alignment=Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.skip_facts_button, alignment=Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.cancel_button, alignment=Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.close_button, alignment=Qt.AlignmentFlag.AlignTop)
        self._show_offer_buttons(False)
        self.hide()

    # -- states -------------------------------------------------------------------------
    def show_running(self, title: str) -> None:
        self.title.setText(title)
        self.stage.setText(self.tr("Starting…"))
        self.bar.setRange(0, 0)  # busy until the first report says how far
        self.bar.show()
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.show()
        self.close_button.hide()
        self._show_offer_buttons(False)
        self.show()

    def show_facts_offer(self, estimate: ExtractionEstimate, endpoint: Endpoint) -> None:
        """The estimate before any token is spent; what the build said stays above it."""
        if estimate.cost_usd is None:
            cost = msg("facts.cli.cost_unknown")
        elif estimate.cost_usd == 0 and endpoint.is_local:
            cost = msg("facts.window.cost_free")
        else:
            cost = msg("facts.window.cost", cost=f"{estimate.cost_usd:.2f}")
        offer = engine_words(msg("facts.window.offer", topics=estimate.topics, tokens_in=estimate.tokens_in,
                                 tokens_out=estimate.tokens_out, model=endpoint.default_model, cost=cost))
        before = self.stage.text() if self.isVisible() and not self.bar.isVisible() else ""
        self.title.setText(engine_words(msg("facts.window.offer_title")))
        self.stage.setText(f"{before}\n{offer}" if before else offer)
        self.bar.hide()
        self.cancel_button.hide()
        self.close_button.hide()
        self._show_offer_buttons(True)
        self.show()

    def show_facts_skipped(self, topics: int) -> None:
        self._show_result(engine_words(msg("facts.window.offer_title")),
                          engine_words(msg("facts.window.skipped", topics=topics)))

    def show_facts_report(self, report: ExtractionReport) -> None:
        text = engine_words(msg("facts.cli.summary", topics=report.topics_read, added=report.facts_added,
                                updated=report.facts_updated, removed=report.facts_removed,
                                refused=report.facts_refused_unsupported + report.facts_refused_secret,
                                people=report.people_added))
        if report.stopped:
            text += " " + engine_words(msg(f"facts.window.stopped.{report.stopped}"))
        self._show_result(engine_words(msg("facts.window.done")), text)

    def _show_offer_buttons(self, shown: bool) -> None:
        self.read_facts_button.setVisible(shown)
        self.skip_facts_button.setVisible(shown)

    def show_step(self, step: Step) -> None:
        self.stage.setText(self.describe(step))
        if step.total > 0:
            self.bar.setRange(0, step.total)
            self.bar.setValue(min(step.done, step.total))
        else:
            self.bar.setRange(0, 0)

    def show_summary(self, summary: PipelineSummary) -> None:
        self._show_result(self.tr("Done"), self.summarize(summary))

    def show_cancelled(self, phase: str) -> None:
        if phase == "facts":
            text = engine_words(msg("facts.window.stopped.cancelled"))
        elif phase == "build":
            text = self.tr("Build stopped. Finished stages are kept; Build memory continues where it stopped.")
        else:
            text = self.tr("Import cancelled; nothing was changed.")
        self._show_result(self.tr("Cancelled"), text)

    def _show_result(self, title: str, text: str) -> None:
        self.title.setText(title)
        self.stage.setText(text)
        self.bar.hide()
        self.cancel_button.hide()
        self._show_offer_buttons(False)
        self.close_button.show()
        self.show()

    def _on_cancel_clicked(self) -> None:
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText(self.tr("Cancelling…"))
        self.cancel_requested.emit()

    # -- words ----------------------------------------------------------------------------
    def describe(self, step: Step) -> str:
        if step.phase == "wait":
            who = writer_words(step.holder) if step.holder is not None else step.name
            return self.tr("Waiting for {holder} to finish…").format(holder=who)
        if step.phase == "import":
            reading = self.tr("Reading {name}: {messages} messages so far").format(
                name=step.name, messages=f"{step.messages:,}")
            if step.files > 1:  # issue 34: which export of a folder or zip, of how many
                return engine_words(msg("import.progress.file_of", number=step.file_number, count=step.files)) \
                    + " · " + reading
            return reading
        # The engine's words for its own stages (issue 31: one catalogue, the CLI's too); a stage
        # it does not name is "Working", never the stored name.
        label = engine_words(stage_message(step.name))
        if step.total > 1:
            return self.tr("{stage}: {done} of {total}").format(stage=label, done=f"{step.done:,}",
                                                                  total=f"{step.total:,}")
        return label + "…"

    def summarize(self, summary: PipelineSummary) -> str:
        parts = []
        if summary.imported and (summary.sources or not summary.unchanged):
            parts.append(self.tr("Chats: {chats} · Messages: {messages} · Attachments: {attachments}").format(
                chats=f"{summary.chats:,}", messages=f"{summary.messages:,}",
                attachments=f"{summary.attachments:,}"))
        if summary.conflicting:
            parts.append(self.tr("Ids that came again with another text (the first text kept): {count}")
                         .format(count=f"{summary.conflicting:,}"))
        # issue 23: which stored chats a newer, renamed or re-downloaded export went into
        for code, names in (("import.summary.recognised", summary.recognised),
                            ("import.summary.existing", summary.existing)):
            if names:
                parts.append(engine_words(msg(code, chats=names_list(list(dict.fromkeys(names))))))
        if summary.unchanged:
            parts.append(self.tr("Already imported, nothing new: {names}").format(names=", ".join(summary.unchanged)))
        # issue 34: what was read and not added, or not made topics, and the files that were no export
        for code, count in (("import.skipped.duplicates", summary.already_stored),
                            ("import.skipped.system", summary.system_lines),
                            *((f"import.skipped.{reason}", n) for reason, n in summary.entries_skipped.items()),
                            ("import.skipped.aside", summary.aside)):
            if count:
                parts.append(engine_words(msg(code, count=count)))
        if summary.skipped:
            parts.append(engine_words(msg("import.skipped.not_exports", count=len(summary.skipped),
                                          names=names_list(summary.skipped))))
        if summary.built:
            parts.append(self.tr("New topics: {topics}").format(topics=f"{summary.topics:,}"))
            if summary.model_chunks or summary.model_fallbacks:
                parts.append(self.tr("Split by the model: {chunks} chunks, {fallbacks} without it").format(
                    chunks=f"{summary.model_chunks:,}", fallbacks=f"{summary.model_fallbacks:,}"))
        parts.append(self.tr("Time: {seconds} s").format(seconds=f"{summary.seconds:.1f}"))
        return " · ".join(parts)
