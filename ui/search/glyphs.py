"""Small painted glyphs for the three kinds of candidate (no emoji: fonts differ per system)."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap

KIND_COLOURS = {"topic": QColor("#3b78c4"), "person": QColor("#2e9a5b"), "artifact": QColor("#c77a1c")}
SIZE = 16


@cache
def kind_icon(kind: str) -> QIcon:
    """A speech bubble for a topic, a head and shoulders for a person, a dog-eared page for an
    attachment; drawn at 2x so they stay crisp on high-DPI screens."""
    pixmap = QPixmap(SIZE * 2, SIZE * 2)
    pixmap.setDevicePixelRatio(2.0)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    colour = KIND_COLOURS.get(kind, QColor("#777777"))
    painter.setPen(QPen(colour.darker(130), 1.0))
    painter.setBrush(colour)
    if kind == "topic":
        painter.drawRoundedRect(QRectF(1.5, 2.5, 13, 9), 3, 3)
        tail = QPainterPath(QPointF(4, 11))
        tail.lineTo(4, 14.5)
        tail.lineTo(8, 11)
        painter.drawPath(tail)
        painter.setPen(QPen(QColor("white"), 1.2))
        for y in (5.5, 8.5):
            painter.drawLine(QPointF(4.5, y), QPointF(11.5, y))
    elif kind == "person":
        painter.drawEllipse(QRectF(5, 1.5, 6, 6))
        painter.drawChord(QRectF(2, 8.5, 12, 12), 0, 180 * 16)
    else:
        page = QPainterPath(QPointF(3, 1.5))
        page.lineTo(10, 1.5)
        page.lineTo(13.5, 5)
        page.lineTo(13.5, 14.5)
        page.lineTo(3, 14.5)
        page.closeSubpath()
        painter.drawPath(page)
        painter.setPen(QPen(QColor("white"), 1.0))
        painter.drawLine(QPointF(10, 1.5), QPointF(10, 5))
        painter.drawLine(QPointF(10, 5), QPointF(13.5, 5))
    painter.end()
    return QIcon(pixmap)
