# Samples (tests/data/messenger/, sources and licences in its README.md):
#   chat-miner-instagram/…/testlog_2765720812686121/message_1.json  joweich/chat-miner,
#       test/instagram/testlog.json at 71990a9 (MIT licence), placed as an Instagram export places it
#   facebook-olga/…  written for this suite in Meta's layout: a thread in two parts, Cyrillic and
#       Spanish text in Meta's Latin-1 escapes, the owner in profile_information.json
"""The Messenger / Instagram importer: parts joined oldest first, mojibake repaired, the owner known."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from engine.importers.messenger import repair_mojibake
from engine.importers.runner import import_path
from engine.store.database import db_path

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "messenger"
INSTAGRAM = SAMPLES / "chat-miner-instagram"
FACEBOOK = SAMPLES / "facebook-olga"
THREAD = "your_activity_across_facebook/messages/inbox/josealvarez_10158473920194821"


def rows(data: Path, sql: str, *params) -> list[tuple]:
    conn = sqlite3.connect(db_path(data))
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def recode(value, source: str, target: str):
    """Every string in `value` re-read: UTF-8 bytes as Latin-1 (Meta's writing) or back."""
    if isinstance(value, str):
        return value.encode(source).decode(target)
    if isinstance(value, list):
        return [recode(item, source, target) for item in value]
    if isinstance(value, dict):
        return {key: recode(item, source, target) for key, item in value.items()}
    return value


def meta_dump(path: Path, data: dict) -> None:
    """Write as Meta does: every non-ASCII character as the \\u00XX escapes of its UTF-8 bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(recode(data, "utf-8", "latin-1")), encoding="ascii")


def meta_load(path: Path) -> dict:
    return recode(json.loads(path.read_text(encoding="ascii")), "latin-1", "utf-8")


def test_facebook_thread_parts_joined_oldest_first_with_text_and_names_repaired(tmp_path):
    data = tmp_path / "store"
    report = import_path(data, FACEBOOK)
    assert [(source.format, source.chats) for source in report.sources] == [("messenger", 1)]
    assert report.skipped == []  # the profile file is read with the thread, not skipped as an export
    assert rows(data, "SELECT key, title, kind FROM chat") == [
        ("messenger:josealvarez_10158473920194821", "José Álvarez", "personal")]
    stored = rows(data, "SELECT author, role, is_service, text FROM message ORDER BY id")
    assert stored == [  # message_2.json's messages (the older part) first, each part read oldest first
        ("Ольга Смирнова", "user", 1, "Ольга Смирнова joined the video chat."),
        ("Ольга Смирнова", "user", 0, "С Новым годом, Хосе!"),
        ("José Álvarez", "other", 0, "Feliz año nuevo! 🎉"),
        ("José Álvarez", "other", 0, "¿Qué tal el viaje a Казань?"),  # the unsent message before it is skipped
        ("Ольга Смирнова", "user", 0, ""),
        ("José Álvarez", "other", 0, "Mira este sendero"),
        ("Ольга Смирнова", "user", 0, ""),
        ("José Álvarez", "other", 0, ""),
    ]
    assert rows(data, "SELECT display_name FROM person WHERE is_self = 1") == [("Ольга Смирнова",)]


def test_media_shares_and_reactions(tmp_path):
    data = tmp_path / "store"
    import_path(data, FACEBOOK)
    artifacts = rows(data, "SELECT kind, file_name, mime, rel_path FROM artifact ORDER BY id")
    assert [(kind, name) for kind, name, _, _ in artifacts] == [
        ("audio", "audioclip17041896.mp4"),
        ("other", "https://maps.example.org/trail/42"), ("photo", "410922_10158_n.jpg"),
        ("sticker", "369239263222822.png")]
    assert artifacts[2][3] == f"{THREAD}/photos/410922_10158_n.jpg"
    assert [json.loads(meta) for (meta,) in rows(data, "SELECT meta FROM message WHERE meta IS NOT NULL")] == [
        {"reactions": [{"emoji": "❤", "by": ["Ольга Смирнова"], "count": 1}]}]


def test_instagram_sample_names_emoji_joins_and_reactions(tmp_path):
    data = tmp_path / "store"
    report = import_path(data, INSTAGRAM)
    assert report.sources[0].messages_added == 12  # 13 in the file; one has neither text nor media
    authors = {author for (author,) in rows(data, "SELECT DISTINCT author FROM message")}
    assert {"J\u2764\ufe0fhn Doe", "\u2764\ufe0f", "John Doe", "Jane Doe", "Lionel Messi"} == authors
    assert rows(data, "SELECT text FROM message WHERE is_service = 1") == [("Jane Doe joined the group.",)]
    assert [json.loads(meta) for (meta,) in rows(data, "SELECT meta FROM message "
                                                       "WHERE text = 'Testing message with reactions.'")] == [
        {"reactions": [{"emoji": "\u2764\ufe0f", "by": ["J\u2764\ufe0fhn Doe"], "count": 1},
                       {"emoji": "\U0001F496", "by": ["Jane Doe"], "count": 1}]}]
    kinds = sorted(kind for (kind,) in rows(data, "SELECT kind FROM artifact WHERE mime IS NULL"))
    assert kinds == ["audio", "other", "photo", "video"]  # the share is a file named by its link
    assert rows(data, "SELECT count(*) FROM person WHERE is_self = 1") == [(0,)]  # a group: nobody is named


def test_reimport_adds_nothing_a_longer_export_adds_the_new_and_a_renamed_thread_merges(tmp_path):
    data = tmp_path / "store"
    import_path(data, FACEBOOK)
    assert [source.status for source in import_path(data, FACEBOOK).sources] == ["unchanged"]

    later = tmp_path / "later"
    shutil.copytree(FACEBOOK, later)
    # The thread renamed (a new folder name) and one newer message at the top of message_1.json.
    renamed = later / THREAD.replace("josealvarez_", "josealvarezsanchez_")
    (later / THREAD).rename(renamed)
    newest = meta_load(renamed / "message_1.json")
    newest["messages"].insert(0, {"sender_name": "José Álvarez", "timestamp_ms": 1704276000000,
                                  "content": "¡Buen viaje!"})
    newest["title"] = "José Álvarez Sánchez"
    meta_dump(renamed / "message_1.json", newest)
    report = import_path(data, later)
    source = report.sources[0]
    assert (source.messages_seen, source.messages_added) == (9, 1)
    assert [match.by for match in source.matched] == ["content"]
    assert rows(data, "SELECT count(*) FROM chat") == [(1,)]


def test_owner_of_a_one_to_one_thread_without_profile_is_the_one_it_is_not_titled_after(tmp_path):
    folder = tmp_path / "export"
    shutil.copytree(FACEBOOK / "your_activity_across_facebook", folder / "your_activity_across_facebook")
    data = tmp_path / "store"
    import_path(data, folder)
    assert rows(data, "SELECT display_name FROM person WHERE is_self = 1") == [("Ольга Смирнова",)]


def test_mojibake_repair_leaves_real_text_alone():
    assert repair_mojibake("Ð\u009fÑ\u0080Ð¸Ð²ÐµÑ\u0082") == "Привет"
    assert repair_mojibake("JosÃ©") == "José"
    for already_right in ("José", "Привет", "naïve café", "plain"):
        assert repair_mojibake(already_right) == already_right


def test_a_thread_folder_imported_by_itself_is_one_export_of_its_parts(tmp_path):
    data = tmp_path / "store"
    report = import_path(data, FACEBOOK / THREAD)
    assert [(source.name, source.messages_added) for source in report.sources] == [
        ("josealvarez_10158473920194821", 8)]
    assert rows(data, "SELECT key FROM chat") == [("messenger:josealvarez_10158473920194821",)]
    assert rows(data, "SELECT text FROM message ORDER BY id LIMIT 1") == [("Ольга Смирнова joined the video chat.",)]
