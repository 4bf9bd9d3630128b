"""One Flash run at a time as a coroutine on the qasync loop: start, cancel, result by signal.

The reranker waits on the network, so it runs as an asyncio task on the GUI thread's
event loop (qasync) instead of a worker thread; the GUI never blocks, and cancelling is
`task.cancel()`. Latest wins: a task that is no longer the current one is ignored.
"""

from __future__ import annotations

import asyncio
import time

from PySide6.QtCore import QCoreApplication, QObject, Signal

from engine.errors import EngineError


def plain_words(error: BaseException, what: str) -> str:
    """What the person reads: an engine error's own message, else a short note that it is our bug."""
    if isinstance(error, EngineError):
        return str(error)
    text = QCoreApplication.translate("SearchPanel", "{0} hit an internal error ({1}: {2}). Please report it.")
    return text.format(what, type(error).__name__, error)


class FlashRunner(QObject):
    finished = Signal(object)  # SearchOutcome
    failed = Signal(str)  # plain words
    cancelled = Signal()

    def __init__(self, service, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._task: asyncio.Future | None = None
        self.started_at = 0.0

    def running(self) -> bool:
        return self._task is not None

    def start(self, stage1, reranker) -> None:
        """Await `service.arerank(stage1, reranker)` (recorded) on the running qasync loop."""
        self.cancel(quiet=True)
        self.started_at = time.perf_counter()
        task = asyncio.ensure_future(self._service.arerank(stage1, reranker))
        self._task = task
        task.add_done_callback(self._on_done)

    def cancel(self, quiet: bool = False) -> None:
        """Stop the current run; `cancelled` tells the panel at once unless `quiet` (a newer run follows)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            if not quiet:
                self.cancelled.emit()

    def _on_done(self, task: asyncio.Future) -> None:
        if task is not self._task:  # cancelled or replaced: nobody waits for it any more
            if not task.cancelled():
                task.exception()  # retrieved, so asyncio does not log it as unhandled
            return
        self._task = None
        if task.cancelled():
            self.cancelled.emit()
            return
        error = task.exception()
        if error is not None:
            self.failed.emit(plain_words(error, "Flash"))
        else:
            self.finished.emit(task.result())
