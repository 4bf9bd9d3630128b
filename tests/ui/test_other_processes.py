"""Issue 12 in the window: a store changed by another process (an import in a terminal) is
noticed and shown; another writer is named in the status bar; an import started in the
window while another process writes waits for it, says for whom, and can be cancelled.

Every other process here is real: `python -m app import …`, or a child holding the store's
write lock as a build in a terminal would."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring

from app.gui import DEMO_EXPORT
from app.keys import KeyStore
from engine.api import CancelToken, Flashback, Step
from tests.cli_run import ROOT, flashback
from tests.ui.conftest import write_jsonl
from tests.ui.test_main_window import isolate_qsettings
from ui.main_window import MainWindow
from ui.shell.errors import is_cancel
from ui.shell.progress_panel import ProgressPanel


@pytest.fixture(autouse=True)
def _isolated(qapp, tmp_path):
    isolate_qsettings(tmp_path / "qsettings")
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    yield
    keyring.set_keyring(previous)


class OtherWriter:
    """Another process holding the store's write lock as `flashback build` in a terminal does."""

    def __init__(self, data_dir: Path) -> None:
        code = textwrap.dedent(f"""
            import sys
            from engine.store.lock import StoreWriteLock
            with StoreWriteLock({str(data_dir)!r}, "build", origin="command"):
                print("held", flush=True)
                sys.stdin.readline()
        """)
        self.process = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "held"

    def release(self) -> None:
        if self.process.poll() is None:
            self.process.communicate("done\n", timeout=30)


@pytest.fixture
def other_writer(tmp_path):
    writers: list[OtherWriter] = []

    def start(data_dir: Path) -> OtherWriter:
        writers.append(OtherWriter(data_dir))
        return writers[-1]

    yield start
    for writer in writers:
        writer.release()


@pytest.fixture
def window(qtbot, tmp_path) -> MainWindow:
    service = Flashback(tmp_path / "data")
    service.imports.import_path(DEMO_EXPORT)
    service.memory.build()
    window = MainWindow(service, KeyStore(), demo_export=DEMO_EXPORT)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.stats is not None)
    return window


def test_an_import_by_another_process_refreshes_the_window(qtbot, window, tmp_path):
    before = window.stats.messages
    qtbot.waitUntil(lambda: window.watcher._token is not None, timeout=30_000)  # its first look took the store
    result = flashback("import", str(write_jsonl(tmp_path / "chat.jsonl", 30)), data_dir=tmp_path / "data")
    assert result.returncode == 0, result.stderr
    qtbot.waitUntil(lambda: window.stats.messages == before + 30, timeout=15_000)
    assert "another Flashback process" in window.statusBar().currentMessage()


def test_another_writer_is_named_in_the_status_bar(qtbot, window, tmp_path, other_writer):
    writer = other_writer(tmp_path / "data")
    qtbot.waitUntil(lambda: "is writing the store" in window.statusBar().currentMessage(), timeout=15_000)
    assert "`flashback build` in another terminal" in window.statusBar().currentMessage()
    writer.release()
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "", timeout=15_000)


def test_an_import_in_the_window_waits_for_another_writer_says_for_whom_and_can_be_cancelled(
        qapp, tmp_path, other_writer):
    service = Flashback(tmp_path / "data")
    other_writer(tmp_path / "data")
    cancel, steps = CancelToken(), []

    def progress(step) -> None:
        steps.append(step)
        cancel.cancel()  # the person gives up waiting

    try:
        service.imports.pipeline([write_jsonl(tmp_path / "chat.jsonl", 20)], True, progress, cancel,
                                 lambda phase: None)
    except Exception as error:  # the test is about which one
        assert is_cancel(error), error
    else:
        raise AssertionError("the import did not wait for the other writer")
    assert steps and steps[0].phase == "wait"
    words = ProgressPanel().describe(steps[0])
    assert words.startswith("Waiting for `flashback build` in another terminal (pid ") and words.endswith("to finish…")
    assert service.store.stats().messages == 0  # nothing was written while it waited


