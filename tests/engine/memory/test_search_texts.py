"""What BM25 indexes per topic: days in words (English and Russian), "Author: text" lines, the summary apart."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.memory.documents import MAX_DATES, date_words
from engine.memory.topic_documents import topic_search_texts
from engine.topics import build_topics
from tests.engine.topics.conftest import conversation


def _at(day: int, month: int = 5, year: int = 2023, hour: int = 12) -> float:
    return datetime(year, month, day, hour, tzinfo=UTC).timestamp()


def test_date_words_name_each_day_in_english_and_russian():
    assert date_words([_at(8), _at(8, hour=23)]) == "8 May 2023 · 8 мая 2023"
    assert date_words([_at(31, 12, 2023), _at(1, 1, 2024)]) == \
        "31 December 2023 · 1 January 2024 · 31 декабря 2023 · 1 января 2024"
    assert date_words([]) == ""


def test_a_long_topic_names_its_months_instead_of_every_day():
    days = [_at(day) for day in range(1, 31)] + [_at(2, 6)]
    assert len(days) > MAX_DATES
    assert date_words(days) == "May 2023 · June 2023 · май 2023 · июнь 2023"


def test_topic_search_text_has_days_and_author_lines_without_timestamps(store):
    store.add(conversation("Team", _at(8), [("Anna", "Deploy the release"), ("Bob", "Done, all green")]))
    build_topics(store.connection)
    topic_id, summary = store.rows("SELECT id, summary FROM topic")[0]
    log, heading = topic_search_texts(store.connection, [topic_id, 999])[topic_id]
    assert log == "8 May 2023 · 8 мая 2023\nAnna: Deploy the release\nBob: Done, all green"
    assert heading == f"Team\n{summary}"  # the chat's title, then the summary
    assert 999 not in topic_search_texts(store.connection, [999])
