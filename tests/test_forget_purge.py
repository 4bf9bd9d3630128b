"""Issue 35, bullet 1: a forget is complete once it says so, whatever happens after.

`forget` is killed (SIGKILL) just before one SQL statement after another: each statement SQLite
runs, the full-text index's own included, is seen through the connection's trace callback
(fault injection from outside the code under test: a wrapper process that kills itself when the
Nth statement starts). Then the next command opens the store, and every file of the data folder
is read, as bytes, lower-cased, for the forgotten chat's distinctive words. The chat is either
wholly there (killed before its commit) or none of its words are anywhere.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from contextlib import closing
from pathlib import Path

import pytest

from engine.store.database import db_path
from tests.cli_run import ROOT, flashback
from tests.test_cli_forget import ALICE, BOB

WORDS = (b"zanzibar", b"snorkel", b"ferry")  # Alice's chat only (FTS5 prefix-compresses terms: these stay whole)

# Runs `flashback ARGS…`, logging every statement SQLite starts and killing itself at the Nth (0: never).
_KILLER = """
import os, signal, sqlite3, sys
log_path, kill_at = sys.argv[1], int(sys.argv[2])
sys.argv = ["flashback", *sys.argv[3:]]
count = 0
log = open(log_path, "w", encoding="utf-8")
def trace(statement):
    global count
    count += 1
    log.write(statement.replace("\\n", " ")[:200] + "\\n")
    log.flush()
    if count == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
real_connect = sqlite3.connect
def connect(*args, **kwargs):
    connection = real_connect(*args, **kwargs)
    connection.set_trace_callback(trace)
    return connection
sqlite3.connect = connect
from app.cli import main
raise SystemExit(main())
"""


def _run_killed(data: Path, kill_at: int, log: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environment["FLASHBACK_DATA_DIR"] = str(data)
    return subprocess.run([sys.executable, "-c", _KILLER, str(log), str(kill_at), *args], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=180, start_new_session=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """Two chats imported and built, shared by the module's tests (each works on a copy)."""
    folder = tmp_path_factory.mktemp("built")
    data = folder / "data"
    alice = folder / "WhatsApp Chat - Alice.zip"
    with zipfile.ZipFile(alice, "w") as bundle:
        bundle.writestr("_chat.txt", ALICE)
    bob = folder / "WhatsApp Chat with Bob.txt"
    bob.write_text(BOB, encoding="utf-8")
    assert flashback("import", str(alice), str(bob), data_dir=data).returncode == 0
    assert flashback("build", data_dir=data).returncode == 0
    assert _words_found(data)  # the words are there to be found before any forget
    return data


def _copy(built: Path, tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(built, tmp_path / name))


def _words_found(data: Path) -> dict[str, list[bytes]]:
    """file → the distinctive words in it, over every file of the data folder."""
    found = {}
    for path in sorted(data.rglob("*")):
        if path.is_file():
            content = path.read_bytes().lower()
            hits = [word for word in WORDS if word in content]
            if hits:
                found[str(path.relative_to(data))] = hits
    return found


def _alice_messages(data: Path) -> int:
    with closing(sqlite3.connect(db_path(data))) as connection:
        return connection.execute("SELECT count(*) FROM message m JOIN chat c ON c.id = m.chat_id "
                                  "WHERE c.title = 'Alice'").fetchone()[0]


def _statements(built: Path, tmp_path: Path) -> list[str]:
    """The statements a whole forget runs, in order (a dry run: logged, not killed)."""
    data = _copy(built, tmp_path, "dry")
    log = tmp_path / "dry.log"
    done = _run_killed(data, 0, log, "forget", "--chat", "Alice", "--yes")
    assert done.returncode == 0, done.stderr
    return log.read_text(encoding="utf-8").splitlines()


def _kill_points(statements: list[str]) -> list[int]:
    """1-based: a few statements inside the delete's transaction, its COMMIT, and every top-level
    statement after it plus every other one of the full-text index's own."""
    delete = next(n for n, text in enumerate(statements) if text.startswith("DELETE FROM message WHERE id IN"))
    commit = next(n for n in range(delete, len(statements)) if statements[n] == "COMMIT")
    points = [delete, commit]
    nested = 0
    for n in range(commit + 1, len(statements)):
        if statements[n].startswith("--"):
            nested += 1
            if nested % 2:
                continue
        points.append(n)
    return [n + 1 for n in points]


NEXT_COMMANDS = (("stats",), ("chats",), ("search", "quarterly report"))


def test_a_forget_killed_at_any_point_leaves_the_chat_whole_or_none_of_its_words(built, tmp_path):
    statements = _statements(built, tmp_path)
    points = _kill_points(statements)
    assert len(points) >= 15, statements  # the commit, the merges, the checkpoints, the vacuum
    after_commit = 0
    for number, kill_at in enumerate(points):
        data = _copy(built, tmp_path, f"kill-{kill_at}")
        killed = _run_killed(data, kill_at, tmp_path / f"kill-{kill_at}.log", "forget", "--chat", "Alice", "--yes")
        assert killed.returncode == -9, (kill_at, statements[kill_at - 1], killed.stderr)
        after = flashback(*NEXT_COMMANDS[number % len(NEXT_COMMANDS)], data_dir=data)
        assert after.returncode == 0, (kill_at, after.stderr)
        left = _alice_messages(data)
        if left:  # killed before the delete committed: all of it is still there
            assert left == 3 and _words_found(data), (kill_at, statements[kill_at - 1])
            continue
        after_commit += 1
        assert _words_found(data) == {}, (kill_at, statements[kill_at - 1])
    assert after_commit >= 12


