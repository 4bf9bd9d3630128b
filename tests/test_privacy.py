"""The data folder holds a person's whole chat history: 0700, files 0600, whoever made it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engine.store.database import open_engine
from tests.cli_run import DEMO, flashback

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_import_and_build_leave_everything_private(tmp_path):
    data = tmp_path / "data"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    assert flashback("build", data_dir=data).returncode == 0
    assert mode(data) == 0o700
    files = [p for p in data.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"flashback.sqlite3", "topics.hnsw", "topics.hnsw.json", "builtin_idf.bin",
                                       "calibration.json"}
    assert {str(p.relative_to(data)): oct(mode(p)) for p in files if mode(p) != 0o600} == {}
    assert all(mode(p) == 0o700 for p in data.rglob("*") if p.is_dir())


def test_the_engine_makes_a_new_store_private_whatever_the_umask(tmp_path):
    previous = os.umask(0o022)
    try:
        open_engine(tmp_path / "new" / "data").dispose()
    finally:
        os.umask(previous)
    assert mode(tmp_path / "new" / "data") == 0o700
    assert mode(tmp_path / "new" / "data" / "flashback.sqlite3") == 0o600
    assert mode(tmp_path / "new") == 0o755  # a parent is not ours to narrow


def test_a_folder_open_to_others_is_narrowed_and_the_user_told_once(tmp_path):
    data = tmp_path / "data"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    (data / "index").mkdir()
    (data / "index" / "calibration.json").write_text("{}")
    for path, wide in ((data, 0o755), (data / "index", 0o755), (data / "flashback.sqlite3", 0o644),
                       (data / "index" / "calibration.json", 0o644)):
        os.chmod(path, wide)
    first = flashback("stats", data_dir=data)
    assert first.returncode == 0
    assert first.stderr.count("\n") == 1 and "readable by you alone" in first.stderr and str(data) in first.stderr
    assert (mode(data), mode(data / "index"), mode(data / "flashback.sqlite3"),
            mode(data / "index" / "calibration.json")) == (0o700, 0o700, 0o600, 0o600)
    assert flashback("stats", data_dir=data).stderr == ""  # nothing wider any more: nothing to say


def test_a_shared_folder_keeps_its_mode_but_flashbacks_files_are_narrowed(tmp_path):
    data = tmp_path / "documents"
    data.mkdir()
    (data / "notes.txt").write_text("someone else's")
    os.chmod(data, 0o755)
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    assert mode(data) == 0o755 and mode(data / "notes.txt") == 0o644
    assert mode(data / "flashback.sqlite3") == 0o600


def test_an_export_the_user_names_is_private_too(tmp_path):
    """Issue 35 reversed issue 12's choice: an export is chat text, 0600 whatever the umask
    (tests/test_private_files.py: under umask 000)."""
    data = tmp_path / "data"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0
    target = tmp_path / "context.md"
    written = flashback("export", "hotel in Lisbon", "-o", str(target), data_dir=data, umask=0o022)
    assert written.returncode == 0, written.stderr
    assert mode(target) == 0o600 and mode(data) == 0o700


def test_a_file_another_process_removes_meanwhile_is_not_an_error(tmp_path):
    """The MCP soak: `flashback import` tightened the data folder while the server closed its
    connection, which removed `flashback.sqlite3-shm` between two looks at it: the CLI died with
    a FileNotFoundError traceback. A file that goes while the folder is narrowed is skipped."""
    import threading

    from app.privacy import tighten

    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    shm = data / "flashback.sqlite3-shm"
    stop = threading.Event()

    def come_and_go() -> None:
        while not stop.is_set():
            shm.touch(mode=0o644)
            shm.chmod(0o644)
            shm.unlink(missing_ok=True)

    churn = threading.Thread(target=come_and_go)
    churn.start()
    try:
        for _ in range(3000):
            tighten(data)  # never raises, whenever the file goes
    finally:
        stop.set()
        churn.join()
