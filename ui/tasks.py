"""Run long engine work off the GUI thread; results come back on the GUI thread by signal.

The shape follows Anki's `CollectionOp`: the operation receives nothing from the widget
but the arguments it needs, never touches widgets, and its success, failure and progress
are delivered as Qt signals (queued connections, so slots run on the GUI thread).

Every piece of background work in `ui/` goes through this module: `BackgroundTask` for
cancellable work with progress (imports, builds), `run_in_background` for quick reads
(browse lists, run history) whose results only need a callback, `LatestWins` for reads where
only the newest request's answer counts (a search, a filter, the selected run), and
`CoroutineTask` for work that waits on the network (LLM calls): a coroutine on the GUI
thread's qasync loop, no thread needed. docs/architecture.md, "Where long work runs".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal

from engine.api import PROGRESS_INTERVAL_S, CancelToken, ProgressThrottle

Work = Callable[[Callable[[Any], None], CancelToken], Any]


class TaskSignals(QObject):
    """What a task reports. Only `progress` and `done` cross threads; `succeeded`/`failed`
    and then `finished` are emitted on the GUI thread by the task itself when `done`
    arrives, so every receiver sees them in that order, and the object can be deleted
    afterwards without racing a worker that is still posting events. (Emitting three
    signals from the worker and deleting the object from a `finished` slot lost the
    other receivers' calls now and then: a controller stayed "busy" forever.)"""

    progress = Signal(object)
    succeeded = Signal(object)
    failed = Signal(object)  # the exception
    finished = Signal()
    done = Signal(bool, object)  # worker → task only: (succeeded?, result or exception)
    _task: BackgroundTask | None  # the task itself while it runs (BackgroundTask.start): keeps it alive


class _Relay(QObject):
    """Carries a worker's reports to the GUI thread, where the task's own signals are emitted.

    A worker must never emit on an object the GUI thread may delete meanwhile: the task's
    signals are parented to the widget that started it, and a widget closed while its work
    still ran was deleted between the worker's validity check and its emit (a segfault in
    the suite, now and then). This one object lives on the GUI thread and is never deleted; the
    worker emits on it only, and the GUI thread, where any deletion also happens, checks that the
    task's signals still exist before it emits on them."""

    report = Signal(object, str, object)  # (the task's TaskSignals, signal name, its arguments)

    def __init__(self) -> None:
        super().__init__()
        self.report.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @staticmethod
    def _deliver(signals: TaskSignals, name: str, args: tuple[Any, ...]) -> None:
        if shiboken6.isValid(signals):  # gone with its widget: nobody is left to tell
            getattr(signals, name).emit(*args)


_relay: _Relay | None = None


def _gui_relay() -> _Relay:
    """The one relay, made on the GUI thread by the first task (tasks are made there)."""
    global _relay
    if _relay is None:
        _relay = _Relay()
    return _relay


class _Runnable(QRunnable):
    def __init__(self, work: Work, signals: TaskSignals, cancel: CancelToken, interval: float,
                 key: Callable[[Any], Any] | None) -> None:
        super().__init__()
        self._work = work
        self._signals = signals
        self._relay = _gui_relay()
        self._cancel = cancel
        self._interval = interval
        self._key = key

    def run(self) -> None:
        worth_sending = ProgressThrottle(self._interval, self._key)  # engine/progress.py: one rule for both

        def progress(value: Any) -> None:
            if worth_sending(value):
                self._tell("progress", value)

        try:
            result = self._work(progress, self._cancel)
        except Exception as exc:  # delivered to the GUI, which turns it into plain words
            self._tell("done", False, exc)
        else:
            self._tell("done", True, result)

    def _tell(self, name: str, *args: Any) -> None:
        """Report through the GUI thread's relay (see `_Relay`): never on the task's own signals."""
        self._relay.report.emit(self._signals, name, args)


class BackgroundTask:
    """A cancellable piece of work on the global thread pool.

    `work(progress, cancel)` runs on a worker thread; connect to `signals` before `start()`.
    Progress is thinned to one report per `progress_interval`, except that a report whose
    `progress_key` differs from the previous one (a new stage) is always delivered.
    The task keeps itself alive until `finished` has been delivered, so callers may drop it.
    """

    def __init__(self, work: Work, parent: QObject | None = None, *,
                 progress_interval: float = PROGRESS_INTERVAL_S,
                 progress_key: Callable[[Any], Any] | None = None) -> None:
        self.signals = TaskSignals(parent)
        self.cancel_token = CancelToken()
        self.running = False
        self._runnable = _Runnable(work, self.signals, self.cancel_token, progress_interval, progress_key)
        self._runnable.setAutoDelete(False)  # Python owns it: no double free when the task is dropped
        self.signals.done.connect(self._on_done)

    def start(self) -> BackgroundTask:
        self.running = True
        self.signals._task = self  # keep-alive until finished (the runnable holds no Python ref)
        QThreadPool.globalInstance().start(self._runnable)
        return self

    def cancel(self) -> None:
        self.cancel_token.cancel()

    def _on_done(self, ok: bool, payload: Any) -> None:
        self.running = False
        try:
            (self.signals.succeeded if ok else self.signals.failed).emit(payload)
        finally:
            self.signals.finished.emit()
            self.signals._task = None
            if self.signals.parent() is not None:
                self.signals.deleteLater()  # parented: would otherwise pile up until the parent goes


def run_in_background(parent: QObject, call: Callable[[], Any], on_success: Callable[[Any], object],
                      on_failure: Callable[[Exception], object] | None = None) -> BackgroundTask:
    """Run a quick blocking `call()` (a service read) off the GUI thread; callbacks run on it."""
    task = BackgroundTask(lambda _progress, _cancel: call(), parent)
    task.signals.succeeded.connect(on_success)
    if on_failure is not None:
        task.signals.failed.connect(on_failure)
    return task.start()


class LatestWins:
    """Background work where only the newest job's answer counts: a search, a filter being
    typed, the run picked in a list. Starting a job supersedes the one before it: that one is
    cancelled (its `CancelToken`; work that never looks at it simply runs out) and nothing it
    ends with (result, error, progress) is ever delivered, so an older answer arriving late
    can never overwrite a newer one. `supersede()` drops the current job without a new one.

    The callbacks run on the GUI thread. The returned `BackgroundTask`'s own signals are not
    gated: connect to them for what every job must do, superseded or not (a label write has
    changed the store either way).
    """

    def __init__(self, parent: QObject | None = None) -> None:
        self._parent = parent  # the tasks' signals are parented to it (gone with its widget)
        self._current: BackgroundTask | None = None
        self._running: set[BackgroundTask] = set()

    def start(self, work: Work, on_success: Callable[[Any], None],
              on_failure: Callable[[Exception], None] | None = None,
              on_progress: Callable[[Any], None] | None = None) -> BackgroundTask:
        """Run `work(progress, cancel)` in a worker as the newest job."""
        self.supersede()
        task = BackgroundTask(work, self._parent)
        self._current = task
        self._running.add(task)
        if on_progress is not None:
            task.signals.progress.connect(lambda value: self._deliver(task, on_progress, value))
        task.signals.succeeded.connect(lambda result: self._deliver(task, on_success, result))
        if on_failure is not None:
            task.signals.failed.connect(lambda error: self._deliver(task, on_failure, error))
        task.signals.finished.connect(lambda: self._ended(task))
        return task.start()

    def call(self, call: Callable[[], Any], on_success: Callable[[Any], None],
             on_failure: Callable[[Exception], None] | None = None) -> BackgroundTask:
        """`start` for a quick blocking `call()` (a service read) that takes no progress or cancel."""
        return self.start(lambda _progress, _cancel: call(), on_success, on_failure)

    def supersede(self) -> None:
        """Cancel the current job, if any, and never deliver its outcome."""
        task, self._current = self._current, None
        if task is not None:
            task.cancel()

    def pending(self) -> bool:
        """The newest job has not answered yet."""
        return self._current is not None

    def running(self) -> int:
        """Jobs still running in a worker, superseded ones included (they hold a thread until they end)."""
        return len(self._running)

    def _deliver(self, task: BackgroundTask, callback: Callable[[Any], None], value: Any) -> None:
        if task is self._current:
            callback(value)

    def _ended(self, task: BackgroundTask) -> None:
        self._running.discard(task)
        if task is self._current:  # not a job its own callback started since
            self._current = None


def wait_for_background_work(timeout_ms: int = 30_000) -> bool:
    """Block until every worker is done (only for shutdown, after cancelling)."""
    return QThreadPool.globalInstance().waitForDone(timeout_ms)


class CoroutineTask(QObject):
    """One coroutine at a time on the running qasync loop: start, cancel, result by signal.

    Latest wins: starting again cancels the previous one quietly, and a task that is no
    longer the current one is ignored when it ends. Cancelling is `task.cancel()`.
    """

    succeeded = Signal(object)  # the coroutine's result
    failed = Signal(object)  # the exception
    cancelled = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._task: asyncio.Future | None = None

    def running(self) -> bool:
        return self._task is not None

    def start(self, coroutine) -> None:
        self.cancel(quiet=True)
        task = asyncio.ensure_future(coroutine)
        self._task = task
        task.add_done_callback(self._on_done)

    def cancel(self, quiet: bool = False) -> None:
        """Stop the current coroutine; `cancelled` says so at once unless `quiet` (a newer one follows)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            if not quiet:
                self.cancelled.emit()

    def _on_done(self, task: asyncio.Future) -> None:
        if task is not self._task:  # cancelled or replaced: nobody waits for it any more
            if not task.cancelled():
                task.exception()  # retrieved, so asyncio does not log it as never retrieved
            return
        self._task = None
        if task.cancelled():
            self.cancelled.emit()
        elif task.exception() is not None:
            self.failed.emit(task.exception())
        else:
            self.succeeded.emit(task.result())
