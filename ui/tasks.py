"""Run long engine work off the GUI thread; results come back on the GUI thread by signal.

The shape follows Anki's `CollectionOp`: the operation receives nothing from the widget
but the arguments it needs, never touches widgets, and its success, failure and progress
are delivered as Qt signals (queued connections, so slots run on the GUI thread).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from engine.importers.base import CancelToken


class TaskSignals(QObject):
    progress = Signal(object)
    succeeded = Signal(object)
    failed = Signal(object)  # the exception
    finished = Signal()


class _Runnable(QRunnable):
    def __init__(self, work: Callable[[Callable[[Any], None], CancelToken], Any], signals: TaskSignals,
                 cancel: CancelToken) -> None:
        super().__init__()
        self._work = work
        self._signals = signals
        self._cancel = cancel

    def run(self) -> None:
        try:
            result = self._work(self._signals.progress.emit, self._cancel)
        except Exception as exc:  # delivered to the GUI, which turns it into plain words
            self._signals.failed.emit(exc)
        else:
            self._signals.succeeded.emit(result)
        finally:
            self._signals.finished.emit()


class BackgroundTask:
    """A cancellable piece of work on the global thread pool."""

    def __init__(self, work: Callable[[Callable[[Any], None], CancelToken], Any], parent: QObject | None = None):
        self.signals = TaskSignals(parent)
        self.cancel_token = CancelToken()
        self._runnable = _Runnable(work, self.signals, self.cancel_token)

    def start(self) -> BackgroundTask:
        QThreadPool.globalInstance().start(self._runnable)
        return self

    def cancel(self) -> None:
        self.cancel_token.cancel()
