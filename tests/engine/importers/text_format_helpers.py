"""What the Signal, iMessage and LINE tests share: their samples, a real store's contents, and
every other format's samples for the sniffers to refuse."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import strategies as st

from engine.errors import ImportFormatError
from engine.importers.inputs import ExportInput
from engine.importers.records import ChatRecord, MessageRecord
from engine.importers.registry import guarded, importer_classes
from engine.store.database import db_path

DATA = Path(__file__).resolve().parents[2] / "data"
SIGNAL = DATA / "signal"
IMESSAGE = DATA / "imessage"
LINE = DATA / "line"
OWN_SAMPLES = {  # every sample a sniffer must take; the others must refuse them
    "signal": [SIGNAL / "Anna" / "chat.md", SIGNAL / "Anna" / "data.json"],
    "imessage": sorted(IMESSAGE.glob("*.txt")) + sorted(IMESSAGE.glob("*.html")),
    "line": sorted(LINE.glob("*.txt")),
}


def parse(format_name: str, path: Path, display_name: str | None = None,
          around: tuple[str, ...] = ()) -> tuple[ChatRecord, list[MessageRecord]]:
    importer = importer_classes()[format_name]()
    records = list(importer.parse(ExportInput(path, display_name or path.name, around), lambda done: None))
    chat = records[0]
    messages = [record for record in records[1:] if isinstance(record, MessageRecord)]
    assert isinstance(chat, ChatRecord) and len(messages) == len(records) - 1
    assert all(message.chat_key == chat.key for message in messages)
    return chat, messages


def stored(data: Path) -> list[tuple[str, str | None, str, bool]]:
    """(chat title, author, text, is_service) of every stored message, in time order."""
    connection = sqlite3.connect(db_path(data))
    try:
        return connection.execute(
            "SELECT c.title, m.author, m.text, m.is_service FROM message m JOIN chat c ON c.id = m.chat_id "
            "ORDER BY m.sent_at, m.id").fetchall()
    finally:
        connection.close()


def owner_names(data: Path) -> set[str]:
    connection = sqlite3.connect(db_path(data))
    try:
        return {row[0] for row in connection.execute("SELECT display_name FROM person WHERE is_self = 1")}
    finally:
        connection.close()


def foreign_samples(exports_dir: Path, own: str) -> list[Path]:
    """Every sample of every other format: in tests/data and the shared exports."""
    found = [path for name, paths in OWN_SAMPLES.items() if name != own for path in paths]
    found += [path for path in sorted(exports_dir.rglob("*")) if path.is_file() and path.suffix != ".md"]
    found += [path for path in sorted(DATA.glob("*.jsonl"))]
    return found


def parses_or_refuses(format_name: str, folder: Path, data: bytes) -> None:
    """A damaged file parses, or fails as an ImportFormatError (never as a parser bug)."""
    path = folder / "chat.txt"
    path.write_bytes(data)
    importer = importer_classes()[format_name]()
    try:
        for _ in guarded(importer, ExportInput(path, path.name), lambda done: None):
            pass
    except ImportFormatError:
        pass


def mutated(data: bytes, edits: list[tuple[str, int, bytes]]) -> bytes:
    changed = bytearray(data)
    for action, position, chunk in edits:
        at = position % (len(changed) + 1)
        if action == "insert":
            changed[at:at] = chunk
        elif action == "delete":
            del changed[at: at + len(chunk)]
        else:
            changed[at: at + len(chunk)] = chunk
    return bytes(changed)


EDITS = st.lists(st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 10_000),
                           st.binary(min_size=1, max_size=4)), min_size=1, max_size=8)
