"""Flash on every labelled query, from the Evaluate view: the estimate in a worker (it may ask the
provider for its price), then the runs as one coroutine on the qasync loop (like the search
view's FlashRunner), with progress per query and cancel at any moment."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from engine.api import Flashback
from ui.search.flash_runner import plain_words
from ui.tasks import CoroutineTask, run_in_background


class FlashComparer(QObject):
    estimated = Signal(object)  # CostEstimate
    progressed = Signal(int, int, object)  # done, total, FlashOutcome
    finished = Signal(list)  # every FlashOutcome
    failed = Signal(str)
    cancelled = Signal(int)  # how many queries had finished

    def __init__(self, service: Flashback, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._task = CoroutineTask(self)
        self._task.succeeded.connect(lambda result: self.finished.emit(result))
        self._task.failed.connect(lambda error: self.failed.emit(plain_words(error, "Flash")))
        self._task.cancelled.connect(lambda: self.cancelled.emit(self._done))
        self._done = 0

    def running(self) -> bool:
        return self._task.running()

    def estimate(self, frozen, flash_settings, endpoint) -> None:
        """Price (a GET to the provider, never a chat call) and token estimate, off the GUI thread."""
        evaluation = self._service.evaluation
        run_in_background(self, lambda: evaluation.estimate_flash(frozen, flash_settings, endpoint),
                          self.estimated.emit, lambda error: self.failed.emit(plain_words(error, "Flash")))

    def start(self, frozen, reranker, threshold) -> None:
        self.cancel(quiet=True)
        self._done = 0
        total = len(frozen)

        def on_outcome(done: int, outcome) -> None:
            self._done = done
            self.progressed.emit(done, total, outcome)

        self._task.start(self._service.evaluation.compare_flash(frozen, reranker, threshold, on_outcome))

    def cancel(self, quiet: bool = False) -> None:
        self._task.cancel(quiet)
