"""What the toolbar's "API key" action shows: whether the endpoint chosen in Settings has a key.

A green check used to be drawn whatever the state, which told a person on a machine without
a keyring (and without a key) that all was well. The state is read from the key store the
window was given: `source(provider)` says where a key comes from, or None.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPainterPath, QPen, QPixmap

from engine.api import PRESETS
from ui.i18n import engine_words

translate = QCoreApplication.translate  # lupdate reads translate("KeyStatus", "…") calls

SET, MISSING, NOT_NEEDED = "set", "missing", "not_needed"
BADGES = {SET: QColor("#2e9a5b"), MISSING: QColor("#d97706")}
SIZE = 18


@dataclass(frozen=True)
class KeyState:
    state: str  # SET, MISSING or NOT_NEEDED
    tooltip: str


def key_state(keys, preset: str) -> KeyState:
    """The key situation for the Settings panel's endpoint `preset`, in words for the tooltip."""
    spec = PRESETS[preset]
    label = engine_words(spec.label_message())
    if not spec.needs_key:
        return KeyState(NOT_NEEDED, translate("KeyStatus", "{0} needs no API key.").format(label))
    source = keys.source(preset) if keys is not None else None
    where = {"keyring": translate("KeyStatus", "from the system keyring"),
             "session": translate("KeyStatus", "for this session only"),
             "env": translate("KeyStatus", "from an environment variable")}.get(source or "")
    if where is None:
        return KeyState(MISSING, translate("KeyStatus", "No API key for {0}: Flash cannot use it until you add one.")
                        .format(label))
    return KeyState(SET, translate("KeyStatus", "API key for {0}: {1}.").format(label, where))


@cache
def key_icon(state: str) -> QIcon:
    """A key, with a green check when one is set or an amber "!" when one is needed and missing."""
    pixmap = QPixmap(SIZE * 2, SIZE * 2)
    pixmap.setDevicePixelRatio(2.0)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    metal = QColor("#5d6875")
    painter.setPen(QPen(metal, 2.2))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawEllipse(QRectF(1.5, 6.0, 8, 8))  # the bow
    shaft = QPainterPath(QPointF(9.5, 10.0))
    shaft.lineTo(17.0, 10.0)
    for x in (13.0, 16.0):  # the bit's teeth
        shaft.moveTo(x, 10.0)
        shaft.lineTo(x, 14.5)
    painter.drawPath(shaft)
    badge = BADGES.get(state)
    if badge is not None:
        painter.setPen(QPen(QColor("white"), 1.0))
        painter.setBrush(badge)
        painter.drawEllipse(QRectF(9.5, 0.5, 8, 8))
        painter.setPen(QPen(QColor("white"), 1.4))
        if state == SET:
            tick = QPainterPath(QPointF(11.6, 4.6))
            tick.lineTo(13.1, 6.1)
            tick.lineTo(15.6, 3.0)
            painter.drawPath(tick)
        else:
            font = QFont()
            font.setPixelSize(7)
            font.setBold(True)
            painter.setFont(font)
            painter.drawText(QRectF(9.5, 0.5, 8, 8), Qt.AlignmentFlag.AlignCenter, "!")
    painter.end()
    return QIcon(pixmap)
