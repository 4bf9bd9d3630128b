"""Step 2, search: every sub-query through stage 1, fused by reciprocal rank (k = 60, seed 002).

Each kind (topics, people, files) is fused on its own; a candidate keeps its best calibrated
score across sub-queries (what rerankers threshold), and the order is the fused one. Then:

- dates: a soft boost of the topics in the plan's range (engine.ask.dates.boost_in_range),
  never a cut: a wrong parse must not hide the answer;
- chats: a filter only when the question itself names the chat (the plan's pick alone is a
  guess); a filter that leaves no topic is dropped and the search runs over every chat;
- people: topics where a person the question names wrote, only when some are among the
  candidates (never an empty list from a filter).
A plan the person gave (source "user", the window's chips) names its chats and people on
purpose: each of them counts as named by the question.

The user's own filters (`AskSettings.retrieval`: --chat, --since, --until) stay hard.
"""

from __future__ import annotations

import dataclasses
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.ask.dates import boost_in_range, topic_spans
from engine.ask.types import Plan
from engine.errors import CancelToken
from engine.messages import Message
from engine.retrieval.candidate import KINDS, Candidate
from engine.retrieval.fusion import reciprocal_rank_fusion
from engine.retrieval.search import RetrievalSettings, Stage1Result
from engine.store.sql import select_in

_WORD = re.compile(r"[^\W_]{3,}")


@dataclass
class Found:
    candidates: list[Candidate]
    detail: dict[str, Any] = field(default_factory=dict)  # per sub-query counts, filters, boost: for the trace
    notes: list[Message | str] = field(default_factory=list)  # stage 1's own (a stand-in index, calibration)


def fuse(results: Sequence[Stage1Result], k: int = 60, limits: dict[str, int] | None = None) -> list[Candidate]:
    """The candidates of several stage-1 runs as one list: RRF order per kind, best score, ranks renumbered."""
    fused: list[Candidate] = []
    for kind in KINDS:
        rankings = [[c.id for c in result.candidates if c.kind == kind] for result in results]
        best: dict[int, Candidate] = {}
        for result in results:
            for candidate in result.candidates:
                if candidate.kind == kind and (candidate.id not in best or candidate.score > best[candidate.id].score):
                    best[candidate.id] = candidate
        order = [item for item, _ in reciprocal_rank_fusion(rankings, k)]
        if limits and kind in limits:
            order = order[: limits[kind]]
        fused.extend(dataclasses.replace(best[item], rank=rank) for rank, item in enumerate(order, 1))
    return fused


def confident_chats(plan: Plan, question: str, chats: dict[str, int] | Any) -> tuple[list[str], list[str]]:
    """(chats the question names, chats only the plan named): a word of 3+ letters of the
    chat's name in the question, or the whole name. A person's own plan names them all."""
    if plan.source == "user":
        return list(plan.chats), []
    asked = question.casefold()
    words = set(_WORD.findall(asked))
    named: list[str] = []
    guessed: list[str] = []
    for name in plan.chats:
        own = {w for w in _WORD.findall(name.casefold())}
        (named if name.casefold() in asked or own & words else guessed).append(name)
    return named, guessed


def run_searches(stage1: Callable[[str, RetrievalSettings], Stage1Result], queries: Sequence[str],
                 settings: RetrievalSettings, cancel: CancelToken | None) -> list[Stage1Result]:
    """Blocking (a worker thread): one stage 1 per sub-query, the cancel checked between them."""
    results = []
    for query in queries:
        if cancel is not None:
            cancel.raise_if_cancelled()
        results.append(stage1(query, settings))
    return results


def search_plan(stage1: Callable[[str, RetrievalSettings], Stage1Result], plan: Plan, question: str,
                chats: dict[str, int], base: RetrievalSettings, *, connect: Callable[[], sqlite3.Connection],
                rrf_k: int = 60, extra_queries: Sequence[str] = (), cancel: CancelToken | None = None) -> Found:
    """Step 2 for `plan` (blocking: the flow runs it in a thread)."""
    queries = list(dict.fromkeys([*plan.subqueries, *extra_queries]))
    detail: dict[str, Any] = {"queries": queries, "filters": {}}
    settings = base
    named, guessed = confident_chats(plan, question, chats)
    if named and not base.chat_ids:
        settings = dataclasses.replace(base, chat_ids=tuple(chats[name] for name in named))
        detail["filters"]["chats"] = named
    if guessed:
        detail["filters"]["chats_not_applied"] = guessed
    results = run_searches(stage1, queries, settings, cancel)
    if settings is not base and not any(c.kind == "topic" for r in results for c in r.candidates):
        detail["filters"]["chats_dropped"] = "no topic in the named chats: searched every chat"
        detail["filters"].pop("chats", None)
        results = run_searches(stage1, queries, base, cancel)
    detail["per_query"] = {r.query: sum(1 for c in r.candidates if c.kind == "topic") for r in results}
    detail["stage1_ms"] = round(sum(r.timings_ms.get("total", 0.0) for r in results), 2)
    limits = {"topic": max(base.candidates, 1), "person": base.people, "artifact": base.artifacts}
    candidates = fuse(results, rrf_k, limits)
    if plan.people:
        candidates = _people_filter(candidates, plan, question, connect, detail)
    if plan.date_range is not None:
        before = [c.id for c in candidates if c.kind == "topic"]
        connection = connect()
        try:  # each topic's whole span, not only its first day
            spans = topic_spans(connection, before)
        finally:
            connection.close()
        candidates = boost_in_range(candidates, plan.date_range, spans=spans)
        inside = [t for t in before if t in spans and plan.date_range.overlaps(*spans[t])]
        detail["date_boost"] = {"range": plan.date_range.as_dict(), "in_range": inside,
                                "moved": before != [c.id for c in candidates if c.kind == "topic"]}
    notes: list[Message | str] = []  # each once (a Message is not hashable: its parameters are a dict)
    for note in (n for r in results for n in r.rebuilt.values()):
        if note not in notes:
            notes.append(note)
    return Found(candidates, detail, notes)


def _people_filter(candidates: list[Candidate], plan: Plan, question: str,
                   connect: Callable[[], sqlite3.Connection], detail: dict[str, Any]) -> list[Candidate]:
    asked = question.casefold()
    named = list(plan.people) if plan.source == "user" else [p for p in plan.people if p.casefold() in asked]
    if not named:
        detail["filters"]["people_not_applied"] = list(plan.people)
        return candidates
    topics = [c.id for c in candidates if c.kind == "topic"]
    if not topics:
        return candidates
    connection = connect()
    try:
        wrote = {row[0] for name in named for row in select_in(
            connection, "SELECT DISTINCT topic_id FROM message WHERE author LIKE ? AND topic_id IN ({ids})",
            topics, (f"%{name}%",))}
    finally:
        connection.close()
    if not wrote:
        detail["filters"]["people_not_applied"] = named
        return candidates
    detail["filters"]["people"] = named
    kept = [c for c in candidates if c.kind != "topic" or c.id in wrote]
    rank = 0
    renumbered = []
    for candidate in kept:
        if candidate.kind == "topic":
            rank += 1
            candidate = dataclasses.replace(candidate, rank=rank)
        renumbered.append(candidate)
    return renumbered
