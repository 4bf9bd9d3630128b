"""The Evaluate view's table: one row per labelled query with its figures at the current settings,
and Flash's beside them once a comparison ran."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from engine.api import FlashOutcome, QueryReport

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("query", "filters", "relevant", "stage1", "kept", "precision", "recall", "f1", "evidence",
           "flash_precision", "flash_recall", "flash_f1")
FIGURES = {"stage1": "stage1_recall", "precision": "kept_precision", "recall": "kept_recall", "f1": "kept_f1",
           "evidence": "evidence"}
FLASH_BACKGROUND = QColor("#eef3fb")


class QueriesModel(QAbstractTableModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.reports: list[QueryReport] = []
        self.flash: dict[str, FlashOutcome] = {}  # target key → outcome
        # Display strings, made once per change: the view asks for every visible cell on each
        # repaint, and a slider step must repaint within a frame or two (bench/sweep_latency.py).
        self._cells: list[list[str | int]] = []
        self._headers = {
            "query": self.tr("Query"), "filters": self.tr("Filters"), "relevant": self.tr("Relevant"),
            "stage1": self.tr("Stage-1 R@10"), "kept": self.tr("Kept"), "precision": self.tr("Precision"),
            "recall": self.tr("Recall"), "f1": self.tr("F1"), "evidence": self.tr("Evidence@8000"),
            "flash_precision": self.tr("Flash P"), "flash_recall": self.tr("Flash R"), "flash_f1": self.tr("Flash F1"),
        }

    def set_reports(self, reports: list[QueryReport]) -> None:
        """New figures for the same queries only change cells (the selection and scroll stay)."""
        same = [r.frozen.target.key for r in reports] == [r.frozen.target.key for r in self.reports]
        if same and reports:
            self.reports = reports
            self._cells = [[self._display(r, key) for key in COLUMNS] for r in reports]
            self.dataChanged.emit(self.index(0, 0), self.index(len(reports) - 1, len(COLUMNS) - 1),
                                  [Qt.ItemDataRole.DisplayRole])
            return
        self.beginResetModel()
        self.reports = reports
        self._cells = [[self._display(r, key) for key in COLUMNS] for r in reports]
        self.endResetModel()

    def set_flash(self, outcomes: dict[str, FlashOutcome]) -> None:
        if outcomes == self.flash:
            return
        self.flash = dict(outcomes)
        self._cells = [[self._display(r, key) for key in COLUMNS] for r in self.reports]
        if self.reports:
            self.dataChanged.emit(self.index(0, COLUMNS.index("flash_precision")),
                                  self.index(len(self.reports) - 1, len(COLUMNS) - 1))

    def report(self, row: int) -> QueryReport | None:
        return self.reports[row] if 0 <= row < len(self.reports) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.reports)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._headers[COLUMNS[section]]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells[index.row()][index.column()]
        report, key = self.reports[index.row()], COLUMNS[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and key not in ("query", "filters"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and key.startswith("flash_"):
            return QBrush(FLASH_BACKGROUND)
        if role == Qt.ItemDataRole.ToolTipRole and key == "query":
            return self.tr("Double-click: open this query in the search view (kept rows highlighted, your labels "
                           "in the ✓ column)")
        if role == Qt.ItemDataRole.ToolTipRole and report.kept_f1 is None:
            return self.tr("No topic holds a message labelled relevant: this query is not scored.")
        return None

    def _display(self, report: QueryReport, key: str):
        target = report.frozen.target
        if key == "query":
            return target.query
        if key == "filters":
            f = target.filters
            parts = [self.tr("chat {0}").format(", ".join(map(str, f.chat_ids)))] if f.chat_ids else []
            if f.since or f.until:
                parts.append(f"{f.since or '…'} – {f.until or '…'}")
            return "; ".join(parts)
        if key == "relevant":
            return len(report.frozen.relevant)
        if key == "kept":
            return len(report.kept)
        if key.startswith("flash_"):
            outcome = self.flash.get(target.key)
            if outcome is None:
                return ""
            value = getattr(outcome.flash, "kept_" + key.removeprefix("flash_"))
            return "—" if value is None else f"{value:.2f}"
        value = getattr(report, FIGURES[key])
        return "—" if value is None else f"{value:.2f}"
