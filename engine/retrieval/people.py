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
- **related**: the query asks after a relation ("what does my sister do?", "чем занимается
  моя сестра?") and what is known says who that is: an owner's fact naming them with the
  word ("My sister Lena…": 0.85), or their own bio, aliases or facts holding it ("Alice's
  sister": 0.75). A person known only through such facts (someone talked about, never in
  the chats) is a candidate too, by the facts' messages.

A person candidate carries the facts the query is about, each with the ids of the messages
that state it, so Flash reads them in turn 1 and every face can quote them: the facts
sharing the query's words, then, when the query names or relates to the person, their most
important others.
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
RELATED_BY_OWNER = 0.85  # the owner's own fact says who the relation is
RELATED_BY_KNOWN = 0.75  # the person's bio, alias or facts hold the relation word
FACTS_SHOWN = 3  # facts on a candidate's line (Flash caps a line at 200 characters)
BIO_CHARS_WITH_FACTS = 80
# Words for how someone stands to the owner, English and Russian; matched stemmed ("сестры" is
# "сестра"), so a question's relation word finds the person the facts or circle name by it.
RELATION_WORDS = (
    "sister", "brother", "mother", "mom", "mum", "father", "dad", "wife", "husband", "son", "daughter",
    "grandmother", "grandma", "grandfather", "grandpa", "aunt", "uncle", "cousin", "niece", "nephew",
    "girlfriend", "boyfriend", "partner", "fiance", "fiancee", "boss", "colleague", "coworker", "manager",
    "friend", "neighbour", "neighbor", "roommate", "flatmate",
    "сестра", "брат", "мама", "мать", "папа", "отец", "жена", "муж", "сын", "дочь", "дочка", "бабушка",
    "дедушка", "тётя", "тетя", "дядя", "племянница", "племянник", "девушка", "парень", "жених", "невеста",
    "начальник", "начальница", "коллега", "друг", "подруга", "сосед", "соседка")
RELATION_STEMS = frozenset(stem for word in RELATION_WORDS for stem in stemmed_terms(word))


@dataclass(frozen=True)
class KnownFact:
    """A fact as a person candidate carries it: its text and the messages that state it."""

    id: int
    text: str
    message_ids: tuple[int, ...] = ()
    by_owner: bool = False  # the owner's fact naming this person ("My sister Lena teaches piano")


@dataclass(frozen=True)
class PersonKnowledge:
    """What is known of one person apart from their messages: other names and a bio with facts
    (`facts` their texts; `known_facts` the same with their messages, then the owner's facts
    that name them)."""

    aliases: tuple[str, ...] = ()
    bio: str = ""
    facts: tuple[str, ...] = ()
    known_facts: tuple[KnownFact, ...] = ()
    message_count: int = 1  # 0: known only through facts, never in the chats

    def matching(self, query: str, everything: bool) -> list[KnownFact]:
        """The facts sharing the query's content words, then (`everything`: the query is about
        this person) the most important others; at most FACTS_SHOWN."""
        wanted = set(query_terms(query))
        hits = [f for f in self.known_facts if wanted & set(stemmed_terms(f.text))]
        rest = [f for f in self.known_facts if f not in hits] if everything else []
        return [*hits, *rest][:FACTS_SHOWN]


@dataclass
class PersonEvidence:
    """Why a person is a candidate: the best score and which reason gave it."""

    score: float = 0.0
    reason: str = ""  # "said" | "named" | "known" | "related"
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
        "SELECT id, display_name, external_id, message_count FROM person WHERE is_self = 0 OR message_count > 0"
    ).fetchall()
    relations = query_all & RELATION_STEMS
    for person, name, handle, count in rows:
        if not count and not knowledge.get(person, PersonKnowledge()).known_facts:
            continue  # a row merged away, or a name with nothing known: nothing to find them by
        known = knowledge.get(person, PersonKnowledge())
        if relations:
            related = _related(known, relations)
            if related:
                evidence.setdefault(person, PersonEvidence()).offer("related", related)
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


def _related(known: PersonKnowledge, relations: set[str]) -> float:
    """How surely what is known says this person is the relation the query asks after."""
    if any(f.by_owner and relations & set(stemmed_terms(f.text)) for f in known.known_facts):
        return RELATED_BY_OWNER
    own = " ".join((known.bio, *known.aliases, *(f.text for f in known.known_facts if not f.by_owner)))
    return RELATED_BY_KNOWN if own.strip() and relations & set(stemmed_terms(own)) else 0.0


