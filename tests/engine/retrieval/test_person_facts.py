"""Issue 33, item 3: a question naming a person or a relation ("what does my sister do?",
"чем занимается моя сестра?") finds that person as a candidate carrying their facts, each with
the ids of the messages that state it; a relation word resolves to the person whose facts,
bio or the owner's facts say so. Real import, real build (SQLite + the vector index), facts
from the Archivist against the scripted server on 127.0.0.1."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

import pytest

from engine.api import Flashback
from engine.llm import Endpoint
from engine.store.database import DB_FILE_NAME
from tests.engine.facts.scripted import DAY, FIRST, SECOND, answer
from tests.engine.topics.conftest import BASE, conversation, write_jsonl
from tests.fake_openai import FakeOpenAI


@pytest.fixture
def service(tmp_path) -> Flashback:
    rows = conversation("Bob", BASE, FIRST, role_of={"Alice": "user"})
    rows += conversation("Bob", BASE + 5 * DAY, SECOND, first_id=100, role_of={"Alice": "user"})
    made = Flashback(tmp_path / "data")
    made.imports.import_path(write_jsonl(tmp_path / "chat.jsonl", rows))
    made.memory.build()
    return made


def _extract(service: Flashback) -> None:
    with FakeOpenAI() as server:
        server.handle("/v1/chat/completions", answer)
        report = service.facts.extract(Endpoint.from_preset("llamacpp", base_url=server.base_url, model="smol"))
    assert report.facts_added == 2 and report.people_added == 1


def _people(service: Flashback, query: str):
    return [c for c in service.search.candidates(query).candidates if c.kind == "person"]


def _one(service: Flashback, sql: str, *params: object) -> tuple | None:
    with closing(sqlite3.connect(service.store.data_dir / DB_FILE_NAME)) as connection:
        return connection.execute(sql, params).fetchone()


def _lena(service: Flashback) -> int:
    """Lena's person row (the Archivist makes it: she never wrote in the chats), -1 before."""
    row = _one(service, "SELECT id FROM person WHERE display_name = 'Lena'")
    return row[0] if row else -1


def _cited(summary: str) -> list[int]:
    return [int(i) for group in re.findall(r"\[messages ([\d, ]+)\]", summary) for i in group.split(", ")]


def _message_id(service: Flashback, starts: str) -> int:
    row = _one(service, "SELECT id FROM message WHERE text LIKE ?", starts + "%")
    assert row is not None
    return row[0]


def test_my_sister_finds_the_sister_with_her_facts_and_their_messages(service):
    assert _lena(service) == -1 and not any("Lena" in c.summary for c in _people(service, "what does my sister do?"))
    _extract(service)
    lena = _lena(service)
    [found] = [c for c in _people(service, "what does my sister do?") if c.id == lena]
    # Lena never wrote in the chats: she is a candidate by what is known of her (the Archivist's
    # bio "Alice's sister"), and carries her fact with the message that states it.
    assert found.summary.startswith("Lena — Alice's sister")
    assert "Lena moved to Berlin in March [messages" in found.summary
    [cited] = _cited(found.summary)
    assert cited == _message_id(service, "Lena is fine, she moved to Berlin")
    assert lena not in [c.id for c in _people(service, "what does my brother do?")]


def test_a_relation_in_russian_resolves_through_the_owners_fact(service):
    _extract(service)
    lena = _lena(service)
    said = _message_id(service, "Lena is fine")
    service.facts.set_person(lena, aliases=["Lenochka", "Лена"], bio="")
    service.facts.add("Моя сестра Лена преподаёт фортепиано в Берлине", message_ids=[said], category="family")
    people = _people(service, "чем занимается моя сестра?")
    found = next(c for c in people if c.id == lena)
    assert found.score >= 0.8 and people[0].id == lena  # the owner's own word says who the sister is
    assert f"Моя сестра Лена преподаёт фортепиано в Берлине [messages {said}]" in found.summary
    assert "Lena moved to Berlin in March" in found.summary  # asked about her: her other facts come too


def test_a_person_of_the_chats_carries_the_facts_the_query_is_about(service):
    bob = next(p.id for p in service.people.everyone() if p.name == "Bob")
    said = _message_id(service, "Congrats!")
    service.facts.add("Bob plays the cello in an orchestra", person_id=bob, kind="about_other", message_ids=[said])
    found = next(c for c in _people(service, "who plays the cello?") if c.id == bob)
    assert found.summary == f"Bob | facts: Bob plays the cello in an orchestra [messages {said}]"
    # A query the fact is not about shows the bio (rebuilt from the fact), not the fact's messages.
    assert all(c.summary == "Bob — Bob plays the cello in an orchestra." for c in _people(service, "satay on Friday")
               if c.id == bob)


def test_an_exported_person_carries_their_facts_with_their_messages(service):
    from engine.export.material import material

    _extract(service)
    lena = _lena(service)
    said = _message_id(service, "Lena is fine")
    with closing(sqlite3.connect(service.store.data_dir / DB_FILE_NAME)) as connection:
        found = material(connection, "person", lena, None)
    assert found is not None
    assert f"- Lena moved to Berlin in March [messages {said}]" in found.pieces
    assert found.sources["facts"] == [{"text": "Lena moved to Berlin in March", "message_ids": [said]}]


def test_ask_cites_the_messages_behind_a_kept_persons_facts(service):
    """A kept person candidate is a description, not a message: Ask's sources get the messages
    that state the person's facts the question is about, numbered after the topics' sources."""
    from engine.ask.compose import compose_sources
    from engine.rerank.base import Selection

    _extract(service)
    lena = _lena(service)
    stated = _message_id(service, "Lena is fine, she moved to Berlin")
    with closing(sqlite3.connect(service.store.data_dir / DB_FILE_NAME)) as connection:
        alone = compose_sources(connection, "what does my sister do?", [Selection("person", lena, "")], [], 6000, 50)
        assert [s.message_ids for s in alone.sources] == [[stated]] and alone.detail["fact_sources"] == 1
        assert alone.sources[0].topic_id is None and "moved to Berlin" in alone.sources[0].text
        topic = _one(service, "SELECT t.id FROM topic t JOIN message m ON m.chat_id = t.chat_id "
                              "WHERE m.id = ? AND m.id BETWEEN t.start_msg_id AND t.end_msg_id", stated)[0]
        both = compose_sources(connection, "what does my sister do?",
                               [Selection("topic", topic, ""), Selection("person", lena, "")], [], 6000, 50)
        assert stated in both.sources[0].message_ids and both.detail["fact_sources"] == 0  # said once, by the topic
        tight = compose_sources(connection, "what does my sister do?", [Selection("person", lena, "")], [], 5, 50)
        assert tight.sources == []  # over the budget: nothing, never a cut message
