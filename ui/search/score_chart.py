"""Topic scores by rank as bars, with the threshold line and the gap cut drawn (plain QPainter).

The widget only draws what it is given (`ChartData`); the panel computes which bars are
kept and where the cut falls, with the engine's own threshold filter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QHelpEvent, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

KEPT = QColor("#2e9a5b")
ABOVE = QColor("#e8b04a")  # over the threshold but cut by the gap or top-K
BELOW = QColor("#b9c3cf")
THRESHOLD = QColor("#d04437")
GAP = QColor("#7a4fc4")
GRID = QColor("#e3e6ea")
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 40, 12, 26, 24


@dataclass(frozen=True)
class ChartPoint:
    score: float
    kept: bool
    label: str  # for the tooltip: "Topic 52 · rank 3"


@dataclass(frozen=True)
class ChartData:
    points: list[ChartPoint] = field(default_factory=list)  # best score first
    threshold: float | None = None  # drawn when the threshold reranker is in use
    gap_cut: int | None = None  # index of the first bar the gap removed
    caption: str = ""


class ScoreChart(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._data = ChartData()
        self.setMinimumHeight(150)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's naming)
        return QSize(480, 190)

    def set_data(self, data: ChartData) -> None:
        self._data = data
        self.update()

    def data(self) -> ChartData:
        return self._data

    # -- geometry -----------------------------------------------------------------------
    def _plot(self) -> QRectF:
        return QRectF(MARGIN_LEFT, MARGIN_TOP, max(1, self.width() - MARGIN_LEFT - MARGIN_RIGHT),
                      max(1, self.height() - MARGIN_TOP - MARGIN_BOTTOM))

    def _y(self, plot: QRectF, score: float) -> float:
        return plot.bottom() - max(0.0, min(1.0, score)) * plot.height()

    def _slot(self, plot: QRectF) -> float:
        return plot.width() / max(1, len(self._data.points))

    # -- painting -----------------------------------------------------------------------
    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's naming)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), self.palette().base())
        plot = self._plot()
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, self.font().pointSizeF() * 0.85))
        painter.setFont(small)
        self._draw_axes(painter, plot)
        if not self._data.points:
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, self.tr("Search to see the scores by rank"))
            return
        self._draw_bars(painter, plot)
        self._draw_cuts(painter, plot)
        self._draw_legend(painter)

    def _draw_axes(self, painter: QPainter, plot: QRectF) -> None:
        text = self.palette().text().color()
        for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
            y = self._y(plot, tick)
            painter.setPen(QPen(GRID, 1))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text)
            painter.drawText(QRectF(0, y - 8, MARGIN_LEFT - 6, 16),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"{tick:.2f}")

    def _draw_bars(self, painter: QPainter, plot: QRectF) -> None:
        slot = self._slot(plot)
        width = max(2.0, slot * 0.7)
        threshold = self._data.threshold
        step = max(1, round(len(self._data.points) / max(1, plot.width() / 28)))  # rank labels ~28 px apart
        painter.setPen(Qt.PenStyle.NoPen)
        for index, point in enumerate(self._data.points):
            if point.kept:
                colour = KEPT
            elif threshold is not None and point.score >= threshold:
                colour = ABOVE
            else:
                colour = BELOW
            x = plot.left() + index * slot + (slot - width) / 2
            top = self._y(plot, point.score)
            painter.setBrush(colour)
            painter.drawRoundedRect(QRectF(x, top, width, plot.bottom() - top), 1.5, 1.5)
            if index % step == 0 or index == len(self._data.points) - 1:
                painter.setPen(self.palette().text().color())
                painter.drawText(QRectF(x - 10, plot.bottom() + 3, width + 20, 16),
                                 Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, str(index + 1))
                painter.setPen(Qt.PenStyle.NoPen)

    def _draw_cuts(self, painter: QPainter, plot: QRectF) -> None:
        if self._data.threshold is not None:
            y = self._y(plot, self._data.threshold)
            painter.setPen(QPen(THRESHOLD, 1.5, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            label = self.tr("threshold {0:.2f}").format(self._data.threshold)
            painter.drawText(QRectF(plot.left(), y - 17, plot.width() - 4, 16),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom, label)
        if self._data.gap_cut is not None:
            x = plot.left() + self._data.gap_cut * self._slot(plot)
            painter.setPen(QPen(GAP, 1.5, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
            painter.drawText(QRectF(x + 4, plot.top(), 120, 16), Qt.AlignmentFlag.AlignLeft, self.tr("gap cut"))

    def _draw_legend(self, painter: QPainter) -> None:
        entries = [(KEPT, self.tr("kept")), (ABOVE, self.tr("cut by gap / top-K")), (BELOW, self.tr("not kept"))]
        if self._data.threshold is None:
            entries = [entries[0], entries[2]]
        metrics = painter.fontMetrics()
        x = float(MARGIN_LEFT)
        if self._data.caption:
            painter.setPen(self.palette().text().color())
            painter.drawText(QPointF(x, 16), self._data.caption)
            x += metrics.horizontalAdvance(self._data.caption) + 16
        for colour, label in entries:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawRoundedRect(QRectF(x, 7, 10, 10), 2, 2)
            painter.setPen(self.palette().text().color())
            painter.drawText(QPointF(x + 14, 16), label)
            x += 14 + metrics.horizontalAdvance(label) + 14

    # -- tooltips -----------------------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent) and self._data.points:
            plot = self._plot()
            position = QPointF(event.pos())
            index = int((position.x() - plot.left()) // self._slot(plot))
            if plot.contains(position) and 0 <= index < len(self._data.points):
                point = self._data.points[index]
                QToolTip.showText(event.globalPos(), f"{point.label}\n{self.tr('score')} {point.score:.3f}", self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)
