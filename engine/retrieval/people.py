"""People as stage-1 candidates: by what they said and what is known of them (issue 33).

A person used to be found by one vector of their "profile" (name, chats and a sample of their
longest messages). Such a profile matches nearly any question a little, and calibrated against
topics it scored like one: "joke about atoms" listed every person, three of them above the topic
holding the joke. Now a person is a candidate for three reasons, the best one counts:

- **said**: they wrote in a topic stage 1 found. Their score is the topic's times the square
  root of their share of its text times 0.8, so a person never outranks the topic that is
  their evidence, and the one who wrote most of it comes first. Found only through a topic, a
  person is a lead for the reranker rather than an answer: the 0.8 keeps them under a
  threshold the topic passes unless they wrote most of it. The owner is left out here: they
  are in almost every topic, and what is known of them reaches the reranker as the profile.
- **named**: the query names them (display name, handle or alias; stemmed, so "Паши" finds
  "Паша"). 0.5 plus 0.4 times the share of their name the query holds.
- **known**: the query's words are in what is known of them (their bio and facts, once the
  Archivist has any): 0.6 times the share of the query's content words found there, so one
  common word in a long bio is not enough to pass the safety threshold.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.retrieval.lexical import query_terms
from engine.text.stemming import fold
from engine.text.stemming import terms as stemmed_terms

SAID_WEIGHT = 0.8
NAMED_BASE = 0.5
NAMED_SPAN = 0.4
KNOWN_WEIGHT = 0.6


@dataclass(frozen=True)
class PersonKnowledge:
    """What is known of one person apart from their messages: other names and a bio with facts."""

    aliases: tuple[str, ...] = ()
    bio: str = ""
    facts: tuple[str, ...] = ()


@dataclass
class PersonEvidence:
    """Why a person is a candidate: the best score and which reason gave it."""

    score: float = 0.0
    reason: str = ""  # "said" | "named" | "known"
    topic_id: int | None = None  # the topic they said it in (reason "said")
    raw: float = 0.0
    reasons: dict[str, float] = field(default_factory=dict)

    def offer(self, reason: str, score: float, topic_id: int | None = None, raw: float | None = None) -> None:
        self.reasons[reason] = max(score, self.reasons.get(reason, 0.0))
        if score > self.score:
            self.score, self.reason, self.topic_id = score, reason, topic_id
            self.raw = score if raw is None else raw


def said_scores(connection: sqlite3.Connection, topics: Sequence[tuple[int, float, float]],
                evidence: dict[int, PersonEvidence]) -> None:
    """Each person who wrote in a candidate topic (id, score, raw cosine): score × √(their share)."""
    if not topics:
        return
    by_topic = {topic: (score, raw) for topic, score, raw in topics}
    ids = list(by_topic)
    rows = connection.execute(
        "SELECT m.topic_id, m.person_id, p.is_self, sum(length(m.text)) FROM message m "
        "JOIN person p ON p.id = m.person_id "
        f"WHERE m.topic_id IN ({','.join('?' * len(ids))}) AND m.is_service = 0 "
        "GROUP BY m.topic_id, m.person_id", ids).fetchall()
    totals: dict[int, int] = {}  # the owner's text counts in the whole: their share is not given away
    for topic, _person, _is_self, chars in rows:
        totals[topic] = totals.get(topic, 0) + (chars or 0)
    for topic, person, is_self, chars in rows:
        total = totals[topic]
        if is_self or not chars or not total:
            continue
        score, raw = by_topic[topic]
        evidence.setdefault(person, PersonEvidence()).offer("said", SAID_WEIGHT * score * math.sqrt(chars / total),
                                                            topic, raw)


def _may_hold(text: str, starts: set[str]) -> bool:
    folded = fold(text)
    return any(start in folded for start in starts)


def _name_terms(name: str) -> set[str]:
    return {t for t in stemmed_terms(name) if len(t) > 1 and not t.isdigit()}


def named_and_known_scores(connection: sqlite3.Connection, query: str,
                           knowledge: Mapping[int, PersonKnowledge],
                           evidence: dict[int, PersonEvidence]) -> None:
    """People the query names, and people whose bio or facts hold the query's words."""
    query_all = {t for t in stemmed_terms(query) if len(t) > 1}
    content = set(query_terms(query))
    if not query_all:
        return
    # Stemming every name for every query cost 350 ms for 5,000 new names: a name is stemmed only
    # when it holds the start of a query term (a stem's first 3 letters stand in the folded word).
    starts = {t[:3] for t in query_all}
    content_starts = {t[:3] for t in content}
    rows = connection.execute(
        "SELECT id, display_name, external_id FROM person WHERE message_count > 0").fetchall()
    for person, name, handle in rows:
        known = knowledge.get(person, PersonKnowledge())
        names = [name, *known.aliases]
        if handle and not handle.removeprefix("user").isdigit():  # Telegram's "user123…" is no name
            names.append(handle)
        best_named = 0.0
        for one_name in names:
            if not _may_hold(one_name, starts):
                continue
            name_terms = _name_terms(one_name)
            if name_terms and name_terms & query_all:
                share = len(name_terms & query_all) / len(name_terms)
                best_named = max(best_named, NAMED_BASE + NAMED_SPAN * share)
        if best_named:
            evidence.setdefault(person, PersonEvidence()).offer("named", best_named)
        known_text = " ".join((known.bio, *known.facts))
        if content and known_text.strip() and _may_hold(known_text, content_starts):
            found = content & set(stemmed_terms(known_text))
            if found:
                evidence.setdefault(person, PersonEvidence()).offer("known", KNOWN_WEIGHT * len(found) / len(content))


def person_knowledge(connection: sqlite3.Connection) -> dict[int, PersonKnowledge]:
    """What is known of each person beyond their messages: aliases, bio and active facts (the
    Archivist's or the person's own); empty before any. A read-only store of a schema older
    than the facts' (it cannot be migrated in place) knows nothing."""
    try:
        people = connection.execute(
            "SELECT id, aliases, bio FROM person WHERE message_count > 0 AND (aliases != '[]' OR bio != '')").fetchall()
        facts = connection.execute(
            "SELECT person_id, text FROM fact WHERE person_id IS NOT NULL AND state = 'active' "
            "ORDER BY person_id, pinned DESC, importance DESC, id").fetchall()
    except sqlite3.OperationalError:  # no such column / table: a store from before issue 33
        return {}
    known: dict[int, PersonKnowledge] = {}
    for person, aliases, bio in people:
        try:
            names = tuple(str(a) for a in json.loads(aliases or "[]") if str(a).strip())
        except (ValueError, TypeError):
            names = ()
        known[person] = PersonKnowledge(names, bio or "")
    by_person: dict[int, list[str]] = {}
    for person, text in facts:
        by_person.setdefault(person, []).append(text)
    for person, texts in by_person.items():
        base = known.get(person, PersonKnowledge())
        known[person] = PersonKnowledge(base.aliases, base.bio, tuple(texts))
    return known


def person_line(name: str, known: PersonKnowledge | None) -> str:
    """A person candidate's line for the rerankers: their name, and their bio when there is one
    (seed 003: people candidates carry their bios)."""
    if known is None or not known.bio.strip():
        return name
    return f"{name} — {' '.join(known.bio.split())}"
