"""Issue 22: the topics layer's errors and its cancel are codes said in Russian."""

from __future__ import annotations

import pytest

from engine.browse import BrowseError, topic_detail
from engine.messages import msg
from engine.topics import SplitterAgent, TopicBuildCancelled, build_topics
from engine.topics.agents import AgentLoop, FailureGate
from engine.topics.content import topic_text
from engine.topics.errors import AgentError, TopicsError
from tests.engine.russian_text import assert_russian
from tests.engine.topics.conftest import BASE, conversation
from tests.engine.topics.test_agents import CHAT, client_for
from tests.fake_openai import FakeOpenAI, FakeResponse


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def loop():
    made = AgentLoop()
    yield made
    made.close()


def test_a_missing_topic_is_said_in_russian(store):
    store.add(conversation("Team", BASE, [("Anna", "hello")]))
    with pytest.raises(TopicsError) as caught:
        topic_text(store.connection, 10**9)
    assert str(caught.value) == "Topic 1000000000 does not exist (it may have been merged into another)."
    assert caught.value.render("ru") == "Темы 1000000000 нет (возможно, её объединили с другой)."
    with pytest.raises(BrowseError) as browsed:
        topic_detail(store.connection, 10**9)
    assert str(browsed.value).startswith("Topic 1000000000 is not in the store (it may have been merged")
    assert_russian(browsed.value.render("ru"))


def test_a_model_that_keeps_failing_is_said_in_russian(store, server, loop):
    store.add(conversation("Ops", BASE, [("Ann", f"question {i} about the cluster") for i in range(6)], step=7200))
    server.handle(CHAT, lambda request: FakeResponse(status=401, json={"error": {"message": "bad key"}}))
    with pytest.raises(TopicsError) as caught:
        build_topics(store.connection, splitter=SplitterAgent(client_for(server), loop=loop))
    assert str(caught.value).startswith("The language model failed 5 times in a row, so topic building stopped")
    text = caught.value.render("ru")
    assert text.startswith("Языковая модель дала сбой 5 раз подряд, поэтому построение тем остановлено; уже "
                           "построенные темы сохранены. Последняя ошибка: ")
    assert_russian(text.split("Последняя ошибка")[0])


def test_a_refused_server_and_a_cancel_are_said_in_russian():
    gate = FailureGate(limit=1)
    gate.failed(AgentError("timeout", "slow"))
    refusal = gate.refusal()
    assert str(refusal) == ("The language model's answer could not be used (the model's server answered with an "
                            "error): the LLM server failed 1 times in a row, so no more requests are sent to it (last "
                            "error: slow)")
    assert refusal.render("ru") == ("Ответ языковой модели не удалось использовать (ошибка сервера модели): сервер "
                                    "языковой модели дал сбой 1 раз подряд, поэтому запросы к нему больше не "
                                    "отправляются (последняя ошибка: slow)")
    assert_russian(TopicBuildCancelled().render("ru"))
    assert_russian(AgentError("no_valid_topics", msg("topics.agent.none_usable", count=3)).render("ru"))
