"""Step 1, the plan (seed 002's query planner): sub-queries per language, a date range, chats, people.

One bounded call under a JSON schema. The schema has one list of sub-queries per language
the store's chats are written in, each required with at least one entry, so a Russian
question over English chats always gets an English sub-query and BM25 can match its words;
chats are an `enum` of the store's chat names. Dates come back as the question's own words
("last week", "в мае") or ISO days, and are resolved here against today (engine.ask.dates),
never trusted as the model's arithmetic. The question itself is always the first sub-query:
a bad plan can add candidates, not take the question's away.

Without a model, or when the call fails, the offline plan stands: the question alone and
the date range the offline parser finds in it, with the reason (`Plan.fallback`).

A person's own plan (the window's edited chips, `user_plan`) is taken as given, cleaned only
of what cannot be searched; `read_dates` turns a date chip's words into its range.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from engine.ask.calls import CallOutcome, schema_call
from engine.ask.dates import DateRange, find_date_range
from engine.ask.types import AskDeps, AskSettings, Plan
from engine.messages import Message, msg
from engine.rerank.flash.prompt import choose_language

LANGUAGE_NAMES = {"en": "English", "ru": "Russian"}
MAX_CHATS_IN_ENUM = 200  # a bigger store lists its busiest chats: the schema is part of the prompt
SUBQUERY_CHARS = 120  # a search, not a paragraph; and 6 of them must fit a small model's reply bound
_ISO_DAY = r"(\d{4}-\d{2}-\d{2})"
_ISO_RANGE = re.compile(_ISO_DAY + r"(?:\s*(?:\.\.|…|–|—|/|\bto\b|\s-\s)\s*" + _ISO_DAY + r")?")
_DIGIT = re.compile(r"\d")

SYSTEM = ("You plan searches over one person's chat history. Reply with JSON only, as the schema says. "
          "Today is {today} ({weekday}).")
USER = """Question: {question}

