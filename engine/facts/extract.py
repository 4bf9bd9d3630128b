"""Seed 004's last stage, the Archivist: each topic not yet read is read once by the chat
model, and what it proposes is kept only when the topic's messages bear it out.

Per topic: one JSON call (`engine.facts.prompt`), then every proposed fact is checked before
it is kept:
- its message ids belong to the topic (else refused as unsupported);
- its evidence is the cited messages of whoever may say it: the owner's own messages for a
  fact about the owner, the owner's or that person's for a fact about someone else; an AI
  assistant's reply never counts;
- the verifier (`engine.support.check`) finds the fact in that evidence (else unsupported);
- it names no secret (`engine.facts.secrets`; else refused as a secret);
- the person did not mark the same fact wrong or delete it from these messages.
Updates and removals name a listed fact by id and never touch the person's own or pinned
facts. The topic is marked read in the same transaction as its facts, so a killed run
resumes where it stopped. Slow work (the call, the checks) happens before that transaction.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from engine.errors import CancelToken
from engine.facts import store as facts_store
from engine.facts.prompt import (
    LOCAL_BOUNDS,
    KnownPerson,
    PromptBounds,
    TopicMessage,
    as_json,
    loose,
    render,
    reply_schema,
    shown_messages,
)
from engine.facts.records import CIRCLES, KINDS, TYPES, ExtractionEstimate, ExtractionReport, FactInfo
from engine.facts.secrets import is_secret
from engine.store.transaction import write_transaction
from engine.support import Evidence, check
from engine.text.tokens import estimate_tokens

ProgressCallback = Callable[[int, int], None]  # (topics done, topics to read)
CallModel = Callable[[str, str, dict[str, Any]], "ModelReply"]

OWNER_FACT_CAP = 200  # over it, the prompt asks the model to consolidate
STATUS_DAYS = 30  # a status fact without its own end holds this long after its last message
REPLY_TOKENS = 2_048  # the reply bound per topic
REPLY_TOKENS_EXPECTED = 350  # what a reply usually takes: the estimate's figure
GIVE_UP_AFTER = 3  # failed calls in a row before the run stops
_PROMPT_OVERHEAD = 900  # tokens of the system prompt and the fences (estimate)
_DAY = 86_400.0


@dataclass
class ModelReply:
    """One call's outcome: the parsed JSON (None when unusable), tokens, and why it failed."""

    value: dict[str, Any] | None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class TopicToRead:
    id: int
    chat: str
    messages: tuple[TopicMessage, ...]


@dataclass
class _Plan:
    """What one topic's reply comes to, checked, before it is written."""

    added: list[dict[str, Any]] = field(default_factory=list)
    updated: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    people: list[dict[str, Any]] = field(default_factory=list)
    unsupported: int = 0
    secret: int = 0


def _read_before(connection: sqlite3.Connection, topic: TopicToRead) -> int:
    """How many of the topic's messages an earlier run has read (its parts so far)."""
    through = connection.execute("SELECT facts_read_through FROM topic WHERE id = ?", (topic.id,)).fetchone()
    if not through or through[0] is None:
        return 0
    ids = [m.id for m in topic.messages]
    return ids.index(through[0]) + 1 if through[0] in ids else 0  # a forgotten message: read it all again


def unread_topics(connection: sqlite3.Connection) -> list[int]:
    """Topics not yet read, oldest first (later topics update what earlier ones said)."""
    return [row[0] for row in connection.execute(
        "SELECT id FROM topic WHERE facts_extracted = 0 ORDER BY first_at, id")]


def read_topic(connection: sqlite3.Connection, topic_id: int) -> TopicToRead:
    chat = connection.execute("SELECT c.title FROM topic t JOIN chat c ON c.id = t.chat_id WHERE t.id = ?",
                              (topic_id,)).fetchone()
    rows = connection.execute(
        "SELECT m.id, COALESCE(p.display_name, m.author, '?'), m.person_id, "
        "COALESCE(p.is_self, 0) OR m.role = 'user', m.role = 'assistant', m.sent_at, m.text "
        "FROM message m LEFT JOIN person p ON p.id = m.person_id "
        "WHERE m.topic_id = ? AND m.is_service = 0 AND m.text != '' ORDER BY m.sent_at, m.id", (topic_id,)).fetchall()
    messages = tuple(TopicMessage(r[0], r[1], r[2], bool(r[3]), bool(r[4]) and not r[3], r[5], r[6]) for r in rows)
    return TopicToRead(topic_id, chat[0] if chat else "", messages)


