"""The search view's three columns: candidates over the chart, the selection cards over the
stage report, and the settings panel, which can be hidden (F9) and stays as it was left.

On a 1280 px laptop, with the browse dock open, the columns get ~950 px between them. Sized
by their hints (QSplitter's stretch factors) the table got a third and showed four of its
columns; here the table gets what its columns and the start of the summary need, the cards
the rest, until the person drags a handle (from then on their widths win).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QScrollArea, QSplitter, QVBoxLayout, QWidget

from ui.search.candidates_view import CandidatesView

SETTINGS_SHOWN = "window/settings_panel"  # in the window group: View → Reset window forgets it too
SETTINGS_SHORTCUT = "F9"  # the side panel key of file managers and editors (Dolphin, Kate)
SUMMARY_PX = 150  # what the table shows of the summary before the cards get the rest
CARDS_MIN_PX = 200
TABLE_SHARE = 0.55  # of the width left beside the settings, when the table needs less

translate = QCoreApplication.translate  # lupdate reads translate("SearchPanel", "…") calls


class SearchColumns(QSplitter):
    def __init__(self, candidates: CandidatesView, chart: QWidget, cards: QWidget, report: QWidget,
                 settings_panel: QWidget, store: QSettings) -> None:
        super().__init__(Qt.Orientation.Horizontal)
        self._store = store
        self._candidates = candidates
        self._dragged = False  # once the person moved a handle, their widths win
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(candidates)
        left.addWidget(chart)
        left.setStretchFactor(0, 3)
        left.setStretchFactor(1, 2)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(QLabel(translate("SearchPanel", "<b>Selections</b> (in the order chosen)")))
        right_layout.addWidget(cards, 1)
        right_layout.addWidget(report)
        self.settings_container = QScrollArea(widgetResizable=True)
        self.settings_container.setMaximumWidth(420)
        self.settings_container.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.settings_container.setWidget(settings_panel)
        scrollbar = self.settings_container.verticalScrollBar().sizeHint().width()
        self.settings_container.setMinimumWidth(settings_panel.minimumSizeHint().width() + scrollbar + 4)
        for widget in (left, right, self.settings_container):
            self.addWidget(widget)
        self.setStretchFactor(0, 4)
        self.setStretchFactor(1, 3)
        self.setStretchFactor(2, 0)
        self.setChildrenCollapsible(False)
        self.splitterMoved.connect(self._on_dragged)
        candidates.columns_fitted.connect(self.share_width)

        self.settings_action = QAction(translate("SearchPanel", "Search &settings panel"), self, checkable=True,
                                       shortcut=QKeySequence(SETTINGS_SHORTCUT))
        self.settings_action.setIconText(translate("SearchPanel", "Settings"))
        self.settings_action.setToolTip(translate("SearchPanel", "Show or hide the search settings ({0})")
                                        .format(SETTINGS_SHORTCUT))
        shown = str(store.value(SETTINGS_SHOWN, True)).lower() not in ("false", "0")
        self.settings_action.setChecked(shown)
        self.settings_container.setVisible(shown)
        self.settings_action.toggled.connect(self._on_settings_toggled)

    def settings_shown(self) -> bool:
        return self.settings_action.isChecked()

    def _on_dragged(self, *_args) -> None:
        self._dragged = True

    def _on_settings_toggled(self, shown: bool) -> None:
        self.settings_container.setVisible(shown)
        self._store.setValue(SETTINGS_SHOWN, shown)
        self.share_width()

    def share_width(self) -> None:
        """The table: its columns and SUMMARY_PX of the summary (at least TABLE_SHARE of the room);
        the cards: the rest, never under CARDS_MIN_PX; the settings: their minimum."""
        if self._dragged:
            return
        settings = self.settings_container.minimumWidth() if self.settings_container.isVisibleTo(self) else 0
        available = sum(self.sizes()) - settings
        if available <= 0:
            return
        table = max(self._candidates.fitted_width(SUMMARY_PX), int(available * TABLE_SHARE))
        table = max(min(table, available - CARDS_MIN_PX), available // 3)
        self.setSizes([table, available - table, settings])

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's naming)
        super().resizeEvent(event)
        self.share_width()