The chats are written in: {languages}. For each language, write 1 to {per} short search queries in that \
language: the words the messages would use (translate the question when it is in another language).
"dates": the time the question asks about, in the question's own words ("last week", "in May", "вчера") or as \
YYYY-MM-DD..YYYY-MM-DD; "" when it names no time.
"chats": the chats the question names, only when it names them ({chats}); else [].
"people": names of people the question is about; else []."""


def plan_schema(languages: list[str], chat_names: list[str], per_language: int) -> dict[str, Any]:
    query = {"type": "string", "minLength": 2, "maxLength": SUBQUERY_CHARS}
    queries = {"type": "object", "additionalProperties": False, "required": list(languages),
               "properties": {lang: {"type": "array", "items": query, "minItems": 1, "maxItems": per_language}
                              for lang in languages}}
    properties: dict[str, Any] = {"queries": queries, "dates": {"type": "string", "maxLength": 40}}
    if chat_names:
        properties["chats"] = {"type": "array", "maxItems": 3, "items": {"type": "string", "enum": chat_names}}
    properties["people"] = {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 40}}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def plan_messages(question: str, deps: AskDeps, chat_names: list[str], per_language: int,
                  now: datetime) -> list[dict]:
    languages = ", ".join(LANGUAGE_NAMES.get(lang, lang) for lang in _languages(deps))
    shown = "; ".join(chat_names[:30]) or "none"
    return [{"role": "system", "content": SYSTEM.format(today=now.date().isoformat(), weekday=f"{now:%A}")},
            {"role": "user", "content": USER.format(question=question, languages=languages, per=per_language,
                                                    chats=shown)}]


def offline_plan(question: str, now: datetime, reason: str | None) -> Plan:
    return Plan([question], find_date_range(question, now), [], [], "fallback", reason)


def user_plan(question: str, given: Plan, deps: AskDeps, settings: AskSettings) -> Plan:
    """The person's plan as searched (source "user"): sub-queries trimmed and deduplicated (the
    question alone when none is left), at most `max_subqueries`, only chats the store has."""
    notes: list[Message | str] = []
    subqueries = _unique(" ".join(text.split())[:SUBQUERY_CHARS] for text in given.subqueries)
    if not subqueries:
        subqueries = [question]
        notes.append(msg("ask.plan.no_subquery"))
    if len(subqueries) > settings.max_subqueries:
        notes.append(msg("ask.plan.over_limit", count=len(subqueries) - settings.max_subqueries))
        subqueries = subqueries[: settings.max_subqueries]
    known = {name.casefold(): name for name in deps.chats}
    chats = _unique(known[c.casefold()] for c in given.chats if c.casefold() in known)
    unknown = [c for c in given.chats if c.casefold() not in known]
    if unknown:
        notes.append(msg("ask.plan.unknown_chats", chats=", ".join(unknown[:3])))
    people = _unique(" ".join(p.split()) for p in given.people)
    return Plan(subqueries, given.date_range, chats, people, "user", None, notes)


def read_dates(text: str, now: datetime) -> DateRange | None:
    """A date chip's words as a range in the zone of `now`: "2025-04-01 … 2025-04-30" (what
    `DateRange.label` writes), one ISO day, or a phrase the offline parser reads ("last week",
    "в мае"); None when nothing in it is a date."""
    phrase = " ".join(text.split())
    found = _iso_range(phrase, now) or find_date_range(phrase, now)
    if found is None:
        return None
    offset = now.utcoffset()
    return replace(found, source="user", utc_offset_s=offset.total_seconds() if offset is not None else 0.0)


def _unique(texts) -> list[str]:
    kept: dict[str, str] = {}
    for text in texts:
        if text and text.casefold() not in kept:
            kept[text.casefold()] = text
    return list(kept.values())


def _languages(deps: AskDeps) -> list[str]:
    return list(dict.fromkeys(deps.languages)) or ["en"]


def chat_enum(deps: AskDeps) -> list[str]:
    return [name for name in deps.chats if name.strip()][:MAX_CHATS_IN_ENUM]


async def model_plan(question: str, deps: AskDeps, settings: AskSettings, *, now: datetime,
                     timeout: float) -> tuple[Plan, CallOutcome]:
    """The model's plan, or the offline one with the reason; the call for the trace."""
    assert deps.client is not None
    languages = _languages(deps)
    names = chat_enum(deps)
    per_language = max(1, settings.max_subqueries // len(languages))
    schema = plan_schema(languages, names, per_language)
    call = await schema_call(deps.client, plan_messages(question, deps, names, per_language, now), schema,
                             name="search_plan", description="The searches that answer the question.",
                             max_tokens=settings.max_tokens_plan or 512, timeout=timeout, model=deps.model)
    if not call.ok:
        return offline_plan(question, now, call.reason), call
    plan = read_plan(question, call.value, deps, settings, now)
    if plan.subqueries == [question] and not (plan.chats or plan.people or plan.date_range):
        plan.notes.append(msg("ask.plan.nothing_added"))
    return plan, call


def read_plan(question: str, value: dict[str, Any], deps: AskDeps, settings: AskSettings, now: datetime) -> Plan:
    """The plan from the model's JSON, kept strictly: real chat names only, sub-queries deduplicated."""
    notes: list[Message | str] = []
    raw = value.get("queries", value.get("subqueries"))
    found: list[str] = []
    if isinstance(raw, dict):
        for lang in _languages(deps):  # the store's languages in order, then anything else offered
            found += _strings(raw.get(lang))
        for lang, entries in raw.items():
            if lang not in deps.languages:
                found += _strings(entries)
    else:
        found = _strings(raw)
    subqueries: list[str] = []
    seen: set[str] = set()
    for text in [question, *found]:
        text = " ".join(text.split())[:SUBQUERY_CHARS]
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            subqueries.append(text)
    if len(subqueries) > settings.max_subqueries:
        notes.append(msg("ask.plan.over_limit", count=len(subqueries) - settings.max_subqueries))
        subqueries = subqueries[: settings.max_subqueries]
    known = {name.casefold(): name for name in deps.chats}
    chats = list(dict.fromkeys(known[c.casefold()] for c in _strings(value.get("chats")) if c.casefold() in known))
    unknown = [c for c in _strings(value.get("chats")) if c.casefold() not in known]
    if unknown:
        notes.append(msg("ask.plan.unknown_chats", chats=", ".join(unknown[:3])))
    people = list(dict.fromkeys(p.strip() for p in _strings(value.get("people")) if p.strip()))[:3]
    date_range = resolve_dates(value.get("dates"), question, now, notes)
    return Plan(subqueries, date_range, chats, people, "model", None, notes)


def resolve_dates(text: Any, question: str, now: datetime, notes: list[Message | str]) -> DateRange | None:
    """The model's dates resolved against `now`; the offline parser's when the model gave none
    or gave dates the question does not ask about (a small model invents a range for anything)."""
    parsed = find_date_range(question, now)
    if not isinstance(text, str) or not text.strip():
        return parsed
    phrase = " ".join(text.split())
    asked = parsed is not None or bool(_DIGIT.search(question)) or phrase.casefold() in question.casefold()
    if not asked:
        notes.append(msg("ask.plan.dates_ignored", phrase=phrase))
        return None
    resolved = _iso_range(phrase, now)
    if resolved is None:
        found = find_date_range(phrase, now)
        resolved = replace(found, source="plan") if found is not None else None
    if resolved is None or not _plausible(resolved, now):
        if resolved is not None or parsed is None:
            notes.append(msg("ask.plan.dates_unreadable", phrase=phrase))
        return parsed
    return resolved


def _iso_range(phrase: str, now: datetime) -> DateRange | None:
    match = _ISO_RANGE.search(phrase)
    if match is None:
        return None
    try:
        first = datetime.strptime(match.group(1), "%Y-%m-%d").replace(tzinfo=now.tzinfo)
        last = datetime.strptime(match.group(2) or match.group(1), "%Y-%m-%d").replace(tzinfo=now.tzinfo)
    except ValueError:
        return None
    if last < first:
        first, last = last, first
    return DateRange(first.timestamp(), (last + timedelta(days=1)).timestamp(), phrase, "plan")


def _plausible(date_range: DateRange, now: datetime) -> bool:
    since, until = date_range.since, date_range.until
    ceiling = (now + timedelta(days=800)).timestamp()
    if since is not None and not 0 <= since <= ceiling:
        return False
    if until is not None and not 0 < until <= ceiling + 86400:
        return False
    return since is None or until is None or since < until


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v.strip() for v in value if isinstance(v, str) and v.strip()]
    return []


def question_language(question: str) -> str:
    return choose_language("auto", question)
