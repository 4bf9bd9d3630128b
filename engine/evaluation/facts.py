"""The Archivist measured on LoCoMo (issue 33, `flashback eval-facts`).

LoCoMo conversations are imported into a store of their own (never the person's), topics are
built as a build makes them, and the topics (all, or the first `limit_topics`) are read
through the real extraction path (`engine.facts.extract.run` with the chat model at the
given endpoint: the real prompt, schema, checks and writes). Then, against LoCoMo's
observations (`engine.evaluation.facts_locomo`):

- fact recall: gold observations matched by a kept fact / gold observations whose evidence
  lies in a topic that was read. Matched by the verifier (`engine.support.check`: a fact
  about the same person whose text, said by them, holds what the observation says) or, given a judge model, by the
  judge (one schema-constrained call per topic); `matcher` says which. A gold observation is
  compared with the facts read from the topics holding its evidence.
- provenance precision: of the messages cited by matched facts, the share among the evidence
  of the observations they match; `provenance_on_gold_turns`: of every kept fact's messages,
  the share that is evidence of some observation of its conversation.
- unsupported: facts the checks refused (the verifier found them in none of their messages,
  or they cited a message outside the topic), and kept facts the verifier does not find in
  their own messages (`kept_unsupported`: 0 unless a check is broken).
- protocol: every call timed, its error kept; `provenance_not_real` counts cited ids that are
  no message of the fact's topic (0 unless a check is broken).
- tokens per topic, as the endpoint reported them (None when no topic was read), and the
  engine's own count of each prompt sent (`calls`), which a call cut short still has.
"""

from __future__ import annotations

import sqlite3
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.errors import CancelToken
from engine.evaluation.facts_locomo import Conversation, GoldFact, load_samples, write_export
from engine.facts.extract import ModelReply, bounds_for, run, unread_topics
from engine.llm.presets import Endpoint
from engine.support import Evidence, check
from engine.text.tokens import estimate_tokens

Progress = Callable[[int, int], None]
CallModel = Callable[[str, str, dict[str, Any]], ModelReply]


@dataclass
class CallLog:
    """Every model call of a run: how long it took and whether it gave something usable."""

    seconds: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    prompt_estimates: list[int] = field(default_factory=list)  # the engine's count of each prompt sent

    def timed(self, call: CallModel) -> CallModel:
        def timed_call(system: str, user: str, schema: dict[str, Any]) -> ModelReply:
            self.prompt_estimates.append(estimate_tokens(system) + estimate_tokens(user))
            started = time.perf_counter()
            reply = call(system, user, schema)
            self.seconds.append(time.perf_counter() - started)
            if reply.value is None:
                self.errors[(reply.error or "no value")[:80]] += 1
            return reply
        return timed_call

    def as_dict(self) -> dict[str, Any]:
        seconds = self.seconds
        return {"calls": len(seconds), "completed": len(seconds) - sum(self.errors.values()),
                "failed": sum(self.errors.values()), "errors": dict(self.errors),
                "seconds_total": round(sum(seconds), 2),
                "seconds_median": round(statistics.median(seconds), 2) if seconds else None,
                "seconds_max": round(max(seconds), 2) if seconds else None,
                "prompt_tokens_estimate_median": statistics.median(self.prompt_estimates) if seconds else None,
                "prompt_tokens_estimate_max": max(self.prompt_estimates) if seconds else None}


@dataclass(frozen=True)
class KeptFact:
    id: int
    chat: str
    subject: str  # who it is about, by name (the owner's name for the owner's facts)
    text: str
    topic_id: int | None
    message_ids: tuple[int, ...]


