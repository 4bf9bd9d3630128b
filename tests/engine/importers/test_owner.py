"""The account owner is one person across imports (issue 23): Telegram's self, ChatGPT's "User"
and a JSONL "role": "user" merge at import; a WhatsApp export's own name joins them once it is
named (`PeopleService.add_owner_name`, `flashback owner --name`), and later WhatsApp chats
follow; `remove_owner_name` gives the messages back. Real exports, the real import service."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engine.api import Flashback, OwnerNameUnknown
from engine.store.database import db_path
from tests.engine.importers.telegram_fixtures import account_export, chat, message, write


def telegram(tmp_path: Path) -> Path:
    msgs = [message(1, "I booked the hotel", sender="Alice Smith", sender_id="user1"), message(2, "nice"),
            message(3, "see you in Lisbon", sender="Alice Smith", sender_id="user1")]
    return write(tmp_path / "result.json", account_export([chat("Trip", 10, msgs)], self_id=1))


def chatgpt(tmp_path: Path) -> Path:
    def node(ident: str, role: str, text: str, parent: str | None, child: str | None) -> dict:
        body = {"id": ident, "author": {"role": role, "name": None, "metadata": {}}, "create_time": 1700000100.0,
                "content": {"content_type": "text", "parts": [text]}, "status": "finished_successfully",
                "metadata": {}}
        return {"id": ident, "message": body, "parent": parent, "children": [child] if child else []}

    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["u1"]},
               "u1": node("u1", "user", "how do I pack for Lisbon?", "root", "a1"),
               "a1": node("a1", "assistant", "Pack light layers.", "u1", None)}
    conversation = {"title": "Packing", "create_time": 1700000000.0, "update_time": 1700000200.0, "id": "c1",
                    "mapping": mapping, "current_node": "a1"}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([conversation]), encoding="utf-8")
    return path


def whatsapp(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / f"WhatsApp Chat with {name}.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def people(data: Path) -> dict[str, tuple[int, int]]:
    """key → (message count, is_self)."""
    with sqlite3.connect(db_path(data)) as conn:
        return {key: (count, flag) for key, count, flag in conn.execute(
            "SELECT key, message_count, is_self FROM person")}


def test_telegram_chatgpt_and_jsonl_selves_are_one_person(tmp_path):
    data = tmp_path / "store"
    service = Flashback(data)
    service.imports.import_path(chatgpt(tmp_path))  # first: its "User" is not the name to keep
    service.imports.import_path(telegram(tmp_path))
    rows = [{"chat": "Notes", "id": "1", "author": "Alice", "date": "2024-01-01T10:00:00", "text": "pack the charger",
             "role": "user"}]
    jsonl = tmp_path / "notes.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    service.imports.import_path(jsonl)
    found = people(data)
    holding = [key for key, (count, flag) in found.items() if flag and count]
    assert holding == ["telegram:user1"]  # the Telegram account holds the owner's messages
    assert found["telegram:user1"][0] == 2 + 1 + 1  # Telegram 2, ChatGPT's User 1, JSONL 1
    assert found["chatgpt:user"] == (0, 1) and found["jsonl:name:Alice"] == (0, 1)
    owner = service.people.owner()
    assert owner.name == "Alice Smith" and owner.messages == 4 and owner.chats == 3
    assert [a.format for a in owner.aliases] == ["telegram", "chatgpt", "jsonl"]
    assert found["chatgpt:assistant"] == (1, 0)  # the assistant is not you
    listed = [person.name for person in service.browse.people()]
    assert sorted(listed) == ["Alice Smith", "Anna", "ChatGPT"]  # Browse → People: you once

    service.imports.import_path(telegram(tmp_path))  # a re-import changes nothing
    assert people(data) == found


def test_a_whatsapp_name_joins_the_owner_and_later_chats_follow(tmp_path):
    data = tmp_path / "store"
    service = Flashback(data)
    service.imports.import_path(telegram(tmp_path))
    with pytest.raises(OwnerNameUnknown):  # nobody of that name yet: said, nothing changed
        service.people.add_owner_name("Alice")
    bob = whatsapp(tmp_path, "Bob", ["1/5/24, 10:00 - Alice: lunch?", "1/5/24, 10:01 - Bob: yes",
                                     "1/5/24, 10:02 - Alice: at noon"])
    service.imports.import_path(bob)
    assert people(data)["whatsapp:name:Alice"] == (2, 0)  # WhatsApp does not say who exported it

    info, changes = service.people.add_owner_name("Alice")
    assert changes.messages and info.messages == 2 + 2 and people(data)["whatsapp:name:Alice"] == (0, 1)
    carol = whatsapp(tmp_path, "Carol", ["2/5/24, 09:00 - Carol: hi", "2/5/24, 09:05 - Alice: hello Carol"])
    service.imports.import_path(carol)
    assert service.people.owner().messages == 2 + 2 + 1  # the next WhatsApp chat's Alice is you too

    info, _ = service.people.remove_owner_name("Alice")
    assert info.messages == 2 and people(data)["whatsapp:name:Alice"] == (3, 0)
    with sqlite3.connect(db_path(data)) as conn:
        authors = conn.execute("SELECT DISTINCT m.author FROM message m JOIN person p ON p.id = m.person_id "
                               "WHERE p.key = 'whatsapp:name:Alice'").fetchall()
    assert authors == [("Alice",)]


def test_removing_the_name_of_the_row_that_holds_everything_hands_the_rest_on(tmp_path):
    """WhatsApp only, no Telegram: the named WhatsApp row holds the owner's messages; unnaming it
    gives the JSONL self's messages back to the JSONL row."""
    data = tmp_path / "store"
    service = Flashback(data)
    service.imports.import_path(whatsapp(tmp_path, "Bob", ["1/5/24, 10:00 - Alice: lunch?",
                                                           "1/5/24, 10:01 - Bob: yes"]))
    service.people.add_owner_name("Alice")
    rows = [{"chat": "Notes", "id": "1", "author": "Me", "date": "2024-01-01T10:00:00", "text": "a note",
             "role": "user"}]
    jsonl = tmp_path / "notes.jsonl"
    jsonl.write_text(json.dumps(rows[0]), encoding="utf-8")
    service.imports.import_path(jsonl)
    assert service.people.owner().messages == 2
    service.people.remove_owner_name("Alice")
    found = people(data)
    assert found["whatsapp:name:Alice"] == (1, 0) and found["jsonl:name:Me"] == (1, 1)
