"""Stage 1 once per labelled query, frozen: what sweeps, the tuner and the Evaluate view re-cut.

A `FrozenQuery` holds one query's stage-1 topic candidates (ids, scores, sizes in stage-1
order) with the topics its labels make relevant in the current build. Everything the
threshold reranker can do to it is then arithmetic on these arrays: no new search.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cached_property

from engine.errors import Cancelled, CancelToken
from engine.evaluation.labels import LabelledQuery
from engine.evaluation.qrels import JudgedQuery, QueryFilters, message_topics, resolve_messages
from engine.retrieval.search import RetrievalSettings, Stage1Result, day_bounds
from engine.store.database import connect, db_path


class EvaluationCancelled(Cancelled):
    """The user stopped a run over the labelled queries; nothing was stored by it."""

    code = "evaluation.cancelled"


@dataclass(frozen=True)
class Target:
    """One judged query in store terms: its relevant messages by store id."""

    key: str  # the QRELS id, or label-<n> for a label made in the window
    query: str
    filters: QueryFilters
    category: str
    relevant_messages: tuple[int, ...]
    label_id: int | None = None  # the label_query row, when it came from the store
    created_at: float | None = None


@dataclass(frozen=True)
class FrozenQuery:
    target: Target
    topics: tuple[int, ...]  # stage-1 topic candidates, stage-1 order
    scores: tuple[float, ...]
    chars: tuple[int, ...]
    relevant: frozenset[int]  # every topic holding a relevant message (candidates or not)
    evidence: tuple[int | None, ...]  # the topic of each relevant message (None: in no topic)
    stage1: Stage1Result | None = None  # kept for Flash and for opening the query in the search view

    @property
    def scorable(self) -> bool:
        return bool(self.relevant)

    @cached_property
    def by_score(self) -> tuple[tuple[int, ...], tuple[float, ...]]:
        """Positions best score first (stable, as the threshold reranker sorts) and those scores;
        sorted once, then every slider step reuses it."""
        order = tuple(sorted(range(len(self.scores)), key=lambda i: -self.scores[i]))
        return order, tuple(self.scores[i] for i in order)


def targets_from_labels(queries: Sequence[LabelledQuery]) -> list[Target]:
    return [Target(q.key, q.query, q.filters, q.category, tuple(sorted(q.relevant)), q.id, q.created_at)
            for q in queries]


def targets_from_qrels(connection: sqlite3.Connection, judged: Sequence[JudgedQuery]) -> tuple[list[Target], int]:
    """The judged queries in store terms, and how many of their messages the store lacks."""
    messages = resolve_messages(connection, (p for q in judged for p in q.relevant))
    targets = [Target(q.id, q.query, q.filters, q.category,
                      tuple(dict.fromkeys(m for m in (messages[p] for p in q.relevant) if m is not None)))
               for q in judged]
    return targets, sum(1 for m in messages.values() if m is None)


def filters_of(settings: RetrievalSettings) -> QueryFilters:
    """The filters a search ran with, as a labelled query keeps them (whole UTC days)."""
    def day(epoch: float | None) -> str | None:
        return datetime.fromtimestamp(epoch, UTC).date().isoformat() if epoch is not None else None

    return QueryFilters(tuple(settings.chat_ids), day(settings.date_from), day(settings.date_to))


def retrieval_for(settings: RetrievalSettings, filters: QueryFilters) -> RetrievalSettings:
    """The search settings with a labelled query's own filters in place of the current ones."""
    date_from, date_to = day_bounds(filters.since, filters.until)
    return replace(settings, chat_ids=tuple(filters.chat_ids), date_from=date_from, date_to=date_to)


def freeze_one(target: Target, stage1: Stage1Result, topic_of: dict[int, int | None]) -> FrozenQuery:
    topics = [c for c in stage1.candidates if c.kind == "topic"]
    evidence = tuple(topic_of.get(m) for m in target.relevant_messages)
    return FrozenQuery(target, tuple(c.id for c in topics), tuple(c.score for c in topics),
                       tuple(c.chars for c in topics), frozenset(t for t in evidence if t is not None), evidence,
                       stage1)


Stage1Fn = Callable[[str, RetrievalSettings], Stage1Result]


def freeze(connection: sqlite3.Connection, targets: Sequence[Target], stage1: Stage1Fn,
           settings: RetrievalSettings, on_progress: Callable[[int, int], None] | None = None,
           cancel: CancelToken | None = None, cache: dict | None = None) -> list[FrozenQuery]:
    """Stage 1 for every target (with its own filters), frozen with its relevant topics.

    `cache` ((query, filters) → Stage1Result, for these `settings` only) spares the searches
    already made: a new label changes which topics are relevant, not the candidates."""
    topic_of = message_topics(connection, (m for t in targets for m in t.relevant_messages))
    cache = {} if cache is None else cache
    frozen = []
    for done, target in enumerate(targets, 1):
        if cancel is not None and cancel.cancelled:
            raise EvaluationCancelled()
        key = (target.query, target.filters.as_json())
        if key not in cache:
            cache[key] = stage1(target.query, retrieval_for(settings, target.filters))
        frozen.append(freeze_one(target, cache[key], topic_of))
        if on_progress is not None:
            on_progress(done, len(targets))
    return frozen


def freeze_with_service(service, targets: Sequence[Target], settings: RetrievalSettings | None = None,
                        on_progress: Callable[[int, int], None] | None = None,
                        cancel: CancelToken | None = None, cache: dict | None = None) -> list[FrozenQuery]:
    """`freeze` through the search sub-service (engine.api: anything with `candidates` and `data_dir`;
    blocking): each target searched by the one search pipeline."""
    settings = settings or RetrievalSettings()
    connection = connect(db_path(service.data_dir))

    def stage1(query: str, retrieval: RetrievalSettings) -> Stage1Result:
        return service.candidates(query, retrieval, client="evaluate")

    try:
        return freeze(connection, targets, stage1, settings, on_progress, cancel, cache)
    finally:
        connection.close()


def labelled_targets(service) -> list[Target]:
    """The store's labelled queries as targets (a quick read)."""
    from engine.evaluation.labels import labelled_queries

    connection = connect(db_path(service.data_dir))
    try:
        return targets_from_labels(labelled_queries(connection))
    finally:
        connection.close()