@dataclass
class FactsEvaluation:
    """What `evaluate_facts` measured: see the module docstring for each figure."""

    model: str
    matcher: str  # "verifier" or "judge:<model>"
    conversations: list[str]
    topics_total: int
    topics_read: int
    topics_failed: int
    stopped: str | None
    gold_observations: int
    gold_in_read_topics: int
    gold_matched: int
    facts_kept: int
    facts_updated: int
    facts_removed: int
    refused_unsupported: int
    refused_secret: int
    people_added: int
    kept_unsupported: int
    provenance_ids: int
    provenance_not_real: int
    fact_recall: float | None
    provenance_precision: float | None
    provenance_on_gold_turns: float | None
    prompt_tokens_per_topic: float | None
    reply_tokens_per_topic: float | None
    calls: dict[str, Any]
    judge_calls: dict[str, Any] | None
    seconds: float
    facts: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def kept_facts(connection: sqlite3.Connection, owners: dict[str, str]) -> list[KeptFact]:
    rows = connection.execute(
        "SELECT f.id, c.title, p.display_name, f.text, f.topic_id, "
        "(SELECT group_concat(fm.message_id) FROM fact_message fm WHERE fm.fact_id = f.id) "
        "FROM fact f LEFT JOIN person p ON p.id = f.person_id LEFT JOIN topic t ON t.id = f.topic_id "
        "LEFT JOIN chat c ON c.id = t.chat_id WHERE f.state = 'active' ORDER BY f.id").fetchall()
    return [KeptFact(r[0], r[1] or "", r[2] or owners.get(r[1] or "", ""), r[3], r[4],
                     tuple(int(i) for i in (r[5] or "").split(",") if i)) for r in rows]


def same_subject(gold: GoldFact, fact: KeptFact) -> bool:
    """A fact may match an observation only when it is about the observation's speaker, or
    about someone the observation names (the verifier alone lets "Teaches yoga" said of Bob
    match "Alice teaches yoga": two of its three words are there)."""
    subject = fact.subject.casefold()
    return bool(subject) and (subject == gold.speaker.casefold() or subject in gold.text.casefold())


def verifier_matches(gold: GoldFact, candidates: Sequence[KeptFact]) -> list[int]:
    """The facts about the same person whose text, said by them, holds what the observation says."""
    return [fact.id for fact in candidates if same_subject(gold, fact)
            and check(gold.text, [Evidence(fact.text, author=fact.subject)], question="").supported]


def evaluate_facts(locomo: Path, endpoint: Endpoint, work_dir: Path, *, chats: list[str] | None = None,
                   first: int | None = None, limit_topics: int | None = None, timeout: float | None = None,
                   judge: Endpoint | None = None, on_progress: Progress | None = None,
                   cancel: CancelToken | None = None) -> FactsEvaluation:
    """Import LoCoMo conversations into a new store under `work_dir`, read their topics with the
    model at `endpoint`, and score the facts kept against the observations (blocking)."""
    from engine.facts.model import DEFAULT_TIMEOUT_S, ArchivistModel
    from engine.importers.runner import import_path
    from engine.store.database import connect, db_path
    from engine.topics.builder import build_topics
    from engine.topics.settings import TopicSettings

    started = time.perf_counter()
    samples = load_samples(locomo, chats, first)
    store = work_dir / "store"
    export = work_dir / "locomo.jsonl"
    conversations = write_export(samples, export)
    import_path(store, export)
    connection = connect(db_path(store))
    try:
        build_topics(connection, settings=TopicSettings())
        todo = unread_topics(connection)
        chosen = todo[:limit_topics] if limit_topics is not None else todo
        log = CallLog()
        with ArchivistModel(endpoint, timeout=timeout or DEFAULT_TIMEOUT_S) as model:
            report = run(connection, log.timed(model), topic_ids=chosen, on_progress=on_progress, cancel=cancel,
                         bounds=bounds_for(endpoint.is_local))
        judge_log = CallLog() if judge is not None else None
        scored = _score(connection, conversations, judge, judge_log, timeout)
    finally:
        connection.close()
    topics = max(1, report.topics_read + report.topics_failed)
    return FactsEvaluation(
        model=endpoint.default_model, matcher=f"judge:{judge.default_model}" if judge else "verifier",
        conversations=[c.chat for c in conversations], topics_total=len(todo), topics_read=report.topics_read,
        topics_failed=report.topics_failed, stopped=report.stopped,
        gold_observations=sum(len(c.gold) for c in conversations), facts_updated=report.facts_updated,
        facts_removed=report.facts_removed, refused_unsupported=report.facts_refused_unsupported,
        refused_secret=report.facts_refused_secret, people_added=report.people_added,
        prompt_tokens_per_topic=round(report.tokens_in / topics, 1) if report.topics_read else None,
        reply_tokens_per_topic=round(report.tokens_out / topics, 1) if report.topics_read else None,
        calls=log.as_dict(), judge_calls=judge_log.as_dict() if judge_log else None,
        seconds=round(time.perf_counter() - started, 2), **scored)


