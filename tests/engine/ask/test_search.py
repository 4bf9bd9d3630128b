"""Search: sub-queries fused by RRF, filters only where the question names them, the soft date boost."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.ask.dates import DateRange
from engine.ask.search import fuse, search_plan
from engine.ask.types import Plan
from engine.rerank.base import Candidate
from engine.retrieval.search import RetrievalSettings, Stage1Result
from engine.store.database import connect, db_path


def topic(topic_id: int, rank: int, score: float) -> Candidate:
    return Candidate("topic", topic_id, rank, score, score)


def person(person_id: int, rank: int, score: float) -> Candidate:
    return Candidate("person", person_id, rank, score, score)


def plan_of(*subqueries: str, chats=(), people=(), date_range=None) -> Plan:
    return Plan(list(subqueries), date_range, list(chats), list(people), "model")


def chats_of(data_dir) -> dict[str, int]:
    connection = connect(db_path(data_dir))
    try:
        return dict(connection.execute("SELECT title, id FROM chat").fetchall())
    finally:
        connection.close()


def searched(service, data_dir, plan: Plan, question: str, **kwargs):
    return search_plan(service.search.candidates, plan, question, chats_of(data_dir), RetrievalSettings(),
                       connect=lambda: connect(db_path(data_dir)), **kwargs)


def test_rrf_orders_by_agreement_keeps_the_best_score_and_renumbers_each_kind():
    first = Stage1Result("a", [topic(1, 1, 0.9), topic(2, 2, 0.8), topic(3, 3, 0.7), person(7, 1, 0.5)])
    second = Stage1Result("b", [topic(3, 1, 0.95), topic(2, 2, 0.6), topic(4, 3, 0.5), person(8, 1, 0.6)])
    fused = fuse([first, second], k=60)

    topics = [c for c in fused if c.kind == "topic"]
    # 2 and 3 are in both lists (3: ranks 3 and 1; 2: ranks 2 and 2), 1 and 4 in one each.
    assert [c.id for c in topics] == [3, 2, 1, 4] and [c.rank for c in topics] == [1, 2, 3, 4]
    assert [c.score for c in topics] == [0.95, 0.8, 0.9, 0.5]  # each at its best across sub-queries
    assert [(c.id, c.rank) for c in fused if c.kind == "person"] == [(7, 1), (8, 2)]
    assert [c.id for c in fuse([first, second], limits={"topic": 2})] == [3, 2, 7, 8]


def test_a_chat_is_a_filter_only_when_the_question_names_it(service, data_dir):
    chats = chats_of(data_dir)
    question = "что мама писала про анализы?"
    named = searched(service, data_dir, plan_of(question, chats=["Мама"]), question)
    assert named.detail["filters"]["chats"] == ["Мама"]
    assert {c.chat for c in named.candidates if c.kind == "topic"} == {"Мама"}

    guessed = searched(service, data_dir, plan_of(question, chats=["Backend team"]), question)
    assert guessed.detail["filters"] == {"chats_not_applied": ["Backend team"]}
    assert "Backend team" in chats and {c.chat for c in guessed.candidates if c.kind == "topic"} >= {"Мама"}


def test_a_chat_filter_that_finds_nothing_is_dropped(data_dir):
    seen: list[tuple[int, ...]] = []

    def stage1(query: str, settings: RetrievalSettings) -> Stage1Result:
        seen.append(settings.chat_ids)
        found = [] if settings.chat_ids else [topic(1, 1, 0.8)]
        return Stage1Result(query, found, settings=settings)

    question = "what did Dan say in Saved Messages?"
    found = search_plan(stage1, plan_of(question, chats=["Saved Messages"]), question, chats_of(data_dir),
                        RetrievalSettings(), connect=lambda: connect(db_path(data_dir)))
    assert seen == [(chats_of(data_dir)["Saved Messages"],), ()]
    assert [c.id for c in found.candidates] == [1]
    assert found.detail["filters"]["chats_dropped"] == "no topic in the named chats: searched every chat"


def test_the_users_own_chat_filter_stays(service, data_dir):
    chats = chats_of(data_dir)
    question = "что мама писала про анализы?"
    base = RetrievalSettings(chat_ids=(chats["Backend team"],))
    found = search_plan(service.search.candidates, plan_of(question, chats=["Мама"]), question, chats, base,
                        connect=lambda: connect(db_path(data_dir)))
    assert {c.chat for c in found.candidates if c.kind == "topic"} <= {"Backend team"}


def test_people_the_question_names_keep_the_topics_they_wrote(service, data_dir):
    question = "что Ирина писала про депозит?"
    found = searched(service, data_dir, plan_of(question, "депозит", people=["Ирина"]), question)
    assert found.detail["filters"]["people"] == ["Ирина"]
    topics = [c.id for c in found.candidates if c.kind == "topic"]
    connection = connect(db_path(data_dir))
    try:
        for topic_id in topics:
            authors = {r[0] for r in connection.execute("SELECT author FROM message WHERE topic_id = ?", (topic_id,))}
            assert any("Ирина" in (a or "") for a in authors)
    finally:
        connection.close()
    assert [c.rank for c in found.candidates if c.kind == "topic"] == list(range(1, len(topics) + 1))

    unnamed = searched(service, data_dir, plan_of(question, people=["Valentina"]), question)
    assert unnamed.detail["filters"]["people_not_applied"] == ["Valentina"]


def test_the_date_range_boosts_topics_inside_it_and_removes_none(service, data_dir):
    question = "что мама писала про дачу?"
    plain = searched(service, data_dir, plan_of(question), question)
    may = DateRange(datetime(2025, 4, 1, tzinfo=UTC).timestamp(), datetime(2025, 5, 1, tzinfo=UTC).timestamp(),
                    "в апреле", "plan")
    boosted = searched(service, data_dir, plan_of(question, date_range=may), question)

    assert {c.id for c in boosted.candidates} == {c.id for c in plain.candidates}  # nothing removed
    inside = boosted.detail["date_boost"]["in_range"]
    assert inside and boosted.detail["date_boost"]["moved"]
    before = [c.id for c in plain.candidates if c.kind == "topic"]
    after = [c.id for c in boosted.candidates if c.kind == "topic"]
    assert all(after.index(t) <= before.index(t) for t in inside)
    assert any(after.index(t) < before.index(t) for t in inside)
