"""Issue 23, findings 1 and 2: every WhatsApp chat is itself, whatever its export is called.

iOS exports a chat as `WhatsApp Chat - NAME.zip` holding a bare `_chat.txt` (and the media);
unzipped, the folder keeps that name. Android names the text itself `WhatsApp Chat with
NAME.txt`. A browser saves a second download as `… (1).zip`, a person renames files, and an
editor may add a BOM and CRLF line ends. Real zips and folders in those layouts go through
the real import into a real store here."""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

import pytest

from engine.importers import parse_child
from engine.importers.runner import import_path
from engine.store.database import db_path

ALICE = [("Alice", "Did you book the ferry to Zanzibar?"), ("Me", "Yes, Friday at nine"),
         ("Alice", "Bring the snorkel"), ("Me", "Packed already"), ("Alice", "See you at the pier")]
BOB = [("Bob", "The quarterly report is late again"), ("Me", "I will send it tonight"),
       ("Bob", "Thanks, the board meets Monday"), ("Me", "Noted")]


def ios_text(lines: list[tuple[str, str]], day: int = 3, start: int = 0) -> str:
    """iOS layout: `[dd/mm/yyyy, hh:mm:ss] Name: text`, the encryption notice first."""
    head = f"[0{day}/02/2024, 09:00:00] {lines[0][0]}: \u200eMessages and calls are end-to-end encrypted.\n"
    body = "".join(f"[0{day}/02/2024, 10:{start + n:02d}:00] {who}: {text}\n" for n, (who, text) in enumerate(lines))
    return head + body


def android_text(lines: list[tuple[str, str]], start: int = 0) -> str:
    return "".join(f"03/02/2024, 10:{start + n:02d} - {who}: {text}\n" for n, (who, text) in enumerate(lines))


