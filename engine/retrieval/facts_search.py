"""Facts found by their words (issue 33: the MCP `search_facts` tool).

A fact matches a query by the share of the query's content words (stemmed, so "сестры" finds
"сестра"; function words left out) found in the fact's text, its category, or the name and
aliases of the person it is about: "Lena's job" finds the facts about Lena that mention work.
Only active facts; the person's pinned and more important facts first among equals. Each
result carries its messages, so a caller can quote what says it.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from engine.facts.records import FactInfo
from engine.facts.store import ACTIVE, all_facts, owner_name
from engine.retrieval.lexical import query_terms
from engine.text.stemming import terms as stemmed_terms

OWNER_WORDS = frozenset({"you", "me", "owner", "self", "я", "вы", "ты", "владелец"})


@dataclass(frozen=True)
class FactMatch:
    fact: FactInfo
    score: float  # the share of the query's content words the fact holds, 0 to 1


class PersonUnknown(LookupError):
    """No person of that name (display name or alias)."""


def _names(connection: sqlite3.Connection) -> dict[int, list[str]]:
    names: dict[int, list[str]] = {}
    try:
        rows = connection.execute("SELECT id, display_name, aliases FROM person WHERE message_count > 0").fetchall()
    except sqlite3.OperationalError:  # a store older than issue 33
        rows = [(r[0], r[1], "[]") for r in connection.execute(
            "SELECT id, display_name FROM person WHERE message_count > 0")]
    for person, name, aliases in rows:
        try:
            others = [str(a) for a in json.loads(aliases or "[]")]
        except (ValueError, TypeError):
            others = []
        names[person] = [name, *others]
    return names


def resolve_person(connection: sqlite3.Connection, wanted: str) -> int | None:
    """A person by display name or alias (case-insensitive, exact, then a unique substring);
    None for the owner ("you", "me", the owner's own name). PersonUnknown otherwise."""
    folded = wanted.strip().casefold()
    if folded in OWNER_WORDS or (folded and folded == owner_name(connection).casefold()):
        return None
    names = _names(connection)
    for rule in (lambda name: name.casefold() == folded, lambda name: folded in name.casefold()):
        found = [person for person, known in names.items() if any(rule(n) for n in known)]
        if len(found) == 1:
            return found[0]
    raise PersonUnknown(wanted)


def search_facts(connection: sqlite3.Connection, query: str, *, person: str | None = None,
                 limit: int = 20) -> list[FactMatch]:
    """Active facts matching `query` (every active fact of `person` when the query is empty), best first."""
    narrowed = bool(person and person.strip())
    about = resolve_person(connection, person) if person and narrowed else None  # None: the owner
    facts = [f for f in all_facts(connection, ACTIVE) if not narrowed or f.person_id == about]
    wanted = set(query_terms(query))
    names = _names(connection) if wanted else {}
    owner = owner_name(connection) if wanted else ""
    matches: list[FactMatch] = []
    for fact in facts:
        if not wanted:
            matches.append(FactMatch(fact, 0.0))
            continue
        who = [owner] if fact.person_id is None else names.get(fact.person_id, [fact.person_name])
        words = set(stemmed_terms(" ".join([fact.text, fact.category, *who])))
        found = wanted & words
        if found:
            matches.append(FactMatch(fact, round(len(found) / len(wanted), 4)))
    matches.sort(key=lambda m: (-m.score, not m.fact.pinned, -m.fact.importance, m.fact.id))
    return matches[: max(0, limit)]
