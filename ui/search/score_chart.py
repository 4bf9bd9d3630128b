"""Topic scores by rank as bars, with the threshold line and the gap cut drawn (plain QPainter):
stage 1's scores, or the cross-encoder's when it scored the topics.

The widget only draws what it is given (`ChartData`); the panel computes which bars are
kept and where the cut falls, with the engine's own threshold filter. Every text is placed
by `text_boxes()` before it is drawn: the legend wraps onto more lines rather than running
off a narrow chart (Russian labels are half as long again), the plot starts below it, and
the lines' labels live in the legend, where no bar can sit on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QHelpEvent, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

KEPT = QColor("#2e9a5b")
ABOVE = QColor("#e8b04a")  # over the threshold but cut by the gap or top-K
BELOW = QColor("#b9c3cf")
THRESHOLD = QColor("#d04437")
GAP = QColor("#7a4fc4")
GRID = QColor("#e3e6ea")
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 40, 12, 10, 24
BAR_MAX = 48.0
LEGEND_LEFT, SWATCH, ENTRY_GAP = 8.0, 10.0, 14.0  # legend: x of its first entry, swatch size, space between


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
    # What the bars over the threshold but not kept mean; "" for the threshold reranker's words.
    # (The cross-encoder's scores have no gap cut: only its top-K leaves them out.)
    above_label: str = ""


@dataclass(frozen=True)
class LegendEntry:
    label: str
    colour: QColor | None = None  # None: a caption, text only
    line: str = ""  # "horizontal" or "vertical": a dashed line's sample instead of a filled square
    swatch: QRectF = field(default_factory=QRectF)  # where the sample goes (set by the layout)
    text: QRectF = field(default_factory=QRectF)  # where the label goes


TEXT_FLAGS = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
HINT_FLAGS = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap


def lay_out_legend(entries: list[LegendEntry], metrics: QFontMetricsF, width: float) -> tuple[list[LegendEntry], float]:
    """Place `entries` left to right, starting a new line where the next would cross `width`;
    a label longer than a whole line is elided. Returns the placed entries and their height."""
    line_height = metrics.height() + 4
    right = width - MARGIN_RIGHT
    x, y, placed = LEGEND_LEFT, 4.0, []
    for entry in entries:
        sample = SWATCH + 4 if entry.colour is not None else 0.0
        label_width = metrics.horizontalAdvance(entry.label)
        if x > LEGEND_LEFT and x + sample + label_width > right:
            x, y = LEGEND_LEFT, y + line_height
        room = max(1.0, right - x - sample)
        label = entry.label
        if label_width > room:
            label = metrics.elidedText(label, Qt.TextElideMode.ElideRight, room)
        label_width = min(metrics.horizontalAdvance(label), room)
        swatch = QRectF(x, y + (line_height - SWATCH) / 2, SWATCH, SWATCH)
        text = QRectF(x + sample, y, label_width + 1, line_height)
        placed.append(LegendEntry(label, entry.colour, entry.line, swatch, text))
        x += sample + label_width + ENTRY_GAP
    return placed, (y + line_height if entries else 0.0)


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

    # -- layout ---------------------------------------------------------------------------
    def chart_font(self) -> QFont:
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, self.font().pointSizeF() * 0.85))
        return small

    def legend(self) -> tuple[list[LegendEntry], float]:
        entries = [LegendEntry(self._data.caption)] if self._data.caption else []
        entries.append(LegendEntry(self.tr("kept"), KEPT))
        if self._data.threshold is not None:
            entries.append(LegendEntry(self._data.above_label or self.tr("cut by gap / top-K"), ABOVE))
        entries.append(LegendEntry(self.tr("not kept"), BELOW))
        if self._data.threshold is not None:
            label = self.tr("threshold {0:.2f}").format(self._data.threshold)
            entries.append(LegendEntry(label, THRESHOLD, "horizontal"))
        if self._data.gap_cut is not None:
            entries.append(LegendEntry(self.tr("gap cut"), GAP, "vertical"))
        return lay_out_legend(entries, QFontMetricsF(self.chart_font()), self.width())

    def empty_hint(self) -> str:
        return self.tr("Search to see the scores by rank")

    def text_boxes(self) -> list[tuple[QRectF, int, str]]:
        """Every text the chart draws besides the axis numbers, with its rectangle and flags (for tests)."""
        if not self._data.points:
            return [(self._plot(), HINT_FLAGS, self.empty_hint())]
        return [(entry.text, TEXT_FLAGS, entry.label) for entry in self.legend()[0]]

    # -- geometry -----------------------------------------------------------------------
    def _plot(self) -> QRectF:
        top = MARGIN_TOP + (self.legend()[1] if self._data.points else 0.0)
        return QRectF(MARGIN_LEFT, top, max(1, self.width() - MARGIN_LEFT - MARGIN_RIGHT),
                      max(1, self.height() - top - MARGIN_BOTTOM))

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
        painter.setFont(self.chart_font())
        self._draw_axes(painter, plot)
        if not self._data.points:
            hint = painter.fontMetrics().boundingRect(plot.toRect(), HINT_FLAGS, self.empty_hint())
            painter.fillRect(hint.adjusted(-6, -2, 6, 2), self.palette().base())  # no grid line through the words
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(plot, HINT_FLAGS, self.empty_hint())
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
        width = min(max(2.0, slot * 0.7), BAR_MAX)  # one or two candidates: bars, not slabs
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
            y = round(self._y(plot, self._data.threshold))  # whole pixels: a crisp line, not a blur
            painter.setPen(QPen(THRESHOLD, 2, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
        if self._data.gap_cut is not None:
            x = round(plot.left() + self._data.gap_cut * self._slot(plot))
            painter.setPen(QPen(GAP, 2, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))

    def _draw_legend(self, painter: QPainter) -> None:
        text = self.palette().text().color()
        for entry in self.legend()[0]:
            if entry.colour is not None and entry.line:
                painter.setPen(QPen(entry.colour, 1.5, Qt.PenStyle.DashLine))
                box, centre = entry.swatch, entry.swatch.center()
                if entry.line == "vertical":
                    painter.drawLine(QPointF(centre.x(), box.top() - 1), QPointF(centre.x(), box.bottom() + 1))
                else:
                    painter.drawLine(QPointF(box.left(), centre.y()), QPointF(box.right(), centre.y()))
            elif entry.colour is not None:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(entry.colour)
                painter.drawRoundedRect(entry.swatch, 2, 2)
            painter.setPen(text)
            painter.drawText(entry.text, TEXT_FLAGS, entry.label)

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
