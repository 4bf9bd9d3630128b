"""Issue 12, finding 7: a message id already stored with another text was dropped without a
word ("seen 2, added 1"). The first text is kept; the conflict is counted and reported."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from engine.importers.runner import import_path
from engine.store.database import db_path


def _jsonl(path: Path, *lines: tuple[str, str]) -> Path:
    path.write_text("".join(json.dumps({"chat": "Family", "id": message_id, "author": "Anna",
                                        "date": f"2024-05-0{1 + n}T10:00:00+00:00", "text": text}) + "\n"
                            for n, (message_id, text) in enumerate(lines)), encoding="utf-8")
    return path


def _texts(data_dir: Path) -> list[str]:
    with closing(sqlite3.connect(db_path(data_dir))) as connection:
        return [row[0] for row in connection.execute("SELECT text FROM message ORDER BY id")]


def test_an_id_seen_twice_with_another_text_in_one_file_is_counted(tmp_path):
    export = _jsonl(tmp_path / "chat.jsonl", ("1", "first words"), ("1", "other words"), ("2", "more"))
    source = import_path(tmp_path / "data", export).sources[0]
    assert (source.messages_seen, source.messages_added, source.messages_conflicting) == (3, 2, 1)
    assert _texts(tmp_path / "data") == ["first words", "more"]


def test_a_later_export_changing_a_stored_text_is_counted_and_a_plain_repeat_is_not(tmp_path):
    data_dir = tmp_path / "data"
    import_path(data_dir, _jsonl(tmp_path / "a.jsonl", ("1", "first words"), ("2", "more")))
    again = import_path(data_dir, _jsonl(tmp_path / "b.jsonl", ("1", "edited words"), ("2", "more"), ("3", "new")))
    source = again.sources[0]
    assert (source.messages_added, source.messages_conflicting) == (1, 1)  # "2" is the same message: no conflict
    assert _texts(data_dir) == ["first words", "more", "new"]
