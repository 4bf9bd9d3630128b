"""Issue 34 at the command line: importers never lose or poison a store.

Every case here was found by trying today's importers as a new user and as an attacker
would: a date in year 10000 that disabled every later step, devices and pipes that were
read forever, a zip that unpacked far more than it weighed, an empty file and a damaged zip
told apart, and chats of one name kept apart. Each runs the real `flashback` in a child
process against a real store."""

from __future__ import annotations

import json
import os
import sqlite3
import zipfile
from contextlib import closing
from pathlib import Path

import pytest

from engine.store.database import db_path
from tests.cli_run import flashback, one_sentence

GOOD = [
    {"chat": "Team", "id": "1", "author": "Anna", "date": "2024-05-01T10:00:00+02:00",
     "text": "we plan the birthday party on friday"},
    {"chat": "Team", "id": "2", "author": "Bob", "date": "2024-05-01T10:01:00+02:00",
     "text": "cake and balloons for the party"},
    {"chat": "Team", "id": "3", "author": "Anna", "date": "2024-05-01T10:02:00+02:00",
     "text": "I will bring the music"},
]
YEAR_10000 = 253402318799.0  # 9999-12-31T23:59:59-05:00 in UTC: what imports before issue 34 stored


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def stored(data: Path, sql: str) -> list[tuple]:
    with closing(sqlite3.connect(db_path(data))) as connection:
        return connection.execute(sql).fetchall()


def poisoned_store(tmp_path: Path) -> Path:
    """A store as an import before issue 34 left it: one message, its chat's and its author's
    span in year 10000, written into SQLite directly."""
    data = tmp_path / "data"
    tmp_path.mkdir(exist_ok=True)
    assert flashback("import", str(jsonl(tmp_path / "team.jsonl", GOOD)), data_dir=data).returncode == 0
    with closing(sqlite3.connect(db_path(data))) as connection, connection:
        connection.execute("UPDATE message SET sent_at = ? WHERE external_id = '2'", (YEAR_10000,))
        connection.execute("UPDATE chat SET last_at = ?", (YEAR_10000,))
        connection.execute("UPDATE person SET last_seen = ? WHERE display_name = 'Bob'", (YEAR_10000,))
    return data


# -- dates ----------------------------------------------------------------------------------
def telegram_chat(unix: object) -> dict:
    return {"name": "Team", "type": "private_group", "id": 5, "messages": [
        {"id": 1, "type": "message", "date": "2024-01-01T10:00:00", "date_unixtime": "1704103200", "from": "A",
         "from_id": "user1", "text": "hi"},
        {"id": 2, "type": "message", "date": "2024-01-01T10:01:00", "date_unixtime": unix, "from": "A",
         "from_id": "user1", "text": "again"}]}


def chatgpt_conversation(create_time: float) -> list[dict]:
    return [{"title": "Trip", "id": "c1", "create_time": 1700000000, "current_node": "b", "mapping": {
        "a": {"id": "a", "parent": None, "children": ["b"], "message": {
            "id": "a", "author": {"role": "user"}, "create_time": 1700000000,
            "content": {"content_type": "text", "parts": ["plan a trip"]}}},
        "b": {"id": "b", "parent": "a", "children": [], "message": {
            "id": "b", "author": {"role": "assistant"}, "create_time": create_time,
            "content": {"content_type": "text", "parts": ["sure"]}}}}}]


@pytest.mark.parametrize(("name", "content", "where", "env"), [
    ("dates.jsonl", "".join(json.dumps(r) + "\n" for r in
                            [GOOD[0], {**GOOD[1], "date": "9999-12-31T23:59:59-05:00"}]), "line 2", {}),
    ("result.json", json.dumps(telegram_chat(1e20)), "chat 'Team', message 2", {}),
    ("conversations.json", json.dumps(chatgpt_conversation(253402300800)), "conversation 1 ('Trip'), message b",
     {}),
    # local time: New York is 5 hours behind UTC, so this is in year 10000 once its zone is applied
    ("WhatsApp Chat with Ann.txt", "[30/12/2024, 10:00:00] Ann: hi\n[31/12/9999, 23:59:59] Ann: late\n", "line 2",
     {"TZ": "America/New_York"}),
    ("local.jsonl", "".join(json.dumps(r) + "\n" for r in [GOOD[0], {**GOOD[1], "date": "9999-12-31T23:59:59"}]),
     "line 2", {"TZ": "America/New_York"}),
])
def test_a_date_outside_1900_2200_is_refused_naming_it_and_nothing_is_stored(tmp_path, name, content, where, env):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    data = tmp_path / "data"
    result = flashback("import", str(path), data_dir=data, env=env)
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert f"({where})" in result.stderr and "outside the years 1900-2200" in result.stderr, result.stderr
    assert stored(data, "SELECT count(*) FROM message") == [(0,)]
    chats = flashback("chats", data_dir=data)
    assert chats.returncode == 0 and "Traceback" not in chats.stderr


