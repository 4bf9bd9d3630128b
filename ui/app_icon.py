"""Flashback's own icon for the window, the task switcher and the About box.

The icon files ship in `resources/icons/` (an SVG master and a 256 px PNG). Either may be
missing (an installation without them, or a Qt without its SVG plugin): the app then keeps
Qt's default icon rather than failing to start.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QGuiApplication, QIcon

import resources

# The reverse-DNS id of the .desktop entry (packaging/linux): Wayland compositors and some X11
# docks find the launcher's icon and name through it rather than through the window.
APP_ID = "io.github.flashback.Flashback"


@cache
def app_icon() -> QIcon:
    """The app icon (SVG for every size, the PNG where SVG cannot be drawn); null when neither exists."""
    icon = QIcon()
    for suffix in ("svg", "png"):
        path = resources.icon(suffix)
        if path is not None:
            icon.addFile(str(path))
    return icon


def install(app: QGuiApplication) -> QIcon:
    """Give the whole application (every window and dialog it opens) Flashback's icon; call it
    once, right after the QApplication exists. Returns the icon (null when none was found)."""
    app.setDesktopFileName(APP_ID)
    icon = app_icon()
    if not icon.isNull():
        app.setWindowIcon(icon)
    return icon
