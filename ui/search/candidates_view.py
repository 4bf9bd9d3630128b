"""The candidates table: stage 1's ranking, the reranker's kept rows highlighted, sortable."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from engine.rerank.base import Candidate
from ui.search.candidates_model import COLUMN_KEYS, CandidatesModel


class CandidatesView(QTableView):
    topic_activated = Signal(int)  # double-click on a topic row

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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
        self.setSortingEnabled(True)
        self.sortByColumn(COLUMN_KEYS.index("rank"), Qt.SortOrder.AscendingOrder)
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

    def _fit_columns(self) -> None:
        """Fit to the contents with room for the bold of kept rows; long chat names are capped."""
        self.resizeColumnsToContents()
        for column, key in enumerate(COLUMN_KEYS[:-1]):
            width = self.columnWidth(column) + (10 if key not in ("kind",) else 0)
            self.setColumnWidth(column, min(width, 140) if key == "chat" else width)

    def _on_double_clicked(self, index: QModelIndex) -> None:
        candidate = self.candidates_model.candidate(index.row())
        if candidate is not None and candidate.kind == "topic":
            self.topic_activated.emit(candidate.id)
