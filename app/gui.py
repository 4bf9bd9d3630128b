"""Start the desktop app: QApplication on a qasync event loop, one service, one key store, one window."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import resources

DEMO_EXPORT = resources.demo_export()  # None in an installation that does not carry it


def run_gui(data_dir: Path, demo: bool = False) -> int:
    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.keys import KeyStore
    from engine.service import FlashbackService
    from ui import i18n
    from ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Flashback")
    app.setOrganizationName("Flashback")
    app.setOrganizationDomain("flashback.local")
    i18n.install(app)  # before any widget exists: texts are set in constructors
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    demo_export = DEMO_EXPORT
    window = MainWindow(FlashbackService(data_dir), KeyStore(), demo_export=demo_export)
    window.show()
    if demo and demo_export is not None:
        # After the first paint: the window shows at once, the import and build run behind
        # the progress panel. Idempotent: a second start imports nothing and builds nothing new.
        QTimer.singleShot(0, window.open_demo)
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        loop.run_until_complete(closed.wait())
    return 0
