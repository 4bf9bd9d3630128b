"""Rerankers side by side on every labelled query, from the Evaluate view (issue 25): the
threshold filter, the cross-encoder and Flash on the same frozen candidates.

The estimate comes first, in a worker: Flash's tokens and the provider's price (a GET of its
model list, never a chat call), the cross-encoder's (query, passage) tokens and requests
counted here, nothing sent. The comparison then runs as one coroutine on the qasync loop
(like the search view's runners): per query, the threshold cut is arithmetic on the frozen
scores and every other reranker is called and recorded in the run history; progress per
query, and cancel at any moment keeps the queries already done.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Signal

from engine.api import Flashback
from ui.search.flash_runner import plain_words
from ui.tasks import CoroutineTask, run_in_background


class RerankerComparer(QObject):
    estimated = Signal(object)  # {reranker name: CostEstimate}
    progressed = Signal(int, int, object)  # done, total, Comparison
    finished = Signal(list)  # every Comparison
    failed = Signal(str)
    cancelled = Signal(int)  # how many queries had finished

    def __init__(self, service: Flashback, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._service = service
        what = QCoreApplication.translate("EvaluatePanel", "The comparison")
        self._task = CoroutineTask(self)
        self._task.succeeded.connect(lambda result: self.finished.emit(result))
        self._task.failed.connect(lambda error: self.failed.emit(plain_words(error, what)))
        self._done = 0  # queries compared so far (said when the comparison is cancelled)
        self._task.cancelled.connect(lambda: self.cancelled.emit(self._done))

    def running(self) -> bool:
        return self._task.running()

    def estimate(self, frozen, flash: tuple | None, cross_encoder: tuple | None) -> None:
        """What each chosen reranker would cost on `frozen`, off the GUI thread: `flash` is (its
        settings, endpoint), `cross_encoder` (its settings, rerank endpoint), None when not compared."""
        evaluation = self._service.evaluation

        def work() -> dict:
            costs = {}
            if cross_encoder is not None:
                costs["cross-encoder"] = evaluation.estimate_cross_encoder(frozen, *cross_encoder)
            if flash is not None:
                costs["flash"] = evaluation.estimate_flash(frozen, *flash)
            return costs

        what = QCoreApplication.translate("EvaluatePanel", "The estimate")
        run_in_background(self, work, self.estimated.emit, lambda error: self.failed.emit(plain_words(error, what)))

    def start(self, frozen, rerankers: dict) -> None:
        """Compare `rerankers` (name → reranker, or ThresholdSettings for the threshold cut)."""
        self.cancel(quiet=True)
        self._done = 0
        total = len(frozen)

        def on_outcome(done: int, comparison) -> None:
            self._done = done
            self.progressed.emit(done, total, comparison)

        self._task.start(self._service.evaluation.compare_rerankers(frozen, rerankers, on_outcome))

    def cancel(self, quiet: bool = False) -> None:
        self._task.cancel(quiet)
