"""Numbers and dates as values, English and Russian: "two" = "2" = "две", "7 May 2023" =
"2023-05-07" = "7 мая 2023", and "yesterday" in a message of 8 May 2023 = 7 May 2023.

The verifier (`engine.support.check`) compares a claim's numbers and dates with its cited
messages' by value, so a model that writes a date in another form than the chat is not
called unsupported, and one that writes another date is. Each finder returns the values and
the character spans it read, so the caller can take those words out of the claim's other terms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from engine.text.stemming import fold

Span = tuple[int, int]

EN_MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
             "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3,
             "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
_RU_MONTH_STEMS = ("январ", "феврал", "март", "апрел", "ма", "июн", "июл", "август", "сентябр", "октябр", "ноябр",
                   "декабр")
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000, "dozen": 12,
    "once": 1, "twice": 2, "single": 1, "couple": 2, "pair": 2, "first": 1, "second": 2, "third": 3, "fourth": 4,
    "fifth": 5,
    "ноль": 0, "один": 1, "одна": 1, "одно": 1, "одну": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5,
    "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "одиннадцать": 11, "двенадцать": 12,
    "пятнадцать": 15, "двадцать": 20, "тридцать": 30, "сорок": 40, "пятьдесят": 50, "сто": 100, "тысяча": 1000,
    "дважды": 2, "трижды": 3, "пару": 2, "пара": 2, "первый": 1, "второй": 2, "третий": 3,
}
# A word that reads as a number only next to a unit or another number ("a single parent" is not 1).
_WEAK_NUMBER_WORDS = {"single", "couple", "pair", "first", "second", "third", "fourth", "fifth", "once", "пара",
                      "пару", "первый", "второй", "третий", "одна", "одно", "один", "одну", "one"}

_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
_EN_MONTH = "(" + "|".join(sorted(EN_MONTHS, key=len, reverse=True)) + r")\.?"
_RU_MONTH = r"(январ[ьяе]|феврал[ьяе]|март[ае]?|апрел[ьяе]|ма[йяе]|июн[ьяе]|июл[ьяе]|август[ае]?" \
            r"|сентябр[ьяе]|октябр[ьяе]|ноябр[ьяе]|декабр[ьяе])"
_B, _E = r"(?<![\w.])", r"(?![\w])"
_DATE_FORMS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), order) for p, order in (
    (_B + r"(\d{4})-(\d{1,2})-(\d{1,2})" + _E, "ymd"),
    (_B + r"(\d{1,2})\.(\d{1,2})\.(\d{4})" + _E, "dmy"),
    (_B + r"(\d{1,2})/(\d{1,2})/(\d{4})" + _E, "mdy"),
    (_B + _DAY + r"\s+(?:of\s+)?" + _EN_MONTH + r",?\s+" + _YEAR + _E, "dMy"),
    (_B + _EN_MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR + _E, "Mdy"),
    (_B + _DAY + r"\s+" + _RU_MONTH + r"\s+" + _YEAR + r"(?:\s*(?:года|год|г\.?))?" + _E, "dRy"),
    (_B + _EN_MONTH + r",?\s+" + _YEAR + _E, "My"),
    (_B + _RU_MONTH + r"\s+" + _YEAR + r"(?:\s*(?:года|год|г\.?))?" + _E, "Ry"),
    (_B + _DAY + r"\s+(?:of\s+)?" + _EN_MONTH + _E, "dM"),
    (_B + _EN_MONTH + r"\s+" + _DAY + _E, "Md"),
    (_B + _DAY + r"\s+" + _RU_MONTH + _E, "dR"),
    (_B + r"((?:19|20|21)\d{2})(?:\s*(?:года|году|год|г\.))?" + _E, "y"),
))
_RELATIVE = re.compile(
    r"\b(yesterday|today|tonight|this morning|вчера|сегодня|позавчера|day before yesterday"
    r"|day after tomorrow|tomorrow|послезавтра|завтра"
    r"|(?:last|past|previous|this|next|в прошлом|на прошлой|в этом|на этой|в следующем|на следующей)\s+"
    r"(week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday|году|месяце|неделе|выходных)"
    r"|(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple of)\s+"
    r"(days?|weeks?|months?|years?)\s+ago)\b",
    re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.,:])(\d{1,2}):(\d{2})(?![\w:])"
                     r"|(?<![\w.,])(\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d|[.,]\d)|\d+(?:[.,]\d+)?)(?![\w])"
                     r"|(?<![\w-])([^\W\d_]+)(?![\w-])")
TIME_BASE = 100_000.0  # a time of day "9:30" is the number TIME_BASE + minutes: never equal to a count
_UNITS = re.compile(r"^\s*(years?|months?|weeks?|days?|hours?|times?|kids?|children|dogs?|cats?|people|miles?|km|"
                    r"kilometers?|dollars?|\$|pounds?|лет|год[а]?|месяц|недел|дн|час|раз|дет|собак|кош|человек)",
                    re.IGNORECASE)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@dataclass(frozen=True, slots=True)
class DateValue:
    """A date at the precision it was said: a year, a month of a year, or a day; `year` None
    for "7 May" said without one (it then matches that day of any year)."""

    year: int | None
    month: int | None = None
    day: int | None = None

    def within(self, other: DateValue) -> bool:
        """True when `other`, said at least as precisely, falls inside this value."""
        return ((self.year is None or self.year == other.year)
                and (self.month is None or self.month == other.month)
                and (self.day is None or self.day == other.day))


def _month(word: str) -> int:
    word = fold(word).rstrip(".")
    if word in EN_MONTHS:
        return EN_MONTHS[word]
    return next(i for i, stem in enumerate(_RU_MONTH_STEMS, 1)
                if word.startswith(stem) and (stem != "ма" or word in ("май", "мая", "мае")))


def _value(groups: tuple[str, ...], order: str) -> DateValue | None:
    parts: dict[str, int | None] = {"y": None, "m": None, "d": None}
    for key, text in zip(order, groups, strict=True):
        if key in "MR":
            parts["m"] = _month(text)
        else:
            parts[key.lower()] = int(text)
    year, month, day = parts["y"], parts["m"], parts["d"]
    if year is not None and not 1900 <= year <= 2200:
        return None
    if month is not None and not 1 <= month <= 12:
        return None
    if day is not None:
        try:
            date(year or 2000, month or 1, day)
        except ValueError:
            return None
    return DateValue(year, month, day)


def find_dates(text: str) -> tuple[list[DateValue], list[Span]]:
    """Every date said in `text` (most precise form first; a span is read once)."""
    values: list[DateValue] = []
    spans: list[Span] = []
    for pattern, order in _DATE_FORMS:
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end in spans):
                continue
            if order == "y" and _UNITS.match(text[match.end():]):
                continue  # "2000 dollars", "1500 miles"
            value = _value(match.groups(), order)
            if value is not None:
                values.append(value)
                spans.append(match.span())
    return values, spans


def relative_dates(text: str, anchor: date) -> list[DateValue]:
    """The days, months and years a message sent on `anchor` means by "yesterday", "last week",
    "two years ago", "last Saturday", …: every day a week could mean, so a claim's date inside
    it is found."""
    found: list[DateValue] = []
    for match in _RELATIVE.finditer(text):
        phrase = fold(match.group(0))
        found.extend(_resolve(phrase, anchor))
    return found


def _days(first: date, count: int) -> list[DateValue]:
    return [DateValue(d.year, d.month, d.day) for d in (first + timedelta(days=i) for i in range(count))]


def _resolve(phrase: str, anchor: date) -> list[DateValue]:  # noqa: PLR0911 - one branch per phrase family
    if phrase in ("yesterday", "вчера"):
        return _days(anchor - timedelta(days=1), 1)
    if phrase in ("позавчера", "day before yesterday"):
        return _days(anchor - timedelta(days=2), 1)
    if phrase in ("today", "tonight", "this morning", "сегодня"):
        return _days(anchor, 1)
    if phrase in ("tomorrow", "завтра"):  # a plan: "the opening is tomorrow"
        return _days(anchor + timedelta(days=1), 1)
    if phrase in ("day after tomorrow", "послезавтра"):
        return _days(anchor + timedelta(days=2), 1)
    ago = re.match(r"(\S+|few|couple of)\s+(day|week|month|year)s?\s+ago", phrase)
    if ago:
        count = {"a": 1, "an": 1, "few": 3, "couple of": 2}.get(ago.group(1)) or NUMBER_WORDS.get(ago.group(1))
        count = count if count is not None else int(ago.group(1)) if ago.group(1).isdigit() else 1
        unit = ago.group(2)
        if unit == "day":
            return _days(anchor - timedelta(days=count), 1)
        if unit == "week":
            return _days(anchor - timedelta(days=7 * count + 6), 13)
        if unit == "month":
            month_index = anchor.year * 12 + anchor.month - 1 - count
            return [DateValue(month_index // 12, month_index % 12 + 1)]
        return [DateValue(anchor.year - count)]
    shift = -1 if phrase.startswith(("last", "past", "previous", "в прошлом", "на прошлой")) else \
        1 if phrase.startswith(("next", "в следующем", "на следующей")) else 0
    unit = phrase.rsplit(" ", 1)[-1]
    if unit in _WEEKDAYS:
        weekday = _WEEKDAYS.index(unit)
        back = (anchor.weekday() - weekday) % 7 or 7  # the most recent such day before the anchor
        ahead = (weekday - anchor.weekday()) % 7 or 7
        if shift > 0:
            return _days(anchor + timedelta(days=ahead), 1)
        # "last Saturday": the most recent one, or the one of the week before (both are said)
        days = _days(anchor - timedelta(days=back), 1) + _days(anchor - timedelta(days=back + 7), 1)
        return days if shift < 0 else days[:1] + _days(anchor + timedelta(days=ahead), 1)
    if unit in ("week", "неделе", "weekend", "выходных"):
        start = anchor - timedelta(days=anchor.weekday()) + timedelta(weeks=shift)
        return _days(start - timedelta(days=1), 9)  # a week said loosely: the Sunday before to the Monday after
    if unit in ("month", "месяце"):
        month_index = anchor.year * 12 + anchor.month - 1 + shift
        return [DateValue(month_index // 12, month_index % 12 + 1)]
    return [DateValue(anchor.year + shift)]


def find_numbers(text: str, skip: Sequence[Span] = ()) -> tuple[list[float], list[Span]]:
    """Every quantity in `text`, digits or words, outside the `skip` spans (dates)."""
    values: list[float] = []
    spans: list[Span] = []
    for match in _NUMBER.finditer(text):
        if any(start < match.end() and match.start() < end for start, end in skip):
            continue
        hours, minutes, digits, word = match.groups()
        if hours is not None:
            values.append(TIME_BASE + int(hours) * 60 + int(minutes))
            spans.append(match.span())
            continue
        if digits:
            grouped = re.sub(r"[ \u00a0\u202f]", "", digits)  # "50 000": thousands grouped by spaces
            if grouped != digits or re.fullmatch(r"\d{1,3}(,\d{3})+", digits):
                values.append(float(grouped.replace(",", "")))  # "58,400" is fifty-eight thousand
            else:
                values.append(float(digits.replace(",", ".")))
            spans.append(match.span())
            continue
        folded = fold(word)
        if folded not in NUMBER_WORDS:
            continue
        if folded in _WEAK_NUMBER_WORDS and not _UNITS.match(text[match.end():]):
            continue
        values.append(float(NUMBER_WORDS[folded]))
        spans.append(match.span())
    return values, spans