def _score(connection: sqlite3.Connection, conversations: Sequence[Conversation], judge: Endpoint | None,
           judge_log: CallLog | None, timeout: float | None) -> dict[str, Any]:
    owners = {c.chat: c.owner for c in conversations}
    facts = kept_facts(connection, owners)
    turn_of: dict[int, tuple[str, str]] = {}
    topic_of: dict[int, int | None] = {}
    said: dict[int, Evidence] = {}
    for message_id, chat, turn, topic_id, text, author, sent_at in connection.execute(
            "SELECT m.id, c.title, m.external_id, m.topic_id, m.text, m.author, m.sent_at FROM message m "
            "JOIN chat c ON c.id = m.chat_id"):
        turn_of[message_id], topic_of[message_id] = (chat, turn), topic_id
        said[message_id] = Evidence(text or "", datetime.fromtimestamp(sent_at, UTC), author or "")
    id_of = {value: key for key, value in turn_of.items()}
    read = {row[0] for row in connection.execute("SELECT id FROM topic WHERE facts_extracted = 1")}

    def topics_of(gold: GoldFact) -> set[int]:
        ids = (id_of.get((gold.chat, turn)) for turn in gold.evidence)
        return {t for t in (topic_of.get(i) for i in ids if i is not None) if t is not None}

    in_scope = [(gold, topics_of(gold) & read) for c in conversations for gold in c.gold]
    in_scope = [(gold, topics) for gold, topics in in_scope if topics]
    if judge is not None:
        from engine.evaluation.facts_judge import judge_matches

        assert judge_log is not None
        matches = judge_matches(judge, in_scope, facts, judge_log, timeout)
    else:
        matches = {n: verifier_matches(gold, [f for f in facts if f.topic_id in topics])
                   for n, (gold, topics) in enumerate(in_scope)}
    # provenance of matched facts against the evidence of the observations they match
    evidence_of: dict[int, set[int]] = {}
    for n, fact_ids in matches.items():
        gold = in_scope[n][0]
        for fact_id in fact_ids:
            evidence_of.setdefault(fact_id, set()).update(
                i for i in (id_of.get((gold.chat, turn)) for turn in gold.evidence) if i is not None)
    by_id = {fact.id: fact for fact in facts}
    matched_cited = [(i, fact_id) for fact_id in evidence_of for i in by_id[fact_id].message_ids]
    precise = sum(1 for i, fact_id in matched_cited if i in evidence_of[fact_id])
    gold_turns = {(g.chat, turn) for c in conversations for g in c.gold for turn in g.evidence}
    cited = [i for fact in facts for i in fact.message_ids]
    not_real = sum(1 for fact in facts for i in fact.message_ids if topic_of.get(i, -1) != fact.topic_id)
    kept_unsupported = sum(1 for fact in facts if not check(
        fact.text, [said[i] for i in fact.message_ids if i in said], question="").supported)
    matched = sum(1 for fact_ids in matches.values() if fact_ids)
    return {"gold_in_read_topics": len(in_scope), "gold_matched": matched, "facts_kept": len(facts),
            "kept_unsupported": kept_unsupported, "provenance_ids": len(cited), "provenance_not_real": not_real,
            "fact_recall": _ratio(matched, len(in_scope)),
            "provenance_precision": _ratio(precise, len(matched_cited)),
            "provenance_on_gold_turns": _ratio(sum(1 for i in cited if turn_of.get(i) in gold_turns), len(cited)),
            "facts": [{"id": f.id, "about": f.subject, "text": f.text,
                       "turns": [turn_of.get(i, ("", "?"))[1] for i in f.message_ids]} for f in facts]}

