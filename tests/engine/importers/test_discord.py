# Samples: tests/data/discord/ — written for this suite in DiscordChatExporter's JSON layout
# (its JsonMessageWriter, MIT); see tests/data/discord/README.md.
"""The DiscordChatExporter importer: DMs, group DMs, server channels, [part N] files joined."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest

from engine.errors import ImportFormatError
from engine.importers.inputs import ExportInput
from engine.importers.runner import detect_format, import_path
from engine.store.database import db_path

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "discord"
DM = "Direct Messages - Private - boris_p [900000000000000010].json"
GENERAL = "Hiking Club - Text Channels - general [900000000000000020].json"


def rows(data: Path, sql: str, *params) -> list[tuple]:
    conn = sqlite3.connect(db_path(data))
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def messages(data: Path, chat_key: str) -> dict[str, tuple]:
    """external id → (author, role, is_service, reply_to, text) of one chat."""
    return {row[0]: row[1:] for row in rows(
        data, "SELECT m.external_id, m.author, m.role, m.is_service, m.reply_to, m.text FROM message m "
              "JOIN chat c ON c.id = m.chat_id WHERE c.key = ?", chat_key)}


def test_sample_folder_imports_three_chats_with_the_parts_joined(tmp_path):
    data = tmp_path / "store"
    report = import_path(data, SAMPLES)
    assert {source.format for source in report.sources} == {"discord"}
    assert len(report.sources) == 3  # the general channel's two files are one export
    general = next(source for source in report.sources if "general" in source.name)
    assert general.messages_added == 5 and general.chats == 1
    assert rows(data, "SELECT key, title, kind FROM chat ORDER BY key") == [
        ("discord:900000000000000010", "boris_p", "personal"),
        ("discord:900000000000000020", "Hiking Club #general", "group"),
        ("discord:900000000000000030", "ridge loop crew", "group"),
    ]
    channel = messages(data, "discord:900000000000000020")
    assert channel["1310000000000000005"][3] == "1310000000000000004"  # part 2 replies to part 2
    assert channel["1310000000000000003"][4] == "thanks @Anna, count me in"  # a raw mention as a name


def test_system_lines_are_service_not_messages(tmp_path):
    data = tmp_path / "store"
    import_path(data, SAMPLES)
    service = {text for (text,) in rows(data, "SELECT text FROM message WHERE is_service = 1")}
    assert service == {"Started a call that lasted 12 minutes.", "Pinned a message.", "Joined the server.",
                       "Added Carl to the group.", "Changed the channel name: ridge loop crew"}
    assert rows(data, "SELECT count(*) FROM message_fts WHERE message_fts MATCH 'call'") == [(0,)]


def test_reply_reactions_attachments_and_stickers(tmp_path):
    data = tmp_path / "store"
    import_path(data, SAMPLES)
    dm = messages(data, "discord:900000000000000010")
    assert dm["1300000000000000002"][3] == "1300000000000000001"
    artifacts = rows(data, "SELECT m.external_id, a.kind, a.file_name, a.mime, a.size FROM artifact a "
                           "JOIN message m ON m.id = a.message_id ORDER BY m.external_id, a.id")
    assert ("1300000000000000004", "photo", "trail-map.png", None, 482113) in artifacts
    assert all(kind != "other" for _, kind, _, _, _ in artifacts)  # reactions are no files
    meta = dict(rows(data, "SELECT external_id, meta FROM message WHERE meta IS NOT NULL"))
    assert json.loads(meta["1300000000000000002"]) == {"reactions": [{"emoji": "\U0001F44D", "by": ["Anna"],
                                                                      "count": 1}]}
    assert json.loads(meta["1310000000000000003"])["reactions"] == [
        {"emoji": "\u2764\ufe0f", "by": ["Anna", "Boris"], "count": 2},
        {"emoji": ":ridge:", "by": ["Boris"], "count": 1}]
    assert ("1310000000000000004", "sticker", "Mountain Wave", None, None) in artifacts
    # reactions are beside the text, never in it
    assert dm["1300000000000000002"][4] == "yes! meet at the trailhead at 9"


def test_dm_owner_is_whoever_is_not_the_peer_the_dm_is_named_after(tmp_path):
    data = tmp_path / "store"
    import_path(data, SAMPLES)  # Anna writes in the group DM (read first) before the DM says she is the owner
    dm = messages(data, "discord:900000000000000010")
    assert {text[0]: text[1] for text in dm.values()} == {"Anna": "user", "Boris": "other"}
    assert rows(data, "SELECT display_name FROM person WHERE is_self = 1") == [("Anna",)]


def test_reimport_adds_nothing_and_a_longer_export_adds_only_the_new(tmp_path):
    data = tmp_path / "store"
    import_path(data, SAMPLES)
    again = import_path(data, SAMPLES)
    assert [source.status for source in again.sources] == ["unchanged"] * 3
    longer = json.loads((SAMPLES / DM).read_text(encoding="utf-8"))
    newest = dict(longer["messages"][0], id="1300000000000000099", timestamp="2025-01-11T08:00:00.000+00:00",
                  content="see you at the trailhead", reactions=[])
    longer["messages"].append(newest)
    longer["channel"]["name"] = "boris (renamed)"
    target = tmp_path / "later" / "dm.json"
    target.parent.mkdir()
    target.write_text(json.dumps(longer), encoding="utf-8")
    report = import_path(data, target)
    assert (report.sources[0].messages_seen, report.sources[0].messages_added) == (7, 1)
    assert rows(data, "SELECT title FROM chat WHERE key = 'discord:900000000000000010'") == [("boris (renamed)",)]


def test_parts_in_a_zip_are_joined_too(tmp_path):
    archive = tmp_path / "discord.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for name in (GENERAL, GENERAL.replace(".json", " [part 2].json")):
            bundle.write(SAMPLES / name, f"exports/{name}")
    report = import_path(tmp_path / "store", archive)
    assert [(source.name, source.messages_added) for source in report.sources] == [
        (f"discord.zip \u203a exports/{GENERAL}", 5)]


def test_detected_as_discord_not_telegram():
    assert detect_format(ExportInput(SAMPLES / DM, DM)) == "discord"


def test_a_date_no_calendar_holds_is_refused_with_its_place(tmp_path):
    broken = json.loads((SAMPLES / DM).read_text(encoding="utf-8"))
    broken["messages"][1]["timestamp"] = "9999-12-31T23:59:59.000-05:00"
    path = tmp_path / "dm.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(ImportFormatError) as caught:
        import_path(tmp_path / "store", path)
    assert "1300000000000000002" in str(caught.value.where)


def test_a_cut_off_file_is_an_import_error(tmp_path):
    path = tmp_path / "cut.json"
    shutil.copy(SAMPLES / DM, path)
    path.write_bytes(path.read_bytes()[:-400])
    with pytest.raises(ImportFormatError):
        import_path(tmp_path / "store", path)
