"""The first Ask in a fresh window process, measured on the GUI thread (issue 31, finding f).

Run as `python -m tests.ui.first_ask_probe DATA_DIR BASE_URL` by tests/ui/test_issue31_window.py:
a new process, so nothing an earlier test imported (the Ask flow, dateparser's language data)
hides what the first Ask costs. It opens the window offscreen, waits until the window's own
start-up work is done (its stats shown, the thread pool idle), then asks once against the
scripted server at BASE_URL while a 5 ms QTimer ticks, and prints one JSON line:

    {"max_cpu_ms": …, "max_gap_ms": …, "ticks": …, "answered": …}

`max_cpu_ms` is the most CPU time the GUI thread spent between two ticks (`time.thread_time`
of that thread): what a person feels as a freeze, and unlike the wall-clock gap it does not
grow when the two cores are busy with other work. `max_gap_ms` is the wall-clock gap, for the
report.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QSettings, QThreadPool, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

QUESTION = "What went wrong after the Postgres upgrade last year?"  # a date phrase: dateparser reads it


def wait_until(app: QApplication, condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        app.processEvents()
        time.sleep(0.005)
    return True


def main(data_dir: str, base_url: str, settings_dir: str) -> None:
    import qasync

    QCoreApplication.setOrganizationName("FlashbackTests")
    QCoreApplication.setApplicationName("Flashback")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, settings_dir)
    app = QApplication([])
    loop = qasync.QEventLoop(app, already_running=True)
    asyncio.set_event_loop(loop)
    from engine.api import Flashback
    from tests.ui.conftest import FakeKeys
    from ui.main_window import MainWindow

    window = MainWindow(Flashback(Path(data_dir), origin="window"), FakeKeys())
    window.resize(1280, 800)
    window.show()
    pool = QThreadPool.globalInstance()
    # Start-up done: the stats are shown and no worker is left (the warm-ups run in workers).
    assert wait_until(app, lambda: window.stats is not None and window.stats.topics > 0, 120)
    assert wait_until(app, lambda: pool.activeThreadCount() == 0, 120)
    settings = window.search_panel.settings_panel
    settings.set_value("preset", "custom")
    settings.set_value("base_url", base_url)
    settings.set_value("model", "test/ask")
    assert wait_until(app, lambda: pool.activeThreadCount() == 0, 120)
    panel, view = window.search_panel, window.search_panel.ask_view
    ticks: list[tuple[float, float]] = []
    heartbeat = QTimer()
    heartbeat.setInterval(5)
    heartbeat.timeout.connect(lambda: ticks.append((time.perf_counter(), time.thread_time())))
    heartbeat.start()
    assert wait_until(app, lambda: len(ticks) >= 3, 30)
    panel.query.setText(QUESTION)
    profile = None
    if os.environ.get("PROBE_PROFILE"):  # a developer's look at what the GUI thread did
        import cProfile

        profile = cProfile.Profile()
        before = set(sys.modules)
        profile.enable()
    asked = panel.ask()
    answered = wait_until(app, lambda: not panel.asking.running() and view.outcome is not None
                          and not view.running, 120)
    if profile is not None:
        profile.disable()
        profile.dump_stats(os.environ["PROBE_PROFILE"])
        Path(os.environ["PROBE_PROFILE"] + ".modules").write_text("\n".join(sorted(set(sys.modules) - before)))
    heartbeat.stop()
    pairs = list(zip(ticks, ticks[1:], strict=False))
    print(json.dumps({  # noqa: T201 - the probe's one line of output, read by the test
        "max_cpu_ms": round(max(b[1] - a[1] for a, b in pairs) * 1000, 1),
        "max_gap_ms": round(max(b[0] - a[0] for a, b in pairs) * 1000, 1),
        "ticks": len(ticks), "asked": asked, "answered": answered,
        "fallback": view.outcome.fallback if view.outcome is not None else "none"}))
    sys.stdout.flush()
    os._exit(0)  # the window's workers and the loop need no orderly goodbye in a probe


if __name__ == "__main__":
    main(*sys.argv[1:4])
