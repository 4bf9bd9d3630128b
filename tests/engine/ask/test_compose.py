"""Compose: the reranker's topics packed into the budget, as numbered message-range sources."""

from __future__ import annotations

import re

import pytest

from engine.ask.compose import compose_sources, render_sources
from engine.rerank.base import Selection
from engine.store.database import connect, db_path
from engine.text.tokens import estimate_tokens
from engine.topics.content import format_log, topic_messages


@pytest.fixture
def connection(data_dir):
    connection = connect(db_path(data_dir))
    yield connection
    connection.close()


def biggest_topics(connection, count: int) -> list[int]:
    return [r[0] for r in connection.execute(
        "SELECT topic_id FROM message WHERE topic_id IS NOT NULL GROUP BY topic_id ORDER BY count(*) DESC, topic_id "
        "LIMIT ?", (count,))]


def selections(topics: list[int]) -> list[Selection]:
    return [Selection("topic", t, "kept") for t in topics]


def test_sources_are_numbered_message_ranges_with_chat_authors_and_times(connection):
    topics = biggest_topics(connection, 3)
    composed = compose_sources(connection, "q", selections(topics), [], 6000, per_source=4)

    sources = composed.sources
    assert [s.number for s in sources] == list(range(1, len(sources) + 1))
    assert [s.topic_id for s in sources] == sorted((s.topic_id for s in sources), key=topics.index)
    for source in sources:
        rows = topic_messages(connection, source.topic_id)
        ids = [r.id for r in rows]
        start = ids.index(source.message_ids[0])
        assert source.message_ids == ids[start:start + len(source.message_ids)] and len(source.message_ids) <= 4
        kept = rows[start:start + len(source.message_ids)]
        header, *lines = source.text.split("\n")
        assert re.match(rf"^\[{source.number}\] {re.escape(source.chat)} · .+ · \d{{4}}-\d\d-\d\d \d\d:\d\d", header)
        assert source.text.endswith("\n".join(format_log([r]) for r in kept))
        assert source.first_at == kept[0].sent_at and source.last_at == kept[-1].sent_at
        assert set(source.authors) == {r.author for r in kept} and source.messages == [r.text for r in kept]
        assert source.tokens == estimate_tokens(source.text)
    assert composed.tokens <= 6000 and render_sources(sources).startswith("[1] ")
    # Every message of the three topics is in exactly one source: nothing was left out at this budget.
    covered = [m for s in sources for m in s.message_ids]
    assert sorted(covered) == sorted(r.id for t in topics for r in topic_messages(connection, t))


def test_a_topic_cut_to_fit_gives_sources_of_the_messages_kept_only(connection):
    topic = biggest_topics(connection, 1)[0]
    rows = topic_messages(connection, topic)
    whole = sum(estimate_tokens(format_log([r])) for r in rows)
    composed = compose_sources(connection, "q", selections([topic]), [], whole // 2 + 200, per_source=50)

    assert composed.detail["truncated"] == [topic]
    covered = [m for s in composed.sources for m in s.message_ids]
    assert 0 < len(covered) < len(rows)
    # The packer keeps the start and the end: two sources, split where messages were left out.
    assert len(composed.sources) == 2
    assert composed.sources[0].message_ids[0] == rows[0].id and composed.sources[1].message_ids[-1] == rows[-1].id
    for source in composed.sources:
        for message in source.message_ids:
            line = format_log([next(r for r in rows if r.id == message)])
            assert line in source.text


def test_only_topics_become_sources(connection):
    topic = biggest_topics(connection, 1)[0]
    composed = compose_sources(connection, "q", [Selection("person", 1, "p"), *selections([topic])], [], 6000, 6)
    assert {s.topic_id for s in composed.sources} == {topic} and composed.detail["not_topics"] == 1


def test_a_topic_gone_from_the_store_is_omitted_not_fatal(connection):
    composed = compose_sources(connection, "q", selections([999_999]), [], 6000, 6)
    assert composed.sources == [] and composed.detail["omitted"][0]["id"] == 999_999
