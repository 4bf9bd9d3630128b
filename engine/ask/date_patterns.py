"""The date phrases `engine.ask.dates` recognises, English and Russian, and how each resolves.

Each rule is a pattern plus a resolver that turns a match into a span (start, end) of aware
datetimes in `now`'s zone. Rules are tried most specific first ("8 May 2023" before "May
2023" before "in May"); a later rule's match that overlaps a kept one is dropped. What is
deliberately not a date: a bare number ("3 cats", "PR 1482", "16.4"), a year outside
1970 … next year or followed by a unit ("в 2000 рублей"), the modal "may" or the verb
"march" without a preposition, a day or year next to it, a weekday without "last"/"on"/"в".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

UNITS = ("day", "week", "month", "year")
Span = tuple[datetime, datetime]
Reader = Callable[[str, datetime], "tuple[datetime, str] | None"]  # dateparser: phrase → (moment, unit)

EN_MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
             "september": 9, "october": 10, "november": 11, "december": 12}
EN_SHORT = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
            "nov": 11, "dec": 12}
RU_MONTHS = {"янв": 1, "фев": 2, "мар": 3, "апр": 4, "май": 5, "мая": 5, "мае": 5, "июн": 6, "июл": 7, "авг": 8,
             "сен": 9, "окт": 10, "ноя": 11, "дек": 12}
WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
            "понедельник": 0, "вторник": 1, "среду": 2, "четверг": 3, "пятницу": 4, "субботу": 5, "воскресенье": 6}
QUANTITIES = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
              "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "a couple of": 2,
              "один": 1, "одну": 1, "два": 2, "две": 2, "пару": 2, "пара": 2, "три": 3,
              "четыре": 4, "пять": 5, "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10}
VAGUE = ("few", "a few", "several", "несколько")  # "a few days ago": two to five of them back
SHIFTS = {"last": -1, "previous": -1, "this": 0, "прошлой": -1, "прошлом": -1, "позапрошлой": -2,
          "позапрошлом": -2, "этой": 0, "этом": 0, "текущей": 0, "текущем": 0, "той": -1,
          "прошлые": -1, "эти": 0}

_EN_FULL = "|".join(EN_MONTHS)
_EN_ANY = "|".join(sorted([*EN_MONTHS, *EN_SHORT], key=len, reverse=True))
_RU_MONTH = (r"(?:январ[ьяе]|феврал[ьяе]|март[ае]?|апрел[ьяе]|ма[йяе]|июн[ьяе]|июл[ьяе]|август[ае]?"
             r"|сентябр[ьяе]|октябр[ьяе]|ноябр[ьяе]|декабр[ьяе])")
_DAY = r"(\d{1,2})(?:st|nd|rd|th|-?го)?"
_YEAR = r"(\d{4})(?![.,:]?\d)"
_RU_YEAR_WORD = r"(?:\s*(?:году|года|год|г\.?)(?!\w))?"
_NOT_A_QUANTITY = (r"(?!\s*(?:%|₽|\$|€|руб|р\.|rub|usd|eur|долл|евро|тыс|km|км|kg|кг|words|слов|steps|шаг|people"
                   r"|человек|times|раз|pages|стр))")
_EN_WEEKDAY = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_RU_WEEKDAY = "понедельник|вторник|среду|четверг|пятницу|субботу|воскресенье"
_QUANTITY = r"(\d{1,3}|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
_RU_QUANTITY = r"(\d{1,3}|пару|пара|один|одну|два|две|три|четыре|пять|шесть|семь|восемь|девять|десять|несколько)"
_RU_UNIT = r"(дн(?:я|ей)|день|сутки|суток|недел[юиь]|месяц(?:а|ев)?|год(?:а)?|лет)"


def en_month(word: str) -> int:
    word = word.lower().rstrip(".")
    return EN_MONTHS.get(word) or EN_SHORT[word]


def ru_month(word: str) -> int:
    return RU_MONTHS[word.lower()[:3]]


def ru_unit(word: str) -> str:
    word = word.lower()
    if word.startswith(("дн", "ден", "сут")):
        return "day"
    return "week" if word.startswith("недел") else "month" if word.startswith("месяц") else "year"


# ---- calendar arithmetic, in the zone of the datetimes given ----

def unit_bounds(moment: datetime, unit: str) -> Span:
    """The calendar day, week (Monday first), month or year holding `moment`."""
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "day":
        return day, day + timedelta(days=1)
    if unit == "week":
        start = day - timedelta(days=day.weekday())
        return start, start + timedelta(days=7)
    if unit == "month":
        start = day.replace(day=1)
        return start, (start + timedelta(days=32)).replace(day=1)
    start = day.replace(month=1, day=1)
    return start, start.replace(year=start.year + 1)


def shifted(now: datetime, unit: str, count: int) -> datetime:
    """`now` moved by `count` calendar units (months and years land on the 1st)."""
    if unit == "day":
        return now + timedelta(days=count)
    if unit == "week":
        return now + timedelta(weeks=count)
    if unit == "month":
        months = now.year * 12 + now.month - 1 + count
        return now.replace(year=months // 12, month=months % 12 + 1, day=1)
    return now.replace(year=now.year + count, month=1, day=1)


def month_span(year: int | None, month: int, now: datetime) -> Span | None:
    if year is None:  # the most recent such month that began not after `now`
        year = now.year if month <= now.month else now.year - 1
    if not 1970 <= year <= now.year + 1:
        return None
    return unit_bounds(now.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0),
                       "month")


def day_span(year: int | None, month: int, day: int, now: datetime) -> Span | None:
    try:
        if year is None:  # the most recent such day not after `now`
            year = now.year if (month, day) <= (now.month, now.day) else now.year - 1
            now.replace(year=year, month=month, day=day)  # 29 February of a year without one
        if not 1970 <= year <= now.year + 1:
            return None
        return unit_bounds(now.replace(year=year, month=month, day=day), "day")
    except ValueError:  # 31 April, day 0, month 13
        return None


def year_span(year: int, now: datetime) -> Span | None:
    if not 1970 <= year <= now.year + 1:
        return None
    return unit_bounds(now.replace(year=year, month=1, day=1), "year")


def weekday_span(weekday: int, now: datetime, weeks_back: int = 0) -> Span:
    """The most recent `weekday` before today (today excluded: "on Friday" asked on a Friday
    means last week's), `weeks_back` more weeks earlier."""
    back = (now.weekday() - weekday) % 7 or 7
    return unit_bounds(now - timedelta(days=back + 7 * weeks_back), "day")


def weekend_span(now: datetime, shift: int) -> Span:
    """Saturday and Sunday of the calendar week `shift` weeks from this one."""
    monday = unit_bounds(shifted(now, "week", shift), "week")[0]
    return monday + timedelta(days=5), monday + timedelta(days=7)


# ---- the rules ----

@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern
    # (match, now, dateparser's reader, the year another phrase of the question names) → span
    resolve: Callable[[re.Match, datetime, Reader, int | None], Span | None]
    year_group: int | None = None  # absolute rules: the group holding an explicit year
    absolute: bool = False


@dataclass(frozen=True)
class PhraseMatch:
    text: str
    start: int
    end: int
    rule: Rule
    match: re.Match

    @property
    def year(self) -> int | None:
        """The year the phrase names outright ("May 2023"), else None."""
        group = self.rule.year_group
        return int(self.match.group(group)) if group and self.match.group(group) else None

    def resolve(self, now: datetime, read: Reader, year_hint: int | None = None) -> Span | None:
        return self.rule.resolve(self.match, now, read, year_hint)


def _read_or(rule: Callable[[re.Match, datetime], Span | None]):
    """A relative phrase: dateparser's reading when it has one, else `rule`'s."""
    def resolve(match: re.Match, now: datetime, read: Reader, year_hint: int | None = None) -> Span | None:
        reading = read(match.group(0), now)
        if reading is not None:
            return unit_bounds(*reading)
        return rule(match, now)
    return resolve


def _ago(match: re.Match, now: datetime) -> Span | None:
    quantity, unit = (match.group(1) or "").lower(), match.group(2).lower()
    count = int(quantity) if quantity.isdigit() else QUANTITIES.get(quantity, 1)
    if unit.startswith("fortnight"):
        unit, count = "week", count * 2
    elif unit.rstrip("s") in UNITS:
        unit = unit.rstrip("s")
    else:
        unit = ru_unit(unit)
    if quantity in VAGUE:
        return unit_bounds(shifted(now, unit, -5), unit)[0], unit_bounds(shifted(now, unit, -2), unit)[1]
    return unit_bounds(shifted(now, unit, -count), unit)


def _half_year_ago(match: re.Match, now: datetime) -> Span | None:
    return unit_bounds(shifted(now, "month", -6), "month")


def _calendar_shift(match: re.Match, now: datetime) -> Span | None:
    shift, unit = SHIFTS[match.group(1).lower()], match.group(2).lower()
    unit = unit if unit in UNITS else ru_unit(unit)
    return unit_bounds(shifted(now, unit, shift), unit)


def _week_before_last(match: re.Match, now: datetime) -> Span | None:
    unit = match.group(1).lower()
    return unit_bounds(shifted(now, unit, -2), unit)


def _rolling(match: re.Match, now: datetime) -> Span | None:
    """'the past week', 'за последний месяц': up to now, one unit back."""
    word = match.group(1).lower()
    unit = word if word in UNITS else ru_unit(word)
    days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit]
    return now - timedelta(days=days), now