def test_the_next_opener_killed_during_its_purge_leaves_it_to_the_one_after(built, tmp_path):
    statements = _statements(built, tmp_path)
    commit = _kill_points(statements)[1]
    data = _copy(built, tmp_path, "twice")
    assert _run_killed(data, commit + 1, tmp_path / "forget.log", "forget", "--chat", "Alice", "--yes").returncode == -9
    assert _words_found(data)  # what the purge is owed
    # `stats` opens the store and starts the purge: killed at its first merge of the full-text index.
    log = tmp_path / "stats.log"
    dry = _copy(data, tmp_path, "probe-data")
    assert _run_killed(dry, 0, log, "stats").returncode == 0
    opener = log.read_text(encoding="utf-8").splitlines()
    merge = next(n for n, text in enumerate(opener) if "'optimize'" in text) + 1
    assert _run_killed(data, merge + 1, tmp_path / "stats-killed.log", "stats").returncode == -9
    assert flashback("chats", data_dir=data).returncode == 0
    assert _words_found(data) == {}


def test_a_reader_delays_the_purge_with_a_true_sentence_and_the_next_opener_finishes_it(built, tmp_path):
    data = _copy(built, tmp_path, "reader")
    reader = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, sys\n"
         "connection = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
         "connection.execute('BEGIN')\n"
         "print(connection.execute('SELECT count(*) FROM message').fetchone()[0], flush=True)\n"
         "sys.stdin.readline()\n"
         "connection.execute('COMMIT')\n", str(db_path(data))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert int(reader.stdout.readline()) == 5  # holds a snapshot with Alice's messages in it
        done = flashback("forget", "--chat", "Alice", "--yes", data_dir=data)
        assert done.returncode == 0, done.stderr
        assert "another Flashback process is reading" in done.stdout, done.stdout
        assert "overwritten" not in done.stdout and "no room" not in done.stdout
        assert _words_found(data)  # the sentence is true: the reader's snapshot still holds them
    finally:
        reader.communicate("done\n", timeout=60)
    assert reader.returncode == 0
    assert flashback("stats", data_dir=data).returncode == 0  # the next opener, nobody asked it to
    assert _words_found(data) == {}


def test_check_reports_and_finishes_a_purge_still_owed(built, tmp_path):
    from engine.memory.check import CheckReport, check_owed_purge
    from engine.messages import render

    statements = _statements(built, tmp_path)
    commit = _kill_points(statements)[1]
    data = _copy(built, tmp_path, "check")
    assert _run_killed(data, commit + 1, tmp_path / "forget.log", "forget", "--chat", "Alice", "--yes").returncode == -9
    report = CheckReport()
    with closing(sqlite3.connect(db_path(data), isolation_level=None)) as connection:
        check_owed_purge(connection, report)  # the check's own step, before any open finished it
    assert [render(line, "en") for line in report.repaired] == [
        "purged the text of a forgotten chat from the store's files (its forget was interrupted)"]
    assert report.ok and _words_found(data) == {}
    report = CheckReport()
    with closing(sqlite3.connect(db_path(data), isolation_level=None)) as connection:
        check_owed_purge(connection, report)
    assert [render(line, "en") for line in report.checked] == ["no forgotten text left to purge"]


def test_sizes_are_said_as_measured(built, tmp_path):
    """The store's file and its log, before the forget and after its purge (a forget once said the
    store grew, 160.0 → 164.0 KB: a vacuum of a store losing a few rows may pack a page differently)."""
    data = _copy(built, tmp_path, "sizes")

    def store_bytes() -> int:
        return sum(path.stat().st_size for path in data.glob("flashback.sqlite3*") if not path.name.endswith("lock"))

    before = store_bytes()
    done = flashback("forget", "--chat", "Alice", "--yes", "--json", data_dir=data)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["forgot"]
    assert (report["bytes_before"], report["bytes_after"]) == (before, store_bytes())
    assert report["purged"] and report["compacted"]
    assert not (data / "flashback.sqlite3-wal").exists() or (data / "flashback.sqlite3-wal").stat().st_size == 0


@pytest.mark.parametrize(("before", "after", "said"), [
    (200 << 10, 150 << 10, "the store went from 200.0 KB to 150.0 KB."),
    (152 << 10, 156 << 10, "the store is 156.0 KB, no smaller, as so little was removed.")])
def test_a_store_that_did_not_shrink_is_not_said_to_have(before, after, said):
    from engine.memory.forget import ForgetReport
    from engine.messages import render

    report = ForgetReport("chat", "Alice", messages=3, done=True, purged=True, compacted=True,
                          bytes_before=before, bytes_after=after)
    assert render(report.done_message(), "en").endswith(said)
