# Samples (tests/data/slack/, sources and licences in its README.md):
#   slack-export-viewer-testarchive.zip  hfaran/slack-export-viewer, tests/testarchive.zip (MIT licence):
#       a real workspace export (2 channels, 158 messages: joins, bots, file shares, a reaction)
#   acme-workspace/  written for this suite: a thread across two days, a DM, a group DM, a bot
"""The Slack workspace importer, and the grouping and path handling it needs from `inputs`."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest

from engine.errors import ImportFormatError
from engine.importers.inputs import member_path, resolve_inputs
from engine.importers.runner import import_path
from engine.store.database import db_path

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "slack"
ARCHIVE = SAMPLES / "slack-export-viewer-testarchive.zip"
ACME = SAMPLES / "acme-workspace"
THREAD_ROOT = "1709546460.000200"


def rows(data: Path, sql: str, *params) -> list[tuple]:
    conn = sqlite3.connect(db_path(data))
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def test_real_workspace_zip_imports_as_one_export(tmp_path):
    data = tmp_path / "store"
    report = import_path(data, ARCHIVE)
    assert [(s.name, s.format, s.chats, s.messages_added) for s in report.sources] == [
        ("slack-export-viewer-testarchive.zip", "slack", 2, 158)]
    # the workspace's integration log is no chat: counted aside, not listed as "not a chat export" (issue 34)
    assert report.skipped == []
    assert report.aside == ["slack-export-viewer-testarchive.zip \u203a integration_logs.json"]
    assert rows(data, "SELECT key, title FROM chat ORDER BY key") == [
        ("slack:C0JGLMMNX", "#enrique"), ("slack:C0JL6CGQ2", "#traveling-sailor")]


def test_joins_and_bot_additions_are_service_lines_bot_messages_are_messages(tmp_path):
    data = tmp_path / "store"
    import_path(data, ARCHIVE)
    assert rows(data, "SELECT count(*) FROM message WHERE is_service = 1") == [(12,)]  # 8 joins, 3 bot_add, 1 comment
    assert rows(data, "SELECT text FROM message WHERE external_id = '1452837318.000003'") == [
        ("@abilinski has joined the channel",)]  # <@U…> as the user's name
    bot = rows(data, "SELECT author, is_service, text FROM message WHERE external_id = '1459154014.000018'")
    assert bot == [("B0JL6RASU", 0, "[enrique:master] 1 new commit by hfaran:\n"
                                     "b698a38: Implement killTask; resolves #20 - hfaran")]
    assert rows(data, "SELECT meta FROM message WHERE external_id = '1459154014.000018'") == [
        ('{"reactions": [{"emoji": ":botman:", "by": ["abilinski"], "count": 1}]}',)]
    assert ("file", "100_cities.js", "text/plain", 4163) in rows(
        data, "SELECT kind, file_name, mime, size FROM artifact")


def test_threads_stay_together_across_days(tmp_path):
    data = tmp_path / "store"
    import_path(data, ACME)
    thread = rows(data, "SELECT m.external_id, m.author, m.text FROM message m JOIN chat c ON c.id = m.chat_id "
                        "WHERE c.key = 'slack:C01GENERAL' AND m.reply_to = ? ORDER BY m.sent_at", THREAD_ROOT)
    assert thread == [("1709546520.000300", "Priya Nair", "Thanks! Where is the wiki?"),
                      ("1709633000.000400", "Tomás", "@Priya Nair it is at the release page")]  # written a day later
    assert rows(data, "SELECT reply_to, text FROM message WHERE external_id = ?", THREAD_ROOT) == [
        (None, "Welcome @Priya Nair! Release notes for 2.4 are in #general & the wiki")]


def test_dms_group_dms_names_and_subtypes(tmp_path):
    data = tmp_path / "store"
    report = import_path(data, ACME)
    assert report.sources[0].chats == 3
    assert rows(data, "SELECT key, title, kind FROM chat ORDER BY key") == [
        ("slack:C01GENERAL", "#general", "group"), ("slack:D01MAYATOM", "Maya, Tomás", "personal"),
        ("slack:G01TRIO", "Maya, Tomás, Priya Nair", "group")]
    service = rows(data, "SELECT text FROM message WHERE is_service = 1 ORDER BY sent_at")
    assert service == [("@Priya Nair has joined the channel",), ("set the channel topic: Releases and plans",),
                       ("@Maya pinned a message to this channel.",)]
    assert rows(data, "SELECT author, text FROM message WHERE external_id = '1709550000.000500'") == [
        ("Deploy Bot", "Deployed 2.4.0\nproduction is green")]
    assert rows(data, "SELECT kind, file_name, size FROM artifact WHERE mime = 'image/png'") == [
        ("photo", "dashboard.png", 183204)]
    assert rows(data, "SELECT key, display_name FROM person ORDER BY key") == [
        ("slack:name:Deploy Bot", "Deploy Bot"),  # a bot outside users.json: keyed by the name it posts as
        ("slack:name:maya", "Maya"), ("slack:name:priya", "Priya Nair"), ("slack:name:tomas", "Tomás")]


def test_reimport_adds_nothing_and_a_longer_export_adds_only_the_new(tmp_path):
    data = tmp_path / "store"
    import_path(data, ACME)
    assert [source.status for source in import_path(data, ACME).sources] == ["unchanged"]
    later = tmp_path / "acme-later"
    shutil.copytree(ACME, later)
    (later / "general" / "2024-03-06.json").write_text(json.dumps([
        {"type": "message", "ts": "1709720000.000100", "user": "U02TOMAS", "text": "Retro at 3pm",
         "thread_ts": THREAD_ROOT, "parent_user_id": "U01MAYA"}]), encoding="utf-8")
    source = import_path(data, later).sources[0]
    assert (source.messages_seen, source.messages_added) == (12, 1)
    assert rows(data, "SELECT count(*) FROM message WHERE reply_to = ?", THREAD_ROOT) == [(3,)]


def test_one_list_alone_is_refused_in_one_sentence(tmp_path):
    path = tmp_path / "users.json"
    shutil.copy(ACME / "users.json", path)
    with pytest.raises(ImportFormatError) as caught:
        import_path(tmp_path / "store", path)
    assert caught.value.message.params["problem"].code == "import.problem.slack_whole_export"


def test_zip_members_keep_safe_relative_paths_and_folders_are_walked_deep(tmp_path):
    assert member_path("../../etc/passwd.json") == "etc/passwd.json"
    assert member_path("/abs/./x.json") == "abs/x.json"
    assert member_path("C:\\export\\general\\2024-03-04.json") == "export/general/2024-03-04.json"
    archive = tmp_path / "hostile.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for item in sorted(ACME.rglob("*.json")):
            bundle.write(item, "../" + item.relative_to(ACME).as_posix())
    with resolve_inputs(archive) as inputs:
        assert {export.relative for export in inputs} >= {"users.json", "general/2024-03-05.json"}
        assert all(export.path.parent.name.startswith("flashback-zip-") for export in inputs)
    assert import_path(tmp_path / "store", archive).sources[0].messages_added == 11
    deep = tmp_path / "backup" / "2024" / "work" / "slack"
    shutil.copytree(ACME, deep)
    hidden = tmp_path / "backup" / ".cache" / "users.json"
    hidden.parent.mkdir()
    shutil.copy(ACME / "users.json", hidden)
    with resolve_inputs(tmp_path / "backup") as inputs:
        assert ".cache/users.json" not in {export.relative for export in inputs}
    assert import_path(tmp_path / "store2", tmp_path / "backup").sources[0].messages_added == 11


def test_multi_file_exports_through_the_parse_child_build_the_same_store(tmp_path, monkeypatch):
    """A big multi-file export is parsed in the child like a big file: it must get every part."""
    from engine.importers import parse_child

    samples = [ARCHIVE, ACME, SAMPLES.parent / "discord", SAMPLES.parent / "messenger"]
    tables = ("SELECT * FROM chat ORDER BY id", "SELECT * FROM person ORDER BY id",
              "SELECT * FROM message ORDER BY id", "SELECT * FROM artifact ORDER BY id")
    stores = {}
    for way, floor in (("child", 0), ("here", 1 << 60)):
        monkeypatch.setattr(parse_child, "WORKER_MIN_BYTES", floor)
        for sample in samples:
            import_path(tmp_path / way, sample)
        stores[way] = [rows(tmp_path / way, sql) for sql in tables]
    assert stores["child"] == stores["here"]
    assert len(stores["child"][2]) == 158 + 11 + 14 + 20
