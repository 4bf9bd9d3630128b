"""The search view: the query, stage 1's candidates beside the reranker's selections, the stage
report, the score chart, the settings panel and the context export.

Flow (docs/interfaces.md): a search runs stage 1 in a worker (latest wins); its candidates
are then frozen. The threshold and vector-only rerankers re-filter them on the GUI thread
the moment a slider moves; Flash runs only when asked, as a coroutine on the qasync loop.
Labels (issue 14): a topic row or card marked relevant or not is written to the store in a
worker (`service.labels`, kept per message) for the query and filters the candidates were
found with, and read back after every search. What the panel's own writes changed (a run
recorded, a label set) goes out as `Changes`, which the window updates from.
Ask (issue 27): the same box answers the question instead (the Ask button, or Ctrl+Enter);
the answer shows above the candidates and cards, which then hold the Ask run's fused
candidates and its reranker's selection (`ui.search.ask_mode`).
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.api import Changes, CrossEncoderReport, Flashback, QueryFilters, SearchResult, filters_of, reranker_message
from ui.i18n import engine_words
from ui.search.ask_mode import AskMode, recorded_plan
from ui.search.ask_view import AskView
from ui.search.candidates_view import CandidatesView
from ui.search.cards import SelectionCards
from ui.search.columns import SearchColumns
from ui.search.cross_encoder_mode import RECUT, RESEND, CrossEncoderMode
from ui.search.cross_encoder_view import recut
from ui.search.export_bar import ExportBar
from ui.search.flash_runner import FlashRunner, plain_words
from ui.search.presenter import (
    SearchState,
    ask_state,
    chart_data,
    flash_hint,
    local_rerank,
    selection_cards,
    shown_candidates,
    stage1_work,
)
from ui.search.reasons import rewrite_reason
from ui.search.report import StageReport, status_text
from ui.search.score_chart import ScoreChart
from ui.search.settings_panel import SettingsPanel
from ui.tasks import LatestWins

RESTAGE_DELAY_MS = 300  # candidates/hybrid sliders re-run stage 1 once the hand rests


class SearchPanel(QWidget):
    open_topic = Signal(int)  # double-click on a topic row or card
    open_cited = Signal(int, object)  # an answer's [n] clicked: the topic id, the cited message ids
    run_recorded = Signal(int)  # a rerank run was stored in the run history (its id)
    labels_changed = Signal()  # a label was stored: the Evaluate view's set changed
    changed = Signal(object)  # Changes this panel's writes made (a run recorded, a label stored)

    def __init__(self, service: Flashback, keys, parent: QWidget | None = None, *,
                 store: QSettings | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._keys = keys
        self._store = store if store is not None else QSettings()
        self._state = SearchState()
        self._stage1 = LatestWins()  # results of older searches are dropped
        self._labels: dict[int, bool] = {}  # topic id → relevant?, for the shown query
        self._label_reads = LatestWins(self)  # an older write's read-back never overwrites a newer one
        self._label_writes: set = set()  # writes still in a worker: the labels are read again after the last
        self.settings_panel = SettingsPanel(store, self)
        self.settings_panel.changed.connect(self._on_setting_changed)
        self._flash = FlashRunner(service, self)
        self._flash.finished.connect(self._on_flash_finished)
        self._flash.failed.connect(self._on_flash_failed)
        self._flash.cancelled.connect(self._on_flash_cancelled)
        # Reranker "Cross-encoder" (issue 25): the rerank server asked once per search, on the qasync loop.
        self.cross_encoder = CrossEncoderMode(service, keys, self.settings_panel.settings, self)
        self.cross_encoder.finished.connect(self._on_cross_encoder_finished)
        self.cross_encoder.failed.connect(self._on_flash_failed)
        self.cross_encoder.cancelled.connect(self._on_cross_encoder_cancelled)
        self.cross_encoder.resend_later.timeout.connect(self.run_cross_encoder)
        self.ask_view = AskView(self._chat_names)
        self.ask_view.cite_activated.connect(self._open_cited)
        self.ask_view.rerun_requested.connect(self._ask_with_plan)
        self.asking = AskMode(service, keys, self.settings_panel, self._store, self.ask_view,
                              lambda: self.recent.toPlainText(), self, cross_encoder=self.cross_encoder)
        self.asking.outcome_ready.connect(self._on_ask_outcome)
        self.asking.run_recorded.connect(self._on_run_recorded)
        self.asking.said.connect(self._say)
        self._restage = QTimer(self, singleShot=True, interval=RESTAGE_DELAY_MS)
        self._restage.timeout.connect(self._restage_if_searched)
        self._build()
        self._render()

    # -- public -------------------------------------------------------------------------
    def search(self) -> None:
        """Run stage 1 for the query box's text (and, for threshold/vector, record the run)."""
        query = self.query.text().strip()
        if not query:
            self._say(self.tr("Type a question first."))
            return
        service, settings = self._service, self.settings_panel.settings()
        problem = settings.date_problem()
        if problem is not None:  # From after To: the filter says so too; nothing to search
            self._say(engine_words(problem), error=True)
            return
        self._flash.cancel(quiet=True)  # its candidates are about to be replaced
        self.cross_encoder.cancel(quiet=True)
        self._stage1.call(lambda: stage1_work(service, query, settings), self._on_stage1,
                          lambda error: self._on_stage1((None, error)))
        self._say(self.tr("Searching…"))
        if self.asking.running():
            self.asking.cancel()  # its candidates are being replaced; the answer found so far stays
        self.set_mode("search")

    def rerun(self, settings_snapshot: dict, query: str) -> None:
        """Re-run a past query from the run history with the *current* settings, to compare.
        `settings_snapshot` is what that run used; it is shown, not applied."""
        del settings_snapshot  # comparing means the current settings win
        self.query.setText(query)
        self.search()

    def ask(self) -> bool:
        """Answer the query box's question from the store (Ask mode); False when it could not start."""
        question = self.query.text().strip()
        self.set_mode("ask")
        if not question:
            self._say(self.tr("Type a question first."))
            return False
        return self._ask(question)

    def reask(self, run) -> bool:
        """Ask a recorded Ask run's question again with the current settings (its own plan when the
        person had given it), and compare the new answer with the recorded one."""
        self.query.setText(run.query)
        self.set_mode("ask")
        return self._ask(run.query, plan=recorded_plan(run), previous=run)

    def mode(self) -> str:
        """"ask" or "search": what Enter in the query box does."""
        return "ask" if self.ask_button.isChecked() else "search"

    def set_mode(self, mode: str) -> None:
        (self.ask_button if mode == "ask" else self.search_button).setChecked(True)
        if mode == "ask" and self.ask_view.isHidden():
            self.ask_view.show()
            total = sum(self.answer_split.sizes()) or self.answer_split.height()
            self.answer_split.setSizes([total * 2 // 5, total - total * 2 // 5])  # the answer, then the rest
        self.ask_view.setVisible(mode == "ask")
        if self._state.ask is not None:
            self._apply_reranker()  # the Ask run's selection, or the reranker's own
        self._update_actions()

    def run_flash(self) -> None:
        """Start the (paid, for remote endpoints) Flash run on the frozen candidates."""
        blocked = flash_hint(self._state, self.settings_panel.settings(), self._keys)[1]
        if blocked or self._state.stage1 is None:
            return
        settings = self.settings_panel.settings()
        if settings.mode != "flash":
            self.settings_panel.set_value("mode", "flash")
        try:
            endpoint = settings.endpoint(self._keys.get(settings.preset))
            reranker = self._service.search.flash_reranker(endpoint, settings.flash_settings(),
                                                           self.recent.toPlainText(),
                                                           threshold=settings.threshold_settings())
            if settings.chain_cross_encoder:  # the cross-encoder narrows the topics Flash reads
                why_not = self.cross_encoder.blocked(settings)
                if why_not:
                    self._say(why_not, error=True)
                    return
                reranker = self.cross_encoder.chained(settings, reranker)
        except Exception as error:  # a bad URL or missing key: plain words, never a traceback
            self._say(plain_words(error, self.tr("Flash")), error=True)
            return
        self._flash.start(self._state.stage1, reranker, settings.threshold_settings())
        topics = sum(1 for c in self._state.stage1.candidates if c.kind == "topic")
        if self.recent.toPlainText().strip() and settings.flash_settings().contextualize_query:
            self._say(self.tr("Flash is restating the query from the recent messages, then choosing among {0} "
                              "topics…").format(topics))
        else:
            self._say(self.tr("Flash is choosing among {0} topics…").format(topics))
        self._update_actions()

    def run_cross_encoder(self) -> None:
        """Ask the rerank server about the frozen candidates (Reranker: Cross-encoder); recorded."""
        if self._state.stage1 is None or self._state.ask is not None:
            return
        self._state.cross = None
        self._say(*self.cross_encoder.start(self._state.stage1))
        self._apply_reranker()

    def show_query(self, query: str, filters: QueryFilters) -> None:
        """Search `query` with a labelled query's own filters (the Evaluate view opens rows here)."""
        settings = self.settings_panel
        settings.set_value("chat_id", filters.chat_ids[0] if filters.chat_ids else 0)
        settings.set_value("date_from", filters.since or "")
        settings.set_value("date_to", filters.until or "")
        self._restage.stop()  # the filters changed, but the search below is the one wanted
        self.query.setText(query)
        self.search()

    def labels(self) -> dict[int, bool]:
        """The shown query's labels: topic id → relevant?"""
        return dict(self._labels)

    def label_topic(self, topic_id: int, verdict: bool | None) -> None:
        """Label a topic of the shown query relevant (True), not relevant (False) or neither (None)."""
        stage1 = self._state.stage1
        if stage1 is None:
            return
        query, filters = stage1.query, filters_of(stage1.settings)
        self._labels = {**self._labels, topic_id: verdict} if verdict is not None else \
            {t: v for t, v in self._labels.items() if t != topic_id}
        self._show_labels()  # at once; the store's answer follows
        labels = self._service.labels
        write = self._label_reads.call(lambda: labels.label_topic(query, filters, topic_id, verdict),
                                       lambda stored: self._on_labels_stored(stage1, stored[0]))
        # Whether or not a newer label superseded its read-back, every write changed the
        # store or was refused: both are said.
        write.signals.succeeded.connect(lambda stored: self._on_label_written(stored[1]))
        write.signals.failed.connect(lambda error: self._on_label_refused(stage1, error))
        # Writes wait their turn in any order, so the newest click's read-back may predate an
        # older click's commit: once none is left, the store is read again and shown as it is.
        self._label_writes.add(write)
        write.signals.finished.connect(lambda: self._on_label_write_ended(write, stage1))

    def cancel_flash(self) -> None:
        self._flash.cancel()
        if self.cross_encoder.running():
            self.cross_encoder.cancel()

    def refresh_keys(self) -> None:
        """Re-check whether Flash can run (call after the key dialog changed a key)."""
        self._update_actions()

    def outcome(self) -> SearchResult | None:
        """What is shown now: the frozen candidates with the current reranker's result."""
        return self._state.outcome

    def is_busy(self) -> bool:
        return bool(self._stage1.running()) or self._flash.running() or self.export_bar.busy() \
            or self.asking.running() or self.cross_encoder.running()

    # -- building -----------------------------------------------------------------------
    def _build(self) -> None:
        self.query = QLineEdit(placeholderText=self.tr("Ask your memory: “when did we move the Postgres upgrade?”"))
        self.query.setClearButtonEnabled(True)
        self.query.returnPressed.connect(self._on_return)
        self.search_button = QPushButton(self.tr("Search"))
        self.search_button.setCheckable(True)
        self.search_button.setChecked(True)
        self.search_button.setToolTip(self.tr("Find the topics that match (Enter in Search mode)"))
        self.search_button.clicked.connect(self.search)
        self.ask_button = QPushButton(self.tr("Ask"))
        self.ask_button.setCheckable(True)
        self.ask_button.setToolTip(self.tr("Answer the question from your chats, citing the messages (Ctrl+Enter)"))
        self.ask_button.clicked.connect(self.ask)
        self._modes = QButtonGroup(self)  # the checked one is the mode: what Enter does
        self._modes.addButton(self.search_button)
        self._modes.addButton(self.ask_button)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self, self.ask, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.context_toggle = QToolButton()
        self.context_toggle.setText(self.tr("Recent messages"))
        self.context_toggle.setCheckable(True)
        self.context_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.context_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.context_toggle.toggled.connect(self._on_context_toggled)
        self.recent = QPlainTextEdit(placeholderText=self.tr(
            "Optional: paste the last few messages of the conversation you are in; Flash uses them as context."))
        self.recent.setMaximumHeight(72)
        self.recent.setVisible(False)
        self.flash_button = QPushButton(self.tr("Run Flash"))
        self.flash_button.clicked.connect(self.run_flash)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self.cancel_flash)
        self.busy = QProgressBar(textVisible=False)
        self.busy.setMaximumSize(120, 14)
        self.busy.setRange(0, 0)  # indeterminate: the LLM gives no progress
        self.flash_hint = QLabel(wordWrap=True)
        self.flash_hint.setStyleSheet("color: palette(placeholder-text);")
        # Seed 000 step 1, above the candidates it changed: what stage 1 also searched, or why not.
        self.rewrite_note = QLabel(wordWrap=True)
        self.rewrite_note.setVisible(False)
        self.rewrite_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.candidates = CandidatesView(self, self._store)
        self.candidates.topic_activated.connect(self.open_topic)
        self.candidates.label_requested.connect(self.label_topic)
        self.chart = ScoreChart()
        self.cards = SelectionCards()
        self.cards.activated.connect(lambda kind, id_: self.open_topic.emit(id_) if kind == "topic" else None)
        self.cards.label_requested.connect(self.label_topic)
        self.report = StageReport()
        self.status = QLabel(wordWrap=True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.export_bar = ExportBar(self._service, self.outcome, self.settings_panel.settings().budget_tokens)
        self.export_bar.budget_changed.connect(lambda value: self.settings_panel.set_value("budget_tokens", value))
        self.export_bar.message.connect(self._say)
        self.columns = SearchColumns(self.candidates, self.chart, self.cards, self.report, self.settings_panel,
                                     self._store)
        self.settings_action = self.columns.settings_action  # the window puts it in View too
        self.settings_container = self.columns.settings_container
        self.settings_toggle = QToolButton()
        self.settings_toggle.setDefaultAction(self.settings_action)
        self._lay_out()

    def _lay_out(self) -> None:
        widget: QWidget  # each row's widgets are of several kinds
        query_row = QHBoxLayout()
        for widget, stretch in ((self.query, 1), (self.search_button, 0), (self.ask_button, 0),
                                (self.context_toggle, 0), (self.settings_toggle, 0)):
            query_row.addWidget(widget, stretch)
        flash_row = QHBoxLayout()
        for widget, stretch in ((self.flash_button, 0), (self.cancel_button, 0), (self.busy, 0),
                                (self.flash_hint, 1)):
            flash_row.addWidget(widget, stretch)
        layout = QVBoxLayout(self)
        layout.addLayout(query_row)
        layout.addWidget(self.recent)
        layout.addLayout(flash_row)
        layout.addWidget(self.rewrite_note)
        self.answer_split = QSplitter(Qt.Orientation.Vertical)  # the answer above the candidates and cards
        self.answer_split.setChildrenCollapsible(False)
        self.answer_split.addWidget(self.ask_view)
        self.answer_split.addWidget(self.columns)
        self.answer_split.setStretchFactor(0, 2)
        self.answer_split.setStretchFactor(1, 3)
        self.ask_view.hide()
        layout.addWidget(self.answer_split, 1)
        layout.addWidget(self.export_bar)
        layout.addWidget(self.status)

    # -- stage 1 ------------------------------------------------------------------------
    def _on_stage1(self, result) -> None:
        stage1, outcome = result
        if isinstance(outcome, Exception):
            self._say(plain_words(outcome, self.tr("The search")), error=True)
            self._update_actions()
            return
        self._state = SearchState(stage1=stage1, base=outcome)
        self._labels = {}
        self._load_labels(stage1)
        self._apply_reranker()
        self._say(self._with_notes(self._timings_text(), outcome))
        if outcome is not None and outcome.run_id is not None:
            self._on_run_recorded(outcome.run_id)
        if self.settings_panel.settings().mode == "cross-encoder":
            self.run_cross_encoder()

    def _restage_if_searched(self) -> None:
        if self._state.stage1 is not None and self.query.text().strip():
            self.search()

    # -- reranking the frozen candidates --------------------------------------------------
    def _on_setting_changed(self, name: str) -> None:
        cross_encoder = self.settings_panel.settings().mode == "cross-encoder"
        if name == "mode" and cross_encoder and self._state.cross is None and not self.cross_encoder.running():
            self.run_cross_encoder()  # its scores are not here yet: ask once
        elif name in RESEND and cross_encoder and self._state.stage1 is not None:
            self.cross_encoder.resend_later.start()  # what is sent changed: ask again once the hand rests
        if name in ("threshold", "gap", "top_k", "mode") or name in RECUT:
            self._apply_reranker()  # instant: same candidates, no embedding, no stage 1
        elif name in ("candidates", "hybrid", "chat_id", "date_from", "date_to"):
            self._restage.start()  # the candidate set itself changes: stage 1 again
        elif name == "budget_tokens":
            self.export_bar.budget.setValue(self.settings_panel.settings().budget_tokens)
        self._update_actions()

    def _apply_reranker(self) -> None:
        state, settings = self._state, self.settings_panel.settings()
        if state.stage1 is not None:
            if state.ask is not None and self.mode() == "ask":
                state.outcome = state.ask
            elif settings.mode == "flash":
                state.outcome = state.flash
            elif settings.mode == "cross-encoder":  # the scores already back, cut at the sliders
                state.outcome = recut(state.cross, settings.ce_threshold, settings.ce_top_k)
            else:
                state.outcome = local_rerank(state, settings)
        self._render()

    def _render(self) -> None:
        state, settings = self._state, self.settings_panel.settings()
        outcome = state.outcome
        self.candidates.show_candidates(shown_candidates(state), outcome)
        self._show_rewrite(getattr(outcome, "rewrite", None))
        self.chart.set_data(chart_data(state, settings))
        cards, empty = selection_cards(state, settings)
        self.cards.show_cards(cards, empty)
        self._show_labels()
        if outcome is not None:
            self.report.show_result(outcome)
        elif state.stage1 is not None and settings.mode == "flash":
            self.report.show_pending_flash(sum(1 for c in state.stage1.candidates if c.kind == "topic"))
        elif state.stage1 is not None and settings.mode == "cross-encoder" and self.cross_encoder.running():
            self.report.clear_report(self.tr("The cross-encoder is scoring the candidates…"))
        else:
            self.report.clear_report()
        self.export_bar.set_available(outcome is not None and bool(outcome.result.selected))
        self._update_actions()

    def _show_rewrite(self, rewrite) -> None:
        if rewrite is None:
            self.rewrite_note.setVisible(False)
            return
        if rewrite.used:
            text = self.tr("Also searched as: “{0}” — rewritten from the recent messages in {1:.1f} s; "
                           "the candidates below are both searches, fused.").format(rewrite.rewritten,
                                                                                   rewrite.elapsed_ms / 1000)
        else:
            text = self.tr("Searched as typed: the rewrite from the recent messages was not used ({0}).").format(
                rewrite_reason(rewrite))
        self.rewrite_note.setText(text)
        self.rewrite_note.setVisible(True)

    # -- labels ---------------------------------------------------------------------------
    def reload_labels(self) -> None:
        """Read the shown query's labels again (another process labelled, or imported labels)."""
        if self._state.stage1 is not None:
            self._load_labels(self._state.stage1)

    def _load_labels(self, stage1) -> None:
        query, filters, labels = stage1.query, filters_of(stage1.settings), self._service.labels
        self._label_reads.call(lambda: labels.topic_labels(query, filters),
                               lambda stored: self._on_labels_stored(stage1, stored))

    def _on_label_write_ended(self, write, stage1) -> None:
        self._label_writes.discard(write)
        if not self._label_writes and stage1 is self._state.stage1:
            self._load_labels(stage1)

    def _on_label_written(self, changes: Changes) -> None:
        self.labels_changed.emit()
        self.changed.emit(changes)

    def _on_labels_stored(self, stage1, labels: dict[int, bool]) -> None:
        if stage1 is self._state.stage1:  # no newer search since (a newer label would have superseded this)
            self._labels = labels
            self._show_labels()

    def _on_label_refused(self, stage1, error: Exception) -> None:
        """The label was not stored (another process writes the store, a read-only folder):
        say why, and show the labels the store holds again instead of the one just clicked."""
        self._say(plain_words(error, self.tr("Labelling")), error=True)
        if stage1 is self._state.stage1:
            self._load_labels(stage1)

    def _show_labels(self) -> None:
        self.candidates.candidates_model.set_labels(self._labels)
        self.cards.set_labels(self._labels)

    # -- Ask ------------------------------------------------------------------------------
    def _on_return(self) -> None:
        if QApplication.keyboardModifiers() & Qt.KeyboardModifier.ControlModifier:
            return  # Ctrl+Enter: the shortcut asks
        self.ask() if self.mode() == "ask" else self.search()

    def _ask(self, question: str, plan=None, previous=None) -> bool:
        self._stage1.supersede()  # a search still running must not replace the Ask run's candidates
        self._flash.cancel(quiet=True)
        started = self.asking.ask(question, plan, previous)
        self._update_actions()
        return started

    def _ask_with_plan(self, plan) -> None:
        shown = self.ask_view.outcome
        self._ask(shown.question if shown is not None else self.query.text().strip(), plan)

    def _on_ask_outcome(self, outcome) -> None:
        """The candidates and cards show the Ask run's: its fused candidates, its reranker's selection."""
        state = ask_state(outcome, self.settings_panel.settings().retrieval())
        if state is None:
            self._update_actions()
            return
        self._state = state
        self._labels = {}
        self._load_labels(state.stage1)
        self._apply_reranker()

    def _open_cited(self, source) -> None:
        """An answer's [n] clicked: its topic, the cited messages highlighted (a source of messages not
        built yet has no topic to open: its text is the source itself, shown in the answer)."""
        if source.topic_id is not None:
            self.open_cited.emit(source.topic_id, list(source.message_ids))

    def _chat_names(self) -> list[str]:
        combo = self.settings_panel.combo("chat_id")
        return [combo.itemText(i) for i in range(combo.count()) if combo.itemData(i)]

    # -- Flash ----------------------------------------------------------------------------
    def _on_flash_finished(self, outcome: SearchResult) -> None:
        self._state.flash = outcome
        self._apply_reranker()
        self._say(self._with_notes(self._timings_text(), outcome))
        if outcome.run_id is not None:
            self._on_run_recorded(outcome.run_id)

    def _on_cross_encoder_finished(self, outcome: SearchResult) -> None:
        self._state.cross = outcome
        self._apply_reranker()
        report = outcome.report
        said = report.error if isinstance(report, CrossEncoderReport) and report.fallback else None
        error = [self.tr("the cross-encoder fell back: {0}").format(engine_words(said))] if said is not None else []
        self._say(" — ".join([self._with_notes(self._timings_text(), outcome), *error]), error=bool(error))
        if outcome.run_id is not None:
            self._on_run_recorded(outcome.run_id)

    def _on_cross_encoder_cancelled(self) -> None:
        self._say(self.tr("The cross-encoder was cancelled."))
        self._render()

    def _on_run_recorded(self, run_id: int) -> None:
        self.run_recorded.emit(run_id)
        self.changed.emit(Changes(runs=True))

    def _on_flash_failed(self, message: str) -> None:
        self._say(message, error=True)
        self._update_actions()

    def _on_flash_cancelled(self) -> None:
        self._say(self.tr("Flash cancelled; nothing was charged after the cancel."))
        self._update_actions()

    # -- small helpers --------------------------------------------------------------------
    def _update_actions(self) -> None:
        running = self._flash.running() or self.cross_encoder.running()
        flash_row = self.mode() != "ask"  # in Ask mode the answer view has its own progress and Cancel
        hint, blocked = flash_hint(self._state, self.settings_panel.settings(), self._keys)
        self.flash_button.setEnabled(not running and not blocked)
        self.flash_button.setText(self.tr("Run Flash (1 API call)") if self.settings_panel.settings().needs_key()
                                  else self.tr("Run Flash"))
        self.flash_button.setVisible(flash_row)
        self.flash_hint.setText(hint)
        self.flash_hint.setVisible(flash_row)
        self.cancel_button.setVisible(running and flash_row)
        self.busy.setVisible(running and flash_row)

    @staticmethod
    def _with_notes(text: str, outcome) -> str:
        """The status line plus what the engine said about this search (an index searched
        through a stand-in while another process builds, a run that could not be recorded)."""
        notes = [engine_words(note) for note in (getattr(outcome, "notes", None) or [])]
        return " — ".join([text, *notes]) if notes else text

    def _timings_text(self) -> str:
        outcome, stage1 = self._state.outcome, self._state.stage1
        if stage1 is None:
            return ""
        rerank_ms = outcome.timings.rerank_ms if outcome is not None else None
        usage = outcome.report.usage if outcome is not None else None
        # The reranker's name from the engine's catalogue, as Run history and the CLI say it (issue 31).
        name = engine_words(reranker_message(outcome.result.reranker)) if outcome else self.tr("rerank")
        return status_text(outcome.timings.stage1_ms if outcome is not None else stage1.timings_ms.get("total"),
                           rerank_ms, name, usage)

    def _on_context_toggled(self, shown: bool) -> None:
        self.recent.setVisible(shown)
        self.context_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet("color: #b42318;" if error else "")
        self.status.setText(text)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's naming)
        self._update_actions()  # a key may have been added while the view was hidden
        super().showEvent(event)
