"""Notices when another process (a second window, `flashback import` in a terminal, a server)
changed the store or is writing it, so the window can refresh and say so.

A light poll: every few seconds, off the GUI thread, the service's `change_token()` (a few
primary-key reads) and `writer()` (a non-blocking try of the store's write lock). SQLite
has no cross-process change notification, and file watching would fire on every write of
a long import; a token that moves only when an import or build committed is what matters.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from ui.shell.writer_words import writer_words
from ui.tasks import run_in_background

POLL_MS = 2500


class StoreWatcher(QObject):
    changed = Signal()  # an import or build elsewhere committed: re-read what is shown
    writer_changed = Signal(str)  # who writes the store now, in words ("" when nobody)

    def __init__(self, service, parent: QObject | None = None, interval_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self._service = service
        self._token: tuple | None = None
        self._writer = ""
        self._polling = False
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.poll)

    def start(self) -> None:
        self.poll()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def resync(self) -> None:
        """Take the store as it is now as seen (after this window's own import or build)."""
        self._token = None

    def poll(self) -> None:
        if self._polling:  # a slow read (a busy disk) must not pile up workers
            return
        self._polling = True
        service = self._service
        run_in_background(self, lambda: (service.change_token(), service.writer()), self._on_polled,
                          self._on_failed)

    def _on_polled(self, result) -> None:
        self._polling = False
        token, holder = result
        if self._token is not None and token != self._token:
            self.changed.emit()
        self._token = token
        writer = writer_words(holder) if holder is not None else ""
        if writer != self._writer:
            self._writer = writer
            self.writer_changed.emit(writer)

    def _on_failed(self, _error: Exception) -> None:
        self._polling = False  # the next tick tries again; the window reports real read errors itself
