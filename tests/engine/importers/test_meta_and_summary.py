"""Issue 34's rest: reactions and the answering model in `message.meta` (one place for every
format, moved there from older stores), the import summary's counts of what was read and not
made a message, "file N of M" progress, and files that hold no chat counted in one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engine.errors import UnknownFormatError
from engine.importers import parse_child
from engine.importers.base import ImportProgress
from engine.importers.inputs import ExportInput
from engine.importers.rows import IdState
from engine.importers.runner import import_path
from engine.messages import msg, render
from engine.store.database import SCHEMA_VERSION, db_path, open_store
from tests.engine.importers.telegram_fixtures import chat, message, write

SAMPLES = Path(__file__).resolve().parents[2] / "data"
THUMBS_UP = "\U0001F44D"


def rows(data: Path, sql: str, *params) -> list[tuple]:
    conn = sqlite3.connect(db_path(data))
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def telegram_chat(path: Path, reactions: list[dict]) -> Path:
    return write(path, chat("Hikers", 77, [
        message(1, "who is coming on Saturday?", reactions=reactions),
        message(2, "me!", sender="Boris", sender_id="user3"),
        {"id": 3, "type": "unsupported"},  # what tdesktop writes for a message it cannot export
    ]))


def test_telegram_reactions_are_kept_beside_the_message_and_a_re_export_updates_them(tmp_path: Path) -> None:
    data = tmp_path / "store"
    first = [{"type": "emoji", "count": 2, "emoji": THUMBS_UP,
              "recent": [{"from": "Boris", "from_id": "user3", "date": "2023-11-14T22:14:00"}]},
             {"type": "custom_emoji", "count": 1, "document_id": "5368324170671202286"}]
    report = import_path(data, telegram_chat(tmp_path / "result.json", first))
    assert report.messages_added == 2
    meta = json.loads(rows(data, "SELECT meta FROM message WHERE external_id = '1'")[0][0])
    # `recent` names the last few people only: the count stays the export's
    assert meta == {"reactions": [{"emoji": THUMBS_UP, "by": ["Boris"], "count": 2},
                                  {"emoji": ":custom_emoji:", "by": [], "count": 1}]}
    # never the message's words: not its text, not searched, no line of its own
    assert rows(data, "SELECT text FROM message ORDER BY id") == [("who is coming on Saturday?",), ("me!",)]
    assert rows(data, "SELECT count(*) FROM message_fts WHERE message_fts MATCH 'custom_emoji'") == [(0,)]
    assert rows(data, "SELECT count(*) FROM artifact") == [(0,)]

    again = import_path(data, tmp_path / "result.json")
    assert again.sources[0].status == "unchanged" and again.messages_added == 0

    later = [{"type": "emoji", "count": 3, "emoji": THUMBS_UP, "recent": [{"from": "Carol"}, {"from": "Boris"}]}]
    (tmp_path / "later").mkdir()
    export = telegram_chat(tmp_path / "later" / "result.json", later)
    assert import_path(data, export).messages_added == 0  # the same messages: nothing new
    assert json.loads(rows(data, "SELECT meta FROM message WHERE external_id = '1'")[0][0]) == {
        "reactions": [{"emoji": THUMBS_UP, "by": ["Carol", "Boris"], "count": 3}]}


def test_chatgpt_keeps_the_model_slug_as_meta_and_counts_its_hidden_nodes(tmp_path: Path) -> None:
    def node(node_id: str, role: str, text: str, parent: str | None, **extra) -> dict:
        body = {"id": node_id, "author": {"role": role, "metadata": {}}, "create_time": 1_700_000_000.0,
                "content": {"content_type": "text", "parts": [text]}, "metadata": extra.pop("metadata", {}), **extra}
        return {"id": node_id, "message": body, "parent": parent, "children": []}

    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["s"]},
               "s": node("s", "system", "", "root"),  # the empty system prompt
               "i": node("i", "user", "be brief", "s", metadata={"is_visually_hidden_from_conversation": True}),
               "u": node("u", "user", "what is a tarn?", "i"),
               "a": node("a", "assistant", "A mountain lake.", "u", metadata={"model_slug": "gpt-4o"})}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([{"id": "c1", "title": "Lakes", "create_time": 1_700_000_000.0,
                                 "mapping": mapping, "current_node": "a"}]), encoding="utf-8")
    data = tmp_path / "store"
    report = import_path(data, path)
    assert rows(data, "SELECT author, meta FROM message ORDER BY id") == [
        ("User", None), ("ChatGPT", '{"model": "gpt-4o"}')]  # the answer stays ChatGPT's
    source = report.sources[0]
    assert source.entries_skipped == {"hidden": 2}
    assert msg("import.skipped.hidden", count=2) in source.skipped_messages()


def test_telegram_unsupported_entries_are_counted_in_process_and_in_the_parse_child(tmp_path: Path) -> None:
    path = telegram_chat(tmp_path / "result.json", [])
    report = import_path(tmp_path / "store", path)
    assert report.sources[0].entries_skipped == {"unsupported": 1}
    notes = [render(note, "en") for note in report.sources[0].skipped_messages()]
    assert any("1 entry the app could not export" in note for note in notes)
    # a big file's parse child sends the same count back with its result
    sent: list[tuple] = []
    result = parse_child._parse(sent.append, ExportInput(path, path.name), "telegram", 1, IdState().as_tuple(),
                                {}, {})
    assert result[3] == {"unsupported": 1}


def test_progress_says_which_file_of_how_many(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    telegram_chat(folder / "a.json", [])
    telegram_chat(folder / "b.json", [{"type": "emoji", "count": 1, "emoji": THUMBS_UP}])  # another file
    seen: list[ImportProgress] = []
    import_path(tmp_path / "store", folder, on_progress=seen.append)
    assert {(p.source, p.file_number, p.files) for p in seen} == {("exports/a.json", 1, 2), ("exports/b.json", 2, 2)}
    assert render(msg("import.progress.file_of", number=2, count=5), "ru") == "файл 2 из 5"


def test_files_that_hold_no_chat_are_counted_not_listed(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    telegram_chat(folder / "result.json", [])
    (folder / "README.md").write_text("# My exports\n", encoding="utf-8")
    (folder / "LICENSE.txt").write_text("CC0\n", encoding="utf-8")
    (folder / "integration_logs.json").write_text('{"logs": []}', encoding="utf-8")
    (folder / "notes.txt").write_text("a shopping list\n", encoding="utf-8")  # no chat, but not known as such
    report = import_path(tmp_path / "store", folder)
    assert report.skipped == ["exports/notes.txt"]
    assert sorted(report.aside) == ["exports/LICENSE.txt", "exports/README.md", "exports/integration_logs.json"]


def test_the_migration_moves_older_stores_reaction_attachments_into_meta(tmp_path: Path) -> None:
    """A store made before schema 8 kept a message's reactions as an artifact row named by their
    summary; opening it moves them to `meta` and drops the rows (and their vectors: they were
    searched as files)."""
    data = tmp_path / "store"
    import_path(data, SAMPLES / "discord")
    expected = dict(rows(data, "SELECT id, meta FROM message WHERE meta IS NOT NULL"))
    assert expected
    conn = sqlite3.connect(db_path(data))
    with conn:  # what the importers of schema 6 wrote: the summary as an artifact row, no meta column
        for message_id, meta in expected.items():
            parts = []
            for reaction in json.loads(meta)["reactions"]:
                parts.append(f"{reaction['emoji']} {', '.join(reaction['by'])}" if reaction["by"]
                             else f"{reaction['emoji']} {reaction['count']}")
            cursor = conn.execute("INSERT INTO artifact (message_id, kind, file_name, mime) VALUES (?, 'other', ?, ?)",
                                  (message_id, " \u00b7 ".join(parts), "text/x-flashback-reactions"))
            conn.execute("INSERT INTO vector_item (kind, entity_id, chunk, model_id, text_hash) "
                         "VALUES ('artifact', ?, 0, 'm', 'h')", (cursor.lastrowid,))
        conn.execute("ALTER TABLE message DROP COLUMN meta")
        conn.execute("PRAGMA user_version = 6")
    conn.close()
    open_store(data)
    assert rows(data, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert dict(rows(data, "SELECT id, meta FROM message WHERE meta IS NOT NULL")) == expected
    assert rows(data, "SELECT count(*) FROM artifact WHERE mime = 'text/x-flashback-reactions'") == [(0,)]
    assert rows(data, "SELECT count(*) FROM vector_item WHERE kind = 'artifact'") == [(0,)]


def test_signal_desktops_own_export_is_named_not_called_no_export(tmp_path: Path) -> None:
    """Signal Desktop's "Export chat history" (since v7.82) writes signal-export-<time>/main.jsonl:
    not read (its layout is documented nowhere), but said so, with what reads those chats."""
    folder = tmp_path / "signal-export-2026-01-01-10-00-00"
    folder.mkdir()
    (folder / "main.jsonl").write_text('{"version":"1","backupTimeMs":"1767261600000"}\n'
                                       '{"recipient":{"id":"1","self":{}}}\n', encoding="utf-8")
    (folder / "metadata.json").write_text('{"version":1}', encoding="utf-8")
    with pytest.raises(UnknownFormatError) as raised:
        import_path(tmp_path / "store", folder)
    assert "Signal Desktop's own export" in render(raised.value.message, "en")