def test_check_finds_a_poisoned_row_of_an_older_store_and_repairs_it(tmp_path):
    data = poisoned_store(tmp_path)
    result = flashback("check", data_dir=data)
    assert result.returncode == 0, result.stderr
    assert "gave 1 message with a date outside the years 1900-2200 the time of the message before it in its chat " \
           "(Team)" in result.stdout, result.stdout
    # its neighbour's time (message 1's), so the chat reads in its order; the spans follow
    assert stored(data, "SELECT external_id, sent_at FROM message ORDER BY id") == \
        [("1", 1714550400.0), ("2", 1714550400.0), ("3", 1714550520.0)]
    assert stored(data, "SELECT first_at, last_at FROM chat") == [(1714550400.0, 1714550520.0)]
    assert stored(data, "SELECT max(last_seen) FROM person") == [(1714550520.0,)]
    again = json.loads(flashback("check", "--json", data_dir=data).stdout)
    assert again["ok"] and not again["repaired"] and "message dates" in again["checked"]
    ru = flashback("check", data_dir=poisoned_store(tmp_path / "ru"), env={"FLASHBACK_LANG": "ru"})
    assert "сообщению с датой вне 1900–2200 годов дано время предыдущего сообщения в его чате (Team)" in ru.stdout


@pytest.mark.parametrize("command", [("chats",), ("chats", "--json"), ("build",), ("search", "party"),
                                     ("export", "party")])
def test_no_later_step_stops_on_a_poisoned_row(tmp_path, command):
    data = poisoned_store(tmp_path)
    result = flashback(*command, data_dir=data)
    assert result.returncode == 0, result.stderr
    assert "out of range" not in result.stderr + result.stdout and "unexpected error" not in result.stderr
    if command[0] in ("search", "export"):  # they build first: the row's text is found
        assert "cake" in result.stdout or "balloons" in result.stdout or "party" in result.stdout, result.stdout


# -- bounded input --------------------------------------------------------------------------
def test_a_device_is_refused_at_once(tmp_path):
    result = flashback("import", "/dev/zero", data_dir=tmp_path / "data", timeout=60)
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert "device, a pipe or a socket" in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_at_once_and_does_not_hang(tmp_path):
    pipe = tmp_path / "export.json"
    os.mkfifo(pipe)
    # Nobody ever writes the pipe: reading it would wait forever; a generous bound for busy machines.
    result = flashback("import", str(pipe), data_dir=tmp_path / "data", timeout=120)
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert "device, a pipe or a socket" in result.stderr


