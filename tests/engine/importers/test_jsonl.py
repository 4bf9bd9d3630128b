"""Flashback's JSONL format."""

from __future__ import annotations

import json

import pytest

from engine.errors import ImportFormatError
from engine.importers.inputs import ExportInput
from engine.importers.jsonl import JsonlImporter
from engine.importers.records import ChatRecord, MessageRecord


def parse(path):
    return list(JsonlImporter().parse(ExportInput(path, path.name), lambda done: None))


def write_lines(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    return path


ROW = {"chat": "Team", "id": "1", "author": "Anna", "date": "2024-05-01T10:00:00+02:00", "text": "Привет"}


def test_full_row_with_optional_fields(tmp_path):
    rows = [ROW, {**ROW, "id": "2", "role": "user", "reply_to": "1", "date": "2024-05-01T08:05:00Z",
                  "attachments": [{"kind": "photo", "name": "a.jpg"}, {"kind": "weird", "name": "b.zzq"}]},
            {**ROW, "chat": "Other", "id": "1"}]
    records = parse(write_lines(tmp_path / "m.jsonl", rows))
    chats = [r for r in records if isinstance(r, ChatRecord)]
    msgs = [r for r in records if isinstance(r, MessageRecord)]
    assert [c.key for c in chats] == ["jsonl:Team", "jsonl:Other"]
    assert msgs[0].sent_at == 1714550400.0 and msgs[1].sent_at == 1714550700.0
    assert msgs[1].role == "user" and msgs[1].reply_to == "1"
    assert [(a.kind, a.file_name, a.mime) for a in msgs[1].attachments] == [
        ("photo", "a.jpg", "image/jpeg"), ("other", "b.zzq", None)]


@pytest.mark.parametrize(("line", "problem"), [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "JSON object"),
    (json.dumps({**ROW, "date": "yesterday"}), "ISO 8601"),
    (json.dumps({k: v for k, v in ROW.items() if k != "author"}), "no author"),
    (json.dumps({**ROW, "role": "boss"}), "role must be"),
])
def test_bad_line_names_the_line(tmp_path, line, problem):
    path = write_lines(tmp_path / "m.jsonl", [ROW, {**ROW, "id": "2"}, line])
    with pytest.raises(ImportFormatError) as info:
        parse(path)
    assert problem in str(info.value) and info.value.where == "line 3"
    # issue 22: the problem and the place are codes, so the Russian window says both in Russian
    russian = info.value.render("ru")
    assert russian.startswith("Не удалось импортировать m.jsonl (строка 3): ") and "line" not in russian


def test_sniff():
    assert JsonlImporter.sniff(json.dumps(ROW).encode() + b"\n")
    assert not JsonlImporter.sniff(b'{"messages": []}')
    assert not JsonlImporter.sniff(b"01/01/19, 11:25 - John: hi\n")
