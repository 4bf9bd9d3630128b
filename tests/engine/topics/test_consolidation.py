"""Consolidation without an agent: adjacent, similar, same chat, within the size cap."""

from __future__ import annotations

import numpy as np

from engine.topics import TopicSettings, build_topics, consolidate
from engine.topics.builder import content_hash
from engine.topics.content import topic_messages
from tests.engine.topics.conftest import BASE
from tests.engine.topics.test_builder import sessions

DOCKER, DOCKER_TOO, COOKING = np.eye(4, dtype=np.float32)[:3]
NEAR_DOCKER = np.array([0.9, 0.436, 0, 0], dtype=np.float32)  # cosine 0.9 with DOCKER


class Vectors:
    """vectors_for backed by a dict; records what was asked for."""

    def __init__(self, by_id: dict[int, np.ndarray]) -> None:
        self.by_id = by_id
        self.asked: list[int] = []

    def __call__(self, ids: list[int]) -> np.ndarray:
        self.asked.extend(ids)
        rows = [self.by_id.get(i, np.zeros(4, dtype=np.float32)) for i in ids]
        return np.stack([row / (np.linalg.norm(row) or 1) for row in rows])


def topics_in_order(store, chat: str = "Team") -> list[int]:
    return [row[0] for row in store.rows(
        "SELECT t.id FROM topic t JOIN chat c ON c.id = t.chat_id WHERE c.title = ? ORDER BY t.first_at", chat)]


def built(store, *chats: tuple[str, int, float]) -> None:
    rows = []
    for offset, (chat, count, start) in enumerate(chats):
        rows += sessions(chat, count, 3, start=BASE + start, first_id=1 + offset * 100)
    store.add(rows)
    build_topics(store.connection)


def test_adjacent_similar_topics_in_a_chat_merge(store):
    built(store, ("Team", 3, 0))
    a, b, c = topics_in_order(store)
    vectors = Vectors({a: DOCKER, b: NEAR_DOCKER, c: COOKING})
    sizes = dict(store.rows("SELECT id, size_chars FROM topic"))
    report = consolidate(store.connection, vectors)
    assert (report.merged, report.changed_ids, report.deleted_ids, report.checked) == (1, [a], [b], 3)
    assert topics_in_order(store) == [a, c]
    members = topic_messages(store.connection, a)
    summary, start, end, size, count, first_at, last_at, digest, merged, checked = store.rows(
        "SELECT summary, start_msg_id, end_msg_id, size_chars, message_count, first_at, last_at, content_hash, "
        "is_consolidated, consolidation_checked FROM topic WHERE id = ?", a)[0]
    assert count == 6 and [row.text for row in members][2:4] == ["session 0 line 2 about subject0",
                                                                 "session 1 line 0 about subject1"]
    assert (start, end, first_at, last_at) == (members[0].id, members[-1].id, members[0].sent_at, members[-1].sent_at)
    assert size == sizes[a] + sizes[b] and digest == content_hash(summary, members)
    assert "2024-05-01" in summary and (merged, checked) == (1, 1)
    assert store.scalar("SELECT count(*) FROM message WHERE topic_id = ?", b) == 0


def test_nothing_is_compared_twice(store):
    built(store, ("Team", 3, 0))
    a, b, c = topics_in_order(store)
    vectors = Vectors({a: DOCKER, b: COOKING, c: DOCKER_TOO})
    assert consolidate(store.connection, vectors).merged == 0
    vectors.asked.clear()
    again = consolidate(store.connection, vectors)
    assert (again.checked, again.candidates, vectors.asked) == (0, 0, [])


def test_a_new_topic_merges_into_the_checked_one_before_it(store):
    built(store, ("Team", 2, 0))
    a, b = topics_in_order(store)
    consolidate(store.connection, Vectors({a: DOCKER, b: COOKING}))
    store.add(sessions("Team", 1, 3, start=BASE + 10 * 3600, first_id=500))
    build_topics(store.connection)
    c = topics_in_order(store)[-1]
    vectors = Vectors({a: DOCKER, b: COOKING, c: COOKING})
    report = consolidate(store.connection, vectors)
    assert (report.changed_ids, report.deleted_ids) == ([b], [c])
    assert set(vectors.asked) == {b, c}  # a is checked and not next to anything new


def test_similar_but_not_adjacent_topics_stay_apart(store):
    built(store, ("Team", 3, 0))
    a, b, c = topics_in_order(store)
    assert consolidate(store.connection, Vectors({a: DOCKER, b: COOKING, c: DOCKER})).merged == 0


def test_no_merge_over_the_size_cap_and_the_threshold_is_configurable(store):
    built(store, ("Team", 2, 0))
    a, b = topics_in_order(store)
    total = store.scalar("SELECT sum(size_chars) FROM topic")
    capped = consolidate(store.connection, Vectors({a: DOCKER, b: NEAR_DOCKER}),
                         settings=TopicSettings(max_merged_chars=total - 1))
    assert (capped.merged, capped.candidates, capped.over_cap) == (0, 1, 1)
    store.connection.execute("UPDATE topic SET consolidation_checked = 0")
    strict = consolidate(store.connection, Vectors({a: DOCKER, b: NEAR_DOCKER}),
                         settings=TopicSettings(consolidation_threshold=0.95))
    assert (strict.merged, strict.candidates) == (0, 0)
    store.connection.execute("UPDATE topic SET consolidation_checked = 0")
    assert consolidate(store.connection, Vectors({a: DOCKER, b: NEAR_DOCKER}),
                       settings=TopicSettings(max_merged_chars=total)).merged == 1


def test_no_merge_across_chats(store):
    built(store, ("Team", 1, 0), ("Other", 1, 60))  # interleaved in time, identical vectors
    (a,), (b,) = topics_in_order(store, "Team"), topics_in_order(store, "Other")
    report = consolidate(store.connection, Vectors({a: DOCKER, b: DOCKER}))
    assert report.merged == 0 and report.checked == 2
    assert store.scalar("SELECT count(*) FROM topic") == 2


def test_a_chain_of_similar_sessions_becomes_one_topic_within_the_cap(store):
    built(store, ("Team", 5, 0))
    ids = topics_in_order(store)
    size = store.scalar("SELECT max(size_chars) FROM topic")
    vectors = Vectors({ids[0]: DOCKER, ids[1]: NEAR_DOCKER, ids[2]: DOCKER, ids[3]: NEAR_DOCKER, ids[4]: COOKING})
    report = consolidate(store.connection, vectors, settings=TopicSettings(max_merged_chars=3 * size))
    # the cap stops the chain after three; the fourth starts its own group (alone: nothing to merge with)
    assert (report.changed_ids, report.deleted_ids) == ([ids[0]], [ids[1], ids[2]])
    assert topics_in_order(store) == [ids[0], ids[3], ids[4]]
    assert store.scalar("SELECT count(*) FROM topic WHERE consolidation_checked = 0") == 0


def test_a_topic_not_embedded_yet_waits_for_its_vector(store):
    built(store, ("Team", 2, 0))
    a, b = topics_in_order(store)
    first = consolidate(store.connection, Vectors({a: DOCKER}))  # b has no vector yet (zeros)
    assert (first.merged, first.checked) == (0, 1)
    assert store.rows("SELECT id FROM topic WHERE consolidation_checked = 0") == [(b,)]
    assert consolidate(store.connection, Vectors({a: DOCKER, b: NEAR_DOCKER})).deleted_ids == [b]