def ios_zip(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("_chat.txt", text)
        bundle.writestr("00000007-PHOTO-2024-02-03-10-01-00.jpg", b"\xff\xd8 not really a photo")
    return path


def ios_folder(parent: Path, name: str, text: str) -> Path:
    folder = parent / name
    folder.mkdir(parents=True)
    (folder / "_chat.txt").write_text(text, encoding="utf-8")
    (folder / "00000007-PHOTO-2024-02-03-10-01-00.jpg").write_bytes(b"\xff\xd8")
    return folder


def chats(data: Path) -> dict[str, int]:
    """chat title → messages stored in it (what the store holds, not what the report says)."""
    connection = sqlite3.connect(db_path(data))
    try:
        return dict(connection.execute(
            "SELECT c.title, (SELECT count(*) FROM message m WHERE m.chat_id = c.id) FROM chat c ORDER BY c.title"))
    finally:
        connection.close()


def test_two_ios_zips_are_two_chats_named_after_their_zips(tmp_path):
    data = tmp_path / "store"
    first = import_path(data, ios_zip(tmp_path, "WhatsApp Chat - Alice.zip", ios_text(ALICE)))
    second = import_path(data, ios_zip(tmp_path, "WhatsApp Chat - Bob.zip", ios_text(BOB, day=4)))
    assert chats(data) == {"Alice": 6, "Bob": 5}  # each: its messages plus the encryption notice
    assert first.sources[0].matched == [] and second.sources[0].matched == []


def test_two_unzipped_ios_folders_are_two_chats(tmp_path):
    data = tmp_path / "store"
    exports = tmp_path / "exports"
    ios_folder(exports, "WhatsApp Chat - Alice", ios_text(ALICE))
    ios_folder(exports, "WhatsApp Chat - Bob", ios_text(BOB, day=4))
    report = import_path(data, exports)  # the folder holding both
    assert [source.chats for source in report.sources] == [1, 1]
    assert chats(data) == {"Alice": 6, "Bob": 5}


def test_an_unzipped_folder_or_its_chat_file_alone_is_named_after_the_folder(tmp_path):
    alice = ios_folder(tmp_path, "WhatsApp Chat - Alice", ios_text(ALICE))
    bob = ios_folder(tmp_path, "WhatsApp Chat - Bob", ios_text(BOB, day=4))
    import_path(tmp_path / "folders", alice)
    import_path(tmp_path / "folders", bob)
    assert chats(tmp_path / "folders") == {"Alice": 6, "Bob": 5}
    import_path(tmp_path / "files", alice / "_chat.txt")
    import_path(tmp_path / "files", bob / "_chat.txt")
    assert chats(tmp_path / "files") == {"Alice": 6, "Bob": 5}


def test_bare_chat_files_without_a_telling_name_are_named_after_their_people(tmp_path):
    """`_chat.txt` saved on its own (no WhatsApp name around it): two people's stay apart."""
    data = tmp_path / "store"
    for name, lines in (("one", ALICE), ("two", BOB)):
        (tmp_path / name).mkdir()
        path = tmp_path / name / "_chat.txt"
        path.write_text(ios_text(lines), encoding="utf-8")
        import_path(data, path)
    assert chats(data) == {"Alice, Me": 6, "Bob, Me": 5}


@pytest.mark.parametrize("again", ["WhatsApp Chat - Alice (1).zip", "alice-backup.zip", "Alice 2024.zip"])
def test_a_redownloaded_or_renamed_export_is_the_same_chat(tmp_path, again):
    data = tmp_path / "store"
    import_path(data, ios_zip(tmp_path, "WhatsApp Chat - Alice.zip", ios_text(ALICE)))
    (tmp_path / "again").mkdir()
    newer = ios_text(ALICE + [("Me", "Ferry moved to ten"), ("Alice", "Fine"), ("Me", "See you")])
    report = import_path(data, ios_zip(tmp_path / "again", again, newer))
    source = report.sources[0]
    assert chats(data) == {"Alice": 9}  # one chat, nothing twice
    assert (source.messages_seen, source.messages_added) == (9, 3)
    assert [(match.title, match.by) for match in source.matched] == \
        [("Alice", "key" if again.startswith("WhatsApp") else "content")]
    assert "Alice" in str(source.matched_message())


def test_a_reencoded_android_export_under_another_name_adds_nothing(tmp_path):
    """The same text with a BOM and CRLF line ends, renamed: no new chat, no duplicate."""
    data = tmp_path / "store"
    original = tmp_path / "WhatsApp Chat with Bob.txt"
    original.write_text(android_text(BOB), encoding="utf-8")
    import_path(data, original)
    copy = tmp_path / "bob from the old phone.txt"
    copy.write_bytes(b"\xef\xbb\xbf" + android_text(BOB).replace("\n", "\r\n").encode("utf-8"))
    report = import_path(data, copy)
    assert report.sources[0].status == "imported"  # other bytes: it is read, and recognised
    assert (report.sources[0].messages_added, chats(data)) == (0, {"Bob": 4})
    assert [(m.title, m.by) for m in report.sources[0].matched] == [("Bob", "content")]


def test_a_newer_export_in_the_child_parser_adds_exactly_the_new_messages(tmp_path, monkeypatch):
    """Big files are parsed in a child process: the chat is recognised there the same way."""
    monkeypatch.setattr(parse_child, "WORKER_MIN_BYTES", 0)
    data = tmp_path / "store"
    import_path(data, ios_zip(tmp_path, "WhatsApp Chat - Alice.zip", ios_text(ALICE)))
    newer = ios_text(ALICE + [("Me", "one"), ("Alice", "two"), ("Me", "three")])
    report = import_path(data, ios_zip(tmp_path, "Export.zip", newer))
    assert (report.sources[0].messages_added, chats(data)) == (3, {"Alice": 9})


def test_chats_that_share_a_first_minute_are_not_taken_for_one(tmp_path):
    """The same greeting sent to two people in the same minute, then different talks."""
    data = tmp_path / "store"
    greeting = [("Me", "Happy new year!")]
    first = tmp_path / "WhatsApp Chat with Carol.txt"
    first.write_text(android_text(greeting + [("Carol", "You too!"), ("Me", "Party tonight?"),
                                              ("Carol", "Of course")]), encoding="utf-8")
    second = tmp_path / "WhatsApp Chat with Dan.txt"
    second.write_text(android_text(greeting + [("Dan", "Thanks"), ("Me", "How is Berlin?"),
                                               ("Dan", "Cold")]), encoding="utf-8")
    import_path(data, first)
    report = import_path(data, second)
    assert chats(data) == {"Carol": 4, "Dan": 4}
    assert report.sources[0].matched == []


def test_one_folder_with_two_copies_of_a_chat_makes_one_chat(tmp_path):
    """Within one import too: the second file finds the chat the first one just made."""
    exports = tmp_path / "exports"
    exports.mkdir()
    (exports / "WhatsApp Chat with Bob.txt").write_text(android_text(BOB), encoding="utf-8")
    (exports / "bob-copy.txt").write_text(android_text(BOB + [("Bob", "One more thing")]), encoding="utf-8")
    report = import_path(tmp_path / "store", exports)
    assert chats(tmp_path / "store") == {"Bob": 5}
    assert sum(source.messages_added for source in report.sources) == 5


# -- issue 34: a chat is named as its export is named; one name may be two chats -------------
def family_text(people: tuple[str, str], year: int, count: int = 3) -> str:
    return "".join(f"05/0{n + 1}/{year}, 10:00 - {people[n % 2]}: note {n} from {people[n % 2]}\n"
                   for n in range(count))


def test_a_chat_is_named_as_its_export_not_by_its_created_group_line(tmp_path):
    data = tmp_path / "store"
    created = '[03/02/2024, 09:00:00] Lorem: \u200eYou created group "Groupname"\n'
    import_path(data, ios_zip(tmp_path, "WhatsApp Chat - Lorem Friends.zip", created + ios_text(ALICE)))
    android = tmp_path / "WhatsApp Chat with Family.txt"
    android.write_text('03/02/2024, 09:00 - Anna created group "Familia"\n' + android_text(BOB), encoding="utf-8")
    import_path(data, android)
    assert chats(data) == {"Family": 5, "Lorem Friends": 7}


def test_two_groups_of_one_name_stay_two_chats_and_each_re_export_finds_its_own(tmp_path):
    """Two "WhatsApp Chat with Family.txt" from different folders: Anna and Bill's (2023) and
    Oleg and Irina's (2024), in one import; then a longer export of the second, renamed."""
    exports = tmp_path / "exports"
    for folder, people, year in (("anna", ("Anna", "Bill"), 2023), ("oleg", ("Oleg", "Irina"), 2024)):
        (exports / folder).mkdir(parents=True)
        (exports / folder / "WhatsApp Chat with Family.txt").write_text(family_text(people, year), encoding="utf-8")
    data = tmp_path / "store"
    import_path(data, exports)
    connection = sqlite3.connect(db_path(data))
    try:
        families = connection.execute("SELECT id, message_count, first_at FROM chat ORDER BY first_at").fetchall()
        assert [count for _, count, _ in families] == [3, 3]  # two chats, not one "Family" of 6
        renamed = tmp_path / "oleg family 2024.txt"
        renamed.write_text(family_text(("Oleg", "Irina"), 2024, count=5), encoding="utf-8")
        report = import_path(data, renamed)
        assert (report.sources[0].messages_added, [m.by for m in report.sources[0].matched]) == (2, ["content"])
        assert connection.execute("SELECT id, message_count FROM chat ORDER BY first_at").fetchall() == \
            [(families[0][0], 3), (families[1][0], 5)]
    finally:
        connection.close()
