"""The store's write lock (engine.store.lock) against a writer in another real process:
who holds it, busy without waiting, a cancellable wait, re-entrancy, nothing left behind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.errors import CancelToken, ImportCancelled
from engine.store.lock import StoreWriteLock, WriterBusy, current_holder, lock_path

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def other_process(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        from engine.store.lock import StoreWriteLock
        with StoreWriteLock({str(tmp_path)!r}, "import", origin="window"):
            print("held", flush=True)
            sys.stdin.readline()
    """)
    child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    assert child.stdout.readline().strip() == "held"
    yield child
    if child.poll() is None:
        child.communicate("done\n", timeout=30)


def test_the_holder_in_another_process_is_named(tmp_path, other_process):
    holder = current_holder(tmp_path)
    assert (holder.pid, holder.operation, holder.origin) == (other_process.pid, "import", "window")
    assert holder.describe().startswith(f"the import in another Flashback window (pid {other_process.pid}, since ")
    with pytest.raises(WriterBusy, match="being written by the import in another Flashback window"):
        with StoreWriteLock(tmp_path, "index repair", wait=False):
            pass


def test_a_waiting_writer_hears_who_it_waits_for_and_can_be_cancelled(tmp_path, other_process):
    heard, cancel = [], CancelToken()

    def on_wait(holder) -> None:
        heard.append(holder)
        cancel.cancel()

    with pytest.raises(ImportCancelled):
        with StoreWriteLock(tmp_path, "build", on_wait=on_wait, cancel=cancel.raise_if_cancelled):
            raise AssertionError("took a lock another process holds")
    assert heard and heard[0].pid == other_process.pid


def test_the_lock_is_free_and_its_note_gone_after_the_holder_lets_go(tmp_path, other_process):
    other_process.communicate("done\n", timeout=30)
    assert current_holder(tmp_path) is None
    assert lock_path(tmp_path).read_text() == ""
    with StoreWriteLock(tmp_path, "build") as lock:
        assert not lock.waited


def test_the_lock_is_re_entrant_in_one_thread(tmp_path):
    with StoreWriteLock(tmp_path, "build", origin="command"):
        with StoreWriteLock(tmp_path, "schema"):  # a build opening the store migrates it
            assert current_holder(tmp_path).operation == "build"
        assert current_holder(tmp_path).pid == os.getpid()
    assert current_holder(tmp_path) is None
