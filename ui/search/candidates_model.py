"""Stage 1's candidates as a table model, with the rows the current reranker kept highlighted
and the user's relevance labels (topics only: the evaluation is over topics) in their own column."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from engine.api import Candidate
from ui.search.glyphs import kind_icon

Index = QModelIndex | QPersistentModelIndex
KEPT_BACKGROUND = QColor("#dff3e3")
LABEL_GLYPHS = {True: "✓", False: "✗", None: "·"}  # relevant, not relevant, unlabelled
LABEL_COLOURS = {True: QColor("#1f6f3f"), False: QColor("#b42318"), None: QColor("#9aa4ae")}
# What a laptop-width table must show comes first (rank, what and which, when, where, how good,
# what about); messages and size are hidden until asked for (the header's context menu), and
# the row's tooltip says them anyway. The label sits after the score, where the eye already is
# when judging a row. The summary is last: it takes whatever width is left.
COLUMN_KEYS = ("rank", "kind", "date", "chat", "score", "label", "messages", "size", "summary")
HIDDEN_BY_DEFAULT = ("messages", "size")


def human_size(chars: int) -> str:
    if chars <= 0:
        return ""
    return f"{chars}" if chars < 1000 else f"{chars / 1000:.1f}k"


class CandidatesModel(QAbstractTableModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[Candidate] = []
        self._kept: set[tuple[str, int]] = set()
        self._labels: dict[int, bool] = {}  # topic id → relevant?
        self._headers = (self.tr("#"), self.tr("ID"), self.tr("Date"), self.tr("Chat"), self.tr("Score"), "✓",
                         self.tr("Msgs"), self.tr("Size"), self.tr("Summary"))
        self._kind_names = {"topic": self.tr("Topic"), "person": self.tr("Person"), "artifact": self.tr("Attachment")}

    # -- data in ------------------------------------------------------------------------
    def set_candidates(self, candidates: list[Candidate]) -> None:
        self.beginResetModel()
        self._rows = list(candidates)
        self._kept = set()
        self.endResetModel()

    def set_kept(self, kept: set[tuple[str, int]]) -> None:
        """Highlight these (kind, id) pairs; only the look changes, so no reset (keeps the selection)."""
        if kept == self._kept:
            return
        self._kept = set(kept)
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, len(COLUMN_KEYS) - 1),
                                  [Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.FontRole])

    def set_labels(self, labels: dict[int, bool]) -> None:
        """The user's labels for the shown query (topic id → relevant?); only the label column changes."""
        if labels == self._labels:
            return
        self._labels = dict(labels)
        if self._rows:
            column = COLUMN_KEYS.index("label")
            self.dataChanged.emit(self.index(0, column), self.index(len(self._rows) - 1, column))

    def label_of(self, row: int) -> bool | None:
        candidate = self.candidate(row)
        return self._labels.get(candidate.id) if candidate is not None and candidate.kind == "topic" else None

    def candidate(self, row: int) -> Candidate | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def kept_rows(self) -> list[int]:
        return [row for row, c in enumerate(self._rows) if (c.kind, c.id) in self._kept]

    # -- Qt model -----------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMN_KEYS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole \
                and COLUMN_KEYS[section] == "kind":
            return self.tr("Kind (topic, person or attachment) and ID")
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole \
                and COLUMN_KEYS[section] == "label":
            return self.tr("Your label: ✓ relevant, ✗ not relevant. Click the cell, or press R or N on a row.")
        return None

    def header_title(self, key: str) -> str:
        return self._headers[COLUMN_KEYS.index(key)]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        candidate = self._rows[index.row()]
        key = COLUMN_KEYS[index.column()]
        if key == "label":
            return self._label_data(candidate, role)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(candidate, key)
        if role == Qt.ItemDataRole.DecorationRole and key == "kind":
            return kind_icon(candidate.kind)
        if role == Qt.ItemDataRole.ToolTipRole:
            if key == "kind":
                return self._kind_names.get(candidate.kind, candidate.kind)
            if key == "score":
                return self.tr("calibrated {0:.3f} · raw {1:.3f}").format(candidate.score, candidate.raw_score)
            return self._tooltip(candidate)
        if role == Qt.ItemDataRole.TextAlignmentRole and key in ("rank", "messages", "size", "score"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        kept = (candidate.kind, candidate.id) in self._kept
        if role == Qt.ItemDataRole.BackgroundRole and kept:
            return QBrush(KEPT_BACKGROUND)
        if role == Qt.ItemDataRole.FontRole and kept:
            font = QFont()
            font.setBold(True)
            return font
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        key = COLUMN_KEYS[column]
        self.layoutAboutToBeChanged.emit()
        self._rows.sort(key=lambda c: _sort_key(c, key), reverse=order == Qt.SortOrder.DescendingOrder)
        self.layoutChanged.emit()

    def _label_data(self, candidate: Candidate, role: int):
        if candidate.kind != "topic":
            if role == Qt.ItemDataRole.ToolTipRole:
                return self.tr("Only topics are labelled: the evaluation counts topics.")
            return None
        label = self._labels.get(candidate.id)
        if role == Qt.ItemDataRole.DisplayRole:
            return LABEL_GLYPHS[label]
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(LABEL_COLOURS[label])
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return {True: self.tr("Labelled relevant (R toggles, click to change)"),
                    False: self.tr("Labelled not relevant (N toggles, click to change)"),
                    None: self.tr("Not labelled: click, or press R (relevant) or N (not relevant)")}[label]
        kept = (candidate.kind, candidate.id) in self._kept
        if role == Qt.ItemDataRole.BackgroundRole and kept:
            return QBrush(KEPT_BACKGROUND)
        return None

    def _tooltip(self, candidate: Candidate) -> str | None:
        """The summary in full, with the counts the hidden columns would show."""
        counts = ""
        if candidate.messages or candidate.chars:  # no plural forms: one string reads right in every language
            counts = self.tr("Messages: {0} · characters: {1}").format(
                candidate.messages or "—", f"{candidate.chars:,}" if candidate.chars else "—")
        parts = [shown_summary(candidate).strip(), counts]
        return "\n".join(part for part in parts if part) or None

    @staticmethod
    def _display(candidate: Candidate, key: str):
        if key == "rank":
            return candidate.rank
        if key == "kind":
            return candidate.id  # beside the kind's icon: "💬 23" reads as "topic 23"
        if key == "date":
            return candidate.date or ""
        if key == "chat":
            return candidate.chat or ""
        if key == "messages":
            return candidate.messages or ""
        if key == "size":
            return human_size(candidate.chars)
        if key == "score":
            return f"{candidate.score:.3f}"
        if key == "summary":
            return " ".join(shown_summary(candidate).split())  # one line: newlines would make tall rows
        return None


def shown_summary(candidate: Candidate) -> str:
    """The summary in the window's language where stage 1 writes fixed English words into it: a
    file's kind and "(no name)" ("voice: (no name) | caption"), a person's "(you)". English
    reads as stage 1 wrote it."""
    summary = candidate.summary
    if candidate.kind == "artifact":
        kind, sep, rest = summary.partition(": ")
        kinds = {"photo": QCoreApplication.translate("CandidatesModel", "photo"),
                 "file": QCoreApplication.translate("CandidatesModel", "file"),
                 "voice": QCoreApplication.translate("CandidatesModel", "voice"),
                 "video": QCoreApplication.translate("CandidatesModel", "video"),
                 "sticker": QCoreApplication.translate("CandidatesModel", "sticker"),
                 "audio": QCoreApplication.translate("CandidatesModel", "audio"),
                 "animation": QCoreApplication.translate("CandidatesModel", "animation"),
                 "other": QCoreApplication.translate("CandidatesModel", "other")}
        if sep and kind in kinds:
            name = rest.replace("(no name)", QCoreApplication.translate("CandidatesModel", "(no name)"), 1) \
                if rest.startswith("(no name)") else rest
            return f"{kinds[kind]}: {name}"
    elif candidate.kind == "person" and summary.endswith(" (you)"):
        return summary[: -len(" (you)")] + " " + QCoreApplication.translate("CandidatesModel", "(you)")
    return summary


def _sort_key(candidate: Candidate, key: str):
    """Rank sorts by kind first (ranks are per kind); everything else by its own value."""
    kind_order = {"topic": 0, "person": 1, "artifact": 2}.get(candidate.kind, 3)
    values = {"rank": (kind_order, candidate.rank), "kind": (kind_order, candidate.id),
              "date": candidate.date or "", "chat": candidate.chat or "", "messages": candidate.messages,
              "label": (kind_order, candidate.rank),
              "size": candidate.chars, "score": candidate.score, "summary": candidate.summary}
    return values[key]
