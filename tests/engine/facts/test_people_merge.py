"""One person across chats and formats, where the user confirms it (issue 33, item 2), and the
bio rebuilt from a person's facts: real imports (JSONL and a WhatsApp text export) into a real
SQLite store, changed through `engine.api` as the faces change it."""

from __future__ import annotations

import json

import pytest

from engine.api import CannotMerge, Flashback
from engine.facts import store as facts
from engine.facts.people import BIO_CHARS, fold
from engine.importers.runner import import_path
from tests.engine.facts.conftest import BASE, conversation


@pytest.fixture
def two_bobs(store, tmp_path):
    """Alice (the owner) talks with "Bob" in a JSONL chat and with "bob 🤓" on WhatsApp: two rows."""
    store.add(conversation("Bob", BASE, [
        ("Alice", "I started a new job as a nurse"),
        ("Bob", "Congrats! I am a carpenter in Porto by the way"),
        ("Bob", "And I play the cello on weekends"),
    ], role_of={"Alice": "user"}))
    whatsapp = tmp_path / "WhatsApp Chat with bob.txt"
    whatsapp.write_text("1/5/24, 10:00 - Alice: lunch?\n1/5/24, 10:01 - bob 🤓: yes, at noon\n", encoding="utf-8")
    import_path(store.data, whatsapp)
    return store


def _people(store, name_like: str) -> list[int]:
    return [r[0] for r in store.rows("SELECT id FROM person WHERE display_name LIKE ? ORDER BY id", name_like)]


def test_folded_names_ignore_case_emoji_and_yo():
    assert fold("bob 🤓") == fold("  BOB ") == "bob"
    assert fold("Алёна") == fold("алена")


def test_the_same_name_in_two_formats_is_suggested_and_merged_in_one_step(two_bobs):
    service = Flashback(two_bobs.data)
    jsonl_bob, whatsapp_bob = _people(two_bobs, "%bob%")
    conn = two_bobs.connection
    ids = two_bobs.message_ids("Bob")
    cello = facts.add_fact(conn, "Plays the cello on weekends", person_id=whatsapp_bob, kind="about_other",
                           message_ids=[ids[2]], origin="model")
    [pair] = service.people.same_person()
    assert (pair.kept.id, pair.other.id, pair.name) == (jsonl_bob, whatsapp_bob, "bob")
    assert pair.kept.messages == 2 and pair.other.messages == 1 and pair.other.facts == 1
    assert service.people.same_person(jsonl_bob) == [pair]

    report, changes = service.people.merge(pair.kept.id, pair.other.id)

    assert (report.messages, report.facts) == (1, 1) and changes.messages
    assert two_bobs.scalar("SELECT count(*) FROM message WHERE person_id = ?", whatsapp_bob) == 0
    assert two_bobs.scalar("SELECT message_count FROM person WHERE id = ?", jsonl_bob) == 3
    assert json.loads(two_bobs.scalar("SELECT aliases FROM person WHERE id = ?", jsonl_bob)) == ["bob 🤓"]
    moved = service.facts.get(cello)
    assert moved.person_id == jsonl_bob and moved.message_ids == (ids[2],)  # provenance moves with it
    assert [c.action for c in service.facts.history(cello)] == ["add", "merge"]
    assert two_bobs.rows("SELECT kept_id, merged_id, merged_name FROM person_merge") == [
        (jsonl_bob, whatsapp_bob, "bob 🤓")]
    assert [p.name for p in service.people.everyone() if "ob" in p.name.lower()] == ["Bob"]
    assert service.people.same_person() == []


