"""The candidates table: stage 1's ranking, the reranker's kept rows highlighted, sortable."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, QSettings, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTableView, QWidget

from engine.rerank.base import Candidate
from ui.search.candidates_model import COLUMN_KEYS, HIDDEN_BY_DEFAULT, CandidatesModel

HIDDEN_SETTING = "search_view/hidden_columns"
OPTIONAL = ("date", "chat", "score", "messages", "size")  # the header menu offers these; the rest always show
CHAT_WIDTH = 120  # long chat names are elided: the summary needs the room more


class CandidatesView(QTableView):
    topic_activated = Signal(int)  # double-click on a topic row
    columns_fitted = Signal()  # the columns' widths changed with new rows: the table's width may follow

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
        self._fit_columns()

    def show(self, candidates: list[Candidate], outcome) -> None:  # noqa: A003 (reads best at call sites)
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

    def _on_double_clicked(self, index: QModelIndex) -> None:
        candidate = self.candidates_model.candidate(index.row())
        if candidate is not None and candidate.kind == "topic":
            self.topic_activated.emit(candidate.id)

