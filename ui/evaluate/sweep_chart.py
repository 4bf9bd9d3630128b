"""The sweep chart: mean kept precision, recall and F1 over the labelled queries as one setting
(threshold, gap or top-K) runs over its slider's range, the current value drawn as a line.

`paintEvent` only draws the arrays it was given (engine/evaluation/sweep.py computes them);
a slider step costs one `set_sweep` and one repaint.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

SERIES = (  # key, colour, pen width
    ("kept_precision", QColor("#3b78c4"), 1.6),
    ("kept_recall", QColor("#d9822b"), 1.6),
    ("kept_f1", QColor("#1f6f3f"), 2.6),
)
MARGINS = (44, 30, 14, 34)  # left, top, right, bottom


@dataclass
class SweepView:
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    series: dict[str, np.ndarray] = field(default_factory=dict)
    current: float | None = None
    axis_label: str = ""
    integer_axis: bool = False


class SweepChart(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = SweepView()
        self.names = {"kept_precision": self.tr("kept precision"), "kept_recall": self.tr("kept recall"),
                      "kept_f1": self.tr("kept F1")}
        self.empty_text = self.tr("Label a few search results, then press Refresh.")
        self.setMinimumSize(320, 180)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's naming)
        return QSize(520, 300)

    def set_sweep(self, view: SweepView) -> None:
        self.view = view
        self.update()

    def value_at_current(self, key: str) -> float | None:
        """The series' value at the current setting (what the marker points at), for tests and tooltips."""
        view = self.view
        if view.current is None or not len(view.values):
            return None
        index = int(np.argmin(np.abs(view.values - view.current)))
        return float(view.series[key][index])

    def _plot_rect(self) -> QRectF:
        left, top, right, bottom = MARGINS
        return QRectF(left, top, max(10, self.width() - left - right), max(10, self.height() - top - bottom))

    def _x(self, plot: QRectF, value: float) -> float:
        values = self.view.values
        low, high = float(values[0]), float(values[-1])
        return plot.left() + (value - low) / ((high - low) or 1.0) * plot.width()

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's naming)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), self.palette().base())
        view, plot = self.view, self._plot_rect()
        text_pen = QPen(self.palette().text().color())
        painter.setPen(text_pen)
        if not len(view.values) or not view.series:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.empty_text)
            return
        self._grid(painter, plot, text_pen)
        for key, colour, width in SERIES:
            ys = view.series.get(key)
            if ys is None:
                continue
            path = QPainterPath()
            for i, (x, y) in enumerate(zip(view.values, ys, strict=True)):
                point = QPointF(self._x(plot, float(x)), plot.bottom() - float(y) * plot.height())
                path.moveTo(point) if i == 0 else path.lineTo(point)
            painter.setPen(QPen(colour, width))
            painter.drawPath(path)
        if view.current is not None:
            x = self._x(plot, min(max(view.current, float(view.values[0])), float(view.values[-1])))
            painter.setPen(QPen(QColor("#b42318"), 1.4, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
            f1 = self.value_at_current("kept_f1")
            painter.setPen(QColor("#b42318"))
            current = f"{int(view.current)}" if view.integer_axis else f"{view.current:.2f}"
            painter.drawText(QPointF(min(x + 4, plot.right() - 90), plot.top() + 12),
                             self.tr("now {0}: F1 {1:.2f}").format(current, f1 or 0.0))
        self._legend(painter, plot)

    def _grid(self, painter: QPainter, plot: QRectF, text_pen: QPen) -> None:
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        painter.setFont(small)
        for step in range(6):
            y = plot.bottom() - step / 5 * plot.height()
            painter.setPen(QPen(QColor("#e3e7eb"), 1))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text_pen)
            painter.drawText(QRectF(0, y - 8, MARGINS[0] - 6, 16), Qt.AlignmentFlag.AlignRight, f"{step / 5:.1f}")
        values = self.view.values
        ticks = values if self.view.integer_axis else np.linspace(float(values[0]), float(values[-1]), 5)
        for tick in ticks:
            x = self._x(plot, float(tick))
            label = f"{int(tick)}" if self.view.integer_axis else f"{tick:.2f}"
            painter.drawText(QRectF(x - 20, plot.bottom() + 3, 40, 14), Qt.AlignmentFlag.AlignHCenter, label)
        painter.drawText(QRectF(plot.left(), plot.bottom() + 16, plot.width(), 16), Qt.AlignmentFlag.AlignHCenter,
                         self.view.axis_label)
        painter.setPen(QPen(QColor("#9aa4ae"), 1))
        painter.drawRect(plot)

    def _legend(self, painter: QPainter, plot: QRectF) -> None:
        x = plot.left()
        for key, colour, width in SERIES:
            painter.setPen(QPen(colour, width + 1))
            painter.drawLine(QPointF(x, 12), QPointF(x + 18, 12))
            painter.setPen(self.palette().text().color())
            name = self.names[key]
            painter.drawText(QPointF(x + 22, 16), name)
            x += 30 + painter.fontMetrics().horizontalAdvance(name)
