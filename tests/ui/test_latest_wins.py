"""`ui.tasks.LatestWins`: the one "latest wins" helper of the window (issue 22). Real worker
threads; each older job is held on an Event until the newer one has answered, so its
answer arrives late, the case the helper exists for."""

from __future__ import annotations

import threading
import time

import pytest
import shiboken6

from engine.progress import PROGRESS_INTERVAL_S
from tests.ui.conftest import deliver_posted_events
from ui.tasks import LatestWins, wait_for_background_work

WAIT_S = 10


class Held:
    """A job that waits until released, then returns `value` or raises `error`; records its cancel."""

    def __init__(self, value=None, error: Exception | None = None) -> None:
        self.value, self.error = value, error
        self.release = threading.Event()
        self.cancelled = False

    def __call__(self, progress, cancel):
        progress("started")
        assert self.release.wait(WAIT_S), "never released"
        self.cancelled = cancel.cancelled
        time.sleep(2 * PROGRESS_INTERVAL_S)  # not thinned away: the gate, not the throttle, must drop it
        progress(("late", self.value))
        if self.error is not None:
            raise self.error
        return self.value


class Seen:
    def __init__(self) -> None:
        self.results: list = []
        self.errors: list = []
        self.progress: list = []

    def start(self, latest: LatestWins, job: Held):
        return latest.start(job, self.results.append, self.errors.append, self.progress.append)


@pytest.fixture
def latest(qapp):
    runner = LatestWins()
    yield runner
    wait_for_background_work(WAIT_S * 1000)


def test_a_superseded_result_is_dropped_and_the_newest_delivered(qtbot, latest):
    seen, old, new = Seen(), Held("old"), Held("new")
    seen.start(latest, old)
    qtbot.waitUntil(lambda: seen.progress == ["started"])
    seen.start(latest, new)
    new.release.set()
    qtbot.waitUntil(lambda: seen.results == ["new"])
    old.release.set()  # the older job answers last
    qtbot.waitUntil(lambda: latest.running() == 0)
    deliver_posted_events(qtbot)  # anything the old job had queued for the GUI thread has arrived
    assert seen.results == ["new"] and seen.errors == []
    assert seen.progress == ["started", "started", ("late", "new")]  # none of the old job's late progress
    assert old.cancelled and not new.cancelled
    assert not latest.pending()


def test_a_superseded_error_is_dropped(qtbot, latest):
    seen, old, new = Seen(), Held(error=RuntimeError("stale failure")), Held("new")
    seen.start(latest, old)
    seen.start(latest, new)
    old.release.set()  # fails while the newer job still runs
    qtbot.waitUntil(lambda: latest.running() == 1)
    new.release.set()
    qtbot.waitUntil(lambda: latest.running() == 0)
    deliver_posted_events(qtbot)
    assert seen.errors == [] and seen.results == ["new"]


def test_the_newest_error_is_delivered(qtbot, latest):
    seen, job = Seen(), Held(error=ValueError("broken"))
    seen.start(latest, job)
    job.release.set()
    qtbot.waitUntil(lambda: latest.running() == 0)
    assert [str(error) for error in seen.errors] == ["broken"] and seen.results == []


def test_supersede_without_a_new_job_delivers_nothing(qtbot, latest):
    seen, job = Seen(), Held("dropped")
    seen.start(latest, job)
    assert latest.pending()
    latest.supersede()
    assert not latest.pending()
    job.release.set()
    qtbot.waitUntil(lambda: latest.running() == 0)
    deliver_posted_events(qtbot)
    assert seen.results == [] and job.cancelled


def test_a_job_started_from_a_callback_stays_the_current_one(qtbot, latest):
    second = Held("second")
    results: list = []

    def on_first(value):
        results.append(value)
        latest.start(second, results.append)  # e.g. a refused label reloads the labels

    first = Held("first")
    latest.start(first, on_first)
    first.release.set()
    qtbot.waitUntil(lambda: results == ["first"])
    assert latest.pending()  # the first job's end did not forget the second
    second.release.set()
    qtbot.waitUntil(lambda: results == ["first", "second"])


def test_the_task_s_own_signals_reach_every_job(qtbot, latest):
    """What every job must do, superseded or not, connects to the returned task."""
    everyone: list = []
    old, new = Held("old"), Held("new")
    latest.start(old, lambda _value: None).signals.succeeded.connect(everyone.append)
    latest.start(new, lambda _value: None).signals.succeeded.connect(everyone.append)
    new.release.set()
    old.release.set()
    qtbot.waitUntil(lambda: sorted(everyone) == ["new", "old"])


def test_work_that_outlives_its_owner_ends_quietly(qtbot):
    """A window closed while its work still runs deletes the task's parented signals; the worker
    then has nobody to tell, and says nothing (it raised "Signal source has been deleted" in the
    thread pool, which failed whichever test ran next)."""
    from PySide6.QtWidgets import QWidget

    from ui.tasks import BackgroundTask

    owner = QWidget()
    job = Held(value="late answer")
    task = BackgroundTask(job, owner)
    heard: list = []
    task.signals.succeeded.connect(heard.append)
    task.start()
    owner.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(task.signals), timeout=WAIT_S * 1000)
    job.release.set()
    assert wait_for_background_work(WAIT_S * 1000)
    deliver_posted_events(qtbot)  # any exception from the worker would surface in the Qt event loop here
    assert heard == []
