"""Helpers for the window tests: JSONL exports written on the fly, screenshots beside the tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot

import resources

SCREENSHOTS = Path(__file__).parents[1] / "screenshots"


def write_jsonl(path: Path, lines: int, chats: int = 2) -> Path:
    """Write `lines` valid Flashback JSONL messages spread over `chats` chats."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(
            json.dumps({
                "chat": f"Chat {number % chats}",
                "id": str(number),
                "author": ("Anna", "Ben", "Chloé")[number % 3],
                "date": f"2024-05-{1 + number % 28:02d}T{number % 24:02d}:{number % 60:02d}:00+00:00",
                "text": f"message number {number} about something worth remembering",
            }) + "\n"
            for number in range(lines)
        )
    return path


@pytest.fixture
def screenshots_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


# -- search view fixtures (ui/search) ---------------------------------------------------------
DEMO_EXPORT = resources.demo_export()


@pytest.fixture(autouse=True)
def _isolated_qsettings(tmp_path):
    """QSettings() in widgets writes an INI file under this test's tmp dir, never the user's config."""
    from PySide6.QtCore import QSettings

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    yield


class FakeKeys:
    """The KeyStore interface the window is given (app/keys.py), over a dict: no keyring, no env."""

    def __init__(self, keys: dict[str, str] | None = None) -> None:
        self.keys = dict(keys or {})

    def get(self, provider: str) -> str | None:
        return self.keys.get(provider)

    def source(self, provider: str) -> str | None:
        return "session" if provider in self.keys else None

    @staticmethod
    def env_vars(provider: str) -> tuple[str, ...]:
        return ("FLASHBACK_API_KEY",)


@pytest.fixture
def demo_service(tmp_path):
    """A real store: the bundled bilingual Telegram demo imported and built (topics, vectors, index)."""
    from engine.api import Flashback

    service = Flashback(tmp_path / "demo-data")
    service.imports.import_path(DEMO_EXPORT)
    service.memory.build()
    return service


@pytest.fixture
def qasync_loop(qapp):
    """qasync's loop on the test's Qt app, so coroutines (Flash) run while qtbot waits."""
    import asyncio

    import qasync

    loop = qasync.QEventLoop(qapp, already_running=True)
    executor = qasync.QThreadExecutor()  # asyncio.to_thread's threads, joined below
    loop.set_default_executor(executor)
    asyncio.set_event_loop(loop)
    yield loop
    executor.shutdown(wait=True)
    asyncio.events._set_running_loop(None)  # qasync marked it running for the whole test
    asyncio.set_event_loop(None)


# -- waits for "nothing happened" checks (issue 31): each ends on an event that must come after
# the forbidden one, so such a check cannot pass merely because it did not wait long enough.
class _Sentinel(QObject):
    poked = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.delivered = False
        self.poked.connect(self._arrive, Qt.ConnectionType.QueuedConnection)

    @Slot()
    def _arrive(self) -> None:
        self.delivered = True


def deliver_posted_events(qtbot) -> None:
    """Wait until every event already posted to the GUI thread (a worker's queued result, error or
    progress) has been delivered: a queued call posted now arrives after them (Qt delivers the
    events posted to one thread in their order)."""
    sentinel = _Sentinel()
    sentinel.poked.emit()
    qtbot.waitUntil(lambda: sentinel.delivered, timeout=60_000)


def fire_timers_due_within(qtbot, delay_ms: int) -> None:
    """Wait until every timer due within `delay_ms` of now (a debounce already started) has fired
    and run its slot: a precise timer started now, due a little later than the coarse ones may be
    (Qt moves a coarse timer by up to 5 % of its interval), fires after them (Qt fires expired
    timers in the order of their deadlines), however late a busy machine runs them all."""
    sentinel = QTimer(singleShot=True, interval=int(delay_ms * 1.1) + 20)
    sentinel.setTimerType(Qt.TimerType.PreciseTimer)
    fired: list[bool] = []
    sentinel.timeout.connect(lambda: fired.append(True))
    sentinel.start()
    qtbot.waitUntil(lambda: bool(fired), timeout=60_000)
    deliver_posted_events(qtbot)  # what those slots posted (a search started in a worker) too


def settle_background_work(qtbot, rounds: int = 20) -> None:
    """Wait until the window's background reads have ended and their answers have arrived, the
    reads those answers started included (stats → memory status → warm-up): the pool idle after
    its posted answers were delivered."""
    from PySide6.QtCore import QThreadPool

    pool = QThreadPool.globalInstance()
    for _ in range(rounds):
        assert pool.waitForDone(60_000), "a background task never ended"
        deliver_posted_events(qtbot)
        if pool.activeThreadCount() == 0:
            return
    raise AssertionError("background work kept starting more work")


def watcher_has_looked(qtbot, watcher) -> None:
    """A poll of the store watcher begun now has answered: it has seen the store as it is now."""
    qtbot.waitUntil(lambda: not watcher._polling, timeout=30_000)
    watcher.poll()
    qtbot.waitUntil(lambda: not watcher._polling, timeout=30_000)
    deliver_posted_events(qtbot)