def _weekday(match: re.Match, now: datetime) -> Span | None:
    return weekday_span(WEEKDAYS[match.group(1).lower()], now)


def _weekend(match: re.Match, now: datetime) -> Span | None:
    return weekend_span(now, SHIFTS[match.group(1).lower()])


def _simple_day(back: int):
    def resolve(match: re.Match, now: datetime) -> Span | None:
        return unit_bounds(now - timedelta(days=back), "day")
    return resolve


def _int(text: str | None) -> int | None:
    return int(text) if text else None


def _rule(name: str, pattern: str, resolve) -> Rule:
    """A relative phrase's rule: `resolve(match, now, read)`."""
    return Rule(name, re.compile(pattern, re.IGNORECASE), lambda m, now, read, hint: resolve(m, now, read))


def _absolute(name: str, pattern: str, resolve, year_group: int | None = None) -> Rule:
    """A named day, month or year: `resolve(match, now, year)`, the year the phrase's own or,
    when it has none, the one another phrase of the question names ("between August 11 and
    August 15 2023")."""
    def with_year(m: re.Match, now: datetime, read: Reader, hint: int | None) -> Span | None:
        own = int(m.group(year_group)) if year_group and m.group(year_group) else None
        return resolve(m, now, own or hint)
    return Rule(name, re.compile(pattern, re.IGNORECASE), with_year, year_group, absolute=True)


