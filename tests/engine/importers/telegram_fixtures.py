"""Hand-written Telegram Desktop exports for tests (shapes from shared/data/exports/FORMATS.md)."""

from __future__ import annotations

import json
from pathlib import Path

PLACEHOLDER = "(File not included. Change data exporting settings to download.)"


def message(ident: int, text: object = "hello", ts: int = 1_700_000_000, sender: str = "Anna",
            sender_id: str = "user2", **extra: object) -> dict:
    body = {"id": ident, "type": "message", "date": "2023-11-14T22:13:20", "date_unixtime": str(ts + ident),
            "from": sender, "from_id": sender_id, "text": text, "text_entities": []}
    body.update(extra)
    return body


def account_export(chats: list[dict], left: list[dict] | None = None, self_id: int = 1) -> dict:
    return {
        "about": "Here is the data you requested.",
        "personal_information": {"user_id": self_id, "first_name": "Me"},
        "contacts": {"about": "", "list": [{"first_name": "Anna", "phone_number": "+1"}]},
        "chats": {"about": "", "list": chats},
        "left_chats": {"about": "", "list": left or []},
    }


def chat(name: str | None, chat_id: int, messages: list[dict], chat_type: str = "private_group") -> dict:
    body: dict = {} if chat_type == "saved_messages" else {"name": name}
    body.update({"type": chat_type, "id": chat_id, "messages": messages})
    return body


def write(path: Path, data: object, indent: int | None = 1) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=indent), encoding="utf-8")
    return path