def known_people(connection: sqlite3.Connection, topic: TopicToRead, limit: int = 60) -> list[KnownPerson]:
    """The topic's authors (but the owner) and the people something is known of, busiest first."""
    in_topic = sorted({m.person_id for m in topic.messages if m.person_id is not None and not m.by_owner})
    marks = ",".join("?" * len(in_topic)) or "NULL"
    rows = connection.execute(
        f"SELECT id, display_name, aliases, circle, bio FROM person WHERE is_self = 0 AND (id IN ({marks}) "
        "OR circle IS NOT NULL OR bio != '' OR aliases != '[]' OR EXISTS (SELECT 1 FROM fact f WHERE "
        "f.person_id = person.id AND f.state = 'active')) ORDER BY id IN (" + marks + ") DESC, message_count DESC, "
        "id LIMIT ?", (*in_topic, *in_topic, limit)).fetchall()
    return [KnownPerson(r[0], r[1], tuple(_aliases(r[2])), r[3], r[4] or "") for r in rows]


def _aliases(raw: str | None) -> list[str]:
    try:
        value = json.loads(raw or "[]")
    except ValueError:
        return []
    return [str(item) for item in value if isinstance(item, str)] if isinstance(value, list) else []


def shown_facts(connection: sqlite3.Connection, people: Sequence[KnownPerson], chars: int,
                limit: int = 400) -> list[FactInfo]:
    """The known facts the prompt lists: the owner's, then those of the topic's people; at most
    `limit` of them and `chars` of text."""
    facts = facts_store.facts_of(connection, None)
    for person in people:
        facts += facts_store.facts_of(connection, person.id)
    shown, used = [], 0
    for fact in facts[:limit]:
        used += len(fact.text) + 60  # the line's id, person, kind, type and importance
        if used > chars:
            break
        shown.append(fact)
    return shown


def prompt_for(connection: sqlite3.Connection, topic: TopicToRead, cap: int = OWNER_FACT_CAP,
               bounds: PromptBounds = PromptBounds(),
               ) -> tuple[str, str, dict[str, Any], list[KnownPerson], list[FactInfo]]:
    people = known_people(connection, topic)
    facts = shown_facts(connection, people, bounds.facts_chars)
    owner_count = sum(1 for fact in facts if fact.person_id is None)
    messages = shown_messages(topic.messages, bounds.log_chars)
    system, user = render(facts_store.owner_name(connection), messages, facts, people, owner_count, cap, topic.chat)
    schema = reply_schema([m.id for m in messages], [fact.id for fact in facts])
    return system, user, schema, people, facts


