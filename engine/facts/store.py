"""Reading and changing facts (issue 33): plain functions over a `sqlite3.Connection`, like
`engine.browse`. Writers run inside the caller's write transaction (`engine.api.facts` opens
it under the store's lock); none commits on its own.

Who a fact is about: `person_id` None is the account owner ("you"), whoever the store says
that is (see `engine.store.models.Fact`). The person's word outranks the model's: an edit
makes a fact the person's (`origin = "person"`), and extraction never updates or removes such
a fact. A fact marked wrong or deleted is kept with its messages (its state says so), so
those messages never yield it again (`refused_before`); `forget_fact` is the one way to erase
a fact and its history outright.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence

from engine.errors import EngineError
from engine.facts.records import CIRCLES, KINDS, TYPES, FactChangeInfo, FactInfo, Profile
from engine.store.sql import select_in
from engine.support.words import content_words
from engine.text.tokens import estimate_tokens

ACTIVE: tuple[str, ...] = ("active",)
SIMILAR_WORDS = 0.6  # share of shared content stems at which two facts say the same thing


class FactMissing(EngineError):
    """No fact has that id."""

    code = "facts.missing"


_COLUMNS = ("f.id, f.person_id, COALESCE(p.display_name, ''), f.text, f.category, f.kind, f.type, f.importance, "
            "f.valid_from, f.valid_until, f.topic_id, f.origin, f.pinned, f.state, f.created_at, f.updated_at "
            "FROM fact f LEFT JOIN person p ON p.id = f.person_id")


def owner_name(connection: sqlite3.Connection) -> str:
    """The owner's name as the store knows it ("" when no import said who the owner is)."""
    row = connection.execute("SELECT display_name FROM person WHERE is_self = 1 "
                             "ORDER BY message_count DESC, id LIMIT 1").fetchone()
    return row[0] if row else ""


def _infos(connection: sqlite3.Connection, where: str, params: Sequence[object], now: float | None) -> list[FactInfo]:
    rows = connection.execute(
        f"SELECT {_COLUMNS} WHERE {where} ORDER BY f.pinned DESC, f.type = 'identity' DESC, f.importance DESC, "
        "f.updated_at DESC, f.id", tuple(params)).fetchall()
    provenance: dict[int, list[int]] = {}
    for fact_id, message_id in select_in(
            connection, "SELECT fact_id, message_id FROM fact_message WHERE fact_id IN ({ids}) ORDER BY message_id",
            [row[0] for row in rows]):
        provenance.setdefault(fact_id, []).append(message_id)
    owner = owner_name(connection) if any(row[1] is None for row in rows) else ""
    moment = time.time() if now is None else now
    infos = []
    for row in rows:
        (fact_id, person_id, person, text, category, kind, fact_type, importance, valid_from, valid_until,
         topic_id, origin, pinned, state, created_at, updated_at) = row
        if state == "active" and valid_until is not None and valid_until < moment:
            state = "expired"  # a status past its date reads as expired before extraction marks it so
        infos.append(FactInfo(fact_id, person_id, owner if person_id is None else person, text, category, kind,
                              fact_type, int(importance), valid_from, valid_until, topic_id,
                              tuple(provenance.get(fact_id, ())), origin, bool(pinned), state, created_at,
                              updated_at))
    return infos


def _state_filter(states: Iterable[str]) -> tuple[str, list[object]]:
    wanted = list(dict.fromkeys(states))
    # An active fact past its date is expired (see `_infos`): select it for either state.
    sql = f"f.state IN ({','.join('?' * len(wanted))})" if wanted else "0"
    if "expired" in wanted and "active" not in wanted:
        sql = f"({sql} OR f.state = 'active' AND f.valid_until IS NOT NULL)"
    return sql, list(wanted)


def facts_of(connection: sqlite3.Connection, person_id: int | None = None, states: Iterable[str] = ACTIVE,
             now: float | None = None) -> list[FactInfo]:
    """The facts about one person (`person_id` None: the owner) in the given states, most
    important first (pinned, identity, importance, then the newest)."""
    where, params = _state_filter(states)
    who = "f.person_id IS NULL" if person_id is None else "f.person_id = ?"
    return _filter_states(_infos(connection, f"{who} AND {where}", ([] if person_id is None else [person_id])
                                 + params, now), states)