def test_a_longer_re_export_brings_the_merged_persons_new_messages_to_the_kept_one(two_bobs, tmp_path):
    """After "bob 🤓" (WhatsApp) was merged into Bob, a longer WhatsApp export must not make
    "bob 🤓" a person of his own again: his new messages belong to the Bob he became."""
    service = Flashback(two_bobs.data)
    [pair] = service.people.same_person()
    service.people.merge(pair.kept.id, pair.other.id)
    longer = tmp_path / "again" / "WhatsApp Chat with bob.txt"
    longer.parent.mkdir()
    longer.write_text("1/5/24, 10:00 - Alice: lunch?\n1/5/24, 10:01 - bob 🤓: yes, at noon\n"
                      "1/6/24, 09:00 - bob 🤓: the cello concert is on Friday\n", encoding="utf-8")
    import_path(two_bobs.data, longer)
    concert = two_bobs.scalar("SELECT person_id FROM message WHERE text LIKE '%cello concert%'")
    assert concert == pair.kept.id
    assert two_bobs.scalar("SELECT count(*) FROM message WHERE person_id = ?", pair.other.id) == 0
    assert [p.name for p in Flashback(two_bobs.data).people.everyone() if "ob" in p.name.lower()] == ["Bob"]
    assert two_bobs.scalar("SELECT message_count FROM person WHERE id = ?", pair.kept.id) == 4


def test_not_the_same_is_remembered(two_bobs):
    service = Flashback(two_bobs.data)
    [pair] = service.people.same_person()
    service.people.not_same(pair.other.id, pair.kept.id)
    assert service.people.same_person() == []
    assert Flashback(two_bobs.data).people.same_person() == []  # kept in the store, not in the window


def test_a_failed_merge_changes_nothing(two_bobs):
    service = Flashback(two_bobs.data)
    owner = two_bobs.scalar("SELECT id FROM person WHERE is_self = 1")
    bob = _people(two_bobs, "Bob")[0]
    before = two_bobs.rows("SELECT id, person_id FROM message ORDER BY id")
    with pytest.raises(CannotMerge):
        service.people.merge(bob, owner)
    with pytest.raises(CannotMerge):
        service.people.merge(bob, bob)
    assert two_bobs.rows("SELECT id, person_id FROM message ORDER BY id") == before
    assert two_bobs.scalar("SELECT count(*) FROM person_merge") == 0


def test_the_bio_is_rebuilt_from_facts_pinned_and_important_first(two_bobs):
    service = Flashback(two_bobs.data)
    bob = _people(two_bobs, "Bob")[0]
    ids = two_bobs.message_ids("Bob")
    cello = service.facts.add("Plays the cello on weekends", person_id=bob, kind="about_other", importance=2,
                              message_ids=[ids[2]])
    service.facts.add("Is a carpenter in Porto", person_id=bob, kind="about_other", importance=5,
                      message_ids=[ids[1]])
    bio = two_bobs.scalar("SELECT bio FROM person WHERE id = ?", bob)
    assert bio == "Is a carpenter in Porto; Plays the cello on weekends."
    service.facts.pin(cello.id)
    assert two_bobs.scalar("SELECT bio FROM person WHERE id = ?", bob).startswith("Plays the cello")
    service.facts.add("Knows " + "a great many things " * 30, person_id=bob, kind="about_other", importance=1)
    assert len(two_bobs.scalar("SELECT bio FROM person WHERE id = ?", bob)) <= BIO_CHARS
    service.facts.delete(cello.id)
    assert "cello" not in two_bobs.scalar("SELECT bio FROM person WHERE id = ?", bob)


def test_the_persons_own_bio_outranks_the_facts_and_the_model(two_bobs):
    service = Flashback(two_bobs.data)
    bob = _people(two_bobs, "Bob")[0]
    service.facts.set_person(bob, bio="My neighbour from Porto")
    service.facts.add("Is a carpenter in Porto", person_id=bob, kind="about_other", importance=5)
    facts.set_person(two_bobs.connection, bob, bio="A model's guess")  # as an extraction writes it
    assert two_bobs.scalar("SELECT bio FROM person WHERE id = ?", bob) == "My neighbour from Porto"
    service.facts.set_person(bob, bio="")  # cleared: the facts speak again
    assert two_bobs.scalar("SELECT bio FROM person WHERE id = ?", bob) == "Is a carpenter in Porto."
