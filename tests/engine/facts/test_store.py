"""The Archivist's schema and read API: facts with their messages, the owner's profile, the
person's edits outranking the model's, and a history of every change."""

from __future__ import annotations

import sqlite3

import pytest

from engine.api import Flashback, Profile
from engine.facts import store as facts
from engine.store.database import SCHEMA_VERSION, connect, db_path


def _person(store, name: str) -> int:
    return store.scalar("SELECT id FROM person WHERE display_name = ?", name)


def test_schema_has_the_fact_tables_and_person_columns(chatted):
    assert chatted.scalar("PRAGMA user_version") == SCHEMA_VERSION
    person = {row[1] for row in chatted.rows("PRAGMA table_info(person)")}
    assert {"aliases", "circle", "bio"} <= person
    assert chatted.scalar("SELECT aliases FROM person LIMIT 1") == "[]"  # the importers' raw inserts get defaults
    for table in ("fact", "fact_message", "fact_history"):
        assert chatted.scalar("SELECT count(*) FROM sqlite_master WHERE name = ?", table) == 1


def test_an_older_store_gains_the_tables_and_keeps_its_people(chatted):
    path = db_path(chatted.data)
    chatted.connection.close()
    raw = sqlite3.connect(path)
    for table in ("fact_history", "fact_message", "fact"):
        raw.execute(f"DROP TABLE {table}")
    raw.execute("ALTER TABLE person DROP COLUMN bio")
    raw.execute("PRAGMA user_version = 5")
    raw.commit()
    raw.close()
    Flashback(chatted.data)  # opening migrates
    chatted.connection = connect(path)
    assert chatted.scalar("PRAGMA user_version") == SCHEMA_VERSION
    assert chatted.scalar("SELECT count(*) FROM person WHERE bio = ''") == chatted.scalar("SELECT count(*) FROM person")
    fact_id = facts.add_fact(chatted.connection, "Works as a nurse", message_ids=chatted.message_ids("Bob")[:1])
    assert facts.get_fact(chatted.connection, fact_id).message_ids == (chatted.message_ids("Bob")[0],)


def test_facts_of_the_owner_and_of_a_person_with_their_provenance(chatted):
    conn = chatted.connection
    ids = chatted.message_ids("Bob")
    bob = _person(chatted, "Bob")
    mine = facts.add_fact(conn, "Works as a nurse at St. Mary's hospital", category="work", type="identity",
                          importance=5, message_ids=[ids[0]], origin="model", topic_id=None)
    facts.add_fact(conn, "Allergic to peanuts", category="health", importance=4, message_ids=[ids[4]])
    about_bob = facts.add_fact(conn, "Says hi to Lena", person_id=bob, kind="about_other", message_ids=[ids[3]])
    owner = facts.facts_of(conn)
    assert [f.text for f in owner] == ["Works as a nurse at St. Mary's hospital", "Allergic to peanuts"]
    assert owner[0].message_ids == (ids[0],) and owner[0].person_id is None and owner[0].person_name == "Alice"
    assert [f.id for f in facts.facts_of(conn, bob)] == [about_bob]
    assert [f.id for f in facts.all_facts(conn)][0] == mine and len(facts.all_facts(conn)) == 3
    assert [c.action for c in facts.history(conn, mine)] == ["add"]


def test_a_status_fact_past_its_date_reads_as_expired(chatted):
    conn = chatted.connection
    fact_id = facts.add_fact(conn, "Is on holiday in Rome", type="status", valid_until=1000.0)
    assert facts.facts_of(conn) == []
    assert [f.id for f in facts.facts_of(conn, states=("expired",))] == [fact_id]
    assert facts.expire_due(conn) == 1
    assert [c.action for c in facts.history(conn, fact_id)] == ["add", "expire"]


def test_edits_pins_wrong_and_delete_are_the_persons_and_logged(chatted):
    conn = chatted.connection
    ids = chatted.message_ids("Bob")
    fact_id = facts.add_fact(conn, "Works as a doctor", message_ids=[ids[0]], origin="model")
    edited = facts.edit_fact(conn, fact_id, "Works as a nurse", importance=5)
    assert (edited.text, edited.origin, edited.importance) == ("Works as a nurse", "person", 5)
    assert facts.pin_fact(conn, fact_id).pinned
    wrong = facts.add_fact(conn, "Lives in Berlin", message_ids=[ids[2]], origin="model")
    facts.mark_wrong(conn, wrong, "Lena lives there, not me")
    gone = facts.add_fact(conn, "Likes satay", message_ids=[ids[4]], origin="model")
    facts.delete_fact(conn, gone)
    assert [f.id for f in facts.facts_of(conn)] == [fact_id]
    assert {f.state for f in facts.facts_of(conn, states=("wrong", "deleted"))} == {"wrong", "deleted"}
    assert [(c.action, c.before_text, c.after_text) for c in facts.history(conn, fact_id)] == [
        ("add", None, "Works as a doctor"), ("edit", "Works as a doctor", "Works as a nurse"),
        ("pin", "Works as a nurse", "Works as a nurse")]
    # The same messages never yield a refused fact again; other messages may.
    assert facts.refused_before(conn, "The owner lives in Berlin", [ids[2]])
    assert not facts.refused_before(conn, "The owner lives in Berlin", [ids[0]])
    assert not facts.refused_before(conn, "Plays the violin", [ids[2]])
    facts.forget_fact(conn, wrong)
    assert facts.history(conn, wrong) == [] and not facts.refused_before(conn, "Lives in Berlin", [ids[2]])
    with pytest.raises(facts.FactMissing):
        facts.get_fact(conn, wrong)


def test_owner_profile_keeps_key_facts_and_close_people_within_its_budget(chatted):
    conn = chatted.connection
    assert facts.owner_profile(conn) == Profile("", (), 0)
    ids = chatted.message_ids("Bob")
    nurse = facts.add_fact(conn, "Works as a nurse at St. Mary's hospital", type="identity", category="work",
                           message_ids=[ids[0]])
    minor = facts.add_fact(conn, "Had a sandwich", importance=1)
    pinned = facts.add_fact(conn, "Prefers tea to coffee", importance=2, kind="preference")
    facts.pin_fact(conn, pinned)
    facts.set_person(conn, _person(chatted, "Bob"), circle="family", bio="Brother; lives in Oslo",
                     aliases=["Bobby", " "])
    profile = facts.owner_profile(conn)
    assert profile.fact_ids == (pinned, nurse) and minor not in profile.fact_ids
    assert "About the owner (Alice):" in profile.text and "- Bob (family): Brother; lives in Oslo" in profile.text
    assert chatted.scalar("SELECT aliases FROM person WHERE display_name = 'Bob'") == '["Bobby"]'
    small = facts.owner_profile(conn, token_budget=20)
    assert small.tokens <= 20 and small.fact_ids == (pinned,)


def test_the_facade_reads_and_changes_facts(chatted):
    service = Flashback(chatted.data).facts
    fact = service.add("Plays the violin", category="hobby", importance=4)
    assert fact.origin == "person" and service.of() == [fact]
    assert service.pin(fact.id).pinned and service.profile().fact_ids == (fact.id,)
    assert service.mark_wrong(fact.id).state == "wrong" and service.of() == []
    assert [c.action for c in service.history(fact.id)] == ["add", "pin", "wrong"]
    service.forget(fact.id)
    with pytest.raises(facts.FactMissing):
        service.get(fact.id)
