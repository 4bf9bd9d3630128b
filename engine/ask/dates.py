"""Date phrases in a question → a date range (offline), and the soft boost of topics inside it.

English and Russian. The phrases are found by the patterns in `engine.ask.date_patterns`;
each is then resolved against `now` (an aware datetime in the person's zone):
- relative ones ("yesterday", "last week", "3 days ago", "вчера", "на прошлой неделе",
  "2 недели назад", "в пятницу") are read by dateparser, whose language data knows the
  numerals and declensions ("пару недель", "полгода", "a fortnight"); a small rule reads
  what it misses ("a few days ago", "на позапрошлой неделе", "в прошлую пятницу", weekends);
- months, days and years named outright ("in May", "May 2023", "8 мая", "в 2023 году",
  "08.05.2023") are resolved by rules here: dateparser 1.5 returns nothing for "в мае" or
  "в марте", reads "в 2023 году" as the year 2 and "08.05.2023" as 5 August.
dateparser's own search (`search_dates`) is not used to find phrases: measured, it reads the
English word "we" as a weekday in every "what did we …" and finds nothing in "в прошлом
месяце" or "в мае". Only a phrase these patterns matched reaches dateparser, so a bare
number, a short word or a modal "may" never becomes a date.

A phrase becomes the calendar unit it names, in the zone of `now`: a day, a week (Monday
to Monday), a month or a year; "3 days ago" is that day, "2 weeks ago" that week, "last
month" the previous calendar month. A month named without a year is the most recent such
month that began not after `now` ("in May" asked in November is this year's May; "in
December" asked in November is last December's; asked in May, this May). Several phrases
in one question give the span from the earliest to the latest ("between 11 and 15 August").

The range only ever boosts (`boost_in_range`): a topic inside it gains score, nothing is
removed, so a wrong parse costs some order, never the answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.ask import date_patterns as patterns
from engine.retrieval.candidate import Candidate
from engine.retrieval.search import Stage1Result
from engine.store.sql import select_in

# What a topic in the range gains, on the calibrated [0, 1] score scale. Chosen on a
# principle, not tuned on the dated questions: a date agreement may reorder topics that stage 1
# scores about alike, never lift a weak one over a clear match. So it sits below the median
# spread of the top five's scores (score@1 - score@5: 0.13 on LoCoMo's own questions with the
# built-in embedder, p25 0.08): a topic in the range moves up within and into the first few,
# one far below stays below. bench/dated_questions.py reports recall without it, with it,
# at half and twice it, and with the range as a cut.
DEFAULT_WEIGHT = 0.1
DAY = timedelta(days=1)


@dataclass(frozen=True)
class DateRange:
    since: float | None  # UTC epoch seconds, inclusive
    until: float | None  # UTC epoch seconds, exclusive
    phrase: str  # the words that said it ("last week", "в прошлом месяце")
    source: str  # "plan" (the model's) | "parser" (offline) | "user" (a date the person wrote)
    utc_offset_s: float = 0.0  # the person's zone when it was read: what `label` shows its days in

    def contains(self, moment: float) -> bool:
        return (self.since is None or moment >= self.since) and (self.until is None or moment < self.until)

    def overlaps(self, first: float, last: float) -> bool:
        """Whether [first, last] (a topic's first and last message) shares a moment with the range."""
        return (self.since is None or last >= self.since) and (self.until is None or first < self.until)

    def label(self) -> str:
        """The days it covers, both ends inclusive, in the person's zone: "2025-10-01 … 2025-10-31"."""
        first = self._day(self.since) if self.since is not None else "…"
        last = self._day(self.until - 1) if self.until is not None else "…"
        return first if first == last else f"{first} … {last}"

    def _day(self, epoch: float) -> str:
        return datetime.fromtimestamp(epoch + self.utc_offset_s, UTC).date().isoformat()

    def as_dict(self) -> dict[str, Any]:
        return {"since": self.since, "until": self.until, "phrase": self.phrase, "source": self.source,
                "utc_offset_s": self.utc_offset_s, "label": self.label()}


def find_date_range(question: str, now: datetime) -> DateRange | None:
    """The date range a question names, resolved against `now`; None when it names none.

    `now` should be aware (the person's zone); a naive one is taken as this computer's local
    time. Months without a year: the most recent such month not after `now`."""
    if now.tzinfo is None:
        now = now.astimezone()
    found = [(phrase, span) for phrase, span in _resolved_phrases(question, now) if span is not None]
    if not found:
        return None
    start = min(span[0] for _, span in found)
    end = max(span[1] for _, span in found)
    offset = now.utcoffset()
    return DateRange(start.timestamp(), end.timestamp(), " … ".join(phrase for phrase, _ in found), "parser",
                     offset.total_seconds() if offset else 0.0)


def _resolved_phrases(question: str, now: datetime) -> Iterable[tuple[str, tuple[datetime, datetime] | None]]:
    phrases = list(patterns.find_phrases(question))
    years = [phrase.year for phrase in phrases if phrase.year is not None]
    if years:  # "last Friday, on 23 January 2022": the relative words count from the named date, not today
        phrases = [phrase for phrase in phrases if phrase.rule.absolute]
    for phrase in phrases:
        span = phrase.resolve(now, _dateparser_read, years[0] if years else None)
        if span is not None and span[0] > now:  # a date still to come: the chats cannot hold it yet
            span = None
        yield phrase.text, span


def warm_up() -> None:
    """Load dateparser's language data now (~0.2 s once per process) rather than in the first
    question's time; for a worker thread at start-up."""
    _dateparser_read("yesterday", datetime.now().astimezone())


def _dateparser_read(phrase: str, now: datetime) -> tuple[datetime, str] | None:
    """dateparser's reading of one relative phrase: (a moment in `now`'s zone, its period
    "day" | "week" | "month" | "year"), or None when it cannot read it."""
    from dateparser.date import DateDataParser  # here: its language data costs ~0.1 s on first use

    # A naive base: dateparser counts from it in wall-clock terms; the zone is put back below.
    parser = DateDataParser(languages=["en", "ru"], settings={
        "RELATIVE_BASE": now.replace(tzinfo=None), "PREFER_DATES_FROM": "past", "RETURN_TIME_AS_PERIOD": True})
    data = parser.get_date_data(phrase)
    if data is None or data.date_obj is None or data.period not in patterns.UNITS:
        return None
    moment = data.date_obj.replace(tzinfo=None)
    if not 1970 <= moment.year <= now.year + 1:
        return None
    return moment.replace(tzinfo=now.tzinfo), data.period


# ---- the boost ----

@dataclass
class DateBoost:
    """What a date range did to one candidate list (for the trace and the window's note)."""

    date_range: DateRange
    weight: float
    boosted: list[int]  # topic ids inside the range, in their new order
    ms: float = 0.0

    def note(self) -> str:
        return (f"{len(self.boosted)} topic(s) in the range {self.date_range.label()} "
                f"(“{self.date_range.phrase}”) ranked up by {self.weight:g}")

    def as_dict(self) -> dict[str, Any]:
        return {"date_range": self.date_range.as_dict(), "weight": self.weight, "boosted": list(self.boosted),
                "ms": round(self.ms, 3)}


def boost_in_range(candidates: list[Candidate], date_range: DateRange, weight: float = DEFAULT_WEIGHT,
                   spans: Mapping[int, tuple[float, float]] | None = None) -> list[Candidate]:
    """Topics whose time overlaps `date_range` gain `weight` of score (capped at 1); nothing is
    removed. Topics are re-sorted by the boosted score (ties keep stage 1's order) and renumbered;
    people and files keep their places. `spans`: topic id → (first_at, last_at) epoch seconds;
    a topic missing from it is placed on the day of its `date` (its first message)."""
    topics = [c for c in candidates if c.kind == "topic"]
    boosted = []
    for position, candidate in enumerate(topics):
        inside = _in_range(candidate, date_range, spans)
        score = min(1.0, candidate.score + weight) if inside else candidate.score
        boosted.append((-score, position, replace(candidate, score=round(score, 4)) if inside else candidate))
    reordered = iter(replace(c, rank=rank) for rank, (_, _, c) in enumerate(sorted(boosted), 1))
    return [next(reordered) if c.kind == "topic" else c for c in candidates]


def _in_range(candidate: Candidate, date_range: DateRange, spans: Mapping[int, tuple[float, float]] | None) -> bool:
    span = spans.get(candidate.id) if spans else None
    if span is None:
        if not candidate.date:
            return False
        first = datetime.fromisoformat(candidate.date).replace(tzinfo=UTC).timestamp()
        span = (first, first + DAY.total_seconds() - 1)
    return date_range.overlaps(*span)


def topic_spans(connection, topic_ids: list[int]) -> dict[int, tuple[float, float]]:
    """topic id → (first_at, last_at) from the store."""
    rows = select_in(connection, "SELECT id, first_at, last_at FROM topic WHERE id IN ({ids})", topic_ids)
    return {t: (first, last) for t, first, last in rows if first is not None and last is not None}


def apply_date_boost(connection, stage1: Stage1Result, now: datetime, *, date_range: DateRange | None = None,
                     weight: float = DEFAULT_WEIGHT) -> tuple[Stage1Result, DateBoost | None]:
    """Plain Search's date phrases: the range the query names (or `date_range`), applied to
    stage 1's candidates as a soft boost. Returns the result unchanged and None when the
    query names no date."""
    started = time.perf_counter()
    date_range = date_range or find_date_range(stage1.query, now)
    if date_range is None:
        return stage1, None
    spans = topic_spans(connection, [c.id for c in stage1.candidates if c.kind == "topic"])
    candidates = boost_in_range(stage1.candidates, date_range, weight, spans)
    inside = [c.id for c in candidates if c.kind == "topic" and _in_range(c, date_range, spans)]
    boost = DateBoost(date_range, weight, inside, (time.perf_counter() - started) * 1000)
    timings = {**stage1.timings_ms, "date_boost": round(boost.ms, 3)}
    return replace(stage1, candidates=candidates, timings_ms=timings), boost
