"""The main window end to end: empty state, an import, a broken file, a cancelled import, and a
GUI thread that keeps ticking while a big import runs on a worker."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from engine.service import FlashbackService
from tests.ui.conftest import write_jsonl
from ui.main_window import MainWindow

BIG = 200_000


@pytest.fixture
def service(tmp_path) -> FlashbackService:
    return FlashbackService(tmp_path / "data")


@pytest.fixture
def window(qtbot, service) -> MainWindow:
    window = MainWindow(service)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.fixture
def dialogs(monkeypatch) -> dict[str, list[tuple]]:
    """Record the message boxes instead of showing them (they would block the test)."""
    calls: dict[str, list[tuple]] = {"warning": [], "critical": []}
    for kind in calls:
        monkeypatch.setattr(f"ui.main_window.QMessageBox.{kind}",
                            lambda *args, _kind=kind: calls[_kind].append(args))
    return calls


def _import(qtbot, window: MainWindow, path: Path, timeout: int = 10_000) -> None:
    assert window.start_import(path) is not None
    qtbot.waitUntil(lambda: window._task is None, timeout=timeout)


def test_empty_state_then_import(qtbot, window, service, tmp_path, screenshots_dir, dialogs):
    assert "No chats yet" in window._summary.text()
    window.grab().save(str(screenshots_dir / "main_window_empty.png"))

    _import(qtbot, window, write_jsonl(tmp_path / "small.jsonl", 30))

    assert "30 messages" in window._summary.text()
    assert service.stats().messages == 30
    assert service.stats().chats == 2
    assert dialogs == {"warning": [], "critical": []}
    window.grab().save(str(screenshots_dir / "main_window_loaded.png"))


@pytest.mark.parametrize("broken", ["truncated_json", "bad_jsonl_line"])
def test_broken_file_shows_warning_and_changes_nothing(qtbot, window, service, tmp_path, dialogs, broken):
    _import(qtbot, window, write_jsonl(tmp_path / "small.jsonl", 30))
    if broken == "truncated_json":
        path = tmp_path / "broken.json"
        path.write_text('{"messages": [', encoding="utf-8")
    else:
        path = write_jsonl(tmp_path / "broken.jsonl", 40)
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines[20] = '{"chat": "Chat 0", "id": "x", "author": \n'
        path.write_text("".join(lines), encoding="utf-8")
    before = service.stats()

    _import(qtbot, window, path)

    assert len(dialogs["warning"]) == 1, dialogs
    assert dialogs["critical"] == []
    _parent, title, text = dialogs["warning"][0]
    assert "Could not import" in text
    assert service.stats() == before
    assert "30 messages" in window._summary.text()


def test_cancelled_import_changes_nothing(qtbot, window, service, tmp_path, dialogs):
    big = write_jsonl(tmp_path / "big.jsonl", BIG)
    before = service.stats()

    shown: list[str] = []
    window.statusBar().messageChanged.connect(shown.append)
    task = window.start_import(big)
    assert task is not None
    window._task.cancel()
    qtbot.waitUntil(lambda: window._task is None, timeout=60_000)

    assert dialogs == {"warning": [], "critical": []}
    assert service.stats() == before
    assert "No chats yet" in window._summary.text()
    # "Import cancelled", not just "cancelled": tmp_path (shown as "Store: …") holds this test's name.
    message = window.statusBar().currentMessage()
    assert "import cancelled" in message.lower(), f"status bar shows {message!r}; messages shown: {shown}"


def test_gui_thread_keeps_ticking_during_a_big_import(qtbot, window, service, tmp_path, dialogs):
    big = write_jsonl(tmp_path / "big.jsonl", BIG)
    ticks: list[float] = []
    heartbeat = QTimer()
    heartbeat.setInterval(10)
    heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    heartbeat.start()
    try:
        qtbot.wait(50)
        _import(qtbot, window, big, timeout=180_000)
        qtbot.wait(50)
    finally:
        heartbeat.stop()

    assert dialogs == {"warning": [], "critical": []}
    assert service.stats().messages == BIG
    gaps = [later - earlier for earlier, later in zip(ticks, ticks[1:], strict=False)]
    assert len(ticks) > 10
    print(f"HEARTBEAT max gap {max(gaps) * 1000:.1f} ms over {len(ticks)} ticks")
    assert max(gaps) < 0.25, f"GUI thread stalled for {max(gaps) * 1000:.0f} ms ({len(ticks)} ticks)"
