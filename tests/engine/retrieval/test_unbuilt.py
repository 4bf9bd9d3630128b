"""Issue 26: a search never waits for a build. Messages imported since the last build are
found by their words (message_fts) as candidates of kind "message", with a note saying how
many were searched that way; the next build makes them topics and the note goes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import resources
from engine.api import Flashback
from engine.retrieval.search import RetrievalSettings
from engine.retrieval.unbuilt import first_unbuilt
from engine.store.database import connect, db_path

LATER = [
    ("Harbour", "Anna", "2025-03-01T09:00:00", "The Zanzibar ferries leave at dawn from the old harbour"),
    ("Harbour", "Boris", "2025-03-01T09:05:00", "Then we book the Zanzibar ferry for Tuesday"),
    ("Harbour", "Anna", "2025-03-01T09:06:00", "Fine, and lunch at the market after"),
    ("Garden", "Olga", "2025-03-02T18:00:00", "Zanzibar spices for the garden party"),
]


def _later_export(folder: Path) -> Path:
    path = folder / "later.jsonl"
    path.write_text("\n".join(json.dumps({"chat": chat, "id": str(n), "author": author, "date": date, "text": text})
                              for n, (chat, author, date, text) in enumerate(LATER, 1)) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built_demo(tmp_path_factory) -> Path:
    data_dir = tmp_path_factory.mktemp("store")
    service = Flashback(data_dir)
    service.imports.import_path(resources.demo_export())
    service.memory.build()
    return data_dir


@pytest.fixture
def with_later(built_demo, tmp_path) -> Flashback:
    """The built demo, then a later import nobody built yet."""
    data_dir = tmp_path / "store"
    shutil.copytree(built_demo, data_dir)
    service = Flashback(data_dir)
    service.imports.import_path(_later_export(tmp_path))
    return service


def test_unbuilt_messages_are_found_by_their_words_and_the_search_says_so(with_later):
    stage1 = with_later.search.candidates("zanzibar ferry")
    found = [c for c in stage1.candidates if c.kind == "message"]
    assert [c.summary.split(":")[0] for c in found[:2]] == ["Boris", "Anna"]  # both words before one of them
    assert all("Zanzibar" in c.summary for c in found) and found[0].score > found[-1].score
    assert found[0].chat == "Harbour" and found[0].date == "2025-03-01"
    note = stage1.rebuilt["unbuilt"]
    assert (note.code, note.params["count"], note.params["found"]) == ("search.unbuilt", 4, len(found))
    assert "flashback build" in str(note)


def test_filters_hold_for_unbuilt_messages(with_later):
    chats = {chat.name: chat.id for chat in with_later.browse.chats()}
    stage1 = with_later.search.candidates("zanzibar", RetrievalSettings(chat_ids=(chats["Garden"],)))
    assert [c.summary for c in stage1.candidates if c.kind == "message"] == [
        "Olga: Zanzibar spices for the garden party"]


def test_a_build_makes_them_topics_and_the_note_goes(with_later):
    with_later.memory.build()
    stage1 = with_later.search.candidates("zanzibar ferry")
    assert not [c for c in stage1.candidates if c.kind == "message"]
    assert "unbuilt" not in stage1.rebuilt
    assert any(c.kind == "topic" and "Zanzibar" in c.summary for c in stage1.candidates)


def test_the_first_unbuilt_message_is_found_whatever_the_store(with_later):
    connection = connect(db_path(with_later.data_dir))
    try:
        expected = connection.execute("SELECT min(id) FROM message WHERE topic_id IS NULL AND is_service = 0 "
                                      "AND id > (SELECT max(id) FROM message WHERE topic_id IS NOT NULL)").fetchone()[0]
        assert first_unbuilt(connection) == expected
        assert with_later.memory.status().unbuilt == len(LATER)
    finally:
        connection.close()
    with_later.memory.build()
    connection = connect(db_path(with_later.data_dir))
    try:
        assert first_unbuilt(connection) is None
    finally:
        connection.close()