def all_facts(connection: sqlite3.Connection, states: Iterable[str] = ACTIVE,
              now: float | None = None) -> list[FactInfo]:
    """Every fact in the given states, the owner's first, then by person."""
    where, params = _state_filter(states)
    infos = _infos(connection, where, params, now)
    return _filter_states(sorted(infos, key=lambda fact: (fact.person_id is not None, fact.person_id or 0)), states)


def _filter_states(infos: list[FactInfo], states: Iterable[str]) -> list[FactInfo]:
    wanted = set(states)
    return [fact for fact in infos if fact.state in wanted]


def get_fact(connection: sqlite3.Connection, fact_id: int) -> FactInfo:
    found = _infos(connection, "f.id = ?", [fact_id], None)
    if not found:
        raise FactMissing(fact_id=fact_id)
    return found[0]


def history(connection: sqlite3.Connection, fact_id: int) -> list[FactChangeInfo]:
    """Every change to the fact, oldest first."""
    rows = connection.execute("SELECT id, fact_id, topic_id, action, before_text, after_text, reason, at "
                              "FROM fact_history WHERE fact_id = ? ORDER BY at, id", (fact_id,)).fetchall()
    return [FactChangeInfo(*row) for row in rows]


def log_change(connection: sqlite3.Connection, fact_id: int, action: str, before: str | None, after: str | None,
               reason: str = "", topic_id: int | None = None, now: float | None = None) -> None:
    connection.execute(
        "INSERT INTO fact_history (fact_id, topic_id, action, before_text, after_text, reason, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (fact_id, topic_id, action, before, after, reason, time.time() if now is None else now))


def add_fact(connection: sqlite3.Connection, text: str, *, person_id: int | None = None, category: str = "other",
             kind: str = "self", type: str = "context", importance: int = 3,  # noqa: A002  (the schema's name)
             valid_from: float | None = None, valid_until: float | None = None, topic_id: int | None = None,
             message_ids: Sequence[int] = (), origin: str = "person", reason: str = "",
             now: float | None = None) -> int:
    """A new active fact with its provenance and an "add" line in its history; its id. The
    person's own additions have no messages (origin "person"); the model's cite its topic's."""
    text = text.strip()
    if not text:
        raise ValueError("a fact needs text")
    if kind not in KINDS or type not in TYPES:
        raise ValueError(f"unknown kind {kind!r} or type {type!r}")
    moment = time.time() if now is None else now
    fact_id = connection.execute(
        "INSERT INTO fact (person_id, text, category, kind, type, importance, valid_from, valid_until, topic_id, "
        "origin, pinned, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 'active', ?, ?)",
        (person_id, text, (category or "other").strip().lower()[:32], kind, type, min(5, max(1, int(importance))),
         valid_from, valid_until, topic_id, origin, moment, moment)).lastrowid
    assert fact_id is not None
    connection.executemany("INSERT OR IGNORE INTO fact_message (fact_id, message_id) VALUES (?, ?)",
                           [(fact_id, message_id) for message_id in dict.fromkeys(message_ids)])
    log_change(connection, fact_id, "add", None, text, reason, topic_id, moment)
    return fact_id


def edit_fact(connection: sqlite3.Connection, fact_id: int, text: str | None = None, *,
              category: str | None = None, importance: int | None = None, type: str | None = None,  # noqa: A002
              valid_until: float | None = None, reason: str = "", now: float | None = None) -> FactInfo:
    """The person's correction: the fact becomes theirs (origin "person"), so the model never
    overwrites it. Only what is given changes."""
    before = get_fact(connection, fact_id)
    if type is not None and type not in TYPES:
        raise ValueError(f"unknown type {type!r}")
    new_text = before.text if text is None or not text.strip() else text.strip()
    moment = time.time() if now is None else now
    connection.execute(
        "UPDATE fact SET text = ?, category = ?, importance = ?, type = ?, valid_until = ?, origin = 'person', "
        "state = CASE WHEN state = 'expired' AND ? IS NULL THEN 'active' ELSE state END, updated_at = ? "
        "WHERE id = ?",
        (new_text, category.strip().lower()[:32] if category else before.category,
         before.importance if importance is None else min(5, max(1, int(importance))),
         type or before.type, valid_until if valid_until is not None else before.valid_until,
         valid_until, moment, fact_id))
    log_change(connection, fact_id, "edit", before.text, new_text, reason, None, moment)
    return get_fact(connection, fact_id)


def pin_fact(connection: sqlite3.Connection, fact_id: int, pinned: bool = True, now: float | None = None) -> FactInfo:
    """A pinned fact is always in the profile and never changed by the model."""
    before = get_fact(connection, fact_id)
    moment = time.time() if now is None else now
    connection.execute("UPDATE fact SET pinned = ?, updated_at = ? WHERE id = ?", (int(pinned), moment, fact_id))
    log_change(connection, fact_id, "pin" if pinned else "unpin", before.text, before.text, "", None, moment)
    return get_fact(connection, fact_id)


def _retire(connection: sqlite3.Connection, fact_id: int, state: str, action: str, reason: str,
            topic_id: int | None, origin: str | None, now: float | None) -> FactInfo:
    before = get_fact(connection, fact_id)
    moment = time.time() if now is None else now
    connection.execute("UPDATE fact SET state = ?, pinned = 0, origin = COALESCE(?, origin), updated_at = ? "
                       "WHERE id = ?", (state, origin, moment, fact_id))
    log_change(connection, fact_id, action, before.text, None, reason, topic_id, moment)
    return get_fact(connection, fact_id)


def mark_wrong(connection: sqlite3.Connection, fact_id: int, reason: str = "", now: float | None = None) -> FactInfo:
    """The person says the fact is wrong: it leaves every prompt and view of what is known, and
    its messages never yield it again."""
    return _retire(connection, fact_id, "wrong", "wrong", reason, None, "person", now)


def delete_fact(connection: sqlite3.Connection, fact_id: int, reason: str = "", now: float | None = None) -> FactInfo:
    """The person deletes the fact: as `mark_wrong`, in the person's other words ("not wrong,
    just not to be kept")."""
    return _retire(connection, fact_id, "deleted", "delete", reason, None, "person", now)


def remove_fact(connection: sqlite3.Connection, fact_id: int, reason: str, topic_id: int | None,
                now: float | None = None) -> FactInfo:
    """The model's removal (a later topic says it no longer holds): kept as deleted, by the model."""
    return _retire(connection, fact_id, "deleted", "remove", reason, topic_id, None, now)


def expire_due(connection: sqlite3.Connection, now: float | None = None) -> int:
    """Mark active facts past their `valid_until` expired, each with a history line; how many."""
    moment = time.time() if now is None else now
    due = [row[0] for row in connection.execute(
        "SELECT id FROM fact WHERE state = 'active' AND valid_until IS NOT NULL AND valid_until < ?", (moment,))]
    for fact_id in due:
        _retire(connection, fact_id, "expired", "expire", "valid_until passed", None, None, moment)
    return len(due)


def forget_fact(connection: sqlite3.Connection, fact_id: int) -> None:
    """Erase the fact, its provenance and its history (`flashback facts forget ID`): unlike
    delete, nothing of it remains, so nothing keeps its messages from yielding it again."""
    get_fact(connection, fact_id)
    connection.execute("DELETE FROM fact WHERE id = ?", (fact_id,))  # messages and history cascade


def _stems(text: str) -> set[str]:
    return {stem for stem, _surface in content_words(text)}


def similar(first: str, second: str) -> bool:
    """Two fact texts say the same thing: most content stems of the shorter are in the longer."""
    a, b = _stems(first), _stems(second)
    if not a or not b:
        return first.strip().lower() == second.strip().lower()
    return len(a & b) / min(len(a), len(b)) >= SIMILAR_WORDS


def refused_before(connection: sqlite3.Connection, text: str, message_ids: Sequence[int]) -> bool:
    """A fact the person marked wrong or deleted, saying the same from any of these messages."""
    if not message_ids:
        return False
    rows = list(select_in(connection, "SELECT DISTINCT f.text FROM fact f JOIN fact_message fm ON fm.fact_id = f.id "
                          "WHERE f.state IN ('wrong', 'deleted') AND f.origin = 'person' "
                          "AND fm.message_id IN ({ids})", list(message_ids)))
    return any(similar(text, row[0]) for row in rows)


def set_person(connection: sqlite3.Connection, person_id: int, *, aliases: Sequence[str] | None = None,
               circle: str | None = None, bio: str | None = None, by_person: bool = False) -> None:
    """What is known of a person beyond their messages; only what is given changes. A bio the
    person writes (`by_person`) outranks the model's: the Archivist's never replaces it, nor
    does one rebuilt from facts; the person clearing it hands it back to the facts."""
    import json

    if circle is not None and circle not in CIRCLES:
        raise ValueError(f"unknown circle {circle!r}")
    if aliases is not None:
        connection.execute("UPDATE person SET aliases = ? WHERE id = ?",
                           (json.dumps(list(dict.fromkeys(a.strip() for a in aliases if a.strip())),
                                       ensure_ascii=False), person_id))
    if circle is not None:
        connection.execute("UPDATE person SET circle = ? WHERE id = ?", (circle, person_id))
    if bio is not None and by_person:
        connection.execute("UPDATE person SET bio = ?, bio_by_person = ? WHERE id = ?",
                           (bio.strip(), int(bool(bio.strip())), person_id))
    elif bio is not None:
        connection.execute("UPDATE person SET bio = ? WHERE id = ? AND bio_by_person = 0", (bio.strip(), person_id))


def _profile_line(fact: FactInfo) -> str:
    return f"- {fact.text}" + (f" ({fact.category})" if fact.category and fact.category != "other" else "")


PROFILE_TOKENS = 1500  # seed 000's user profile in a prompt: the owner's key facts, bounded (issue 33)
# ... and at most this share of the prompt part it sits beside (Flash's turn 1, Ask's sources):
# on a local server's 2,000-token turn 1 a whole profile cut every candidate's summary from 196
# to 60 characters (bench/profile_ab.py).
PROFILE_SHARE = 0.3


def profile_budget(prompt_budget: int | None) -> int:
    """The profile's token bound beside a prompt part of `prompt_budget` tokens."""
    return min(PROFILE_TOKENS, int(prompt_budget * PROFILE_SHARE)) if prompt_budget else PROFILE_TOKENS


def known_profile(connection: sqlite3.Connection, token_budget: int = PROFILE_TOKENS) -> Profile | None:
    """The owner's profile for a prompt; None when nothing is known (the prompt is then exactly
    what it was before facts existed) or the store predates facts (a read-only older store)."""
    try:
        profile = owner_profile(connection, token_budget)
    except sqlite3.OperationalError:
        return None
    return None if profile.empty else profile


def owner_profile(connection: sqlite3.Connection, token_budget: int = PROFILE_TOKENS,
                  now: float | None = None) -> Profile:
    """Seed 000's user profile: the owner's identity, important (4-5) and pinned facts, then
    the family and work people with their bios; most important first, cut at `token_budget`
    tokens (whole lines only). An empty Profile when nothing is known."""
    facts = [fact for fact in facts_of(connection, None, ACTIVE, now)
             if fact.pinned or fact.type == "identity" or fact.importance >= 4]
    people = connection.execute(
        "SELECT display_name, circle, bio, aliases FROM person WHERE circle IN ('family', 'work') AND is_self = 0 "
        "ORDER BY circle = 'family' DESC, message_count DESC, id").fetchall()
    if not facts and not people:
        return Profile("", (), 0)
    name = owner_name(connection)
    lines: list[str] = []
    kept: list[int] = []

    def fits(*more: str) -> bool:  # measured on the whole text: token estimates do not add up line by line
        return estimate_tokens("\n".join([*lines, *more])) <= token_budget

    header = f"About the owner{f' ({name})' if name else ''}:"
    for fact in facts:
        line = _profile_line(fact)
        if not fits(*([] if lines else [header]), line):
            break
        lines.extend([line] if lines else [header, line])
        kept.append(fact.id)
    people_header = "People close to the owner:"
    shown = 0
    for person, circle, bio, _aliases in people:
        line = f"- {person} ({circle})" + (f": {bio}" if bio else "")
        if not fits(*([] if shown else [people_header]), line):
            break
        lines.extend([line] if shown else [people_header, line])
        shown += 1
    text = "\n".join(lines)
    return Profile(text, tuple(kept), estimate_tokens(text))
