"""Stores for topic tests: a JSONL export imported by the real import service."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.importers.runner import import_path
from engine.store.database import connect, db_path

BASE = datetime(2024, 5, 1, 9, 0, tzinfo=UTC).timestamp()


def line(chat: str, ident: int | str, author: str, at: float, text: str, role: str = "other") -> dict:
    """One Flashback JSONL message; `at` is UTC epoch seconds."""
    return {"chat": chat, "id": str(ident), "author": author, "role": role,
            "date": datetime.fromtimestamp(at, UTC).isoformat(), "text": text}


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


class Store:
    """A data dir plus an autocommit connection to it (what the lead's service passes in)."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.data = root / "store"
        self.root = root
        self._files = 0
        self.connection = None

    def add(self, rows: list[dict]):
        self._files += 1
        report = import_path(self.data, write_jsonl(self.root / f"export{self._files}.jsonl", rows))
        if self.connection is None:
            self.connection = connect(db_path(self.data))
        return report

    def scalar(self, sql: str, *params):
        return self.connection.execute(sql, params).fetchone()[0]

    def rows(self, sql: str, *params) -> list[tuple]:
        return self.connection.execute(sql, params).fetchall()

    def message_ids(self, chat: str) -> list[int]:
        return [row[0] for row in self.rows(
            "SELECT m.id FROM message m JOIN chat c ON c.id = m.chat_id WHERE c.title = ? ORDER BY m.sent_at, m.id",
            chat)]


@pytest.fixture
def store(tmp_path):
    made = Store(tmp_path)
    yield made
    if made.connection is not None:
        made.connection.close()


def conversation(chat: str, start: float, texts: list[tuple[str, str]], step: float = 60.0,
                 first_id: int = 1, role_of=None) -> list[dict]:
    """Messages `step` seconds apart: [(author, text), …]."""
    return [line(chat, first_id + i, author, start + i * step, text, (role_of or {}).get(author, "other"))
            for i, (author, text) in enumerate(texts)]
