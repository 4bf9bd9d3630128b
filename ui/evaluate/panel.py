"""The Evaluate view: the labelled queries scored with the current settings, a sweep chart that
follows the sliders, auto-tune with Apply, and the threshold reranker side by side with the
cross-encoder and Flash (issue 25: any of the two, estimate first, on the same candidates).

Stage 1 runs once per labelled query in a worker (`Refresh`, or by itself when labels or the
candidate settings change; latest wins) and its candidates are frozen; everything else is
arithmetic on them (engine/evaluation: report, sweep, tune), fast enough for the GUI thread:
a slider step over 200 queries redraws in a few milliseconds (bench/sweep_latency.py).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from engine.api import Flashback, SweepData, averages, report_keep_all, report_threshold, side_by_side, tune
from ui.evaluate.comparer import RerankerComparer
from ui.evaluate.controls import EvaluateControls
from ui.evaluate.help import help_html
from ui.evaluate.queries_model import COLUMNS, QueriesModel, compared_name
from ui.evaluate.sweep_chart import SweepChart, SweepView
from ui.search.flash_runner import plain_words
from ui.tasks import LatestWins, run_in_background

REFRESH_DELAY_MS = 500  # labels arrive click by click: one refresh once the hand rests
SWEPT = ("threshold", "gap", "top_k", "mode")


class EvaluatePanel(QWidget):
    open_query = Signal()  # a row was opened in the search view: the window may bring it forward
    labels_imported = Signal(object)  # Changes: labels read from a QRELS file were stored

    def __init__(self, service: Flashback, search_panel, keys=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._service, self._search, self._keys = service, search_panel, keys
        self._frozen: list = []
        self._data: SweepData | None = None
        self._reports: list = []
        self._compared: dict = {}  # target key → Comparison (threshold, cross-encoder, Flash)
        self._tuned = None
        self._freezing = LatestWins(self)  # a newer refresh cancels the one under way
        self._cache: dict = {}
        self._cache_settings = None
        self._note = ""  # said once the refresh under way has finished (e.g. what an import added)
        self.comparer = RerankerComparer(service, self)
        self._later = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self._later.timeout.connect(self.refresh)
        self._build()
        search_panel.settings_panel.changed.connect(self._on_setting_changed)
        search_panel.labels_changed.connect(self._later.start)

    # -- building -----------------------------------------------------------------------
    def _build(self) -> None:
        self.controls = c = EvaluateControls(self)
        c.refresh_button.clicked.connect(self.refresh)
        c.tune_button.clicked.connect(self.auto_tune)
        c.apply_button.clicked.connect(self.apply_tuned)
        c.estimate_button.clicked.connect(self.estimate)
        c.compare_button.clicked.connect(self.compare)
        c.cancel_button.clicked.connect(lambda: self.comparer.cancel())
        c.help_button.clicked.connect(self.show_help)
        c.axis.currentIndexChanged.connect(lambda _i: self._redraw())
        self.summary = QLabel(wordWrap=True)
        self.table_model = QueriesModel(self)
        self.table = QTableView()
        self.table.setModel(self.table_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.setWordWrap(False)  # one line per query: the tooltip and the search view have the rest
        # Sized to the contents once per new query set, not on every slider step (ResizeToContents
        # would read every cell of every row each time: 150 ms for 200 queries).
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.doubleClicked.connect(lambda index: self.open_row(index.row()))
        self.chart = SweepChart()
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(c.chart_row)
        right_layout.addWidget(self.chart, 1)
        right_layout.addWidget(c.tune_box)
        right_layout.addWidget(c.compare_box)
        split = QSplitter()
        split.addWidget(self.table)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([600, 500])  # the table shows the query and its figures, the chart the rest
        layout = QVBoxLayout(self)
        layout.addLayout(c.toolbar)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self.status = QLabel(wordWrap=True)
        self.activity = QLabel()
        self.activity.setStyleSheet("color: palette(placeholder-text);")
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.activity)
        layout.addLayout(row)
        self.comparer.estimated.connect(self._on_estimated)
        self.comparer.progressed.connect(self._on_compared)
        self.comparer.finished.connect(self._on_comparison_finished)
        self.comparer.failed.connect(self._on_comparison_failed)
        self.comparer.cancelled.connect(self._on_comparison_cancelled)
        self._redraw()

    # -- public -------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read the labelled set and freeze its stage 1 (only queries not searched yet), in a worker."""
        self._later.stop()
        settings = self._search.settings_panel.settings().retrieval()
        if settings != self._cache_settings:  # other candidates: every query must be searched again
            self._cache, self._cache_settings = {}, settings
        evaluation, cache = self._service.evaluation, self._cache
        searching = self.tr("Searching the labelled queries… {0} of {1}")
        self._freezing.start(
            lambda progress, cancel: evaluation.freeze(evaluation.labelled_targets(), settings,
                                                       lambda done, total: progress((done, total)), cancel, cache),
            self._on_frozen, self._on_frozen, lambda p: self.activity.setText(searching.format(*p)))
        self.activity.setText(self.tr("Searching the labelled queries…"))  # beside the status: errors stay

    def frozen(self) -> list:
        return list(self._frozen)

    def open_row(self, row: int) -> None:
        report = self.table_model.report(row)
        if report is not None:
            target = report.frozen.target
            self._search.show_query(target.query, target.filters)
            self.open_query.emit()

    def auto_tune(self) -> None:
        """Tune on the frozen queries (a worker: the grid is a second or so for hundreds of queries)."""
        if self._data is None or not len(self._data):
            self._say(self.tr("Nothing to tune on yet: label results relevant in the search view first."))
            return
        frozen, current = self._frozen, self._search.settings_panel.settings().threshold_settings()
        objective = self.controls.objective.currentData()
        self.controls.tune_button.setEnabled(False)
        self._say(self.tr("Tuning…"))
        run_in_background(self, lambda: tune({None: frozen}, current, objective),
                          self._on_tuned, lambda error: self._say(plain_words(error, self.tr("Tuning")), True))

    def apply_tuned(self) -> None:
        """Move the sliders to the tuned settings (the search view and this view follow them)."""
        if self._tuned is None:
            return
        settings = self._tuned.tuned.settings
        panel = self._search.settings_panel
        panel.set_value("mode", "threshold")
        for name in ("threshold", "gap", "top_k"):
            panel.set_value(name, getattr(settings, name))

    def import_labels(self, path: Path) -> None:
        labels = self._service.labels
        run_in_background(self, lambda: labels.import_qrels(path), self._on_imported,
                          lambda error: self._say(plain_words(error, self.tr("The import")), error=True))

    def export_labels(self, path: Path) -> None:
        labels = self._service.labels

        def written(count: int) -> None:
            self._say(self.tr("{0} labelled queries written to {1}.").format(count, Path(path).name))

        run_in_background(self, lambda: labels.export_qrels(Path(path)), written,
                          lambda error: self._say(plain_words(error, self.tr("The export")), error=True))

    def estimate(self) -> None:
        """What the chosen rerankers would cost on the labelled queries, before anything is sent."""
        scored = [q for q in self._frozen if q.stage1 is not None]
        if not scored:
            self._say(self.tr("Nothing to compare yet: label results in the search view, then Refresh."))
            return
        chosen = self.controls.compared()
        settings = self._search.settings_panel.settings()
        try:
            flash = (settings.flash_settings(), self._flash_endpoint(settings)) if "flash" in chosen else None
            cross_encoder = (settings.cross_encoder_settings(), self._rerank_endpoint(settings)) \
                if "cross-encoder" in chosen else None
        except Exception as error:  # a bad URL, a setting the engine refuses: plain words
            self._say(plain_words(error, self.tr("The estimate")), error=True)
            return
        self.controls.estimate_button.setEnabled(False)
        self._say(self.tr("Estimating what the comparison would cost…"))
        self.comparer.estimate(scored, flash, cross_encoder)

    def compare(self) -> None:
        """The threshold cut and the chosen rerankers on every labelled query (each call recorded)."""
        settings = self._search.settings_panel.settings()
        chosen = self.controls.compared()
        rerankers: dict = {"threshold": settings.threshold_settings()}
        try:
            if "cross-encoder" in chosen:
                blocked = self._search.cross_encoder.blocked(settings)
                if blocked:
                    self._say(blocked, error=True)
                    return
                rerankers["cross-encoder"] = self._search.cross_encoder.reranker(settings)
            if "flash" in chosen:
                rerankers["flash"] = self._service.search.flash_reranker(self._flash_endpoint(settings),
                                                                         settings.flash_settings())
        except Exception as error:
            self._say(plain_words(error, self.tr("The comparison")), error=True)
            return
        self._compared = {}
        self.table_model.set_compared({})
        queries = [q for q in self._frozen if q.stage1 is not None]
        self.comparer.start(queries, rerankers)
        self.controls.progress.setRange(0, len(queries))
        self.controls.progress.setValue(0)
        self._show_comparing()
        self._say(self.tr("Comparing on {0} labelled queries…").format(len(queries)))

    def _flash_endpoint(self, settings):
        return settings.endpoint(self._keys.get(settings.preset) if self._keys else None)

    def _rerank_endpoint(self, settings):
        return settings.rerank_endpoint(self._keys.get(settings.rerank_key_name()) if self._keys else None)

    def show_help(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Information, self.tr("Evaluate: what the figures mean"), help_html(),
                          parent=self)
        box.setModal(False)
        box.show()
        return box

    # -- results ------------------------------------------------------------------------
    def _on_frozen(self, frozen) -> None:
        if isinstance(frozen, Exception):
            self.activity.setText("")
            self._say(plain_words(frozen, self.tr("The evaluation")), error=True)
            return
        self._frozen = frozen
        self._data = SweepData(frozen)
        self._compared = {k: v for k, v in self._compared.items() if k in {q.target.key for q in frozen}}
        self._redraw()
        self._fit_columns()
        self.activity.setText("")
        if self._note:
            self._say(self._note)
        self._note = ""

    def _on_setting_changed(self, name: str) -> None:
        if name in SWEPT:
            self._redraw()
        elif name in ("candidates", "hybrid") and self._frozen:
            self._later.start()  # the candidates themselves change: stage 1 again

    def _redraw(self) -> None:
        settings = self._search.settings_panel.settings()
        current = settings.threshold_settings()
        keep_all = settings.mode == "vector"
        self._reports = report_keep_all(self._frozen) if keep_all else report_threshold(self._frozen, current)
        self.table_model.set_reports(self._reports)
        self.table_model.set_compared(self._compared)
        self.summary.setText(self.controls.summary_text(averages(self._reports), current, keep_all,
                                                        self._compared_means()))
        axis = self.controls.axis.currentData()
        if self._data is None or not len(self._data):
            self.chart.set_sweep(SweepView())
            return
        sweep = self._data.sweep(axis, current)
        self.chart.set_sweep(SweepView(sweep["values"], {k: v for k, v in sweep.items() if k != "values"},
                                       float(getattr(current, axis)), self.controls.axis.currentText(),
                                       axis == "top_k"))

    def _fit_columns(self) -> None:
        """Figures sized to their contents; the query gets what is left of ~260 px; Filters and the
        compared rerankers' columns only show when there is something in them."""
        model = self.table_model
        self.table.setColumnHidden(COLUMNS.index("filters"),
                                   all(r.frozen.target.filters.is_empty() for r in model.reports))
        for column, key in enumerate(COLUMNS):
            name = compared_name(key)
            if name is not None:
                self.table.setColumnHidden(column, not model.has(name))
        self.table.resizeColumnsToContents()
        self.table.setColumnWidth(0, min(self.table.columnWidth(0), 260))

    def _compared_means(self) -> dict:
        """Per compared reranker: the means over the queries it ran on, its fallbacks and cost."""
        comparisons = [c for c in self._compared.values() if c.runs]
        return {name: figures for name, figures in side_by_side(comparisons).items() if name != "threshold"} \
            if comparisons else {}

    def _on_tuned(self, result) -> None:
        self._tuned = result
        self.controls.tune_button.setEnabled(True)
        self.controls.show_tuned(result)
        self._say("")

    def _on_imported(self, result) -> None:
        summary, changes = result
        self.labels_imported.emit(changes)
        self.refresh()
        self._note = (self.tr("Imported {0} queries with {1} labels; {2} messages were not in this store.")
                      .format(summary.queries, summary.labels, summary.unmatched))
        self._say(self._note)

    def _on_estimated(self, costs: dict) -> None:
        self.controls.show_estimate(costs)
        self._show_comparing()
        self._say("")

    def _on_compared(self, done: int, total: int, comparison) -> None:
        first = not self._compared
        self._compared[comparison.frozen.target.key] = comparison
        if first:
            self._fit_columns()  # the compared rerankers' columns appear
        self.controls.progress.setValue(done)
        self._say(self.tr("Compared on {0} of {1} queries…").format(done, total))
        self._redraw()

    def _on_comparison_finished(self, comparisons: list) -> None:
        self._show_comparing()
        table = side_by_side(comparisons)
        words = {"cross-encoder": self.tr("The cross-encoder ran on {0} queries; {1} fell back or failed."),
                 "flash": self.tr("Flash ran on {0} queries; {1} fell back or failed; reported cost ${2:.4f}.")}
        said = [words[name].format(_count(figures, "queries") + _count(figures, "unscored"),
                                   _count(figures, "fallbacks") + _count(figures, "errors"), figures["cost"] or 0.0)
                for name, figures in table.items() if name in words]
        self._say(" ".join([*said, self.tr("Each call is kept in the run history.")]))
        self._fit_columns()
        self._redraw()

    def _on_comparison_failed(self, text: str) -> None:
        self._say(text, error=True)
        self._show_comparing()

    def _on_comparison_cancelled(self, done: int) -> None:
        self._show_comparing()
        self._say(self.tr("The comparison was cancelled after {0} queries; their results stay in the table.")
                  .format(done))

    def _show_comparing(self) -> None:
        self.controls.set_comparing(self.comparer.running())

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet("color: #b42318;" if error else "")
        self.status.setText(text)


def _count(figures: dict[str, float | int | None], key: str) -> int:
    """A count in `side_by_side`'s table (queries, unscored, fallbacks, errors): 0 where absent."""
    return int(figures.get(key) or 0)
