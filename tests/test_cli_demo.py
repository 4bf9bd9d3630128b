"""Issue 23: `flashback --demo` opens in a data folder of its own, never the person's store.

A real `flashback --demo` process (the window, offscreen) with $FLASHBACK_DATA_DIR pointing at
"the person's store" (one chat of their own): the demo's seven fictional chats are imported
and built beside it, in `<data>-demo`, and not one byte of the person's folder changes.
`--demo --data-dir DIR` still puts the demo in DIR, as asked."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

from tests.cli_run import ROOT, flashback

DEMO_CHATS = 7


def folder_state(folder: Path) -> dict[str, tuple[int, str]]:
    """Every file under `folder`: its mode and the hash of its bytes."""
    return {str(path.relative_to(folder)): (path.stat().st_mode, hashlib.sha256(path.read_bytes()).hexdigest())
            for path in sorted(folder.rglob("*")) if path.is_file()}


def built_chats(folder: Path) -> int:
    """Chats of a store whose memory is built (topics made), or 0 while it is not yet."""
    path = folder / "flashback.sqlite3"
    if not path.exists():
        return 0
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=1)) as connection:
            chats, topics = connection.execute("SELECT (SELECT count(*) FROM chat), (SELECT count(*) FROM topic)") \
                .fetchone()
    except sqlite3.Error:  # being created or migrated by the window
        return 0
    return chats if topics else 0


def run_demo(*args: str, user_store: Path, until: Path) -> str:
    """`flashback --demo …` until the demo is built in `until` (or the person's store changed:
    the demo went there); its stderr."""
    before = folder_state(user_store) if user_store.exists() else {}
    environment = {**{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
                   "FLASHBACK_DATA_DIR": str(user_store), "QT_QPA_PLATFORM": "offscreen"}
    process = subprocess.Popen([sys.executable, "-m", "app", "--demo", *args], cwd=ROOT, env=environment,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while built_chats(until) < DEMO_CHATS and process.poll() is None and time.monotonic() < deadline:
            if user_store != until and user_store.exists() and folder_state(user_store) != before:
                break
            time.sleep(0.5)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)  # the window and its import-and-build child
        _out, err = process.communicate(timeout=60)
    assert built_chats(until) == DEMO_CHATS, err
    return err


def test_the_demo_opens_in_its_own_folder_and_leaves_the_persons_store_alone(tmp_path):
    user_store = tmp_path / "data"
    own = tmp_path / "WhatsApp Chat with Bob.txt"
    own.write_text("03/02/2024, 10:00 - Bob: The quarterly report is late\n", encoding="utf-8")
    assert flashback("import", str(own), data_dir=user_store).returncode == 0
    before = folder_state(user_store)
    said = run_demo(user_store=user_store, until=tmp_path / "data-demo")
    assert folder_state(user_store) == before
    assert f"The demo opens in its own data folder, {tmp_path / 'data-demo'}" in said


def test_the_demo_goes_where_data_dir_says(tmp_path):
    asked = tmp_path / "try-it-here"
    run_demo("--data-dir", str(asked), user_store=tmp_path / "data", until=asked)
    assert not (tmp_path / "data").exists() and not (tmp_path / "data-demo").exists()


def test_the_self_test_still_uses_a_temporary_folder(tmp_path):
    """`--self-test` (also with --demo) touches neither the person's store nor a demo folder."""
    for args in (("--self-test",), ("--demo", "--self-test")):
        result = flashback(*args, data_dir=tmp_path / "data")
        assert result.returncode == 0 and result.stdout.startswith("flashback self-test passed"), result.stderr
    assert list(tmp_path.iterdir()) == []