def test_an_empty_file_and_a_damaged_zip_get_different_sentences(tmp_path):
    empty = tmp_path / "result.json"
    empty.write_bytes(b"")
    whole = tmp_path / "whole.zip"
    with zipfile.ZipFile(whole, "w") as bundle:
        bundle.writestr("result.json", json.dumps(telegram_chat("1704103260")))
    damaged = tmp_path / "export.zip"
    damaged.write_bytes(whole.read_bytes()[: len(whole.read_bytes()) // 2])  # an interrupted download
    said = {}
    for path in (empty, damaged):
        result = flashback("import", str(path), data_dir=tmp_path / "data")
        assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
        said[path.name] = result.stderr
    assert "the file is empty (0 bytes)" in said["result.json"]
    assert "the zip archive is damaged" in said["export.zip"]


def test_a_zip_whose_members_together_are_a_bomb_is_refused_in_one_sentence(tmp_path):
    """Issue 34's zip was 30 members of 60 MB of zeros (1.8 GB in 1.8 MB), each under the
    per-member floor; the same shape at 3 MB a member. Before the fix every member was
    unpacked (`tests/engine/importers/test_input_limits.py` shows nothing is now)."""
    archive = tmp_path / "bomb.zip"
    zeros = b"\0" * (3 * 1024 * 1024)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for n in range(30):
            bundle.writestr(f"chat{n}.txt", zeros)
    result = flashback("import", str(archive), data_dir=tmp_path / "data")
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert "bomb.zip:" in result.stderr and "zip bomb" in result.stderr, result.stderr


# -- nothing silently lost ------------------------------------------------------------------
def test_a_folder_of_250_exports_imports_every_one(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    for n in range(250):
        (folder / f"WhatsApp Chat with Friend {n:03d}.txt").write_text(
            f"03/02/2024, 10:00 - Friend {n}: hello number {n}\n03/02/2024, 10:01 - Me: hi {n}\n", encoding="utf-8")
    data = tmp_path / "data"
    result = flashback("import", str(folder), "--json", data_dir=data)
    assert result.returncode == 0, result.stderr
    assert stored(data, "SELECT count(*) FROM chat") == [(250,)]
    assert stored(data, "SELECT count(*) FROM message") == [(500,)]
    assert len(json.loads(result.stdout)["imports"][0]["sources"]) == 250


def test_the_summary_counts_what_was_skipped_and_why(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    chat = ("03/02/2024, 09:59 - Anna created group \"Trip\"\n03/02/2024, 10:00 - Anna: hello\n"
            "03/02/2024, 10:01 - Bob: hi\n")
    (folder / "WhatsApp Chat with Trip.txt").write_text(chat, encoding="utf-8")
    (folder / "notes.txt").write_text("just my notes, not a chat\n", encoding="utf-8")
    data = tmp_path / "data"
    first = flashback("import", str(folder), data_dir=data)
    assert first.returncode == 0, first.stderr
    assert "1 system line (joins, calls, renames) kept out of topics" in first.stdout, first.stdout
    assert "notes.txt: not a chat export, skipped" in first.stdout
    longer = tmp_path / "WhatsApp Chat with Trip.txt"
    longer.write_text(chat + "03/02/2024, 10:02 - Anna: see you\n", encoding="utf-8")
    again = flashback("import", str(longer), data_dir=data)
    assert "1 new of 4 messages" in again.stdout and "3 messages already stored" in again.stdout, again.stdout


# -- one name, two chats ----------------------------------------------------------------------
def test_two_groups_of_one_name_stay_two_chats_and_forget_tells_them_apart(tmp_path):
    data = tmp_path / "data"
    for folder, people, year in (("anna", ("Anna", "Bill"), 2023), ("oleg", ("Oleg", "Irina"), 2024)):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "WhatsApp Chat with Family.txt"
        path.write_text("".join(f"05/0{n + 1}/{year}, 10:00 - {people[n % 2]}: message {n} from {people[n % 2]}\n"
                                for n in range(3)), encoding="utf-8")
        assert flashback("import", str(path), data_dir=data).returncode == 0
    assert stored(data, "SELECT title, message_count FROM chat ORDER BY id") == [("Family", 3), ("Family", 3)]
    offered = flashback("forget", "--chat", "Family", data_dir=data)
    assert offered.returncode != 0 and one_sentence(offered.stderr), offered.stderr
    # each is offered with its id and its span: the person can tell the 2023 family from the 2024 one
    assert "2023-01-05" in offered.stderr and "2024-01-05" in offered.stderr, offered.stderr


def test_a_folder_says_files_that_hold_no_chat_in_one_line_and_its_progress_says_file_n_of_m(tmp_path, capsys):
    folder = tmp_path / "exports"
    folder.mkdir()
    jsonl(folder / "team.jsonl", GOOD)
    for name in ("README.md", "LICENSE", "CHANGELOG.md", "integration_logs.json"):
        (folder / name).write_text("{}\n" if name.endswith(".json") else "# notes\n", encoding="utf-8")
    result = flashback("import", str(folder), data_dir=tmp_path / "data")
    assert result.returncode == 0, result.stderr
    assert "not a chat export" not in result.stdout, result.stdout
    assert "3 files holding no chat (READMEs, licences, an export's own lists) left aside" in result.stdout
    # the progress line (shown on a terminal) names which export of how many
    from app.cli import _stderr_progress
    from engine.api import ImportProgress

    _stderr_progress(ImportProgress("exports/team.jsonl", 50, 100, 3, file_number=2, files=5))
    assert capsys.readouterr().err == "\rfile 2 of 5 · exports/team.jsonl:  50.0%  3 messages"
