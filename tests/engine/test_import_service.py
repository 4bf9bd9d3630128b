"""The import service end to end on a real SQLite file: idempotence, atomicity, errors."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zipfile

import pytest

from engine.errors import CancelToken, ImportCancelled, ImportFormatError, UnknownFormatError
from engine.importers.runner import import_path
from engine.store.database import db_path
from engine.store.stats import store_stats
from tests.engine.importers.telegram_fixtures import PLACEHOLDER, account_export, chat, message, write


def snapshot(data_dir) -> str:
    """The database file's bytes after a checkpoint: what "unchanged" means."""
    conn = sqlite3.connect(db_path(data_dir))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return hashlib.sha256(db_path(data_dir).read_bytes()).hexdigest()


def telegram_export(tmp_path, count: int, name: str = "result.json"):
    msgs = [message(i, f"сообщение {i} ёлка", photo="photos/p.jpg" if i % 10 == 0 else None)
            for i in range(1, count + 1)]
    for raw in msgs:
        if raw["photo"] is None:
            del raw["photo"]
    msgs.append(message(100_000, "", file=PLACEHOLDER, media_type="voice_message"))
    return write(tmp_path / name, account_export([chat("Семья", 42, msgs)]))


def test_every_shared_sample_imports(exports_dir, tmp_path):
    data = tmp_path / "store"
    for folder in ("telegram", "chatgpt", "whatsapp"):
        for sample in sorted((exports_dir / folder).iterdir()):
            report = import_path(data, sample)
            assert report.sources[0].format == folder
    stats = store_stats(data)
    # the five chat-miner WhatsApp files are one chat in five layouts: they dedup to 9 messages;
    # the two chat-miner Telegram files are one chat (no ids) exported alone and in an account:
    # recognised by its messages, it is one chat of 2 messages (issue 23)
    assert (stats.sources, stats.chats, stats.messages) == (10, 7, 28)


def test_reimport_adds_nothing_and_newer_export_adds_only_new(tmp_path):
    data = tmp_path / "store"
    first = import_path(data, telegram_export(tmp_path, 100))
    assert first.sources[0].messages_added == 101 and first.sources[0].artifacts_added == 11
    again = import_path(data, telegram_export(tmp_path, 100))
    assert again.sources[0].status == "unchanged"
    newer = import_path(data, telegram_export(tmp_path, 130, "newer.json"))
    source = newer.sources[0]
    assert (source.messages_seen, source.messages_added, source.artifacts_added) == (131, 30, 3)
    assert store_stats(data).messages == 131
    conn = sqlite3.connect(db_path(data))
    assert conn.execute("SELECT message_count FROM chat WHERE key = 'telegram:42'").fetchone() == (131,)
    assert conn.execute("SELECT count(*) FROM source").fetchone() == (2,)


def test_whatsapp_reimport_of_changed_file_dedups_by_content(tmp_path):
    lines = [f"01/02/2024, 10:{i:02d} - Anna: message {i}" for i in range(20)] + ["01/02/2024, 10:30 - Anna: ok"] * 2
    path = tmp_path / "WhatsApp Chat with Anna.txt"
    path.write_text("\n".join(lines) + "\n")
    data = tmp_path / "store"
    assert import_path(data, path).messages_added == 22  # the two identical "ok" are two messages
    path.write_text("\n".join(lines + ["01/02/2024, 11:00 - Anna: new one"]) + "\n")
    assert import_path(data, path).messages_added == 1


def test_fts_finds_cyrillic_with_yo_folded_and_case_folded(tmp_path):
    data = tmp_path / "store"
    import_path(data, telegram_export(tmp_path, 5))
    conn = sqlite3.connect(db_path(data))
    for query in ("елка", "ЁЛКА", "сообщ*"):
        folded = query.replace("ё", "е").replace("Ё", "Е")
        hits = conn.execute("SELECT count(*) FROM message_fts WHERE message_fts MATCH ?", (folded,)).fetchone()[0]
        assert hits == 5, query


