"""The one child-process harness (engine.child_process): messages both ways, errors that keep
their class across the boundary, cancel, and a child that is always stopped and reaped."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.child_process import ChildCrashed, ChildEnded, ChildProcess
from engine.errors import Cancelled, EngineError, ImportCancelled, ImportFormatError, StoreError
from engine.importers.registry import ParserBug
from engine.messages import Message

CHILDREN = "tests.engine.children"
ROOT = Path(__file__).resolve().parents[2]


def outcome(child: ChildProcess, limit_s: float = 30.0) -> tuple[list, object]:
    """(progress payloads, result) of a child; what it raised, raised here."""
    progress, deadline = [], time.monotonic() + limit_s
    while time.monotonic() < deadline:
        message = child.receive(0.1)
        if message is None:
            continue
        if message[0] == "progress":
            progress.append(message[1])
        else:
            assert message[0] == "result"
            return progress, message[1]
    raise AssertionError("the child did not answer")


def raised_in_child(module: str, name: str, *args, **attributes) -> BaseException:
    with ChildProcess(CHILDREN, "raise_this") as child:
        child.send(("raise", module, name, list(args), attributes))
        with pytest.raises(BaseException) as caught:
            outcome(child)
    assert child.process.poll() is not None  # closed means reaped
    return caught.value


def test_messages_go_both_ways_and_the_result_ends_the_child():
    with ChildProcess(CHILDREN, "echo") as child:
        for message in (("one", 1), ("two", [2.5, None, {"k": b"v"}])):
            assert child.send(message)
        child.end_input()
        progress, result = outcome(child)
    assert progress == [("one", 1), ("two", [2.5, None, {"k": b"v"}])] and result == 2


def test_an_import_error_in_the_child_arrives_as_one():
    error = raised_in_child("engine.errors", "ImportFormatError", "chat.json", "the file is cut off", "line 7")
    assert type(error) is ImportFormatError
    assert (error.source, error.problem, error.where) == ("chat.json", "the file is cut off", "line 7")
    assert str(error) == str(ImportFormatError("chat.json", "the file is cut off", "line 7"))
    assert isinstance(error.message, Message) and error.message.code == "import.cannot_read_at"
    assert error.render("ru") == ImportFormatError("chat.json", "the file is cut off", "line 7").render("ru")
    assert not getattr(error, "__notes__", None)  # an engine error is plain words: no traceback with it


def test_a_store_error_and_a_cancel_keep_their_class():
    store = raised_in_child("engine.errors", "StoreError", "the store is from a newer Flashback")
    assert type(store) is StoreError and str(store) == "the store is from a newer Flashback"
    cancel = raised_in_child("engine.errors", "ImportCancelled")
    assert type(cancel) is ImportCancelled and isinstance(cancel, Cancelled)
    assert str(cancel) == str(ImportCancelled())


def test_a_parser_bug_keeps_its_class_its_fields_and_the_childs_traceback():
    bug = raised_in_child("engine.importers.registry", "ParserBug", "big.json", "telegram", "KeyError: 'from'",
                          "message 12")
    assert type(bug) is ParserBug and not isinstance(bug, EngineError)
    assert (bug.source, bug.format_name, bug.detail, bug.where) == ("big.json", "telegram", "KeyError: 'from'",
                                                                     "message 12")
    assert any("Traceback" in note and "raise_this" in note for note in bug.__notes__)


def test_built_in_errors_keep_their_class_and_fields():
    missing = raised_in_child("builtins", "FileNotFoundError", 2, "No such file or directory", "/nowhere/x.json")
    assert type(missing) is FileNotFoundError and missing.filename == "/nowhere/x.json" and missing.errno == 2
    key = raised_in_child("builtins", "KeyError", "from_id")
    assert type(key) is KeyError and key.args == ("from_id",)


def test_classes_from_elsewhere_are_never_imported_by_name():
    engine_like = raised_in_child(CHILDREN, "NotTheEnginesError", "it broke")
    assert type(engine_like) is ChildCrashed and str(engine_like) == "NotTheEnginesError: it broke"
    # issue 22: an engine error of such a class keeps its message's code, so it is still said in Russian
    engine_error = raised_in_child(CHILDREN, "AnEngineErrorFromElsewhere")
    assert type(engine_error) is EngineError and engine_error.message.code == "build.cancelled"
    assert engine_error.render("ru").startswith("Построение отменено")


def test_a_cancel_reaches_the_child_and_its_cancel_comes_back():
    with ChildProcess(CHILDREN, "until_cancelled") as child:
        assert child.receive(30) == ("progress", "working")
        child.cancel(kill_after=30)
        with pytest.raises(ImportCancelled):
            outcome(child)


def test_a_child_that_ignores_the_cancel_is_killed():
    started = time.monotonic()
    with ChildProcess(CHILDREN, "ignores_cancel") as child:
        assert child.receive(30) == ("progress", "still working")
        child.cancel(kill_after=0.5)
        with pytest.raises(ChildEnded) as ended:
            outcome(child)
    assert ended.value.frames >= 1 and ended.value.returncode != 0
    assert time.monotonic() - started < 20


def test_close_kills_a_stuck_child_and_reaps_it():
    child = ChildProcess(CHILDREN, "sleep")
    assert child.receive(0.2) is None
    child.close()
    assert child.process.poll() is not None
    child.close()  # twice is fine


def test_a_child_that_cannot_run_ends_without_a_frame():
    with ChildProcess(CHILDREN, "exit_at_once") as child, pytest.raises(ChildEnded) as ended:
        outcome(child)
    assert ended.value.frames == 0 and ended.value.returncode == 3
    with ChildProcess(CHILDREN, "no_such_function") as child, pytest.raises(ChildEnded) as ended:
        outcome(child)
    assert ended.value.frames == 0


def test_prints_in_the_child_never_reach_the_frames():
    with ChildProcess(CHILDREN, "noisy") as child:
        assert outcome(child) == ([], "clean")


def test_an_error_carrying_a_report_brings_the_report():
    from engine.topics.builder import TopicBuildReport
    from engine.topics.errors import TopicBuildCancelled

    with ChildProcess(CHILDREN, "topic_build_cancelled") as child, pytest.raises(TopicBuildCancelled) as caught:
        outcome(child)
    report = caught.value.report
    assert type(report) is TopicBuildReport
    assert (report.topics_created, report.created_ids, dict(report.fallbacks)) == (3, [4, 5, 6], {"timeout": 2})
    assert str(caught.value) == str(TopicBuildCancelled())


def test_a_child_without_stderr_still_runs():
    """A windowless parent (pythonw on Windows) gives its children no stderr: the child's
    prints go nowhere, and the frames still flow."""
    code = ("import os, sys; os.close(2); sys.stderr = None\n"
            "from engine.child_process import ChildProcess\n"
            "from tests.engine.test_child_process import outcome\n"
            "with ChildProcess('tests.engine.children', 'noisy') as child:\n"
            "    print(outcome(child))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "([], 'clean')", done.stdout + done.stderr
