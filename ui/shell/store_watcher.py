"""Notices when another process (a second window, `flashback import` in a terminal, a server)
changed the store or is writing it, so the window can refresh what changed and say so.

A light poll: every few seconds, off the GUI thread, `service.store.changes_since(token)` (a
few primary-key reads: what moved since the last look, as the same `Changes` record a write
in this window returns) and `service.store.writer()` (a non-blocking try of the store's write
lock). SQLite has no cross-process change notification, and file watching would fire on
every write of a long import; a token that moves only when a write committed is what matters.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from engine.api import Changes, ChangeToken, Flashback, LockHolder
from ui.shell.writer_words import writer_words
from ui.tasks import run_in_background

POLL_MS = 2500


class StoreWatcher(QObject):
    changed = Signal(object)  # Changes committed since the last look (not news on the first look)
    writer_changed = Signal(str)  # who writes the store now, in words ("" when nobody)

    def __init__(self, service: Flashback, parent: QObject | None = None, interval_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self._service = service
        self._token: ChangeToken | None = None
        self._epoch = 0  # moves on `resync`: a poll begun before it only takes the store as seen
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
        """Take the store as it is now as seen (after this window's own import or build, whose
        changes the window has applied itself)."""
        self._token = None
        self._epoch += 1

    def poll(self) -> None:
        if self._polling:  # a slow read (a busy disk) must not pile up workers
            return
        self._polling = True
        store, previous, epoch = self._service.store, self._token, self._epoch

        def look() -> tuple[Changes, ChangeToken, LockHolder | None]:
            changes, token = store.changes_since(previous)
            return changes, token, store.writer()

        run_in_background(self, look, lambda result: self._on_polled(epoch, previous, *result), self._on_failed)

    def _on_polled(self, epoch: int, previous: ChangeToken | None, changes: Changes, token: ChangeToken,
                   holder: LockHolder | None) -> None:
        self._polling = False
        if epoch == self._epoch:
            self._token = token
            if previous is not None and changes.any:
                self.changed.emit(changes)
        writer = writer_words(holder) if holder is not None else ""
        if writer != self._writer:
            self._writer = writer
            self.writer_changed.emit(writer)

    def _on_failed(self, _error: Exception) -> None:
        self._polling = False  # the next tick tries again; the window reports real read errors itself
