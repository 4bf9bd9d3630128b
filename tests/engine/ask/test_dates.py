"""Date phrases → ranges (English and Russian), resolved against a fixed `now`, and what must not be a date."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from engine.ask.dates import DateRange, find_date_range

MSK = timezone(timedelta(hours=3))
NOW = datetime(2025, 11, 15, 12, 0, tzinfo=MSK)  # a Saturday


def _next_day(text: str) -> str:
    return (datetime.fromisoformat(text) + timedelta(days=1)).date().isoformat()


def _previous_day(text: str) -> str:
    return (datetime.fromisoformat(text) - timedelta(days=1)).date().isoformat()


def day(text: str) -> float:
    """Local (MSK) midnight of "YYYY-MM-DD" as UTC epoch seconds."""
    return datetime.fromisoformat(text).replace(tzinfo=MSK).timestamp()


@pytest.mark.parametrize(("question", "since", "until"), [
    ("what did we discuss yesterday", "2025-11-14", "2025-11-15"),
    ("what did we discuss last week", "2025-11-03", "2025-11-10"),
    ("what happened last month", "2025-10-01", "2025-11-01"),
    ("what did Dan say in May", "2025-05-01", "2025-06-01"),
    ("the trip in May 2023", "2023-05-01", "2023-06-01"),
    ("what did Mom send 3 days ago", "2025-11-12", "2025-11-13"),
    ("what did we plan this year", "2025-01-01", "2026-01-01"),
    ("что мама писала вчера", "2025-11-14", "2025-11-15"),
    ("что было позавчера", "2025-11-13", "2025-11-14"),
    ("что мы обсуждали на прошлой неделе", "2025-11-03", "2025-11-10"),
    ("что мы обсуждали в прошлом месяце", "2025-10-01", "2025-11-01"),
    ("куда мы ездили в мае", "2025-05-01", "2025-06-01"),
    ("что Катя писала 2 недели назад", "2025-10-27", "2025-11-03"),
    ("что было в 2023 году", "2023-01-01", "2024-01-01"),
    ("что мама писала 8 мая", "2025-05-08", "2025-05-09"),
    ("what did Caroline say on 8 May 2023", "2023-05-08", "2023-05-09"),
    ("what did John do on December 1,2023", "2023-12-01", "2023-12-02"),
    ("договор от 08.05.2023", "2023-05-08", "2023-05-09"),
    ("the log of 2023-05-08", "2023-05-08", "2023-05-09"),
    ("a couple of days ago", "2025-11-13", "2025-11-14"),  # dateparser cannot read it: the rule does
    ("несколько дней назад", "2025-11-10", "2025-11-14"),  # vague: two to five days back
    ("a few weeks ago", "2025-10-06", "2025-11-03"),
    ("на позапрошлой неделе", "2025-10-27", "2025-11-03"),
    ("в прошлую пятницу", "2025-11-14", "2025-11-15"),
    ("в пятницу", "2025-11-14", "2025-11-15"),
    ("last weekend", "2025-11-08", "2025-11-10"),
    ("в прошлые выходные", "2025-11-08", "2025-11-10"),
    ("полгода назад", "2025-05-01", "2025-06-01"),
    ("between August 11 and August 15 2023", "2023-08-11", "2023-08-16"),  # the year borrowed
])
def test_phrases_resolve_to_calendar_ranges_in_the_persons_zone(question, since, until):
    found = find_date_range(question, NOW)
    assert found is not None, question
    assert (found.since, found.until) == (day(since), day(until)), (question, found.label())
    assert found.source == "parser" and found.label() == (since if until == _next_day(since) else
                                                          f"{since} … {_previous_day(until)}")
    assert all(part.lower() in question.lower() for part in found.phrase.split(" … "))


def test_a_month_without_a_year_is_the_most_recent_one_not_after_now():
    in_december = find_date_range("what happened in December", NOW)
    assert (in_december.since, in_december.until) == (day("2024-12-01"), day("2025-01-01"))
    asked_in_may = datetime(2025, 5, 10, 9, 0, tzinfo=MSK)
    in_may = find_date_range("в мае", asked_in_may)
    assert (in_may.since, in_may.until) == (day("2025-05-01"), day("2025-06-01"))
    eighth = find_date_range("8 мая", datetime(2025, 5, 7, 9, 0, tzinfo=MSK))  # not yet this year: last year's
    assert eighth.since == day("2024-05-08")


def test_relative_words_beside_a_named_date_count_from_that_date():
    found = find_date_range("What did Joanna just finish last Friday on 23 January, 2022?", NOW)
    assert (found.since, found.until) == (day("2022-01-23"), day("2022-01-24"))


@pytest.mark.parametrize("question", [
    "what did we discuss",  # dateparser's search reads "we" as a weekday
    "we went to the store",
    "May I ask what Dan recommended?",  # the modal, not the month
    "Caroline's March trip",
    "I have 3 cats",
    "PR 1482 merged after review",
    "version 16.4 released",
    "в 2000 рублей обошлось",
    "in 1000 words or less",
    "How long ago was Caroline's 18th birthday?",
    "on 31 April",
    "what is planned for next week",  # the future: the chats cannot hold it yet
    "in 2030",
    "когда у мамы приём у кардиолога",
    "",
])
def test_what_is_not_a_past_date_gives_none(question):
    assert find_date_range(question, NOW) is None


def test_a_naive_now_is_local_time_and_the_range_says_itself():
    found = find_date_range("вчера", datetime(2025, 11, 15, 12, 0))  # tests run with TZ=UTC
    assert found == DateRange(datetime(2025, 11, 14, tzinfo=UTC).timestamp(),
                              datetime(2025, 11, 15, tzinfo=UTC).timestamp(), "вчера", "parser")
    assert found.as_dict()["label"] == "2025-11-14"
    assert found.contains(found.since) and not found.contains(found.until)


def test_the_anchor_gate_never_hides_a_phrase_the_rules_find():
    """`find_phrases` skips the patterns for a text without a digit, month, weekday or relative
    word: over every dev question, the dated questions and their phrases, the gated result is
    the ungated one."""
    import json
    from pathlib import Path

    from engine.ask import date_patterns

    root = Path(__file__).resolve().parents[3]
    dated = json.loads((root / "bench" / "data" / "dated_questions.json").read_text(encoding="utf-8"))
    texts = [q["question"] for q in dated["questions"]] + [q.get("phrase") or "" for q in dated["questions"]]
    locomo = root.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
    if locomo.exists():
        texts += [qa["question"] for sample in json.loads(locomo.read_text(encoding="utf-8")) for qa in sample["qa"]]
    texts += ["the day before yesterday", "last night", "this past Sunday", "за последний месяц", "полгода назад",
              "в прошлые выходные", "в позапрошлом году", "в пятницу", "Maybe in May?", "what is up"]

    def ungated(text: str) -> list[str]:
        kept = []
        for rule in date_patterns.rules():
            for match in rule.pattern.finditer(text):
                if all(match.end() <= a or match.start() >= b for _, a, b in kept):
                    kept.append((match.group(0).strip(), match.start(), match.end()))
        return [phrase for phrase, _, _ in sorted(kept, key=lambda k: k[1])]

    assert len(texts) > 100
    found = 0
    for text in texts:
        gated = [p.text for p in date_patterns.find_phrases(text)]
        assert gated == ungated(text), text
        found += bool(gated)
    assert found > 60  # the check covers texts with phrases, not only texts without
    assert not date_patterns.might_name_a_date("what did we decide about the cat")
