"""`flashback eval QRELS.json`: run every judged query through search and score the rankings.

QRELS name messages by the export's own ids (`chat`, `message` = the JSONL `chat`/`id`),
so judgements survive re-imports; they are mapped to topics through the store. A topic
ranking is the reranker's selection first, then the remaining candidates in stage-1 order
(with no reranker: stage 1's order), which is also how the evidence budget is filled.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from engine.evaluation.metrics import QueryOutcome, summarise
from engine.evaluation.qrels import JudgedQuery, QrelsError, load_qrels, message_topics, resolve_messages
from engine.rerank.base import RerankResult
from engine.retrieval.search import Stage1Result

__all__ = ["JudgedQuery", "QrelsError", "SearchFn", "evaluate", "load_qrels"]  # QRELS names live in qrels.py


def _message_topics(connection: sqlite3.Connection, queries: list[JudgedQuery]) -> dict[tuple[str, str], int | None]:
    """(chat, message) → its topic in the current build; None when the store lacks it or it is in no topic."""
    messages = resolve_messages(connection, (pair for query in queries for pair in query.relevant))
    topics = message_topics(connection, (m for m in messages.values() if m is not None))
    return {pair: (topics.get(m) if m is not None else None) for pair, m in messages.items()}


# A judged query (its text and its own filters) → stage 1 and the reranker's result, if any.
SearchFn = Callable[[JudgedQuery], tuple[Stage1Result, RerankResult | None]]


def evaluate(connection: sqlite3.Connection, queries: list[JudgedQuery], search: SearchFn,
             on_progress: Callable[[int, int], None] | None = None) -> dict:
    message_topic = _message_topics(connection, queries)
    unknown = sum(1 for topic in message_topic.values() if topic is None)
    topic_chars = dict(connection.execute("SELECT id, size_chars FROM topic").fetchall())
    outcomes: list[QueryOutcome] = []
    for done, query in enumerate(queries, 1):
        stage1, reranked = search(query)
        candidates = [c.id for c in stage1.candidates if c.kind == "topic"]
        chosen = reranked.selected_ids("topic") if reranked is not None else []
        ranking = list(dict.fromkeys(chosen + candidates))
        evidence = tuple(message_topic[pair] for pair in query.relevant)
        relevant = frozenset(t for t in evidence if t is not None)
        outcomes.append(QueryOutcome(query.category, ranking, relevant, evidence,
                                     stage1.timings_ms.get("total", 0.0),
                                     tuple(chosen) if reranked is not None else None))
        if on_progress:
            on_progress(done, len(queries))
    categories = sorted({o.category for o in outcomes})
    return {
        "metrics": summarise(outcomes, topic_chars),
        "by_category": {c: summarise([o for o in outcomes if o.category == c], topic_chars) for c in categories},
        "unmatched_messages": unknown,
    }
