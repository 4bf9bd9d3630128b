"""Re-reading topics after a rebuild (issue 33): what a later topic updated or removed, and
what the person corrected, stays so; the same thing said again later is new."""

from __future__ import annotations

import json

import pytest

from engine.api import Flashback
from engine.facts import store as facts
from engine.llm import Endpoint
from engine.topics.builder import build_topics
from engine.topics.settings import TopicSettings
from tests.engine.facts.scripted import DAY, FIRST, _known, answer, history
from tests.engine.topics.conftest import BASE, conversation
from tests.fake_openai import FakeOpenAI, FakeResponse, RecordedRequest, chat_reply

NURSE = "Works as a nurse at St. Mary's hospital"


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        fake.handle("/v1/chat/completions", answer)
        yield fake


def local(server) -> Endpoint:
    return Endpoint.from_preset("llamacpp", base_url=server.base_url, model="smol")


def rebuild(store) -> None:
    """What a rebuild does to topics: they are deleted and made again (new ids, all unread);
    the facts live on by their messages."""
    store.connection.execute("UPDATE message SET topic_id = NULL")
    store.connection.execute("DELETE FROM topic")
    build_topics(store.connection, settings=TopicSettings(subject_chars=0))


def test_a_rebuild_does_not_bring_back_a_fact_a_later_topic_updated(store, server):
    history(store)
    service = Flashback(store.data).facts
    service.extract(local(server))
    [yoga] = service.of()
    assert yoga.text.startswith("Teaches yoga")
    rebuild(store)
    assert store.scalar("SELECT count(*) FROM topic WHERE facts_extracted = 0") == 2
    again = service.extract(local(server))
    assert again.topics_read == 2 and again.facts_added == 0
    assert [f.text for f in service.of()] == [yoga.text]  # the nurse job did not come back
    assert [f.text for f in facts.all_facts(store.connection, ("active", "wrong", "deleted", "expired"))
            if f.person_id is None] == [yoga.text]


def test_a_rebuild_does_not_bring_back_a_fact_a_later_topic_removed(store):
    history(store)

    def removing(request: RecordedRequest) -> FakeResponse:
        prompt = request.body["messages"][1]["content"]
        if "Big news" not in prompt:
            return answer(request)
        nurse = [ident for text, ident in _known(prompt).items() if "nurse" in text]
        return FakeResponse(json=chat_reply(json.dumps({
            "facts_added": [], "facts_updated": [], "people": [],
            "facts_removed": [{"id": ident, "reason": "quit the hospital"} for ident in nurse]})))

    with FakeOpenAI() as fake:
        fake.handle("/v1/chat/completions", removing)
        service = Flashback(store.data).facts
        assert service.extract(local(fake)).facts_removed == 1
        assert service.of() == []
        rebuild(store)
        again = service.extract(local(fake))
    assert again.topics_read == 2 and again.facts_added == 0
    assert service.of() == []


def test_the_persons_correction_survives_a_rebuild(store, server):
    store.add(conversation("Bob", BASE, FIRST, role_of={"Alice": "user"}))
    build_topics(store.connection, settings=TopicSettings(subject_chars=0))
    service = Flashback(store.data).facts
    service.extract(local(server))
    [nurse] = service.of()
    assert nurse.text == NURSE
    service.edit(nurse.id, "Is a paramedic, not a nurse")
    rebuild(store)
    assert service.extract(local(server)).facts_added == 0
    assert [f.text for f in service.of()] == ["Is a paramedic, not a nurse"]


def test_the_same_fact_said_again_later_is_kept(store, server):
    history(store)
    service = Flashback(store.data).facts
    service.extract(local(server))
    store.add(conversation("Bob", BASE + 30 * DAY, FIRST, first_id=200, role_of={"Alice": "user"}))
    build_topics(store.connection, settings=TopicSettings(subject_chars=0))
    assert service.extract(local(server)).facts_added == 1
    assert NURSE in [f.text for f in service.of()]
