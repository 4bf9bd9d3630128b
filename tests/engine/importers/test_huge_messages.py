"""One huge message in any format: stored cut (head kept, marked, counted), parsed in memory
that does not follow its size; a zip bomb refused with one sentence.

Peak memory is Python's own allocations while a parser runs (tracemalloc): without the
caps, a 50 MB message costs at least 50 MB there (the string itself), several times that in
copies; with them a few MB. Whole-process figures are in `bench/big_message.py`.
"""

from __future__ import annotations

import json
import sqlite3
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from engine.errors import ImportFormatError
from engine.importers.inputs import ExportInput
from engine.importers.records import CUT_MARK, MAX_MESSAGE_CHARS
from engine.importers.registry import importer_classes
from engine.importers.runner import detect_format, import_path
from engine.store.database import db_path

HUGE_MB = 50
UNIT = "Pasted log line: Lisbon, passport, \"quoted\" \\ slash, Постгрес и ёлка. "
HUGE = UNIT * (HUGE_MB * 1024 * 1024 // len(UNIT.encode()))
PARSE_PEAK_LIMIT = 16 * 1024 * 1024  # bytes; the huge text alone is over 50 MB


def _jsonl(path: Path) -> Path:
    rows = [{"chat": "Team", "id": "1", "author": "Anna", "date": "2025-05-01T10:00:00+00:00", "text": "before"},
            {"chat": "Team", "id": "2", "author": "Bob", "date": "2025-05-01T10:01:00+00:00", "text": HUGE},
            {"chat": "Team", "id": "3", "author": "Anna", "date": "2025-05-01T10:02:00+00:00", "text": "after"}]
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def _telegram(path: Path) -> Path:
    messages = [{"id": i, "type": "message", "date": f"2025-05-01T10:0{i}:00", "date_unixtime": str(1746093600 + i),
                 "from": "Anna", "from_id": "user1", "text": text}
                for i, text in enumerate(("before", [{"type": "bold", "text": "Log:"}, HUGE], "after"), 1)]
    path.write_text(json.dumps({"name": "Team", "type": "personal_chat", "id": 77, "messages": messages},
                               ensure_ascii=True), encoding="utf-8")  # \uXXXX escapes: the window cuts inside them
    return path


def _chatgpt(path: Path) -> Path:
    def node(key, parent, role, text, children):
        return {"id": key, "parent": parent, "children": children, "message": {
            "id": key, "author": {"role": role}, "create_time": 1746093600.0 + len(key),
            "content": {"content_type": "text", "parts": [text]}}}
    mapping = {"a": node("a", None, "user", "Summarise this log", ["b"]), "b": node("b", "a", "user", HUGE, ["c"]),
               "c": node("c", "b", "assistant", "after", [])}
    path.write_text(json.dumps([{"title": "Log help", "id": "conv-1", "create_time": 1746093600.0,
                                 "current_node": "c", "mapping": mapping}], ensure_ascii=False), encoding="utf-8")
    return path


def _whatsapp(path: Path) -> Path:
    path.write_text(f"01/05/2025, 10:00 - Anna: before\n01/05/2025, 10:01 - Bob: {HUGE}\n"
                    f"01/05/2025, 10:02 - Anna: after\n", encoding="utf-8")
    return path


WRITERS = {"jsonl": _jsonl, "telegram": _telegram, "chatgpt": _chatgpt, "whatsapp": _whatsapp}


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("huge")
    return {name: write(folder / f"{name}.export") for name, write in WRITERS.items()}


@pytest.mark.parametrize("format_name", list(WRITERS))
def test_a_huge_message_is_parsed_in_memory_that_does_not_follow_its_size(exports, format_name):
    export = ExportInput(exports[format_name], exports[format_name].name)
    importer = importer_classes()[format_name]()
    tracemalloc.start()
    try:
        texts = [record.text for record in importer.parse(export, lambda done: None) if hasattr(record, "text")]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < PARSE_PEAK_LIMIT, f"{format_name}: {peak / 2**20:.0f} MiB for one {HUGE_MB} MB message"
    longest = max(texts, key=len)
    assert len(longest) < 2 * MAX_MESSAGE_CHARS and HUGE[:1000] in longest
    assert texts[-1] == "after"  # what follows the huge message is read as usual


@pytest.mark.parametrize("format_name", list(WRITERS))
def test_the_stored_text_keeps_the_head_marks_the_cut_and_the_import_counts_it(exports, format_name, tmp_path):
    assert detect_format(ExportInput(exports[format_name], exports[format_name].name)) == format_name
    report = import_path(tmp_path / "data", exports[format_name])
    assert report.sources[0].messages_cut == 1
    connection = sqlite3.connect(db_path(tmp_path / "data"))
    stored = [text for (text,) in connection.execute("SELECT text FROM message ORDER BY sent_at")]
    connection.close()
    cut = [text for text in stored if text.endswith(CUT_MARK)]
    assert len(cut) == 1 and len(cut[0]) == MAX_MESSAGE_CHARS + len(CUT_MARK)
    assert UNIT[:40] in cut[0]
    assert "after" in stored[-1]


def test_a_zip_bomb_is_refused_with_one_sentence_and_nothing_changes(tmp_path):
    bomb = tmp_path / "WhatsApp Chat with Anna.zip"
    chunk = b"a" * (1 << 20)
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        info = zipfile.ZipInfo("WhatsApp Chat with Anna.txt")
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as member:
            member.write(b"01/05/2025, 10:00 - Anna: ")
            for _ in range(2048):  # 2 GiB of one message
                member.write(chunk)
    assert bomb.stat().st_size < 8 * 1024 * 1024
    with pytest.raises(ImportFormatError) as refused:
        import_path(tmp_path / "data", bomb)
    message = str(refused.value)
    assert "zip bomb" in message and "2.0 GB" in message and message.count(". ") == 0
    assert not (tmp_path / "data" / "flashback.sqlite3").exists() or _messages(tmp_path / "data") == 0


def _messages(data_dir: Path) -> int:
    connection = sqlite3.connect(db_path(data_dir))
    try:
        return connection.execute("SELECT COUNT(*) FROM message").fetchone()[0]
    finally:
        connection.close()


def test_nested_jsonl_fields_are_stored_as_json_not_a_python_repr(tmp_path):
    export = tmp_path / "notes.jsonl"
    export.write_text(json.dumps({"chat": "Notes", "id": 1, "author": "Me", "date": "2025-05-01T10:00:00+00:00",
                                  "text": {"title": "Plan", "items": ["ёлка", True]}}, ensure_ascii=False) + "\n",
                      encoding="utf-8")
    import_path(tmp_path / "data", export)
    connection = sqlite3.connect(db_path(tmp_path / "data"))
    (text,) = connection.execute("SELECT text FROM message").fetchone()
    connection.close()
    assert json.loads(text) == {"title": "Plan", "items": ["ёлка", True]}
