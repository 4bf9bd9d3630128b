"""A person's messages per month as small bars, drawn with QPainter (issue 33).

Every month between the first message and the last has a bar (the engine fills silent months
with zeros), so a gap in the chart is a real gap. The first and last month are written under
the bars; hovering a bar names its month and count.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QToolTip, QWidget

from engine.api import msg
from ui.i18n import engine_words

BAR_COLOUR = QColor("#4f7cac")
MAX_BAR_WIDTH = 18.0


class MonthChart(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.months: tuple[tuple[str, int], ...] = ()
        self.setMouseTracking(True)
        self.setMinimumHeight(90)

    def set_months(self, months: tuple[tuple[str, int], ...]) -> None:
        self.months = tuple(months)
        self.setToolTip("")
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(320, 96)

    def _layout(self) -> tuple[QRectF, float]:
        """The bars' area (above the month labels) and one month's slot width."""
        label_height = self.fontMetrics().height() + 4
        area = QRectF(self.rect()).adjusted(4, 6, -4, -label_height)
        slot = area.width() / max(1, len(self.months))
        return area, slot

    def paintEvent(self, _event) -> None:  # noqa: N802 (Qt's name)
        if not self.months:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        area, slot = self._layout()
        top = max(count for _, count in self.months) or 1
        width = min(MAX_BAR_WIDTH, slot * 0.75)
        painter.setPen(self.palette().color(QPalette.ColorRole.Mid))
        painter.drawLine(area.bottomLeft(), area.bottomRight())
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(BAR_COLOUR)
        for index, (_month, count) in enumerate(self.months):
            if not count:
                continue
            height = max(2.0, area.height() * count / top)
            left = area.left() + index * slot + (slot - width) / 2
            painter.drawRoundedRect(QRectF(left, area.bottom() - height, width, height), 2, 2)
        painter.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        baseline = area.bottom() + self.fontMetrics().ascent() + 2
        first, last = self.months[0][0], self.months[-1][0]
        painter.drawText(int(area.left()), int(baseline), first)
        if last != first:
            painter.drawText(int(area.right() - self.fontMetrics().horizontalAdvance(last)), int(baseline), last)
        peak = str(top)
        painter.drawText(int(area.right() - self.fontMetrics().horizontalAdvance(peak)),
                         int(area.top() + self.fontMetrics().ascent()), peak)
        painter.end()

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if not self.months:
            return
        area, slot = self._layout()
        index = int((event.position().x() - area.left()) // slot) if slot else -1
        if 0 <= index < len(self.months):
            month, count = self.months[index]
            QToolTip.showText(event.globalPosition().toPoint(),
                              engine_words(msg("people.card.chart_tooltip", month=month, messages=count)), self)
