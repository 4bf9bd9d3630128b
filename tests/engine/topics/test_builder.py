"""build_topics on a real store imported from JSONL: partition, fields, incremental, cancel."""

from __future__ import annotations

import pytest

from engine.errors import CancelToken
from engine.topics import TopicBuildCancelled, TopicSettings, build_topics
from engine.topics.builder import content_hash
from engine.topics.content import embedding_text, format_log, topic_messages, topic_text
from tests.engine.topics.conftest import BASE, Store, conversation

HOUR = 3600


def sessions(chat: str, count: int, per: int, start: float = BASE, first_id: int = 1) -> list[dict]:
    """`count` sessions of `per` messages, 2 h apart (so each is one chunk)."""
    out = []
    for s in range(count):
        texts = [("Anna" if i % 2 else "Bob", f"session {s} line {i} about subject{s}") for i in range(per)]
        out += conversation(chat, start + s * 2 * HOUR, texts, first_id=first_id + s * per)
    return out


def partition(store) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for message_id, topic_id in store.rows("SELECT id, topic_id FROM message ORDER BY sent_at, id"):
        out.setdefault(topic_id, []).append(message_id)
    return out


def test_every_message_gets_exactly_one_topic_with_correct_fields(store):
    store.add(sessions("Team", 3, 4) + sessions("Other", 2, 3, start=BASE + 30))
    service_id = store.message_ids("Team")[1]
    store.connection.execute("UPDATE message SET is_service = 1 WHERE id = ?", (service_id,))
    report = build_topics(store.connection)
    assert (report.topics_created, report.messages_assigned, report.chats) == (5, 17, 2)
    assert store.scalar("SELECT topic_id FROM message WHERE id = ?", service_id) is None
    assert store.scalar("SELECT count(*) FROM message WHERE topic_id IS NULL") == 1
    assert sorted(report.created_ids) == [row[0] for row in store.rows("SELECT id FROM topic ORDER BY id")]
    for (topic_id, chat_id, summary, start, end, size, count, first_at, last_at, digest, checked) in store.rows(
            "SELECT id, chat_id, summary, start_msg_id, end_msg_id, size_chars, message_count, first_at, last_at, "
            "content_hash, consolidation_checked FROM topic"):
        members = topic_messages(store.connection, topic_id)
        assert members and {row.chat_id for row in members} == {chat_id}
        assert (start, end, count) == (members[0].id, members[-1].id, len(members))
        assert (first_at, last_at) == (members[0].sent_at, members[-1].sent_at)
        assert size == sum(len(row.text) for row in members)
        assert digest == content_hash(summary, members) and checked == 0
        assert summary.startswith(("Anna, Bob", "Bob, Anna")) and "2024-05-01" in summary
    first = store.rows("SELECT id, summary FROM topic WHERE chat_id = 1 ORDER BY first_at")[0]
    members = topic_messages(store.connection, first[0])
    assert topic_text(store.connection, first[0]) == embedding_text(first[1], members)
    assert format_log(members[:1]) == "[Bob (2024-05-01 09:00:00)]: session 0 line 0 about subject0"
    assert topic_text(store.connection, first[0]).startswith(f"Topic Summary: {first[1]}\n\nConversation Log:\n[Bob (")


def test_second_import_builds_only_new_topics_and_leaves_old_ones_alone(store):
    store.add(sessions("Team", 2, 3))
    first = build_topics(store.connection)
    before = store.rows("SELECT * FROM topic ORDER BY id")
    assigned = store.rows("SELECT id, topic_id FROM message ORDER BY id")
    assert build_topics(store.connection).topics_created == 0  # nothing new: nothing done
    store.add(sessions("Team", 2, 3, start=BASE + 10 * HOUR, first_id=100))
    second = build_topics(store.connection)
    assert (first.topics_created, second.topics_created, second.messages_assigned) == (2, 2, 6)
    assert store.rows(f"SELECT * FROM topic WHERE id <= {max(first.created_ids)} ORDER BY id") == before
    assert store.rows(f"SELECT id, topic_id FROM message WHERE id <= {assigned[-1][0]} ORDER BY id") == assigned
    assert not set(first.created_ids) & set(second.created_ids)
    assert store.scalar("SELECT count(*) FROM message WHERE topic_id IS NULL") == 0


def test_cancel_keeps_committed_batches_and_the_next_build_finishes_the_same_way(store, tmp_path):
    rows = sessions("Team", 6, 5) + sessions("Other", 4, 5, start=BASE + 5)
    store.add(rows)
    small = TopicSettings(batch_messages=10)  # two chunks per transaction
    token = CancelToken()
    seen = []

    def on_progress(done, total):
        seen.append((done, total))
        if done >= 10:
            token.cancel()

    with pytest.raises(TopicBuildCancelled) as info:
        build_topics(store.connection, settings=small, on_progress=on_progress, cancel=token)
    assert info.value.report.messages_assigned == 10 and seen[-1] == (10, 50)
    assert store.scalar("SELECT count(*) FROM message WHERE topic_id IS NOT NULL") == 10
    assert store.scalar("SELECT count(*) FROM topic") == 2
    build_topics(store.connection, settings=small)
    resumed = sorted(partition(store).values())

    fresh = Store(tmp_path / "fresh")  # the same export, built without interruption
    fresh.add(rows)
    build_topics(fresh.connection, settings=small)
    assert resumed == sorted(partition(fresh).values())
    fresh.connection.close()


def test_progress_reaches_the_total(store):
    store.add(sessions("Team", 5, 4))
    seen = []
    build_topics(store.connection, settings=TopicSettings(batch_messages=5), on_progress=lambda *a: seen.append(a))
    assert seen[0] == (0, 20) and seen[-1] == (20, 20) and len(seen) == 4