def estimate(connection: sqlite3.Connection, local: bool,
             price: tuple[float, float] | None = None) -> ExtractionEstimate:
    """Tokens (and dollars where the price per token is known; a local server: 0) to read
    every unread topic, from the topics' sizes, before any call."""
    bounds = bounds_for(local)
    rows = connection.execute("SELECT size_chars, message_count FROM topic WHERE facts_extracted = 0").fetchall()
    known = connection.execute("SELECT coalesce(sum(length(text)), 0) FROM fact WHERE state = 'active'").fetchone()[0]
    facts_tokens = min(known, bounds.facts_chars) // 4
    # A topic longer than a prompt's log is read in parts, each with the instructions and the facts.
    tokens_in = sum((_PROMPT_OVERHEAD + facts_tokens) * max(1, -(-(size or 0) // bounds.log_chars))
                    + (size or 0) // 4 + 12 * (count or 0) for size, count in rows)
    tokens_out = REPLY_TOKENS_EXPECTED * len(rows)
    cost = 0.0 if local else (tokens_in * price[0] + tokens_out * price[1] if price else None)
    return ExtractionEstimate(len(rows), tokens_in, tokens_out, cost)


# ---- reading a reply -------------------------------------------------------------------------

def _ids(value: Any) -> list[int]:
    items = value if isinstance(value, list) else [value]
    found = []
    for item in items:
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            found.append(item)
        elif isinstance(item, float) and item.is_integer():
            found.append(int(item))
        elif isinstance(item, str) and item.strip().strip("[]").isdigit():
            found.append(int(item.strip().strip("[]")))
    return list(dict.fromkeys(found))


def _text(value: Any, limit: int = 300) -> str:
    return " ".join(value.split())[:limit] if isinstance(value, str) else ""


def _items(reply: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = reply.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _date(value: Any) -> float | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return datetime.strptime(value.strip()[:10], "%Y-%m-%d").replace(tzinfo=UTC).timestamp() + _DAY - 1
    except ValueError:
        return None


# ---- checking a reply ------------------------------------------------------------------------

class _Checker:
    def __init__(self, connection: sqlite3.Connection, topic: TopicToRead, people: list[KnownPerson],
                 facts: list[FactInfo]) -> None:
        self.connection = connection
        self.messages = {m.id: m for m in topic.messages}
        self.people = people
        self.facts = {fact.id: fact for fact in facts}
        self.plan = _Plan()
        self.superseded = superseded_texts(connection)

    def person_named(self, name: str) -> KnownPerson | None:
        wanted = name.strip().casefold()
        for person in self.people:
            if wanted == person.name.casefold() or wanted in (a.casefold() for a in person.aliases):
                return person
        return None

    def evidence(self, ids: list[int], person_id: int | None) -> list[Evidence] | None:
        """The cited messages that may bear the fact, or None when an id is not the topic's."""
        if not ids or any(i not in self.messages for i in ids):
            return None
        allowed = [self.messages[i] for i in ids if self.messages[i].by_owner
                   or (person_id is not None and self.messages[i].person_id == person_id)]
        return [Evidence(m.text, datetime.fromtimestamp(m.sent_at, UTC), m.author) for m in allowed]

    def kept(self, text: str, ids: list[int], person_id: int | None) -> bool:
        """Whether a fact's text may be kept with these messages; counts the refusals."""
        if is_secret(text) or any(is_secret(self.messages[i].text) and _echoes(text, self.messages[i].text)
                                  for i in ids if i in self.messages):
            self.plan.secret += 1
            return False
        evidence = self.evidence(ids, person_id)
        if not evidence or not check(text, evidence, question="").supported:
            self.plan.unsupported += 1
            return False
        return not facts_store.refused_before(self.connection, text, ids)

    def add(self, item: dict[str, Any], added_people: dict[str, int | None]) -> None:
        text, about = _text(item.get("text")), _text(item.get("about"), 80)
        ids = _ids(item.get("message_ids"))
        if not text:
            return
        person_id: int | None = None
        if about and about.casefold() not in ("owner", "the owner", "me", "user", "the user"):
            person = self.person_named(about)
            if person is None:  # someone the model names for the first time: a person row comes with the fact
                added_people.setdefault(about.casefold(), None)
                person_id = -1  # resolved when written; evidence is then the owner's word only
            else:
                person_id = person.id
        if not self.kept(text, ids, None if person_id == -1 else person_id):
            return
        kind = item.get("kind") if item.get("kind") in KINDS else ("self" if person_id is None else "about_other")
        if person_id is not None and kind == "self":
            kind = "about_other"
        fact_type = item.get("type") if item.get("type") in TYPES else "context"
        importance = _ids(item.get("importance"))
        duplicate = any(f.person_id == (None if person_id == -1 else person_id) and facts_store.similar(f.text, text)
                        for f in self.facts.values())
        if duplicate or self.was_superseded(text, ids, None if person_id == -1 else person_id):
            return
        until = _date(item.get("valid_until"))
        last = max(self.messages[i].sent_at for i in ids)
        if fact_type == "status" and until is None:
            until = last + STATUS_DAYS * _DAY
        self.plan.added.append({
            "text": text, "about": about, "person_id": person_id,
            "category": _text(item.get("category"), 24) or "other",
            "kind": kind, "type": fact_type, "importance": min(5, max(1, importance[0])) if importance else 3,
            "valid_from": min(self.messages[i].sent_at for i in ids) if fact_type == "status" else None,
            "valid_until": until, "message_ids": ids, "reason": _text(item.get("reason"), 200)})

    def was_superseded(self, text: str, ids: list[int], person_id: int | None) -> bool:
        """A fact a later topic (or the person) already updated or removed, proposed again from
        messages no newer than that change: re-reading an old topic after a rebuild must not
        bring back what the history says no longer holds. Said again later, it is new."""
        latest = max(self.messages[i].sent_at for i in ids)
        return any(about == person_id and latest <= moment and facts_store.similar(before, text)
                   for about, before, moment in self.superseded)

    def update(self, item: dict[str, Any]) -> None:
        ids, text = _ids(item.get("message_ids")), _text(item.get("text"))
        fact = self.facts.get(next(iter(_ids(item.get("id"))), -1))
        if fact is None or fact.origin == "person" or fact.pinned or not text or text == fact.text:
            return
        if self.kept(text, ids, fact.person_id):
            self.plan.updated.append({"id": fact.id, "before": fact.text, "text": text, "message_ids": ids,
                                      "reason": _text(item.get("reason"), 200)})

    def remove(self, item: dict[str, Any]) -> None:
        fact = self.facts.get(next(iter(_ids(item.get("id"))), -1))
        if fact is not None and fact.origin != "person" and not fact.pinned:
            self.plan.removed.append({"id": fact.id, "reason": _text(item.get("reason"), 200)})

    def person(self, item: dict[str, Any]) -> None:
        name = _text(item.get("name"), 80)
        if not name or name.casefold() in ("owner", "the owner", "user"):
            return
        aliases = [a for a in (_text(a, 80) for a in item.get("aliases") or [] if isinstance(a, str)) if a]
        circle = item.get("circle") if item.get("circle") in CIRCLES else None
        bio = _text(item.get("bio"), 200)
        if is_secret(bio):
            bio = ""
        self.plan.people.append({"name": name, "aliases": aliases, "circle": circle, "bio": bio})


def _echoes(fact: str, message: str) -> bool:
    """A fact repeating a word of a message that holds a secret (its value, most likely)."""
    fact_words = {w.casefold().strip(".,!?:;\"'") for w in fact.split()}
    return any(len(w) >= 6 and w.casefold().strip(".,!?:;\"'") in fact_words for w in message.split())


def superseded_texts(connection: sqlite3.Connection) -> list[tuple[int | None, str, float]]:
    """Every former text of a fact that was updated, edited or removed: (who it is about, the
    text, when the change holds from). A change holds from the newest message behind it: the
    fact's messages (an update replaces them with the updating topic's) or the changing
    topic's last message while that topic exists (rebuilds delete topics; the facts stay)."""
    rows = connection.execute(
        "SELECT f.person_id, h.before_text, max(coalesce((SELECT max(m.sent_at) FROM fact_message fm "
        "JOIN message m ON m.id = fm.message_id WHERE fm.fact_id = f.id), 0), coalesce(t.last_at, 0)) "
        "FROM fact_history h JOIN fact f ON f.id = h.fact_id LEFT JOIN topic t ON t.id = h.topic_id "
        "WHERE h.action IN ('update', 'edit', 'remove') AND h.before_text IS NOT NULL").fetchall()
    return [(person_id, before, float(moment)) for person_id, before, moment in rows if moment]


def check_reply(connection: sqlite3.Connection, topic: TopicToRead, people: list[KnownPerson],
                facts: list[FactInfo], reply: dict[str, Any]) -> _Plan:
    checker = _Checker(connection, topic, people, facts)
    new_people: dict[str, int | None] = {}
    for item in _items(reply, "people"):
        checker.person(item)
    for item in _items(reply, "facts_added"):
        checker.add(item, new_people)
    for item in _items(reply, "facts_updated"):
        checker.update(item)
    for item in _items(reply, "facts_removed"):
        checker.remove(item)
    named = {p["name"].casefold() for p in checker.plan.people}
    for added in checker.plan.added:  # a fact about someone the model did not list: the person comes with it
        if added["person_id"] == -1 and added["about"].casefold() not in named:
            checker.plan.people.append({"name": added["about"], "aliases": [], "circle": None, "bio": ""})
            named.add(added["about"].casefold())
    return checker.plan


# ---- writing ---------------------------------------------------------------------------------

def _person_id(connection: sqlite3.Connection, name: str) -> int | None:
    wanted = name.casefold()
    for person_id, display, aliases in connection.execute(
            "SELECT id, display_name, aliases FROM person WHERE is_self = 0 ORDER BY message_count DESC, id"):
        if display.casefold() == wanted or wanted in (a.casefold() for a in _aliases(aliases)):
            return int(person_id)
    return None


def write_plan(connection: sqlite3.Connection, topic_id: int, plan: _Plan, report: ExtractionReport,
               now: float | None = None, read_through: int | None = None) -> ExtractionReport:
    """Write one topic's checked changes and mark it read, in one transaction; with
    `read_through` (a part of a long topic, more to come) mark how far it is read instead."""
    moment = time.time() if now is None else now
    people_added = 0
    with write_transaction(connection):
        for person in plan.people:
            person_id = _person_id(connection, person["name"])
            if person_id is None:
                person_id = connection.execute(
                    "INSERT INTO person (key, display_name, message_count, is_self, aliases, circle, bio) "
                    "VALUES (?, ?, 0, 0, '[]', NULL, '')",
                    (f"archivist:name:{person['name'].casefold()}", person["name"])).lastrowid
                people_added += 1
            assert person_id is not None
            old = connection.execute("SELECT aliases, circle, bio FROM person WHERE id = ?", (person_id,)).fetchone()
            aliases = list(dict.fromkeys([*_aliases(old[0]), *person["aliases"]]))
            facts_store.set_person(connection, person_id, aliases=aliases, circle=old[1] or person["circle"],
                                   bio=person["bio"] or old[2])
            if person["bio"]:  # kept apart: the bio rebuilt from facts opens with it (engine/facts/people.py)
                connection.execute("UPDATE person SET model_bio = ? WHERE id = ?", (person["bio"].strip(), person_id))
        for fact in plan.added:
            person_id = fact["person_id"]
            if person_id == -1:
                person_id = _person_id(connection, fact["about"])
            facts_store.add_fact(
                connection, fact["text"], person_id=person_id, category=fact["category"], kind=fact["kind"],
                type=fact["type"], importance=fact["importance"], valid_from=fact["valid_from"],
                valid_until=fact["valid_until"], topic_id=topic_id, message_ids=fact["message_ids"], origin="model",
                reason=fact["reason"], now=moment)
        for change in plan.updated:
            connection.execute("UPDATE fact SET text = ?, topic_id = ?, updated_at = ? WHERE id = ?",
                               (change["text"], topic_id, moment, change["id"]))
            connection.execute("DELETE FROM fact_message WHERE fact_id = ?", (change["id"],))
            connection.executemany("INSERT INTO fact_message (fact_id, message_id) VALUES (?, ?)",
                                   [(change["id"], m) for m in change["message_ids"]])
            facts_store.log_change(connection, change["id"], "update", change["before"], change["text"],
                                   change["reason"], topic_id, moment)
        for change in plan.removed:
            facts_store.remove_fact(connection, change["id"], change["reason"], topic_id, moment)
        if read_through is None:
            connection.execute("UPDATE topic SET facts_extracted = 1, facts_read_through = NULL WHERE id = ?",
                               (topic_id,))
        else:
            connection.execute("UPDATE topic SET facts_read_through = ? WHERE id = ?", (read_through, topic_id))
    return replace(report, topics_read=report.topics_read + (read_through is None),
                   facts_added=report.facts_added + len(plan.added),
                   facts_updated=report.facts_updated + len(plan.updated),
                   facts_removed=report.facts_removed + len(plan.removed),
                   facts_refused_unsupported=report.facts_refused_unsupported + plan.unsupported,
                   facts_refused_secret=report.facts_refused_secret + plan.secret,
                   people_added=report.people_added + people_added)


# ---- the run ---------------------------------------------------------------------------------

def bounds_for(local: bool) -> PromptBounds:
    """The prompt's bounds for a local server's small context, or the cloud's."""
    return LOCAL_BOUNDS if local else PromptBounds()


def run(connection: sqlite3.Connection, call: CallModel, *, on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None, budget_tokens: int | None = None, cap: int = OWNER_FACT_CAP,
        topic_ids: Sequence[int] | None = None, bounds: PromptBounds = PromptBounds()) -> ExtractionReport:
    """Read every unread topic (or those of `topic_ids` still unread) with `call`, writing
    each one's facts as it goes. Stops early, with `stopped` saying why, when cancelled
    ("cancelled"), when the next topic would pass `budget_tokens` ("budget"), or when calls
    keep failing ("llm_error"). The caller holds the store's write lock."""
    with write_transaction(connection):
        facts_store.expire_due(connection)
    todo = unread_topics(connection)
    if topic_ids is not None:
        wanted = set(topic_ids)
        todo = [topic_id for topic_id in todo if topic_id in wanted]
    report = ExtractionReport()
    failed_in_a_row = 0
    for done, topic_id in enumerate(todo):
        if on_progress is not None:
            on_progress(done, len(todo))
        if cancel is not None and cancel.cancelled:
            return replace(report, stopped="cancelled")
        topic = read_topic(connection, topic_id)
        remaining = topic.messages[_read_before(connection, topic):]
        if not remaining:
            report = write_plan(connection, topic_id, _Plan(), report)
            continue
        # A topic longer than one prompt is read in parts, each written with how far it got:
        # a consolidated topic can hold 50,000 characters, a local prompt 6,000 of them.
        while remaining:
            if cancel is not None and cancel.cancelled:
                return replace(report, stopped="cancelled")
            part = replace(topic, messages=tuple(shown_messages(remaining, bounds.log_chars)))
            remaining = remaining[len(part.messages):]
            system, user, schema, people, facts = prompt_for(connection, part, cap, bounds)
            expected = estimate_tokens(system) + estimate_tokens(user) + REPLY_TOKENS_EXPECTED
            if budget_tokens is not None and report.tokens_in + report.tokens_out + expected > budget_tokens:
                return replace(report, stopped="budget")
            reply = call(system, user, schema)
            report = replace(report, tokens_in=report.tokens_in + reply.tokens_in,
                             tokens_out=report.tokens_out + reply.tokens_out)
            if reply.value is None:
                failed_in_a_row += 1
                report = replace(report, topics_failed=report.topics_failed + 1)
                if failed_in_a_row >= GIVE_UP_AFTER:
                    return replace(report, stopped="llm_error")
                break  # the next run goes on from the part that failed
            failed_in_a_row = 0
            report = write_plan(connection, topic_id, check_reply(connection, part, people, facts, reply.value), report,
                                read_through=part.messages[-1].id if remaining else None)
    if on_progress is not None:
        on_progress(len(todo), len(todo))
    return report


def schema_options(protocol: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The request's options for a reply under `schema`: a grammar where the server enforces
    schemas ("constrained"), else a forced call of a function with those parameters."""
    if protocol == "constrained":
        return {"response_format": {"type": "json_schema", "json_schema": {"name": "archivist", "schema": schema}}}
    return {"tools": [{"type": "function", "function": {
        "name": "archivist", "description": "What this conversation adds to what is known of the owner and the people",
        "parameters": loose(schema)}}],
        "tool_choice": {"type": "function", "function": {"name": "archivist"}}}


__all__ = ["CallModel", "ModelReply", "ProgressCallback", "as_json", "check_reply", "estimate", "prompt_for",
           "read_topic", "run", "schema_options", "unread_topics", "write_plan"]
