"""One Ask run at a time as a coroutine on the qasync loop (`ui.tasks.CoroutineTask`), like Flash:
the steps and the answer's text as they come, the outcome, and a cancel that keeps what was found.

`service.ask.ask` waits on the network and runs its blocking parts (stage 1, reading the
store, the offline check) in threads of its own, so the GUI thread only schedules it. Cancel
is the flow's own `CancelToken`: it stops within 50 ms and raises `AskCancelled` carrying the
partial outcome (the sources found so far), which the view keeps showing. A newer question
cancels the older one quietly (latest wins); nothing the older one reports arrives after.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Signal

from engine.api import AskCancelled, CancelToken, Flashback
from ui.search.flash_runner import plain_words
from ui.tasks import CoroutineTask


class AskRunner(QObject):
    step = Signal(object)  # StepRecord, as each step ends
    answer_text = Signal(str)  # the answer's text, before the run is recorded
    finished = Signal(object)  # AskOutcome
    stopped = Signal(object, str)  # (the partial AskOutcome or None, why it stopped in plain words)

    def __init__(self, service: Flashback, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._token: CancelToken | None = None
        self._task = CoroutineTask(self)
        self._task.succeeded.connect(self._on_succeeded)
        self._task.failed.connect(self._on_failed)
        self._task.cancelled.connect(lambda: self.stopped.emit(None, self._cancelled_words()))

    def running(self) -> bool:
        return self._task.running()

    def start(self, question: str, reranker, endpoint, settings, plan=None) -> None:
        """Await `service.ask.ask(…)` (recorded in the run history) on the running qasync loop."""
        token = CancelToken()
        self._token = token

        def on_step(record) -> None:
            if token is self._token:
                self.step.emit(record)

        def on_text(text: str) -> None:
            if token is self._token:
                self.answer_text.emit(text)

        self._task.start(self._service.ask.ask(question, reranker, endpoint=endpoint, settings=settings,
                                               cancel=token, on_step=on_step, on_answer_text=on_text, plan=plan))

    def cancel(self, quiet: bool = False) -> None:
        """Stop the run: the flow ends with what it found (`stopped`); `quiet` drops it unsaid."""
        if quiet:
            self._token = None
            self._task.cancel(quiet=True)
        elif self._token is not None:
            self._token.cancel()

    def _on_succeeded(self, outcome) -> None:
        self._token = None
        self.finished.emit(outcome)

    def _on_failed(self, error: Exception) -> None:
        self._token = None
        if isinstance(error, AskCancelled):
            self.stopped.emit(error.partial, self._cancelled_words())
        else:
            self.stopped.emit(None, plain_words(error, QCoreApplication.translate("AskView", "Ask")))

    @staticmethod
    def _cancelled_words() -> str:
        return QCoreApplication.translate("AskView", "Cancelled; nothing more was sent after the cancel.")
