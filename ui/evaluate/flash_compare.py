"""Flash on every labelled query, from the Evaluate view: the estimate in a worker (it may ask the
provider for its price), then the runs as one coroutine on the qasync loop (like the search
view's FlashRunner), with progress per query and cancel at any moment."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from engine.evaluation.flash_compare import compare, estimate, model_price
from ui.search.flash_runner import plain_words
from ui.tasks import CoroutineTask, run_in_background


class FlashComparer(QObject):
    estimated = Signal(object)  # CostEstimate
    progressed = Signal(int, int, object)  # done, total, FlashOutcome
    finished = Signal(list)  # every FlashOutcome
    failed = Signal(str)
    cancelled = Signal(int)  # how many queries had finished

    def __init__(self, service, parent: QObject | None = None) -> None:
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
        def work():
            price = None if endpoint.is_local else model_price(endpoint.url, flash_settings.model,
                                                                endpoint.api_key)
            return estimate(frozen, flash_settings, price)

        run_in_background(self, work, self.estimated.emit, lambda error: self.failed.emit(plain_words(error, "Flash")))

    def start(self, frozen, reranker, threshold) -> None:
        self.cancel(quiet=True)
        self._done = 0
        total = len(frozen)

        def on_outcome(done: int, outcome) -> None:
            self._done = done
            self.progressed.emit(done, total, outcome)

        self._task.start(compare(self._service, frozen, reranker, threshold, on_outcome))

    def cancel(self, quiet: bool = False) -> None:
        self._task.cancel(quiet)