@functools.cache
def rules() -> tuple[Rule, ...]:
    """The rules, compiled on first use: ~25 ms of regex compiling that a search whose query
    names no date (`might_name_a_date`) never pays."""
    return (
        # Days named outright.
        _absolute("iso date", r"\b(\d{4})-(\d{2})-(\d{2})\b",
                  lambda m, now, year: day_span(year, int(m[2]), int(m[3]), now), 1),
        _absolute("numeric date (day.month.year)", r"\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b",
                  lambda m, now, year: day_span(year, int(m[2]), int(m[1]), now), 3),
        _absolute("day month [year]", rf"\b{_DAY}\s+(?:of\s+)?({_EN_ANY})\b\.?(?:,?\s*{_YEAR})?",
                  lambda m, now, year: day_span(year, en_month(m[2]), int(m[1]), now), 3),
        _absolute("month day [year]", rf"\b({_EN_ANY})\b\.?\s+{_DAY}\b(?!\s*(?:%|:))(?:,?\s*{_YEAR})?",
                  lambda m, now, year: day_span(year, en_month(m[1]), int(m[2]), now), 3),
        _absolute("день месяц [год]", rf"\b{_DAY}\s+({_RU_MONTH})\b(?:\s+{_YEAR}{_RU_YEAR_WORD})?",
                  lambda m, now, year: day_span(year, ru_month(m[2]), int(m[1]), now), 3),
        # Months.
        _absolute("month year", rf"\b({_EN_ANY})\b\.?,?\s+{_YEAR}",
                  lambda m, now, year: month_span(year, en_month(m[1]), now), 2),
        _absolute("месяц год", rf"\b({_RU_MONTH})\s+{_YEAR}{_RU_YEAR_WORD}",
                  lambda m, now, year: month_span(year, ru_month(m[1]), now), 2),
        _absolute("in month", rf"\b(?:in|during|since|from|until|till|by|of|early|late|mid|throughout|last|this)[\s-]+"
                              rf"({_EN_FULL})\b", lambda m, now, year: month_span(year, en_month(m[1]), now)),
        _absolute("в месяце", rf"(?<!\w)(?:в\s+(?:начале|середине|конце)|(?:с|до|после)\s+(?:начала|середины|конца)"
                              rf"|в|во|с|до|после|к|начале|середине|конце)\s+({_RU_MONTH})\b",
                  lambda m, now, year: month_span(year, ru_month(m[1]), now)),
        # Years.
        _absolute("в году", rf"(?<!\w)(?:(?:в|во|с|до|после|за)\s+)?{_YEAR}\s*(?:году|года|год|г\.)",
                  lambda m, now, year: year_span(year, now), 1),
        _absolute("in year", rf"(?<!\w)(?:in|during|since|from|until|by|throughout|в|во|с|до|после)\s+"
                             rf"(?:the\s+year\s+)?{_YEAR}\b{_NOT_A_QUANTITY}",
                  lambda m, now, year: year_span(year, now), 1),
        # Relative: dateparser first.
        _rule("ago", rf"\b{_QUANTITY}\s+(day|week|month|year|fortnight)s?\s+ago\b", _read_or(_ago)),
        _rule("назад", rf"(?<!\w)(?:{_RU_QUANTITY}\s+)?{_RU_UNIT}\s+назад(?!\w)", _read_or(_ago)),
        _rule("полгода назад", r"(?<!\w)полгода\s+назад(?!\w)", _read_or(_half_year_ago)),
        _rule("the day before yesterday", r"\bthe\s+day\s+before\s+yesterday\b", _read_or(_simple_day(2))),
        _rule("week before last", r"\bthe\s+(week|month|year)\s+before\s+last\b", lambda m, now, read:
              _week_before_last(m, now)),
        _rule("past unit", r"\b(?:in\s+|over\s+|during\s+)?the\s+(?:past|last)\s+(day|week|month|year)\b",
              lambda m, now, read: _rolling(m, now)),
        _rule("за последний", r"(?<!\w)за\s+последн(?:юю|ий|ие)\s+(недел[юи]|месяц|год)(?!\w)",
              lambda m, now, read: _rolling(m, now)),
        _rule("last weekend", r"\b(last|this)\s+weekend\b", lambda m, now, read: _weekend(m, now)),
        _rule("в выходные", r"(?<!\w)в\s+(прошлые|эти)\s+выходные(?!\w)", lambda m, now, read: _weekend(m, now)),
        _rule("last unit", r"\b(last|previous|this)\s+(week|month|year)\b", _read_or(_calendar_shift)),
        _rule("на неделе", r"(?<!\w)на\s+(прошлой|позапрошлой|этой|текущей|той)\s+(неделе)(?!\w)",
              _read_or(_calendar_shift)),
        _rule("в месяце/году", r"(?<!\w)в\s+(прошлом|позапрошлом|этом|текущем)\s+(месяце|году)(?!\w)",
              _read_or(_calendar_shift)),
        _rule("yesterday", r"\byesterday\b|\blast\s+night\b|(?<!\w)вчера(?!\w)", _read_or(_simple_day(1))),
        _rule("позавчера", r"(?<!\w)позавчера(?!\w)", _read_or(_simple_day(2))),
        _rule("today", r"\btoday\b|(?<!\w)сегодня(?!\w)", _read_or(_simple_day(0))),
        _rule("last weekday", rf"\b(?:last|on|this\s+past)\s+({_EN_WEEKDAY})\b", _read_or(_weekday)),
        _rule("в прошлую пятницу", rf"(?<!\w)в\s+прошл(?:ый|ую|ое)\s+({_RU_WEEKDAY})(?!\w)",
              lambda m, now, read: _weekday(m, now)),
        _rule("в пятницу", rf"(?<!\w)в\s+({_RU_WEEKDAY})(?!\w)", _read_or(_weekday)),
    )


