"""Chat and date filters hold for people and files too, and assistants are no people (issue 23).

Before: stage 1 took people and files from their index whatever the filters, so a person
with no message in the chosen chat or days was shown (and handed to Flash), and ChatGPT's
"ChatGPT" matched every question. A real store: JSONL and ChatGPT exports imported and built."""

from __future__ import annotations

import json

import pytest

from engine.api import EmptyDateRange, Flashback, RetrievalSettings, day_bounds
from engine.store.database import connect, db_path

TOPIC = "the hotel booking in Lisbon near the river, breakfast included"


def _row(chat: str, ident: int, author: str, day: str, text: str, **extra) -> dict:
    return {"chat": chat, "id": str(ident), "author": author, "date": f"{day}T10:{ident % 60:02d}:00", "text": text,
            **extra}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Flashback, dict[str, int]]:
    work = tmp_path_factory.mktemp("filters")
    rows = [_row("Alpha", 1, "Anna", "2024-03-01", f"{TOPIC}; Anna booked it"),
            _row("Alpha", 2, "Anna", "2024-03-01", "Lisbon hotel booking confirmed, breakfast too",
                 attachments=[{"kind": "photo", "name": "lisbon-hotel.jpg"}]),
            _row("Beta", 3, "Boris", "2023-06-01", f"{TOPIC}; Boris booked it"),
            _row("Beta", 4, "Boris", "2023-06-01", "Lisbon hotel booking paid, breakfast included",
                 attachments=[{"kind": "photo", "name": "lisbon-river-hotel.jpg"}]),
            _row("Gamma", 5, "Helper", "2024-03-02", f"{TOPIC}: here is what I found", role="assistant"),
            _row("Gamma", 6, "Vera", "2024-03-02", "thanks, the Lisbon hotel booking looks good")]
    export = work / "chats.jsonl"
    export.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    service = Flashback(work / "store")
    service.imports.import_path(export)
    conversation = {"title": "Lisbon", "create_time": 1709280000.0, "update_time": 1709280100.0, "id": "c1",
                    "current_node": "a1", "mapping": {
                        "root": {"id": "root", "message": None, "parent": None, "children": ["u1"]},
                        "u1": {"id": "u1", "parent": "root", "children": ["a1"], "message": {
                            "id": "u1", "author": {"role": "user"}, "create_time": 1709280000.0,
                            "content": {"content_type": "text", "parts": ["find a Lisbon hotel booking"]}}},
                        "a1": {"id": "a1", "parent": "u1", "children": [], "message": {
                            "id": "a1", "author": {"role": "assistant"}, "create_time": 1709280050.0,
                            "content": {"content_type": "text", "parts": [f"{TOPIC}: three options"]}}}}}
    chatgpt = work / "conversations.json"
    chatgpt.write_text(json.dumps([conversation]), encoding="utf-8")
    service.imports.import_path(chatgpt)
    service.memory.build()
    connection = connect(db_path(service.data_dir))
    chats = dict(connection.execute("SELECT title, id FROM chat"))
    connection.close()
    return service, chats


def _people(stage1) -> set[str]:
    return {c.summary.removesuffix(" (you)") for c in stage1.candidates if c.kind == "person"}


def _files(stage1) -> set[str]:
    return {c.summary.split(" | ")[0] for c in stage1.candidates if c.kind == "artifact"}


def test_without_filters_people_and_files_of_every_chat_are_candidates(store):
    service, _ = store
    stage1 = service.search.candidates("Lisbon hotel booking", RetrievalSettings(safety_threshold=0.0))
    assert {"Anna", "Boris", "Vera"} <= _people(stage1)
    assert len(_files(stage1)) == 2


def test_a_chat_filter_keeps_only_its_people_and_files(store):
    service, chats = store
    stage1 = service.search.candidates("Lisbon hotel booking",
                                   RetrievalSettings(safety_threshold=0.0, chat_ids=(chats["Alpha"],)))
    assert _people(stage1) == {"Anna"}
    assert _files(stage1) == {"photo: lisbon-hotel.jpg"}
    assert {c.chat for c in stage1.candidates if c.kind == "topic"} == {"Alpha"}


def test_a_date_filter_keeps_only_people_who_wrote_then(store):
    service, _ = store
    since, until = day_bounds("2023-01-01", "2023-12-31")
    stage1 = service.search.candidates("Lisbon hotel booking",
                                   RetrievalSettings(safety_threshold=0.0, date_from=since, date_to=until))
    assert _people(stage1) == {"Boris"}
    assert _files(stage1) == {"photo: lisbon-river-hotel.jpg"}


def test_assistants_are_never_people_candidates(store):
    service, _ = store
    stage1 = service.search.candidates(TOPIC, RetrievalSettings(safety_threshold=0.0))
    names = _people(stage1)
    assert "ChatGPT" not in names and "Helper" not in names  # ChatGPT's and a JSONL "role": "assistant"
    # The person who asked ChatGPT is the owner: in nearly every topic, so no candidate by what
    # they said (issue 33); what is known of them reaches the rerankers as the profile.
    assert "User" not in names
    connection = connect(db_path(service.data_dir))
    try:  # and they have no profile vector after a build: nothing to match any question with
        keys = {key for (key,) in connection.execute(
            "SELECT p.key FROM vector_item v JOIN person p ON p.id = v.entity_id WHERE v.kind = 'person'")}
    finally:
        connection.close()
    assert "chatgpt:assistant" not in keys and "jsonl:name:Helper" not in keys and "jsonl:name:Anna" in keys


def test_a_date_range_that_ends_before_it_starts_is_refused(store):
    service, _ = store
    since, until = day_bounds("2024-05-01", "2024-04-01")
    with pytest.raises(EmptyDateRange) as raised:
        service.search.candidates("Lisbon", RetrievalSettings(date_from=since, date_to=until))
    assert str(raised.value) == ("The date range is empty: 2024-05-01 comes after 2024-04-01; choose a first day on "
                                 "or before the last one.")


def test_the_same_day_is_a_range(store):
    service, _ = store
    since, until = day_bounds("2024-03-01", "2024-03-01")
    stage1 = service.search.candidates("Lisbon hotel booking",
                                   RetrievalSettings(safety_threshold=0.0, date_from=since, date_to=until))
    assert _people(stage1) == {"Anna"}  # ChatGPT's conversation is of 2024-03-01 too, its "User" is the owner
