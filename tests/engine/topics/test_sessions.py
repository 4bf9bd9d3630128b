"""Session archival: cuts at inactivity gaps and at the message and character caps."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.topics.sessions import MessageRow, cut_sessions, unassigned_messages
from engine.topics.settings import TopicSettings
from tests.engine.topics.conftest import BASE, conversation


def rows(times: list[float], sizes: list[int] | None = None) -> list[MessageRow]:
    sizes = sizes or [5] * len(times)
    return [MessageRow(i + 1, 1, "Anna", "other", at, "x" * size, f"h{i}")
            for i, (at, size) in enumerate(zip(times, sizes, strict=True))]


def shape(chunks) -> list[list[int]]:
    return [[row.id for row in chunk] for chunk in chunks]


def test_a_pause_of_the_interval_or_more_cuts_and_a_shorter_one_does_not():
    times = [0, 3599, 3599 + 3600, 3599 + 3600 + 10, 20_000]
    assert shape(cut_sessions(rows(times), TopicSettings())) == [[1, 2], [3, 4], [5]]
    assert shape(cut_sessions(rows(times), TopicSettings(chunk_interval_s=30_000))) == [[1, 2, 3, 4, 5]]


def test_message_cap_cuts_a_busy_session():
    chunks = list(cut_sessions(rows([float(i) for i in range(901)]), TopicSettings()))
    assert [len(chunk) for chunk in chunks] == [400, 400, 101]


def test_char_cap_cuts_and_a_huge_message_is_a_chunk_of_its_own():
    sizes = [10_000, 10_000, 10_000, 40_000, 100, 100]
    chunks = shape(cut_sessions(rows([float(i) for i in range(6)], sizes), TopicSettings()))
    assert chunks == [[1, 2], [3], [4], [5, 6]]


def test_empty_input_gives_no_chunks():
    assert list(cut_sessions([], TopicSettings())) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 8000), st.integers(0, 3000)), max_size=60),
       st.integers(1, 10), st.integers(1, 9000), st.floats(1, 5000))
def test_cutting_keeps_order_and_every_cut_has_a_reason(steps, max_count, max_chars, interval):
    times, at = [], 0.0
    for gap, _size in steps:
        at += gap
        times.append(at)
    source = rows(times, [size for _gap, size in steps])
    config = TopicSettings(chunk_interval_s=interval, max_chunk_messages=max_count, max_chunk_chars=max_chars)
    chunks = list(cut_sessions(source, config))
    assert [row for chunk in chunks for row in chunk] == source
    for chunk in chunks:
        assert chunk and len(chunk) <= max_count
        assert len(chunk) == 1 or sum(len(row.text) for row in chunk) <= max_chars
        assert all(b.sent_at - a.sent_at < interval for a, b in zip(chunk, chunk[1:], strict=False))
    for before, after in zip(chunks, chunks[1:], strict=False):
        gap = after[0].sent_at - before[-1].sent_at
        full = len(before) == max_count or sum(len(r.text) for r in before) + len(after[0].text) > max_chars
        assert gap >= interval or full  # never cut without a reason


def test_reader_pages_in_time_order_and_skips_service_and_assigned(store):
    texts = [("Anna", f"m{i}") for i in range(7)]
    rows_in = conversation("Team", BASE, texts, step=0)  # one second for all: order falls to the id
    rows_in += conversation("Team", BASE - 100, [("Bob", "earlier, imported later")], first_id=50)
    store.add(rows_in)
    ids = store.message_ids("Team")
    store.connection.execute("UPDATE message SET is_service = 1 WHERE id = ?", (ids[3],))
    store.connection.execute("INSERT INTO topic (id, chat_id, summary, start_msg_id, end_msg_id, size_chars, "
                             "message_count, facts_extracted, is_consolidated, consolidation_checked, created_at) "
                             "VALUES (99, 1, 's', 0, 0, 0, 0, 0, 0, 0, 0)")
    store.connection.execute("UPDATE message SET topic_id = 99 WHERE id = ?", (ids[5],))
    chat_id = store.scalar("SELECT id FROM chat WHERE title = 'Team'")
    read = [row.id for row in unassigned_messages(store.connection, chat_id, page_size=2)]
    assert read == [i for i in ids if i not in (ids[3], ids[5])]
    assert store.scalar("SELECT sent_at FROM message WHERE id = ?", read[0]) == BASE - 100
