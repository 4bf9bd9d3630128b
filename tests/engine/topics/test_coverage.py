"""Coverage validation: whatever the splitter says, every message lands in exactly one topic."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.topics.coverage import GENERAL_LABEL, ProposedTopic, validate_coverage

IDS = [10, 11, 12, 14, 15, 20, 21]  # gaps: 13 (service message) and 16..19 (another chat)


def spans(coverage) -> list[tuple[str, list[int]]]:
    return [(topic.summary, [IDS[i] for i in topic.positions]) for topic in coverage.topics]


def test_a_clean_split_is_kept_as_is():
    result = validate_coverage(IDS, [ProposedTopic("A", 10, 14), ProposedTopic("B", 15, 21)])
    assert spans(result) == [("A", [10, 11, 12, 14]), ("B", [15, 20, 21])]
    assert (result.stragglers, result.dropped, result.accepted) == (0, 0, 2)


def test_overlaps_go_to_the_earlier_topic():
    result = validate_coverage(IDS, [ProposedTopic("late", 12, 21), ProposedTopic("early", 10, 14),
                                     ProposedTopic("inside", 11, 12)])
    assert spans(result) == [("early", [10, 11, 12, 14]), ("late", [15, 20, 21])]
    assert result.dropped == 1  # "inside" had nothing left


def test_uncovered_messages_go_to_a_general_topic_in_the_chat_language():
    result = validate_coverage(IDS, [ProposedTopic("A", 11, 12), ProposedTopic("B", 20, 20)], language="ru")
    assert spans(result) == [("Общий разговор", [10, 14, 15, 21]), ("A", [11, 12]), ("B", [20])]
    assert result.stragglers == 4 and result.topics[0].is_general
    assert validate_coverage(IDS, []).topics[0].summary == GENERAL_LABEL["en"]


def test_ranges_are_clamped_to_the_chunk_and_ids_between_messages_snap_inward():
    result = validate_coverage(IDS, [ProposedTopic("A", 1, 13), ProposedTopic("B", 16, 99),
                                     ProposedTopic("nowhere", 16, 19), ProposedTopic("outside", 500, 600)])
    assert spans(result) == [("A", [10, 11, 12]), (GENERAL_LABEL["en"], [14, 15]), ("B", [20, 21])]
    assert result.dropped == 2


def test_empty_summaries_are_rejected_and_reversed_ranges_read_forwards():
    result = validate_coverage(IDS, [ProposedTopic("  ", 10, 12), ProposedTopic("B", 21, 14)])
    assert spans(result) == [(GENERAL_LABEL["en"], [10, 11, 12]), ("B", [14, 15, 20, 21])]
    assert result.dropped == 1


def test_ranges_follow_the_listed_order_when_ids_do_not_rise_with_time():
    ids = [30, 31, 5, 32]  # message 5 came from an older export imported later
    result = validate_coverage(ids, [ProposedTopic("all", 30, 32)])
    assert [[ids[i] for i in t.positions] for t in result.topics] == [[30, 31, 5, 32]]


proposal = st.builds(ProposedTopic, st.sampled_from(["", " ", "Topic", "Тема"]),
                     st.integers(0, 30), st.integers(0, 30))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.integers(1, 25), min_size=1, max_size=25, unique=True), st.lists(proposal, max_size=12))
def test_every_message_is_in_exactly_one_topic_whatever_the_splitter_returns(ids, proposals):
    result = validate_coverage(ids, proposals)
    positions = [p for topic in result.topics for p in topic.positions]
    assert sorted(positions) == list(range(len(ids)))  # covered, and never twice
    general = [topic for topic in result.topics if topic.is_general]
    assert len(general) <= 1 and result.stragglers == sum(len(t.positions) for t in general)
    for topic in result.topics:
        assert topic.summary.strip() and topic.positions
        if not topic.is_general:  # a splitter topic is one run of the listed messages
            assert list(topic.positions) == list(range(topic.positions[0], topic.positions[-1] + 1))
    assert result.accepted + result.dropped == len(proposals)