def test_broken_export_leaves_store_byte_for_byte_unchanged(tmp_path):
    data = tmp_path / "store"
    import_path(data, telegram_export(tmp_path, 50))
    before = snapshot(data)
    good = telegram_export(tmp_path, 20_000, "big.json").read_text()
    broken = tmp_path / "broken.json"
    broken.write_text(good[: int(len(good) * 0.9)])  # several batches are written before the error
    with pytest.raises(ImportFormatError) as info:
        import_path(data, broken)
    assert "broken.json" in str(info.value) and "message" in str(info.value)
    assert snapshot(data) == before


def test_a_broken_file_inside_a_folder_keeps_nothing_of_the_folder(tmp_path):
    data = tmp_path / "store"
    folder = tmp_path / "exports"
    folder.mkdir()
    telegram_export(folder, 30, "a.json")
    good_line = '{"chat": "x", "id": "1", "author": "a", "date": "2024-01-01", "text": "t"}'
    (folder / "b.jsonl").write_text(good_line + "\n{oops\n")
    with pytest.raises(ImportFormatError, match="line 2"):
        import_path(data, folder)
    assert store_stats(data).messages == 0


def test_unknown_format_is_clear(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Just some notes I wrote.\nNothing to see.\n")
    with pytest.raises(UnknownFormatError, match="not a chat export"):
        import_path(tmp_path / "store", path)
    with pytest.raises(ImportFormatError, match="does not exist"):
        import_path(tmp_path / "store", tmp_path / "missing.json")


def test_damaged_zip_is_clear(tmp_path):
    path = tmp_path / "export.zip"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 50)
    with pytest.raises(ImportFormatError):
        import_path(tmp_path / "store", path)


def test_zip_with_chatgpt_and_media_is_detected_by_content(exports_dir, tmp_path):
    archive = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.write(exports_dir / "chatgpt" / "librechat_chatgpt-tree.json", "conversations.json")
        bundle.writestr("chat.html", "<html></html>")
        bundle.writestr("notes.txt", "not a chat")
    report = import_path(tmp_path / "store", archive)
    assert [s.format for s in report.sources] == ["chatgpt"]
    assert any("notes.txt" in name for name in report.skipped)


def test_forced_format_that_does_not_fit_is_an_error_not_a_crash(exports_dir, tmp_path):
    with pytest.raises(ImportFormatError):
        import_path(tmp_path / "store", exports_dir / "whatsapp" / "whatsapp-chat-parser_short-chat.txt", "telegram")


def test_cancel_rolls_back(tmp_path):
    data = tmp_path / "store"
    path = telegram_export(tmp_path, 30_000)
    token = CancelToken()
    seen = []

    def on_progress(progress):
        seen.append(progress)
        token.cancel()

    with pytest.raises(ImportCancelled):
        import_path(data, path, on_progress=on_progress, cancel=token)
    assert seen and store_stats(data).messages == 0


def test_progress_reaches_the_end(tmp_path):
    seen = []
    import_path(tmp_path / "store", telegram_export(tmp_path, 3000), on_progress=seen.append)
    assert seen[-1].bytes_done == seen[-1].bytes_total and seen[-1].messages == 3001


def test_people_and_self(tmp_path):
    msgs = [message(1, "a", sender="Me", sender_id="user1"), message(2, "b"), message(3, "c")]
    data = tmp_path / "store"
    import_path(data, write(tmp_path / "r.json", account_export([chat("G", 1, msgs)], self_id=1)))
    conn = sqlite3.connect(db_path(data))
    rows = conn.execute("SELECT display_name, message_count, is_self FROM person ORDER BY display_name").fetchall()
    assert rows == [("Anna", 2, 0), ("Me", 1, 1)]


def test_jsonl_round_trip(tmp_path):
    rows = [{"chat": "c", "id": str(i), "author": "A", "date": f"2024-01-01T10:{i:02d}:00", "text": f"t{i}"}
            for i in range(10)]
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    assert import_path(tmp_path / "store", path).messages_added == 10
