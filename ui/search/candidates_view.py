"""The candidates table: stage 1's ranking, the reranker's kept rows highlighted, sortable, and
labelled where the user reads it: a click on a row's label cell, R / N on the selected row
(pressed again: cleared), or the row's context menu. The view only asks (`label_requested`);
the panel stores the label and sets it back here."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, QSettings, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTableView, QWidget

from engine.api import Candidate
from ui.search.candidates_model import COLUMN_KEYS, HIDDEN_BY_DEFAULT, CandidatesModel

LABEL_KEYS = {Qt.Key.Key_R: True, Qt.Key.Key_N: False}


def next_label(current: bool | None) -> bool | None:
    """A click on the label cell cycles: unlabelled → relevant → not relevant → unlabelled."""
    return {None: True, True: False, False: None}[current]

HIDDEN_SETTING = "search_view/hidden_columns"
OPTIONAL = ("date", "chat", "score", "messages", "size")  # the header menu offers these; the rest always show
CHAT_WIDTH = 120  # long chat names are elided: the summary needs the room more


class CandidatesView(QTableView):
    topic_activated = Signal(int)  # double-click on a topic row
    columns_fitted = Signal()  # the columns' widths changed with new rows: the table's width may follow
    label_requested = Signal(int, object)  # topic id, True / False / None (clear)

    def __init__(self, parent: QWidget | None = None, store: QSettings | None = None) -> None:
        super().__init__(parent)
        self._store = store if store is not None else QSettings()
        self.candidates_model = CandidatesModel(self)
        self.setModel(self.candidates_model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.setShowGrid(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.horizontalHeader()
        header.setStretchLastSection(True)
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setMinimumSectionSize(16)  # the label column is one glyph wide (the style's default is ~26)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._column_menu)
        hidden = self._store.value(HIDDEN_SETTING)
        hidden = HIDDEN_BY_DEFAULT if hidden is None else str(hidden).split(",")
        for column, key in enumerate(COLUMN_KEYS):
            self.setColumnHidden(column, key in hidden)
        self.setSortingEnabled(True)
        self.sortByColumn(COLUMN_KEYS.index("rank"), Qt.SortOrder.AscendingOrder)
        header.sortIndicatorChanged.connect(lambda *_args: self._fit_columns())  # the arrow moved
        self.doubleClicked.connect(self._on_double_clicked)
        self.clicked.connect(self._on_clicked)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._row_menu)
        self._fit_columns()

    def show_candidates(self, candidates: list[Candidate], outcome) -> None:
        """New candidates reset the table; the same ones only change which rows are highlighted."""
        model = self.candidates_model
        current = [model.candidate(row) for row in range(model.rowCount())]
        if sorted(current, key=id) != sorted(candidates, key=id):
            model.set_candidates(candidates)
            header = self.horizontalHeader()
            model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
            self._fit_columns()
        kept = {(s.kind, s.id) for s in outcome.result.selected} if outcome is not None else set()
        model.set_kept(kept)

    def is_shown(self, key: str) -> bool:
        return not self.isColumnHidden(COLUMN_KEYS.index(key))

    def set_shown(self, key: str, shown: bool) -> None:
        """Show or hide a column and remember it (the header's context menu does this)."""
        self.setColumnHidden(COLUMN_KEYS.index(key), not shown)
        # One comma-separated string: an empty list would read back as "never set" (None).
        self._store.setValue(HIDDEN_SETTING, ",".join(k for k in COLUMN_KEYS if not self.is_shown(k)))
        if shown:
            self._fit_columns()

    def fitted_width(self, summary: int = 0) -> int:
        """The width that shows every visible column but the summary, plus `summary` px of it."""
        columns = sum(self.columnWidth(c) for c, key in enumerate(COLUMN_KEYS[:-1]) if self.is_shown(key))
        return columns + summary + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()

    def _fit_columns(self) -> None:
        """Fit each column to its cells with room for the bold of kept rows; long chat names are
        elided. Headers count by their text only: Qt would reserve the sort arrow's room in every
        column, ~20 px each that a laptop-width table cannot spare; only the sorted one gets it."""
        header = self.horizontalHeader()
        metrics = header.fontMetrics()
        margin = 2 * self.style().pixelMetric(self.style().PixelMetric.PM_HeaderMargin, None, header)
        arrow = metrics.height() + margin
        for column, key in enumerate(COLUMN_KEYS[:-1]):
            title = self.candidates_model.headerData(column, Qt.Orientation.Horizontal)
            title_width = metrics.horizontalAdvance(title) + margin + (
                arrow if column == header.sortIndicatorSection() else 0)
            width = max(self.sizeHintForColumn(column) + 8, title_width)
            if key == "label":  # one glyph wide: at 1280 px every pixel here is one less of the summary
                width = max(metrics.horizontalAdvance(glyph) for glyph in "✓✗") + 8
            self.setColumnWidth(column, min(width, CHAT_WIDTH) if key == "chat" else width)
        self.columns_fitted.emit()

    def _column_menu(self, position: QPoint) -> QMenu:
        menu = QMenu(self)
        for key in OPTIONAL:
            action = menu.addAction(self.candidates_model.header_title(key))
            action.setCheckable(True)
            action.setChecked(self.is_shown(key))
            action.toggled.connect(lambda shown, name=key: self.set_shown(name, shown))
        menu.popup(self.horizontalHeader().mapToGlobal(position))
        return menu

    # -- labelling ----------------------------------------------------------------------
    def _topic_row(self, row: int) -> int | None:
        candidate = self.candidates_model.candidate(row)
        return candidate.id if candidate is not None and candidate.kind == "topic" else None

    def _on_clicked(self, index: QModelIndex) -> None:
        topic = self._topic_row(index.row())
        if topic is not None and COLUMN_KEYS[index.column()] == "label":
            self.label_requested.emit(topic, next_label(self.candidates_model.label_of(index.row())))

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's naming)
        verdict = LABEL_KEYS.get(Qt.Key(event.key()))
        topic = self._topic_row(self.currentIndex().row()) if self.currentIndex().isValid() else None
        if verdict is not None and topic is not None and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            current = self.candidates_model.label_of(self.currentIndex().row())
            self.label_requested.emit(topic, None if current is verdict else verdict)  # same key again: clear
            return
        super().keyPressEvent(event)

    def _row_menu(self, position: QPoint) -> QMenu | None:
        index = self.indexAt(position)
        topic = self._topic_row(index.row()) if index.isValid() else None
        if topic is None:
            return None
        menu = QMenu(self)
        for text, verdict in ((self.tr("Relevant\tR"), True), (self.tr("Not relevant\tN"), False),
                              (self.tr("Clear the label"), None)):
            action = menu.addAction(text)
            action.triggered.connect(lambda _checked=False, v=verdict: self.label_requested.emit(topic, v))
        menu.popup(self.viewport().mapToGlobal(position))
        return menu

    def _on_double_clicked(self, index: QModelIndex) -> None:
        candidate = self.candidates_model.candidate(index.row())
        if candidate is not None and candidate.kind == "topic" and COLUMN_KEYS[index.column()] != "label":
            self.topic_activated.emit(candidate.id)

