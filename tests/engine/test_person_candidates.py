"""Issue 33: a person is a candidate by what they said and what is known of them.

Tried as a new user would, "joke about atoms" listed every person, three of them above the
topic holding the joke: each person was found by one profile vector that matched any query.
On the bundled demo (real import, real build, the built-in embedder) a person now follows the
topics they wrote in, never above them, unless the query names them."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

import resources
from engine.api import Flashback
from engine.retrieval.people import PersonEvidence, PersonKnowledge, named_and_known_scores
from engine.store.database import DB_FILE_NAME


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Flashback:
    folder = tmp_path_factory.mktemp("people") / "data"
    service = Flashback(folder)
    export = resources.demo_export()
    assert export is not None
    service.imports.import_path(export)
    service.memory.build()
    return service


def _connect(service: Flashback) -> sqlite3.Connection:
    return sqlite3.connect(service.store.data_dir / DB_FILE_NAME)


def _split(service: Flashback, query: str):
    candidates = service.search.candidates(query).candidates
    return ([c for c in candidates if c.kind == "topic"], [c for c in candidates if c.kind == "person"])


def _authors(service: Flashback, topic_ids: list[int]) -> dict[int, set[int]]:
    """person id → the topics among `topic_ids` they wrote in."""
    with closing(_connect(service)) as connection:
        rows = connection.execute(
            f"SELECT DISTINCT person_id, topic_id FROM message WHERE topic_id IN ({','.join('?' * len(topic_ids))})",
            topic_ids).fetchall()
    wrote: dict[int, set[int]] = {}
    for person, topic in rows:
        wrote.setdefault(person, set()).add(topic)
    return wrote


def test_an_unmatched_query_lists_no_one_above_the_topics(demo: Flashback) -> None:
    topics, people = _split(demo, "joke about atoms")
    best_topic = max((t.score for t in topics), default=0.0)
    assert all(p.score <= best_topic for p in people), [(p.summary, p.score, best_topic) for p in people]
    assert len(people) <= 2, [p.summary for p in people]  # the demo has 12 people; before: 10 listed


def test_people_follow_the_topics_they_wrote_in(demo: Flashback) -> None:
    topics, people = _split(demo, "feature flags rollout")
    assert people and topics
    scores = {t.id: t.score for t in topics}
    wrote = _authors(demo, list(scores))
    for person in people:
        assert person.id in wrote, person.summary  # no one who wrote in none of the topics found
        assert person.score <= max(scores[t] for t in wrote[person.id])
    assert "Мама" not in [p.summary for p in people]
    assert not any(p.summary.endswith("(you)") for p in people)  # the owner reaches Flash as the profile


def test_a_query_naming_someone_puts_them_first(demo: Flashback) -> None:
    topics, people = _split(demo, "Tom Becker")
    assert people[0].summary == "Tom Becker"
    assert people[0].score >= max(t.score for t in topics)
    _topics, people = _split(demo, "что говорил Паша про бег")  # "Паша" in another case than the name's
    assert people[0].summary == "Паша Ветров"


def test_what_is_known_of_someone_finds_them(demo: Flashback) -> None:
    """A bio or fact that holds the query's words makes a candidate; one shared common word does not."""
    with closing(_connect(demo)) as connection:
        mother = connection.execute("SELECT id FROM person WHERE display_name = 'Мама'").fetchone()[0]
        knowledge = {mother: PersonKnowledge(aliases=("Lena",), bio="The owner's mother, a retired chemistry teacher",
                                             facts=("Bakes a honey cake every birthday",))}
        evidence: dict[int, PersonEvidence] = {}
        named_and_known_scores(connection, "who was a chemistry teacher?", knowledge, evidence)
        assert evidence[mother].reason == "known" and evidence[mother].score >= 0.3
        evidence = {}
        named_and_known_scores(connection, "what did Lena say", knowledge, evidence)
        assert evidence[mother].reason == "named"
        evidence = {}
        named_and_known_scores(connection, "flat lease deposit birthday party venue", knowledge, evidence)
        assert mother not in evidence or evidence[mother].score < 0.3


def test_a_persons_activity_is_counted_from_their_messages(demo: Flashback) -> None:
    """Item 2: first and last message, messages per month (every month between, zeros too), chats, topics."""
    everyone = demo.people.everyone()
    assert everyone[0].is_self and everyone[0].name == "Alex Morozov"  # the owner's card comes first
    tom = next(p for p in everyone if p.name == "Tom Becker")
    activity = demo.people.activity(tom.id)
    assert activity is not None and activity.person == tom
    months = [m for m, _ in activity.per_month]
    assert months == sorted(months) and months[0] == "2025-04" and months[-1] == "2025-11"
    assert ("2025-08", 0) in activity.per_month  # a silent month is drawn as one
    assert sum(n for _, n in activity.per_month) == tom.messages
    assert activity.chats == ("Flat hunting / Квартира",)
    with closing(_connect(demo)) as connection:
        wrote_in = {t for (t,) in connection.execute(
            "SELECT DISTINCT topic_id FROM message WHERE person_id = ? AND topic_id IS NOT NULL", (tom.id,))}
    assert {t.id for t in activity.topics} == wrote_in and activity.topic_count == len(wrote_in)
    assert all(t.own_messages >= 1 for t in activity.topics)
    assert demo.people.activity(10_000) is None


def test_a_bio_alias_or_fact_makes_a_person_a_candidate_in_stage_1(tmp_path) -> None:
    """Through the facade: what the person or the Archivist recorded is what `known` reads."""
    service = Flashback(tmp_path / "data")
    export = resources.demo_export()
    assert export is not None
    service.imports.import_path(export)
    service.memory.build()
    mother = next(p for p in service.people.everyone() if p.name == "Мама")
    _topics, before = _split(service, "retired chemistry teacher")
    assert mother.id not in [p.id for p in before]
    service.facts.set_person(mother.id, aliases=["Lena"], circle="family", bio="The owner's mother")
    service.facts.add("A retired chemistry teacher", person_id=mother.id, kind="about_other", category="work")
    _topics, people = _split(service, "retired chemistry teacher")
    found = next(p for p in people if p.id == mother.id)
    # People candidates carry their bios, and the facts the query is about.
    assert found.summary == "Мама — The owner's mother | facts: A retired chemistry teacher"
    _topics, people = _split(service, "what did Lena say")
    assert people[0].id == mother.id
