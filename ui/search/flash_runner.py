"""One Flash run at a time as a coroutine on the qasync loop (`ui.tasks.CoroutineTask`): start,
cancel, result by signal, errors in plain words. The cross-encoder (a rerank server) runs the
same way in a runner of its own (`what` names it in the error words).

The reranker waits on the network, so it runs as an asyncio task on the GUI thread's
event loop (qasync) instead of a worker thread; the GUI never blocks, and cancelling is
`task.cancel()`. Latest wins: a task that is no longer the current one is ignored.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QObject, Signal

from engine.api import (
    EngineError,
    Flashback,
    Reranker,
    SearchRequest,
    Stage1Result,
    ThresholdSettings,
    WriterBusy,
)
from ui.i18n import engine_words
from ui.shell.writer_words import writer_words
from ui.tasks import CoroutineTask


def plain_words(error: BaseException, what: str) -> str:
    """What the person reads: an engine error's own message, else a short note that it is our bug."""
    if isinstance(error, WriterBusy):  # who writes, in the window's language
        text = QCoreApplication.translate("SearchPanel", "{0} has to wait: {1} is writing the store. "
                                                         "Try again when it has finished.")
        return text.format(what, writer_words(error.holder))
    if isinstance(error, EngineError):
        return engine_words(error)
    text = QCoreApplication.translate("SearchPanel", "{0} hit an internal error ({1}: {2}). Please report it.")
    return text.format(what, type(error).__name__, error)


class FlashRunner(QObject):
    finished = Signal(object)  # SearchResult
    failed = Signal(str)  # plain words
    cancelled = Signal()

    def __init__(self, service: Flashback, parent: QObject | None = None, what: str = "Flash") -> None:
        super().__init__(parent)
        self._service = service
        self._task = CoroutineTask(self)
        self._task.succeeded.connect(lambda result: self.finished.emit(result))
        self._task.failed.connect(lambda error: self.failed.emit(plain_words(error, what)))
        self._task.cancelled.connect(lambda: self.cancelled.emit())
        self.started_at = 0.0

    def running(self) -> bool:
        return self._task.running()

    def start(self, stage1: Stage1Result, reranker: Reranker, threshold: ThresholdSettings | None = None) -> None:
        """The search pipeline on the frozen `stage1` with `reranker` (recorded), awaited on the
        running qasync loop; `threshold`: the person's, for a fallback and unbuilt messages."""
        self.started_at = time.perf_counter()
        request = SearchRequest(stage1.query, stage1.settings, reranker, threshold=threshold, record=True,
                                client="window", frozen=stage1)
        self._task.start(self._service.search.search(request))

    def cancel(self, quiet: bool = False) -> None:
        """Stop the current run; `cancelled` tells the panel at once unless `quiet` (a newer run follows)."""
        self._task.cancel(quiet)
