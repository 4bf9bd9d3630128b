"""The window's layout across runs: geometry and dock/toolbar state in QSettings ("window/…").

The search panel keeps its own switches (the settings panel shown or not) in the same group,
so View → Reset window forgets them all at once.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

GROUP = "window"


def restore(window: QMainWindow) -> None:
    settings = QSettings()
    geometry, state = settings.value(f"{GROUP}/geometry"), settings.value(f"{GROUP}/state")
    if geometry is not None:
        window.restoreGeometry(geometry)
    if state is not None:
        window.restoreState(state)


def save(window: QMainWindow) -> None:
    settings = QSettings()
    settings.setValue(f"{GROUP}/geometry", window.saveGeometry())
    settings.setValue(f"{GROUP}/state", window.saveState())


def forget() -> None:
    QSettings().remove(GROUP)
