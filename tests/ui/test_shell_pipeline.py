"""The import/build pipeline below the window: the child process it runs in, the in-thread
fallback, and how its failures are worded."""

from __future__ import annotations

import subprocess
import sys

from PySide6.QtWidgets import QMessageBox, QWidget

from engine.api import CancelToken, Changes, EngineError, Flashback
from engine.api.pipeline import PipelineCrashed
from engine.errors import ImportCancelled
from engine.topics.errors import TopicBuildCancelled
from tests.ui.conftest import write_jsonl
from ui.shell.errors import is_cancel, plain_message, show_error
from ui.shell.import_controller import ImportController


def test_the_child_side_never_loads_qt():
    code = "import sys, engine.api.pipeline; print(sorted(m for m in sys.modules if m.startswith('PySide6')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "[]"


def test_the_child_imports_and_builds_and_reports_progress(tmp_path):
    service = Flashback(tmp_path / "data")
    assert service.imports.child_possible()
    steps, phases = [], []
    summary, changes = service.imports.pipeline([write_jsonl(tmp_path / "chat.jsonl", 60)], True, steps.append,
                                                CancelToken(), phases.append)
    assert changes == Changes(messages=True, chats=True, topics=True, vectors=True)
    assert summary.messages == 60 and summary.chats == 2 and summary.built and summary.topics > 0
    assert {step.phase for step in steps} == {"import", "build"} and phases[-1] == "build"
    assert service.store.stats().topics == summary.topics
    assert service.search.candidates("message worth remembering").candidates  # the parent sees the new index


def test_a_broken_file_in_the_child_is_an_engine_error_in_plain_words(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"messages": [', encoding="utf-8")
    service = Flashback(tmp_path / "data")
    try:
        service.imports.pipeline([broken], True, lambda step: None, CancelToken(), lambda phase: None)
    except EngineError as error:
        assert str(error).startswith("Could not import") and "Traceback" not in str(error)
    else:
        raise AssertionError("a broken file imported")


def test_a_cancel_before_the_start_comes_back_as_a_cancel(tmp_path):
    cancel = CancelToken()
    cancel.cancel()
    service = Flashback(tmp_path / "data")
    try:
        service.imports.pipeline([write_jsonl(tmp_path / "chat.jsonl", 50)], True, lambda step: None, cancel,
                     lambda phase: None)
    except Exception as error:  # the test is about which one
        assert is_cancel(error)
    else:
        raise AssertionError("the cancel was ignored")
    assert service.store.stats().messages == 0


def test_the_in_thread_fallback_runs_the_same_steps(qtbot, tmp_path):
    service = Flashback(tmp_path / "data")
    controller = ImportController(service)
    controller.use_child_process = False  # what a frozen app or a fake service gets
    with qtbot.waitSignal(controller.succeeded, timeout=30_000) as blocker:
        assert controller.import_paths([write_jsonl(tmp_path / "chat.jsonl", 40)])
    assert blocker.args[0].messages == 40 and blocker.args[0].built
    qtbot.waitUntil(lambda: not controller.busy)
    assert not controller.import_paths([])  # nothing to do is not a run


def test_cancels_are_recognised_and_bugs_are_worded_without_a_traceback(qtbot):
    assert is_cancel(ImportCancelled()) and is_cancel(TopicBuildCancelled())
    assert not is_cancel(EngineError("Could not import x"))
    parent = QWidget()
    qtbot.addWidget(parent)
    assert show_error(parent, "Import failed", TopicBuildCancelled()) is None
    box = show_error(parent, "Import failed", PipelineCrashed("KeyError: 'x'"))
    assert box.icon() == QMessageBox.Icon.Critical
    assert "internal error (PipelineCrashed)" in box.text() and "KeyError" not in box.text()
    assert plain_message(FileNotFoundError(2, "No such file", "/nowhere/x.json")).startswith("/nowhere/x.json")
