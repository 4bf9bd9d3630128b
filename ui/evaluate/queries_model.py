"""The Evaluate view's table: one row per labelled query with its figures at the current settings,
and the cross-encoder's and Flash's beside them once a comparison ran."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from engine.api import Comparison, QueryReport

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("query", "filters", "relevant", "stage1", "kept", "precision", "recall", "f1", "evidence",
           "ce_precision", "ce_recall", "ce_f1", "flash_precision", "flash_recall", "flash_f1")
# A compared reranker's columns: their prefix → its name in a Comparison.
COMPARED = {"ce_": "cross-encoder", "flash_": "flash"}
FIGURES = {"stage1": "stage1_recall", "precision": "kept_precision", "recall": "kept_recall", "f1": "kept_f1",
           "evidence": "evidence"}
FLASH_BACKGROUND = QColor("#eef3fb")
CROSS_ENCODER_BACKGROUND = QColor("#f1f8ef")


def compared_name(key: str) -> str | None:
    """The reranker a column shows ("flash" for flash_f1), or None for the current settings' own."""
    return next((name for prefix, name in COMPARED.items() if key.startswith(prefix)), None)


class QueriesModel(QAbstractTableModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.reports: list[QueryReport] = []
        self.compared: dict[str, Comparison] = {}  # target key → the rerankers side by side
        # Display strings, made once per change: the view asks for every visible cell on each
        # repaint, and a slider step must repaint within a frame or two (bench/sweep_latency.py).
        self._cells: list[list[str | int]] = []
        self._headers = {
            "query": self.tr("Query"), "filters": self.tr("Filters"), "relevant": self.tr("Relevant"),
            "stage1": self.tr("Stage-1 R@10"), "kept": self.tr("Kept"), "precision": self.tr("Precision"),
            "recall": self.tr("Recall"), "f1": self.tr("F1"), "evidence": self.tr("Evidence@8000"),
            "ce_precision": self.tr("C-E P"), "ce_recall": self.tr("C-E R"), "ce_f1": self.tr("C-E F1"),
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

    def set_compared(self, comparisons: dict[str, Comparison]) -> None:
        if comparisons == self.compared:
            return
        self.compared = dict(comparisons)
        self._cells = [[self._display(r, key) for key in COLUMNS] for r in self.reports]
        if self.reports:
            self.dataChanged.emit(self.index(0, COLUMNS.index("ce_precision")),
                                  self.index(len(self.reports) - 1, len(COLUMNS) - 1))

    def has(self, name: str) -> bool:
        """Whether a comparison ran `name` ("cross-encoder", "flash") on any shown query."""
        return any(name in comparison.runs for comparison in self.compared.values())

    def report(self, row: int) -> QueryReport | None:
        return self.reports[row] if 0 <= row < len(self.reports) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.reports)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._headers[COLUMNS[section]]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole \
                and COLUMNS[section].startswith("ce_"):
            return self.tr("The cross-encoder's precision, recall and F1 on the same candidates")
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells[index.row()][index.column()]
        report, key = self.reports[index.row()], COLUMNS[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and key not in ("query", "filters"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and compared_name(key) is not None:
            return QBrush(FLASH_BACKGROUND if key.startswith("flash_") else CROSS_ENCODER_BACKGROUND)
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
        name = compared_name(key)
        if name is not None:
            comparison = self.compared.get(target.key)
            run = comparison.runs.get(name) if comparison is not None else None
            if run is None:
                return ""
            value = getattr(run.report, "kept_" + key.split("_", 1)[1])
            return "—" if value is None else f"{value:.2f}"
        value = getattr(report, FIGURES[key])
        return "—" if value is None else f"{value:.2f}"