# Every rule needs a digit or one of these (lower case, as substrings): a month, a weekday, or a
# word of a relative phrase. A text without any holds no date phrase; the gate is a superset
# ("may" in "maybe" passes), so it only spares the patterns, never hides a phrase
# (tests/engine/ask/test_dates.py checks it against every question of the dev data).
_ANCHORS = re.compile("|".join([
    r"\d", "ago", "назад", "yesterday", "night", "вчера", "today", "сегодня", "week", "month", "year",
    "последн", "выходные", "недел", "месяц", "году", *EN_MONTHS, *WEEKDAYS,
    "январ", "феврал", "март", "апрел", "май", "мая", "мае", "июн", "июл", "август", "сентябр", "октябр",
    "ноябр", "декабр"]), re.IGNORECASE)


def might_name_a_date(text: str) -> bool:
    return _ANCHORS.search(text) is not None


def find_phrases(text: str) -> Iterator[PhraseMatch]:
    """Every date phrase in `text`, in text order, no two overlapping (the more specific rule wins)."""
    if not might_name_a_date(text):
        return
    kept: list[PhraseMatch] = []
    for rule in rules():
        for match in rule.pattern.finditer(text):
            start, end = match.span()
            if all(end <= other.start or start >= other.end for other in kept):
                kept.append(PhraseMatch(match.group(0).strip(), start, end, rule, match))
    yield from sorted(kept, key=lambda phrase: phrase.start)