def person_knowledge(connection: sqlite3.Connection) -> dict[int, PersonKnowledge]:
    """What is known of each person beyond their messages: aliases, bio and active facts (the
    Archivist's or the person's own, each with its messages), and the owner's facts that name
    them; empty before any. A read-only store of a schema older than the facts' (it cannot be
    migrated in place) knows nothing."""
    try:
        people = connection.execute(
            "SELECT id, aliases, bio, message_count FROM person WHERE is_self = 0 "
            "AND (aliases != '[]' OR bio != '' OR id IN (SELECT person_id FROM fact WHERE state = 'active'))"
        ).fetchall()
        facts = connection.execute(
            "SELECT f.id, f.person_id, f.text, (SELECT group_concat(fm.message_id) FROM fact_message fm "
            "WHERE fm.fact_id = f.id) FROM fact f WHERE f.state = 'active' "
            "ORDER BY f.person_id, f.pinned DESC, f.importance DESC, f.id").fetchall()
    except sqlite3.OperationalError:  # no such column / table: a store from before issue 33
        return {}
    known: dict[int, PersonKnowledge] = {}
    for person, aliases, bio, count in people:
        try:
            names = tuple(str(a) for a in json.loads(aliases or "[]") if str(a).strip())
        except (ValueError, TypeError):
            names = ()
        known[person] = PersonKnowledge(names, bio or "", message_count=count or 0)
    by_person: dict[int, list[KnownFact]] = {}
    owners: list[KnownFact] = []
    for fact_id, person, text, cited in facts:
        ids = tuple(sorted(int(i) for i in (cited or "").split(",") if i))
        if person is None:
            owners.append(KnownFact(fact_id, text, ids, by_owner=True))
        else:
            by_person.setdefault(person, []).append(KnownFact(fact_id, text, ids))
    for person, named in _named_in(connection, owners).items():
        by_person.setdefault(person, []).extend(named)
    for person, found in by_person.items():
        base = known.get(person)
        if base is None:  # only the owner's facts name them: a person of the chats with nothing else known
            row = connection.execute("SELECT message_count FROM person WHERE id = ?", (person,)).fetchone()
            base = PersonKnowledge(message_count=row[0] if row else 0)
        known[person] = PersonKnowledge(base.aliases, base.bio, tuple(f.text for f in found if not f.by_owner),
                                        tuple(found), base.message_count)
    return known


def _named_in(connection: sqlite3.Connection, facts: Sequence[KnownFact]) -> dict[int, list[KnownFact]]:
    """Person → the owner's facts that name them (every term of their name or of an alias)."""
    if not facts:
        return {}
    stems = [set(stemmed_terms(f.text)) for f in facts]
    starts = {t[:3] for found in stems for t in found if len(t) > 1}
    named: dict[int, list[KnownFact]] = {}
    for person, name, aliases in connection.execute(
            "SELECT id, display_name, aliases FROM person WHERE is_self = 0").fetchall():
        try:
            others = [str(a) for a in json.loads(aliases or "[]")]
        except (ValueError, TypeError):
            others = []
        for one_name in (name, *others):
            if not _may_hold(one_name, starts):  # stem a name only when a fact may hold it
                continue
            terms = _name_terms(one_name)
            hits = [f for f, found in zip(facts, stems, strict=True) if terms and terms <= found]
            if hits:
                named[person] = list(dict.fromkeys([*named.get(person, []), *hits]))
    return named


def person_line(name: str, known: PersonKnowledge | None, query: str = "", about_them: bool = False) -> str:
    """A person candidate's line for the rerankers: their name, their bio when there is one
    (seed 003: people candidates carry their bios), and the facts the query is about with the
    messages that state them (`about_them`: the query names or relates to them)."""
    if known is None:
        return name
    facts = known.matching(query, about_them) if query else []
    bio = " ".join(known.bio.split())
    if facts:  # a bio rebuilt from facts would say the shown ones twice
        shown = {" ".join(f.text.split()).rstrip(".").casefold() for f in facts}
        bio = "; ".join(part for part in bio.rstrip(".").split("; ") if part.casefold() not in shown)
    if facts and len(bio) > BIO_CHARS_WITH_FACTS:
        bio = bio[: BIO_CHARS_WITH_FACTS - 1].rstrip() + "…"
    line = f"{name} — {bio}" if bio else name
    if facts:
        line += " | facts: " + "; ".join(_fact_text(f) for f in facts)
    return line


def _fact_text(fact: KnownFact) -> str:
    said = " ".join(fact.text.split())
    return f"{said} [messages {', '.join(map(str, fact.message_ids))}]" if fact.message_ids else said
