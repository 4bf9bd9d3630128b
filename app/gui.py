"""Start the desktop app: QApplication on a qasync event loop, one service, one window."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

DEMO_EXPORT = Path(__file__).resolve().parent.parent / "resources" / "demo" / "telegram_demo_export.json"


def run_gui(data_dir: Path, demo: bool = False) -> int:
    import qasync
    from PySide6.QtWidgets import QApplication

    from engine.service import FlashbackService
    from ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Flashback")
    app.setOrganizationName("Flashback")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow(FlashbackService(data_dir))
    window.show()
    if demo and DEMO_EXPORT.exists():
        window.start_import(DEMO_EXPORT)  # idempotent: a second start adds nothing
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        loop.run_until_complete(closed.wait())
    return 0