def test_an_import_in_the_window_goes_on_once_the_other_writer_is_done(qapp, tmp_path, other_writer):
    service = Flashback(tmp_path / "data")
    writer = other_writer(tmp_path / "data")
    steps = []

    def progress(step) -> None:
        steps.append(step)
        if step.phase == "wait":
            writer.release()

    summary, _changes = service.imports.pipeline([write_jsonl(tmp_path / "chat.jsonl", 20)], False, progress,
                                                 CancelToken(), lambda phase: None)
    assert summary.messages == 20
    assert steps[0].phase == "wait" and any(step.phase == "import" for step in steps)


def test_a_label_clicked_while_another_process_writes_is_refused_and_shown_as_stored(qtbot, window, tmp_path,
                                                                                    other_writer):
    panel = window.search_panel
    panel.query.setText("hotel in Lisbon")
    panel.search()
    qtbot.waitUntil(lambda: panel.outcome() is not None and not panel.is_busy(), timeout=15_000)
    topic = next(c.id for c in panel.outcome().stage1.candidates if c.kind == "topic")
    other_writer(tmp_path / "data")
    panel.label_topic(topic, True)
    assert panel.labels() == {topic: True}  # shown at once, while the write is tried
    qtbot.waitUntil(lambda: "has to wait" in panel.status.text(), timeout=15_000)
    assert "`flashback build` in another terminal" in panel.status.text()
    qtbot.waitUntil(lambda: panel.labels() == {}, timeout=15_000)  # back to what the store holds


def test_who_writes_is_said_in_the_window_language(qapp):
    import os
    import time

    from engine.api import LockHolder
    from ui import i18n
    from ui.shell.writer_words import writer_words

    holder = LockHolder(os.getpid() + 1, "import", "window", time.time())
    assert writer_words(holder).startswith("the import in another Flashback window (pid ")
    translators = i18n.install(qapp, "ru")
    try:
        assert translators
        words = writer_words(holder)
        assert words.startswith("импорт в другом окне Flashback (pid "), words
        step_words = ProgressPanel().describe(Step("wait", holder.describe(), 0, 0, holder=holder))
        assert step_words.startswith("Ожидание, пока не закончится импорт в другом окне Flashback"), step_words
    finally:
        i18n.uninstall(qapp, translators)


def test_runs_and_labels_written_elsewhere_reach_the_views_that_show_them(qtbot, window, tmp_path):
    """The watcher says what changed (engine.api.Changes): a run recorded elsewhere refreshes the
    run history, a label set elsewhere the shown query's labels; neither is an import or build,
    so the status bar does not say the store was changed."""
    from engine.api import QueryFilters, SearchRequest, make_reranker

    panel = window.search_panel
    panel.query.setText("hotel in Lisbon")
    panel.search()
    qtbot.waitUntil(lambda: panel.outcome() is not None and not panel.is_busy(), timeout=15_000)
    qtbot.waitUntil(lambda: window.history.runs.topLevelItemCount() >= 1, timeout=15_000)
    runs = window.history.runs.topLevelItemCount()
    window.statusBar().clearMessage()

    elsewhere = Flashback(tmp_path / "data", origin="command")
    elsewhere.search.search_sync(SearchRequest("Postgres upgrade", reranker=make_reranker("threshold"), record=True))
    qtbot.waitUntil(lambda: window.history.runs.topLevelItemCount() == runs + 1, timeout=15_000)
    topic = next(c.id for c in panel.outcome().stage1.candidates if c.kind == "topic")
    elsewhere.labels.label_topic("hotel in Lisbon", QueryFilters(), topic, True)
    qtbot.waitUntil(lambda: panel.labels() == {topic: True}, timeout=15_000)
    assert "another Flashback process" not in window.statusBar().currentMessage()
