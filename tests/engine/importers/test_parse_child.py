"""The parse child (engine.importers.parse_child): same store as in-process, errors, cancel, cleanup."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys

import pytest

from engine import child_process
from engine.errors import CancelToken, ImportCancelled, ImportFormatError
from engine.importers import parse_child
from engine.importers.runner import import_path
from engine.store.database import db_path
from tests.engine.importers.telegram_fixtures import PLACEHOLDER, account_export, chat, message, write


@pytest.fixture
def children(monkeypatch):
    """Every file goes through a child; yields the ParseWorkers that were started."""
    started: list[parse_child.ParseWorker] = []
    original = parse_child.start

    def recording_start(export, format_name):
        child = original(export, format_name)
        started.append(child)
        return child

    monkeypatch.setattr(parse_child, "WORKER_MIN_BYTES", 0)
    monkeypatch.setattr(parse_child, "start", recording_start)
    return started


def in_process(monkeypatch):
    monkeypatch.setattr(parse_child, "WORKER_MIN_BYTES", 1 << 60)


def rich_export(path, count: int = 300, extra_chat: bool = True, text_size: int = 1):
    msgs = []
    for i in range(1, count + 1):
        sender = ("Me", "user1") if i % 7 == 0 else ("Anna", "user2") if i % 2 else ("Борис", "user3")
        extra = {}
        if i % 10 == 0:
            extra["photo"] = "photos/p.jpg" if i % 20 else PLACEHOLDER
        if i % 13 == 0:
            extra["reply_to_message_id"] = i - 1
        text = f"сообщение {i} ёлка " * text_size if i % 3 else ["see ", {"type": "bold", "text": f"bold {i}"}]
        msgs.append(message(i, text, sender=sender[0], sender_id=sender[1], **extra))
    msgs.append({"id": count + 1, "type": "service", "date": "2023-11-14T22:13:20", "date_unixtime": "1700000002",
                 "actor": "Anna", "actor_id": "user2", "action": "pin_message", "message_id": 1, "text": "",
                 "text_entities": []})
    msgs.append(message(count + 2, "", file=PLACEHOLDER, media_type="voice_message"))
    chats = [chat("Семья", 42, msgs)]
    if extra_chat:
        chats.append(chat("Peer", 77, [message(1, "hi", sender="Peer", sender_id="user77")], "personal_chat"))
    left = [chat("Old", 11, [message(1, "bye", sender="Gone", sender_id="user9")])]
    return write(path, account_export(chats, left=left))


def dump(data_dir) -> dict:
    conn = sqlite3.connect(db_path(data_dir))
    tables = {
        "chat": "SELECT * FROM chat ORDER BY id",
        "person": "SELECT * FROM person ORDER BY id",
        "message": "SELECT * FROM message ORDER BY id",
        "artifact": "SELECT * FROM artifact ORDER BY id",
        "source": "SELECT id, path, display_name, format, sha256, size_bytes, chats, messages_seen, "
                  "messages_added, artifacts_added FROM source ORDER BY id",
        "fts": "SELECT rowid FROM message_fts WHERE message_fts MATCH 'елка OR bold OR hi' ORDER BY rowid",
        "indexes": "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name",
    }
    return {name: conn.execute(sql).fetchall() for name, sql in tables.items()}


def snapshot(data_dir) -> str:
    conn = sqlite3.connect(db_path(data_dir))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return hashlib.sha256(db_path(data_dir).read_bytes()).hexdigest()


def test_small_files_stay_in_process(tmp_path, monkeypatch):
    def no_child(*_args):
        raise AssertionError("a small file started a child process")

    monkeypatch.setattr(parse_child, "ParseWorker", no_child)
    assert parse_child.WORKER_MIN_BYTES >= 1024 * 1024
    report = import_path(tmp_path / "store", rich_export(tmp_path / "r.json"))
    assert report.messages_added == 304


def test_child_builds_the_same_store_as_in_process(tmp_path, monkeypatch, children):
    export = rich_export(tmp_path / "r.json")
    newer = rich_export(tmp_path / "newer.json", count=320)
    for path in (export, newer):
        import_path(tmp_path / "child", path)
    assert len(children) == 2 and all(child.frames >= 2 for child in children)
    assert all(child.process.poll() is not None for child in children)
    in_process(monkeypatch)
    for path in (export, newer):
        import_path(tmp_path / "here", path)
    assert dump(tmp_path / "child") == dump(tmp_path / "here")


def test_child_continues_ids_across_the_files_of_a_folder(tmp_path, monkeypatch, children):
    folder = tmp_path / "exports"
    folder.mkdir()
    rich_export(folder / "a.json", count=50)
    rich_export(folder / "b.json", count=80, extra_chat=False)
    whatsapp = folder / "WhatsApp Chat with Anna.txt"
    whatsapp.write_text("01/02/2024, 10:00 - Anna: hi\n01/02/2024, 10:00 - Anna: hi\n01/02/2024, 10:01 - Bob: yo\n")
    first = import_path(tmp_path / "child", folder)
    assert len(children) == 3
    in_process(monkeypatch)
    second = import_path(tmp_path / "here", folder)
    assert [s.__dict__ for s in first.sources] == [s.__dict__ for s in second.sources]
    assert dump(tmp_path / "child") == dump(tmp_path / "here")


def _cut_off(tmp_path):
    good = rich_export(tmp_path / "big.json", count=25_000).read_text(encoding="utf-8")
    broken = tmp_path / "broken.json"
    broken.write_text(good[: int(len(good) * 0.9)], encoding="utf-8")  # several batches go in first
    return broken, "cut off"


def _not_an_object(tmp_path):
    path = write(tmp_path / "broken.json", account_export([chat("A", 1, [message(1), message(2)]), chat("B", 2, [7])]))
    return path, "not a JSON object"


def _not_utf8(tmp_path):
    data = rich_export(tmp_path / "big.json", count=12_000).read_bytes()
    at = data.index("сообщение 11000 ".encode())
    path = tmp_path / "broken.json"
    path.write_bytes(data[:at] + b"\xff" + data[at + 1:])
    return path, "not valid UTF-8"


@pytest.mark.parametrize("make", [_cut_off, _not_an_object, _not_utf8])
def test_error_in_the_child_reads_as_in_process_and_keeps_nothing(tmp_path, monkeypatch, children, make):
    data = tmp_path / "store"
    import_path(data, rich_export(tmp_path / "first.json", count=20))
    before = snapshot(data)
    broken, words = make(tmp_path)
    with pytest.raises(ImportFormatError) as from_child:
        import_path(data, broken)
    assert children[-1].frames >= 1 and children[-1].process.poll() is not None
    assert snapshot(data) == before
    in_process(monkeypatch)
    with pytest.raises(ImportFormatError) as from_here:
        import_path(data, broken)
    assert str(from_child.value) == str(from_here.value)
    assert (from_child.value.source, from_child.value.where) == ("broken.json", from_here.value.where)
    assert words in str(from_child.value) and from_child.value.where


def test_cancel_stops_the_child_and_keeps_nothing(tmp_path, children):
    data = tmp_path / "store"
    import_path(data, rich_export(tmp_path / "first.json", count=20))
    before = snapshot(data)
    token = CancelToken()
    seen = []

    def on_progress(progress):
        seen.append(progress)
        token.cancel()

    with pytest.raises(ImportCancelled):
        import_path(data, rich_export(tmp_path / "big.json", count=40_000), on_progress=on_progress, cancel=token)
    child = children[-1]
    assert seen and child.process.poll() is not None  # gone, and reaped
    assert snapshot(data) == before


def test_cancel_while_waiting_for_the_child(tmp_path, monkeypatch, children):
    """The writer waits for a batch: cancel must not wait for the child to finish parsing."""
    token = CancelToken()
    monkeypatch.setattr(parse_child, "CHILD", ("tests.engine.children", "sleep"))
    original_run = parse_child.ParseWorker.run

    def run_then_cancel(self, setup, check):
        token.cancel()
        return original_run(self, setup, check)

    monkeypatch.setattr(parse_child.ParseWorker, "run", run_then_cancel)
    with pytest.raises(ImportCancelled):
        import_path(tmp_path / "store", rich_export(tmp_path / "r.json"), cancel=token)
    assert children[-1].process.poll() is not None


def test_a_child_that_dies_midway_is_an_import_error(tmp_path, children):
    data = tmp_path / "store"
    import_path(data, rich_export(tmp_path / "first.json", count=20))
    before = snapshot(data)

    def kill_child(_progress):
        children[-1].process.kill()

    with pytest.raises(ImportFormatError, match="stopped unexpectedly"):
        import_path(data, rich_export(tmp_path / "big.json", count=40_000, text_size=6), on_progress=kill_child)
    assert snapshot(data) == before


def test_a_child_that_cannot_run_falls_back_to_in_process(tmp_path, monkeypatch, children):
    monkeypatch.setattr(parse_child, "CHILD", ("tests.engine.children", "exit_at_once"))
    assert import_path(tmp_path / "a", rich_export(tmp_path / "r.json")).messages_added == 304
    assert children[-1].frames == 0

    def no_python(*_args, **_kwargs):
        raise OSError("no interpreter here")

    monkeypatch.setattr(child_process.subprocess, "Popen", no_python)
    assert import_path(tmp_path / "b", rich_export(tmp_path / "r.json")).messages_added == 304


def test_the_child_loads_neither_qt_nor_the_orm():
    code = ("import sys; from engine.importers.registry import importer_classes; import engine.importers.parse_child; "
            "importer_classes(); print(sorted(m for m in sys.modules if m.startswith('engine.store') or "
            "m.split('.')[0] in {'PySide6', 'sqlalchemy', 'sqlmodel', 'ui', 'app'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
